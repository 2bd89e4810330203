"""Live significance dashboard: estimates, pairwise verdicts, labels still needed, exports.

The numbers come from estimators.report (arrays from db.reads); this page only draws them.
The live part refreshes itself while annotators work and recomputes only when the
campaign's fingerprint (label count, last annotation id, scores, thresholds) changes.
"""

from __future__ import annotations

import math
import time

import altair as alt
import pandas as pd
import streamlit as st

from annotation.exports import MIME, export_annotations, pairs_csv, results_csv, results_latex
from db.campaigns import list_campaigns
from db.reads import campaign_id, fingerprint
from estimators.campaign import LABEL_KINDS, available_label_kinds, default_label_kind
from estimators.report import METHODS, Unavailable, campaign_report, default_signatures
from views.common import annotator_work, campaign_data, campaign_picker, engine, require_admin

require_admin()
st.title("Dashboard")


@st.cache_data(max_entries=32, show_spinner=False)
def cached_campaign_report(  # type: ignore[no-untyped-def]
    db: str,
    cid: int,
    key: tuple[int, ...],
    kind: str | None,
    signatures: tuple[str, ...],
    alpha: float,
):
    """(campaign report, seconds it took), cached per fingerprint ``key`` and settings."""
    started = time.perf_counter()
    report = campaign_report(
        campaign_data(db, cid, key), label_kind=kind, signatures=list(signatures), alpha=alpha
    )
    return report, time.perf_counter() - started


#: Why an estimate column is empty, in the user's words.
UNAVAILABLE = {
    Unavailable.NO_METRIC: "no metric chosen (or no metric scores yet)",
    Unavailable.NO_THRESHOLD: "no threshold stored for the chosen metric(s): set one on the "
    "Calibration page",
    Unavailable.NEEDS_BINARY: "needs binary labels",
    Unavailable.CENSUS: "every output is labelled (a census): metric scores of unlabelled "
    "outputs are what control variates use, so they cannot add anything here",
    Unavailable.PROVIDED_NOT_SCORED: "the imported calibration set's metric has no scores in "
    "this campaign",
    Unavailable.MONITOR_REFUSED: "these labels allow no anytime-valid verdicts (see the note "
    "above)",
}


def fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def interval(r) -> str:  # type: ignore[no-untyped-def]
    return f"{fmt(r.estimate)} [{fmt(r.low)}, {fmt(r.high)}]"


summaries = list_campaigns(engine())
name = campaign_picker([c.name for c in summaries])
if not name:
    st.stop()
cid = campaign_id(engine(), name)
key = fingerprint(engine(), cid)
db_url = str(engine().url)
data = campaign_data(db_url, cid, key)

if not data.systems or not data.item_ids:
    st.info("This campaign has no outputs yet. Append a campaign file on the **Import** page.")
    st.stop()

# ------------------------------------------------------------------ settings
kinds = available_label_kinds(data.judgments)
sig_names = {m.signature: f"{m.metric} ({m.signature})" for m in data.metrics}
with st.sidebar:
    st.subheader("Dashboard settings")
    live = st.toggle("Refresh automatically", value=True, key="dash-live")
    every = st.select_slider("Every", options=[5, 10, 30, 60], value=10, key="dash-every",
                             format_func=lambda s: f"{s} s")  # fmt: skip
    alpha = st.select_slider("Family-wise α", options=[0.01, 0.05, 0.1], value=0.05,
                             key="dash-alpha")  # fmt: skip
kind = default_label_kind(data.mode, data.judgments)
if len(kinds) > 1:
    kind = st.selectbox("Judgment", kinds, index=kinds.index(kind),
                        format_func=LABEL_KINDS.get, key="dash-kind")  # fmt: skip
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
        "No metric scores yet, so only human-only estimates are shown. Score the campaign "
        f'(`python cli.py score --campaign "{name}"`) to add control variates / PPI++ and '
        "the von Däniken estimators."
    )


# ------------------------------------------------------------------ the live part
def draw_estimates(report) -> None:  # type: ignore[no-untyped-def]
    st.subheader("Per-system estimates")
    methods = report.methods
    rows = []
    ranks = {s.name: str(s.rank) for s in report.monitor.systems} if report.monitor else {}
    for sysname in report.systems:
        row = {"system": sysname, "rank set": ranks.get(sysname, "")}
        for m in methods:
            r = report.estimates.get((sysname, m))
            row[METHODS[m]] = "—" if r is None else interval(r)
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    used = [f"**{METHODS[m]}**: {report.method_metrics[m]}" for m in methods
            if m in report.method_metrics]  # fmt: skip
    if used:
        st.caption("Metrics used — " + "; ".join(used))
    st.caption(
        "Estimate [95% interval]. The anytime-valid column holds at any moment you look "
        "(simultaneous over systems); the others are fixed-n intervals for reading, not for "
        "stopping. Rank sets: plausible ranks from the Holm-adjusted verdicts."
    )
    for m, why in report.unavailable.items():
        st.caption(f"{METHODS.get(m, m)}: not shown — {UNAVAILABLE[why]}.")
    with st.expander("Details: every estimate with n_human and n_metric"):
        detail = [
            {
                "system": s,
                "method": METHODS[m],
                "estimate": r.estimate,
                "low": r.low,
                "high": r.high,
                "n_human": r.n_human,
                "n_metric": r.n_metric,
                "metric": report.method_metrics.get(m, ""),
                "counts toward verdicts": r.valid_for_verdict,
            }
            for (s, m), r in report.estimates.items()
        ]
        st.dataframe(pd.DataFrame(detail), hide_index=True, width="stretch")


