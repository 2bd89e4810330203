"""Live significance dashboard: estimates, pairwise verdicts, labels still needed, exports.

The numbers come from estimators.report.campaign_report (arrays from db.reads.campaign); this
page only draws them, each panel from its own module (views/dashboard/).
The live part refreshes itself while annotators work and recomputes only when the
campaign's fingerprint (label count, last annotation id, scores, thresholds) changes.
"""

from __future__ import annotations

import time

import streamlit as st

from annotation.results.exports import export_annotations
from annotation.results.result_exports import pairs_csv, results_csv, results_latex
from db.reads.campaign import fingerprint
from db.reads.monitor_state import keep_from, resume_into
from db.schema.vocabulary import CampaignMode
from estimators.caches.monitor import MonitorCache
from estimators.caches.report import ReportCache
from estimators.data.campaign import (
    BINARY_KINDS,
    LABEL_KINDS,
    LabelKind,
    available_label_kinds,
    default_label_kind,
)
from estimators.report.campaign_report import (
    CampaignReport,
    dashboard_report,
    default_signatures,
    draws_width_paths,
)
from formats.writers import MIME
from metrics.imported import describe
from views.common import (
    campaign_data,
    chosen_campaign,
    download,
    engine,
    incremental,
    require_admin,
)
from views.dashboard.controls import draw_controls
from views.dashboard.document_scores import draw_document_scores
from views.dashboard.estimates import draw_estimates
from views.dashboard.pairs import draw_pairs
from views.dashboard.plan import draw_plan
from views.dashboard.position_bias import draw_position_bias
from views.dashboard.quality import draw_quality
from views.dashboard.sampling import draw_sampling
from views.dashboard.statistics_box import statistics_box, statistics_settings
from views.dashboard.wmt import draw_wmt

require_admin()
st.title("Dashboard")


@st.cache_resource(max_entries=16, show_spinner=False)
def monitor_cache(db: str, cid: int, kind: str | None, zscores: bool) -> MonitorCache:
    """The live monitor's analyses of one campaign and judgment kind, carried between reads
    by this server process (estimators/caches/monitor.py, estimators/live/carry.py). Entries are
    keyed by digests of each stream's settings and labels, so they never go stale: a read
    after a new label extends the states of the streams it touches (a label undone rolls
    them back) and reuses the rest. One per kind, so switching the judgment shown does not
    replace the other kind's states."""
    return MonitorCache()


@st.cache_resource(max_entries=16, show_spinner=False)
def report_cache(db: str, cid: int) -> ReportCache:
    """The report's per-system estimates and efficiency terms of one campaign, carried
    between reads by this server process (estimators/caches/report.py): keyed by digests of
    their inputs, so a read after one label recomputes one system's and its pairs' only."""
    return ReportCache()


@st.cache_data(max_entries=32, show_spinner=False)
def cached_campaign_report(
    db: str,
    cid: int,
    key: tuple[int, ...],
    kind: str | None,
    signatures: tuple[str, ...],
    alpha: float,
    zscores: bool = False,
) -> tuple[CampaignReport, float]:
    """(the dashboard's report, seconds it took), cached per fingerprint ``key`` and
    settings."""
    started = time.perf_counter()
    data = campaign_data(db, cid, key)
    cache, scope = monitor_cache(db, cid, kind, zscores), f"{kind}|z={int(zscores)}"
    # this process's first read resumes the carried states another read kept
    resume_into(engine(), cid, scope, cache)
    report = dashboard_report(
        data,
        label_kind=kind,
        zscores=zscores,
        signatures=signatures,
        alpha=alpha,
        monitor_cache=cache,
        report_cache=report_cache(db, cid) if incremental() else None,
    )
    keep_from(engine(), cid, scope, cache, whole_path=draws_width_paths(len(data.systems)))
    return report, time.perf_counter() - started


chosen = chosen_campaign()
if chosen is None:
    st.stop()
name, cid = chosen
key = fingerprint(engine(), cid)
db_url = str(engine().url)
data = campaign_data(db_url, cid, key)

if not data.systems or not data.item_ids:
    st.info("This campaign has no outputs yet. Append a campaign file on the **Import** page.")
    st.stop()
if data.mode == CampaignMode.PREFERENCE:  # pairs of outputs: views/dashboard/preference.py
    from views.dashboard.preference import draw_preference_page

    with st.sidebar:
        st.subheader("Dashboard settings")
        live = st.toggle("Refresh automatically", value=True, key="dash-live")
        statistics_box(cid, key)
    st.fragment(run_every=10 if live else None)(
        lambda: draw_preference_page(name, cid, fingerprint(engine(), cid))
    )()
    st.stop()

# ------------------------------------------------------------------ settings
kinds = available_label_kinds(data.judgments)
sig_names = {m.signature: describe(m.metric, m.signature) for m in data.metrics}
with st.sidebar:
    st.subheader("Dashboard settings")
    live = st.toggle("Refresh automatically", value=True, key="dash-live")
    every = st.select_slider("Every", options=[5, 10, 30, 60], value=10, key="dash-every",
                             format_func=lambda s: f"{s} s")  # fmt: skip
    # α is the campaign's (logged with the label count like every setting), not a
    # per-viewer choice: a level picked while looking at the verdicts would not hold
    alpha = data.live_plan.alpha
    statistics_box(cid, key)
kind = default_label_kind(data.mode, data.judgments)
if len(kinds) > 1:
    kind = st.selectbox("Judgment", kinds, index=kinds.index(kind),
                        format_func=LABEL_KINDS.get, key="dash-kind")  # fmt: skip