def verdict_class(verdict: str, row_is_a: bool) -> str:
    if verdict == "A better":
        return "row better" if row_is_a else "column better"
    if verdict == "B better":
        return "column better" if row_is_a else "row better"
    return "not yet" if verdict == "not yet" else "no real difference"


def draw_pairs(report) -> None:  # type: ignore[no-untyped-def]
    mon = report.monitor
    if mon is None:
        return
    if len(report.systems) < 2:
        st.info("Only one system: pairwise verdicts need at least two systems.")
        return
    st.subheader("Pairwise verdicts (anytime-valid, Holm-adjusted)")
    cells = []
    for p in mon.pairs:
        r = p.result
        for row, col, sign, is_a in ((p.a, p.b, 1, True), (p.b, p.a, -1, False)):
            lo, hi = (r.low, r.high) if sign > 0 else (-r.high, -r.low)
            cells.append(
                {
                    "row": row,
                    "column": col,
                    "difference": sign * r.estimate,
                    "interval": f"[{fmt(lo)}, {fmt(hi)}]",
                    "verdict": verdict_class(p.verdict, is_a),
                    "verdict text": p.verdict_text,
                    "Holm p": p.p_holm,
                    "labels": r.n_human,
                }
            )
    order = [s.name for s in sorted(mon.systems, key=lambda s: -s.result.estimate
                                    if math.isfinite(s.result.estimate) else math.inf)]  # fmt: skip
    frame = pd.DataFrame(cells)
    colors = alt.Scale(
        domain=["row better", "column better", "not yet", "no real difference"],
        range=["#2e7d32", "#c62828", "#bdbdbd", "#90caf9"],
    )
    base = alt.Chart(frame).encode(
        x=alt.X("column:N", sort=order, title=None, axis=alt.Axis(labelOverlap=False)),
        y=alt.Y("row:N", sort=order, title=None, axis=alt.Axis(labelOverlap=False)),
    )
    heat = base.mark_rect().encode(
        color=alt.Color("verdict:N", scale=colors, legend=alt.Legend(orient="bottom")),
        tooltip=["row", "column", alt.Tooltip("difference:Q", format=".3f"), "interval",
                 "verdict text", alt.Tooltip("Holm p:Q", format=".3g"), "labels"],
    )  # fmt: skip
    text = base.mark_text(fontSize=10).encode(text=alt.Text("difference:Q", format="+.2f"))
    size = max(260, 34 * len(report.systems))
    st.altair_chart((heat + text).properties(height=size), width="stretch")
    st.caption(
        "Cell = row system minus column system. Green: the row is significantly better. "
        "Hover for the interval (a simultaneous confidence sequence) and Holm-adjusted p."
    )

    st.subheader("Labels still needed")
    undecided = [p for p in mon.pairs if not p.decided]
    if not undecided:
        st.success("Every pair is decided.")
    else:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "pair": f"{p.a} – {p.b}",
                        "difference": p.result.estimate,
                        "interval": f"[{fmt(p.result.low)}, {fmt(p.result.high)}]",
                        "labels so far": p.result.n_human,
                        "more items to label (both systems)": (
                            "not within this pool" if p.labels_needed is None
                            else f"{p.labels_needed:,}"
                        ),
                        "status": p.verdict_text,
                    }
                    for p in sorted(undecided, key=lambda p: (p.labels_needed is None,
                                                              p.labels_needed or 0))
                ]
            ),
            hide_index=True,
            width="stretch",
        )  # fmt: skip
        st.caption(
            'Forecast at the current difference and spread; "not within this pool" means '
            "the difference is too small to settle with the outputs there are."
        )

    if report.widths:
        st.subheader("Interval width against human labels")
        widths = pd.DataFrame(report.widths)
        chart = (
            alt.Chart(widths)
            .mark_line(opacity=0.6)
            .encode(
                x=alt.X("t:Q", title="labelled items (pair)"),
                y=alt.Y(
                    "width:Q",
                    title="confidence-sequence width (log scale)",
                    scale=alt.Scale(type="log"),
                ),
                color=alt.Color("pair:N", legend=None),
                tooltip=["pair", "t", alt.Tooltip("width:Q", format=".3f")],
            )
            .properties(height=280)
        )
        st.altair_chart(chart, width="stretch")


def draw_quality(report, fp: tuple[int, ...]) -> None:  # type: ignore[no-untyped-def]
    left, right = st.columns(2)
    with left:
        st.subheader("Data efficiency per metric")
        if not report.efficiency:
            st.caption("No metric scores yet.")
        else:
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            "metric": e.metric,
                            "ρ_y (label, metric)": e.rho_y,
                            "DE measured": e.de_measured,
                            "DE limit": e.de_limit,
                            "DE limit, pairs": e.de_pairs_limit,
                        }
                        for e in report.efficiency
                    ]
                ),
                hide_index=True,
                width="stretch",
            )
            st.caption(
                "DE = how many human labels one label is worth with the metric as control. "
                "Measured: se²(human)/se²(PPI++) here (needs unlabelled outputs); limit: "
                "1/(1 − ρ²) with an unlimited pool."
            )
    with right:
        st.subheader("Agreement")
        a = report.agreement
        if a.alpha is None:
            st.caption(f"Krippendorff's α: not available — {a.note}.")
        else:
            st.metric(f"Krippendorff's α ({a.level})", f"{a.alpha:.3f}")
            st.caption(f"{a.n_units:,} outputs judged more than once ({a.n_judgments:,} "
                       "judgments).")  # fmt: skip
    st.subheader("Annotators")
    frame = pd.DataFrame(
        [
            {
                "annotator": a.name,
                "role": a.role,
                "labels": a.n_labels,
                "skips": a.n_skips,
                "median_seconds": a.median_seconds,
                "labels_per_hour": a.labels_per_hour,
                "attention_checks": a.attention_answered,
                "attention_pass_rate": a.attention_pass_rate,
                "last_active": a.last_at,
            }
            for a in annotator_work(cid, fp)
        ]
    )
    if frame.empty:
        st.caption("No annotators yet: invite them from the campaign's annotation settings.")
    else:
        st.dataframe(frame, hide_index=True, width="stretch")


def live_part() -> None:
    fp = fingerprint(engine(), cid)
    report, seconds = cached_campaign_report(db_url, cid, fp, kind, tuple(signatures), alpha)
    if report.n_judgments == 0:
        st.info(
            "No human labels yet. Invite annotators (they label randomly drawn outputs), or "
            "import judgments with a campaign file (a `human_label` column). Estimates and "
            "verdicts appear here as labels arrive."
        )
        draw_quality(report, fp)
        return
    cols = st.columns(4)
    cols[0].metric("Human judgments", f"{report.n_judgments:,}")
    cols[1].metric("Labelled outputs", f"{report.n_labelled_outputs:,}",
                   help=f"of {len(report.systems) * report.n_items:,} in the pool")  # fmt: skip
    cols[2].metric("Systems", len(report.systems))
    decided = sum(p.decided for p in report.monitor.pairs) if report.monitor else 0
    cols[3].metric("Decided pairs", f"{decided} / {len(report.pair_rows())}")
    st.caption(f"Computed in {seconds:.2f} s; last checked {time.strftime('%H:%M:%S')}.")
    for note in report.notes:
        st.caption(f"Note: {note}")
    draw_estimates(report)
    draw_pairs(report)
    draw_quality(report, fp)

    st.subheader("Download results")
    c1, c2, c3 = st.columns(3)
    c1.download_button("Results (CSV)", results_csv(report), f"{name}-results.csv", MIME["csv"],
                       key="dl-results-csv")  # fmt: skip
    c2.download_button("Results (LaTeX)", results_latex(report), f"{name}-results.tex",
                       MIME["tex"], key="dl-results-tex")  # fmt: skip
    c3.download_button("Pairwise verdicts (CSV)", pairs_csv(report), f"{name}-pairs.csv",
                       MIME["csv"], key="dl-pairs-csv")  # fmt: skip


st.fragment(run_every=every if live else None)(live_part)()

st.subheader("Download annotations")
st.caption("Current judgments with annotator, time and assignment position (random order).")
cols = st.columns(3)
for col, fmt_, label in zip(cols, ["csv", "jsonl", "parquet"], ["CSV", "JSONL", "Parquet"],
                            strict=True):  # fmt: skip
    col.download_button(
        f"Annotations ({label})",
        data=lambda f=fmt_: export_annotations(engine(), name, f),
        file_name=f"{name}-annotations.{fmt_}",
        mime=MIME[fmt_],
        key=f"dl-ann-{fmt_}",
    )