zscores = kind not in (None, *BINARY_KINDS) and st.toggle(
    "Per-annotator z-scores",
    value=False,
    key="dash-z",
    help="WMT's practice: each judgment as (score − its annotator's mean) / the annotator's "
    "sd. Estimates become system means of z (not of raw scores); the annotators' means and "
    "sds are estimated, so the intervals are approximate; z has no known range, so the live "
    "verdicts use the asympcs design.",
)
signatures: list[str] = []
if data.metrics:
    signatures = st.multiselect(
        "Metrics used as controls",
        list(sig_names),
        default=default_signatures(data),
        format_func=sig_names.get,
        key="dash-metrics",
        help="Control variates / PPI++ and the live monitor use all chosen metrics; the von "
        "Däniken columns the first one with a threshold. Choose before looking at results: "
        "the choice should not depend on which gives the nicest verdicts.",
    )
else:
    st.info(
        "No metric scores yet, so only human-only estimates are shown. Use the **Score** "
        "button on the **Campaigns** page to add control variates / PPI++ and the von "
        "Däniken estimators."
    )


# ------------------------------------------------------------------ metric visibility
def draw_metric_visibility(campaign: int) -> None:
    """Whether annotators saw the metrics used as controls (the recorded choice)."""
    from annotation.campaign.visibility import metric_visibility, visibility_statement

    st.caption(visibility_statement(metric_visibility(engine(), campaign)))


draw_metric_visibility(cid)


def live_part() -> None:
    # a full run read the fingerprint a moment ago (``key``); only the fragment's own
    # reruns (the auto-refresh) read it again
    fp = st.session_state.pop("dash-fresh-key", None) or fingerprint(engine(), cid)
    if statistics_settings(cid, fp) != statistics_settings(cid, key):
        st.rerun(scope="app")  # α / family changed in another tab: redraw the box and all
    report, seconds = cached_campaign_report(
        db_url, cid, fp, kind, tuple(signatures), alpha, zscores
    )
    if report.n_judgments == 0:
        st.info(
            "No human labels yet. Invite annotators (they label randomly drawn outputs), or "
            "import judgments with a campaign file (a `human_label` column). Estimates and "
            "verdicts appear here as labels arrive."
        )
        draw_quality(report, fp, cid, data.mode, db_url)
        return
    cols = st.columns(4)
    cols[0].metric("Human judgments", f"{report.n_judgments:,}")
    cols[1].metric("Labelled outputs", f"{report.n_labelled_outputs:,}",
                   help=f"of {len(report.systems) * report.n_items:,} in the pool")  # fmt: skip
    cols[2].metric("Systems", len(report.systems))
    decided = sum(p.decided for p in report.monitor.pairs) if report.monitor else 0
    cols[3].metric("Decided pairs", f"{decided} / {len(report.pair_rows())}")
    st.caption(f"Computed in {seconds:.2f} s; last checked {time.strftime('%H:%M:%S')}.")
    if zscores:  # the report ran on z as the "score" kind: name it as what it is
        z_name = f"the per-annotator z-scores of the {LABEL_KINDS[kind]}"
        st.caption(f"Judgment analysed: {z_name}. Estimates are system means of z; intervals "
                   "treat z as fixed (approximate).")  # fmt: skip
    for note in report.notes:
        if zscores:
            note = note.replace(LABEL_KINDS[LabelKind.SCORE], z_name)
        st.caption(f"Note: {note}")
    # the full run's arrays when the fingerprint is the same (each cached read is a copy)
    fresh = data if fp == key else campaign_data(db_url, cid, fp)
    draw_plan(report, fresh)
    draw_estimates(report)
    draw_pairs(
        report,
        cid,
        statistics_settings(cid, fp).export_columns(),  # WMT's beside
        beside=lambda: draw_wmt(report, fresh, cid, fp, kind, tuple(signatures)),
    )
    draw_sampling(report, cid)
    draw_quality(report, fp, cid, data.mode, db_url)
    draw_position_bias(cid, fp, alpha)  # comparative screens only
    draw_document_scores(cid, data.mode, alpha, fp)  # DA / SQM in document order only
    if not zscores:  # the controls panel reads the raw judgments
        draw_controls(fresh, fp, report.label_kind, alpha, db_url)

    st.subheader("Download results")
    c1, c2, c3 = st.columns(3)
    stats = statistics_settings(cid, fp)  # every export carries them
    # written when clicked, not on every run: the pairs' CSV alone (1,770 rows at 60
    # systems) cost 0.05–0.25 s of each refresh
    download(c1, "Results (CSV)", lambda: results_csv(report, stats), f"{name}-results.csv",
             MIME["csv"], key="dl-results-csv")  # fmt: skip
    download(c2, "Results (LaTeX)", lambda: results_latex(report, settings=stats),
             f"{name}-results.tex", MIME["tex"], key="dl-results-tex")  # fmt: skip
    download(c3, "Pairwise verdicts (CSV)", lambda: pairs_csv(report, stats),
             f"{name}-pairs.csv", MIME["csv"], key="dl-pairs-csv")  # fmt: skip


st.session_state["dash-fresh-key"] = key
st.fragment(run_every=every if live else None)(live_part)()

st.subheader("Download annotations")
st.caption("Current judgments with annotator, time and assignment position (random order).")
cols = st.columns(3)
for col, fmt_, label in zip(cols, ["csv", "jsonl", "parquet"], ["CSV", "JSONL", "Parquet"],
                            strict=True):  # fmt: skip
    download(
        col,
        f"Annotations ({label})",
        data=lambda f=fmt_: export_annotations(engine(), name, f),
        file_name=f"{name}-annotations.{fmt_}",
        mime=MIME[fmt_],
        key=f"dl-ann-{fmt_}",
    )
