"""Live significance dashboard: estimates, pairwise verdicts, labels still needed, exports.

The numbers come from estimators.report (arrays from db.reads); this page only draws them.
The live part refreshes itself while annotators work and recomputes only when the
campaign's fingerprint (label count, last annotation id, scores, thresholds) changes.
"""

from __future__ import annotations

import math
import time

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from annotation import racing
from annotation.exports import MIME, export_annotations, pairs_csv, results_csv, results_latex
from annotation.queue import queue_settings
from db.campaigns import list_campaigns
from db.reads import campaign_id, fingerprint
from estimators.agreement import agreement_note
from estimators.campaign import LABEL_KINDS, available_label_kinds, default_label_kind
from estimators.live_designs import DESIGN_TEXT, LiveDesign
from estimators.report import METHODS, Unavailable, campaign_report, default_signatures
from estimators.result import MIN_LABELS_FOR_VERDICT, reason_text
from estimators.verdicts import ERROR_RATE_TEXT, ErrorRate
from metrics.imported import describe
from views.common import (
    annotator_work,
    campaign_data,
    campaign_picker,
    download,
    engine,
    literal,
    permitted,
    require_admin,
)

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
    Unavailable.TOO_FEW_LABELS: "too few labels for this method",
    Unavailable.NO_SPREAD: "every label is the same, so a normal-theory interval would have "
    "zero width",
    Unavailable.OUT_OF_RANGE: "the interval lies outside the possible range",
}


def fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def interval(r) -> str:  # type: ignore[no-untyped-def]
    if not r.available:
        # below the method's minimum n (or no spread): say so, never a made-up interval
        return f"{r.n_human} label(s): {reason_text(r)}"
    if not (math.isfinite(r.low) and math.isfinite(r.high)) or (
        r.method.startswith(tuple(LiveDesign)) and r.n_human < MIN_LABELS_FOR_VERDICT
    ):
        # no interval yet: say so rather than "1.000 [—, —]" from two labels
        return f"{r.n_human} label(s); interval from {MIN_LABELS_FOR_VERDICT}"
    return f"{fmt(r.estimate)} [{fmt(r.low)}, {fmt(r.high)}]"


#: What the "more items" column holds, by PairStatus.needed_basis.
NEEDED_TEXT = {
    "pool exhausted": "none left: every item of the pair is labelled",
    "plan spent": "none: the planned maximum is reached (the design's α is spent)",
}


def needed_text(p) -> str:  # type: ignore[no-untyped-def]
    if p.needed_basis == "floor":
        return f"{p.labels_needed:,} to reach the {MIN_LABELS_FOR_VERDICT}-label floor"
    if p.labels_needed is None:
        return NEEDED_TEXT.get(p.needed_basis, "not within this pool and plan")
    return f"{p.labels_needed:,}"


summaries = permitted(list_campaigns(engine()))
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
sig_names = {m.signature: describe(m.metric, m.signature) for m in data.metrics}
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
        "No metric scores yet, so only human-only estimates are shown. Use the **Score** "
        "button on the **Campaigns** page to add control variates / PPI++ and the von "
        "Däniken estimators."
    )


# ------------------------------------------------------------------ metric visibility
def draw_metric_visibility(campaign: int) -> None:
    """Whether annotators saw the metrics used as controls (issue 17.3: recorded choice)."""
    from annotation.visibility import metric_visibility, visibility_statement

    st.caption(visibility_statement(metric_visibility(engine(), campaign)))


draw_metric_visibility(cid)


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
                "no number because": reason_text(r),
            }
            for (s, m), r in report.estimates.items()
        ]
        st.dataframe(
            pd.DataFrame(detail), hide_index=True, width="stretch",
            column_config={c: st.column_config.NumberColumn(format="%.3f")
                           for c in ("estimate", "low", "high")},
        )  # fmt: skip


def verdict_class(verdict: str, row_is_a: bool) -> str:
    if verdict == "A better":
        return "row better" if row_is_a else "column better"
    if verdict == "B better":
        return "column better" if row_is_a else "row better"
    if verdict == "not yet":
        return "not yet"
    if verdict.startswith("no significant difference"):
        return "no significant difference"
    if verdict == "exactly equal":
        return "exactly equal"
    return "no difference larger than ε"


def draw_verdict_words(mon) -> None:  # type: ignore[no-untyped-def]
    """Every pair's outcome in words (settled first)."""
    rows = [
        {
            "pair": f"{p.a} – {p.b}",
            "verdict": p.verdict_text,
            "difference": _round(p.result.estimate),
            "interval": f"[{fmt(p.result.low)}, {fmt(p.result.high)}]",
            "labelled items": p.result.n_human,
        }
        for p in sorted(mon.pairs, key=lambda p: not p.settled)
    ]
    n_settled = sum(p.settled for p in mon.pairs)
    with st.expander(f"Pair verdicts in words: {n_settled} of {len(rows)} settled"):
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def draw_racing(cid: int) -> None:
    """Whether racing is on and which systems it dropped (annotation.racing)."""
    on, dropped = racing.racing_status(engine(), cid)
    if not on and not dropped:
        return
    text = (
        "**Racing is on:** the queue draws labels only for systems with a pair not yet settled "
        "(one system better, or no difference larger than ε)."
        if on
        else "**Racing is off.**"
    )
    if dropped:
        text += " Dropped (all pairs settled): " + racing.dropped_text(dropped)
    elif on:
        text += " No system dropped yet."
    st.caption(text)


def draw_pairs(report, cid: int) -> None:  # type: ignore[no-untyped-def]
    mon = report.monitor
    if mon is None:
        return
    if len(report.systems) < 2:
        st.info("Only one system: pairwise verdicts need at least two systems.")
        return
    ebh = str(mon.error_rate) == "ebh"
    st.subheader(f"Pairwise verdicts (anytime-valid, {'e-BH' if ebh else 'Holm-adjusted'})")
    st.markdown(
        f"**Error rate in force:** {ERROR_RATE_TEXT[ErrorRate(mon.error_rate)]} "
        f"(α = {mon.alpha:g}). **Smallest difference that matters:** ε = {mon.margin:g}. "
        "Each pair settles as one system better, or *no difference larger than ε*."
    )
    if mon.plan_note:
        st.warning(mon.plan_note)
    draw_racing(cid)
    evidence = "e-value" if ebh else "Holm p"
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
                    evidence: (p.e_value if math.isfinite(p.e_value) else None) if ebh
                    else p.p_holm,
                    "labels": r.n_human,
                }
            )
    order = [s.name for s in sorted(mon.systems, key=lambda s: -s.result.estimate
                                    if math.isfinite(s.result.estimate) else math.inf)]  # fmt: skip
    frame = pd.DataFrame(cells)
    colors = alt.Scale(
        domain=["row better", "column better", "not yet", "no difference larger than ε",
                "exactly equal", "no significant difference"],
        range=["#2e7d32", "#c62828", "#bdbdbd", "#90caf9", "#1565c0", "#7e57c2"],
    )  # fmt: skip
    base = alt.Chart(frame).encode(
        x=alt.X("column:N", sort=order, title=None, axis=alt.Axis(labelOverlap=False)),
        y=alt.Y("row:N", sort=order, title=None, axis=alt.Axis(labelOverlap=False)),
    )
    heat = base.mark_rect().encode(
        color=alt.Color("verdict:N", scale=colors, legend=alt.Legend(orient="bottom")),
        tooltip=["row", "column", alt.Tooltip("difference:Q", format=".3f"), "interval",
                 "verdict text", alt.Tooltip(f"{evidence}:Q", format=".3g"), "labels"],
    )  # fmt: skip
    text = base.mark_text(fontSize=10).encode(text=alt.Text("difference:Q", format="+.2f"))
    size = max(260, 34 * len(report.systems))
    st.altair_chart((heat + text).properties(height=size), width="stretch")
    m = len(mon.pairs)
    st.caption(
        "Cell = row system minus column system. Green: the row is significantly better. "
        f"Hover for the interval — a confidence sequence at level α/{m} (simultaneous over "
        f"the {m} pairs); a pair settled by the step-down procedure before its interval "
        "left 0 has its interval bounded at 0 on the winner's side, so interval and verdict "
        "always agree — and "
        + ("the e-value K(0) that e-BH reads." if ebh else "the Holm-adjusted p.")
    )
    draw_verdict_words(mon)

    st.subheader("Labels still needed")
    undecided = [p for p in mon.pairs if not p.settled]
    if not undecided:
        st.success("Every pair is settled.")
    else:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "pair": f"{p.a} – {p.b}",
                        "difference": round(p.result.estimate, 3),
                        "interval": f"[{fmt(p.result.low)}, {fmt(p.result.high)}]",
                        "labels so far": p.result.n_human,
                        "more items to label (both systems)": needed_text(p),
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
            f"Forecast of the verdict (not of the interval's crossing) under the design in "
            f"force ({mon.design}) at the current difference and spread, read at the level "
            "the procedure in force will read the pair at next; or of the interval fitting "
            'inside ±ε. "Not within this pool and plan" means the difference is too small '
            "to settle with the outputs there are (or, for the group-sequential design, "
            "within the planned maximum)."
        )

    if report.widths:
        st.subheader("Interval width against human labels")
        widths = pd.DataFrame(report.widths)
        widths = widths[np.isfinite(widths["width"]) & (widths["width"] > 0)]
        chart = (
            alt.Chart(widths)
            .mark_line(opacity=0.6)
            .encode(
                x=alt.X(
                    "t:Q",
                    title="labelled items (pair)",
                    scale=alt.Scale(
                        domain=[int(widths["t"].min()), int(widths["t"].max())], nice=False
                    ),
                ),
                y=alt.Y(
                    "width:Q",
                    title="confidence-sequence width (log scale)",
                    scale=alt.Scale(
                        type="log",
                        nice=False,
                        domain=[float(widths["width"].min()), float(widths["width"].max())],
                    ),
                ),
                color=alt.Color("pair:N", legend=None),
                tooltip=["pair", "t", alt.Tooltip("width:Q", format=".3f")],
            )
            .properties(height=280)
        )
        st.altair_chart(chart, width="stretch")


def _round(x: float | None, digits: int = 3) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), digits)


def draw_plan(report, data) -> None:  # type: ignore[no-untyped-def]
    """What the live verdicts estimate and what they are tuned to (issue 11, 17.4)."""
    plan = data.live_plan
    st.subheader("What the live verdicts report")
    st.markdown(plan.estimand_sentence(report.label_kind or "label", report.n_items))
    mon = report.monitor
    per_system = [s.result.n_human for s in mon.systems] if mon else []
    so_far = (f"{min(per_system):,}" if min(per_system) == max(per_system)
              else f"{min(per_system):,}–{max(per_system):,}") if per_system else "0"  # fmt: skip
    c = st.columns(3)
    c[0].metric("Planned labels per system",
                "pool size" if plan.planned_labels is None else f"{plan.planned_labels:,}",
                help="t*: the confidence sequences are tightest here (set it on the "
                "Annotators page before the first label)")  # fmt: skip
    c[1].metric("Labels so far per system", so_far)
    c[2].metric("Design", str(plan.design), help=DESIGN_TEXT[plan.design])
    st.caption(f"Design in force: {DESIGN_TEXT[plan.design]}.")
    for ch in plan.late:
        st.warning(
            f"The plan's **{ch.key}** was changed from {literal(ch.old_value)} to "
            f"{literal(ch.new_value)} after {ch.labels_before:,} labels existed. The change is "
            "recorded but not applied: a plan chosen after seeing data could make past "
            "verdicts significant."
        )


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
                            "ρ_y (label, metric)": _round(e.rho_y),
                            "DE measured": _round(e.de_measured),
                            "DE limit": _round(e.de_limit),
                            "DE limit, pairs": _round(e.de_pairs_limit),
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
            overlap = queue_settings(engine(), cid).get("overlap")
            st.caption(f"Krippendorff's α: not available — {agreement_note(a, overlap)}.")
        else:
            st.metric(f"Krippendorff's α ({a.level})", f"{a.alpha:.3f}")
            st.caption(f"{a.n_units:,} outputs judged more than once ({a.n_judgments:,} "
                       "judgments).")  # fmt: skip
        from views.span_agreement import draw_span_agreement  # error-span campaigns only

        draw_span_agreement(data.mode, db_url, cid, fp)
    st.subheader("Annotators")
    frame = pd.DataFrame(
        [
            {
                "annotator": a.name,
                "role": a.role,
                "labels": a.n_labels,
                "skips": a.n_skips,
                "median seconds per item": a.median_seconds,
                "labels per hour": a.labels_per_hour,
                "attention checks": a.attention_answered,
                "attention pass rate": a.attention_pass_rate,
                "last active": a.last_at,
            }
            for a in annotator_work(cid, fp)
        ]
    )
    if frame.empty:
        st.caption("No annotators yet: invite them from the campaign's annotation settings.")
    else:
        st.dataframe(
            frame, hide_index=True, width="stretch",
            column_config={
                "median seconds per item": st.column_config.NumberColumn(format="%.1f"),
                "labels per hour": st.column_config.NumberColumn(format="%.0f"),
                "attention pass rate": st.column_config.NumberColumn(format="percent"),
            },
        )  # fmt: skip


def draw_sampling(report) -> None:  # type: ignore[no-untyped-def]
    """The queue's sampling design in force and, for active sampling, what it has cost and
    saved so far (statistics.md §9; numbers from estimators.active.DesignSummary)."""
    # imported here: a self-contained block of a page other developers edit too
    from annotation.queue import queue_settings, sampling_rate
    from db.vocabulary import Sampling
    from estimators.active import DEFAULT_TAU

    settings = queue_settings(engine(), cid)
    designs = report.monitor.designs if report.monitor is not None else {}
    st.subheader("Sampling design")
    if settings.get("sampling") != Sampling.ACTIVE and not designs:
        st.caption(
            "Uniform: every item is equally likely to be labelled next, in the queue's "
            "recorded random order. Active sampling (Annotators page) would draw the items "
            "the metric predicts worst more often and weight their labels back."
        )
        return
    tau = settings.get("active_tau") or DEFAULT_TAU
    if settings.get("sampling") == Sampling.ACTIVE:
        rate = sampling_rate(settings.get("planned_labels"), report.n_items)
        st.caption(
            f"Active sampling in force: each visited item is labelled with a recorded "
            f"probability π ≥ τ·b = {tau:g} × {rate:.2g}, larger where the metric predicts the "
            "human judgment worst; every estimate weights a label by 1/π."
        )
    else:
        st.caption("Uniform sampling in force now; earlier labels were drawn actively and "
                   "stay weighted by their recorded π.")  # fmt: skip
    if designs:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "system / pair": name,
                        "items visited": d.visits,
                        "labels": d.labels,
                        "effective sample size": d.ess,
                        "variance (active)": d.var_active,
                        "variance (uniform, same labels)": d.var_uniform,
                        "labels saved": d.saving,
                    }
                    for name, d in designs.items()
                ]
            ),
            hide_index=True,
            width="stretch",
            column_config={"labels saved": st.column_config.NumberColumn(format="percent")},
        )
        st.caption(
            "Labels saved = 1 − variance(active)/variance(uniform): what uniform sampling of "
            "the same number of labels would have given, estimated from the labels so far "
            "(negative: active sampling lost). Effective sample size = (Σ 1/π)²/Σ 1/π²."
        )


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
    draw_plan(report, campaign_data(db_url, cid, fp))
    draw_estimates(report)
    draw_pairs(report, cid)
    draw_sampling(report)
    draw_quality(report, fp)
    draw_controls(campaign_data(db_url, cid, fp), fp, report.label_kind, alpha)

    st.subheader("Download results")
    c1, c2, c3 = st.columns(3)
    download(c1, "Results (CSV)", results_csv(report), f"{name}-results.csv", MIME["csv"],
             key="dl-results-csv")  # fmt: skip
    download(c2, "Results (LaTeX)", results_latex(report), f"{name}-results.tex",
             MIME["tex"], key="dl-results-tex")  # fmt: skip
    download(c3, "Pairwise verdicts (CSV)", pairs_csv(report), f"{name}-pairs.csv",
             MIME["csv"], key="dl-pairs-csv")  # fmt: skip


# ------------------------------------------------------------------ controls panel
@st.cache_data(max_entries=16, show_spinner=False)
def cached_controls(  # type: ignore[no-untyped-def]
    db: str, cid: int, key: tuple[int, ...], kind: str, chosen: tuple[str, ...], alpha: float,
    _previous=None,
):
    """(learned ŷ, efficiency per control, fixed-n evaluation) per fingerprint ``key``;
    ``_previous`` (not hashed) is the last ŷ, reused until the labels double."""
    from estimators.controls import control_efficiency, evaluate, learned_control

    data = campaign_data(db, cid, key)
    learned = learned_control(data, kind, previous=_previous)
    # a learned control that cannot be fitted is dropped by evaluate, with the reason
    return learned, control_efficiency(data, kind, learned), evaluate(
        data, kind, list(chosen), learned=learned, alpha=alpha
    )


def draw_controls(data, fp: tuple[int, ...], kind: str | None, alpha: float) -> None:  # type: ignore[no-untyped-def]
    """The learned control ŷ next to the single metrics: how well each predicts the human
    judgment, the data efficiency it measured here, and fixed-n results with the chosen
    controls (estimators.controls). ŷ is refitted only when the labels have doubled."""
    from estimators.controls import LEARNED

    st.subheader("Controls: single metrics and the learned ŷ")
    if kind is None or not data.scores:
        st.caption("Needs human judgments and metric scores (the **Score** button on the "
                   "**Campaigns** page; choose `features` there too for the cheap text "
                   "features the learned control also uses).")  # fmt: skip
        return
    labels = {s: m.metric for s in data.scores if (m := data.metric(s)) is not None}
    labels = {LEARNED: "learned ŷ", **{s: labels.get(s, s) for s in data.scores}}
    options = [LEARNED, *sorted(data.scores, key=labels.get)]
    chosen = st.multiselect("Controls for the fixed-n comparison", options, default=[LEARNED],
                            format_func=labels.get, key="dash-controls")  # fmt: skip
    state_key = f"learned-{data.campaign_id}-{kind}"
    learned, eff, ev = cached_controls(db_url, data.campaign_id, fp, kind, tuple(chosen), alpha,
                                       _previous=st.session_state.get(state_key))  # fmt: skip
    st.session_state[state_key] = learned
    st.dataframe(
        pd.DataFrame([{"control": e.label, "ρ (judgment, control)": e.rho,
                       "ρ (pair differences)": e.rho_pairs, "DE systems": e.de,
                       "DE pairs": e.de_pairs, "saves labels": "yes" if e.helps else "no"}
                      for e in eff]),
        hide_index=True, width="stretch",
    )  # fmt: skip
    if learned is not None:
        st.caption(f"Learned ŷ: {learned.model}, {learned.folds}-fold cross-fitted (by item) on "
                   f"{learned.n_labels:,} labels from {len(learned.features)} metric "
                   "signature(s); no labelled output's ŷ comes from a model that saw its "
                   "label.")  # fmt: skip
    if not any(e.measured for e in eff):
        st.info("No data efficiency measured: it needs at least 10 labels and 3 unlabelled "
                "outputs per system or pair (a census has no unlabelled outputs).")
    elif not any(e.helps for e in eff):
        st.info("No control helps on this campaign: every measured data efficiency is below "
                "1.02, so metric-assisted estimates need as many labels as human-only ones.")
    rows = [{"system": name, "method": "PPI++ (" + " + ".join(ev.control_labels) + ")"
             if m == "ppi" else "human only", "n": r.n_human, "estimate": r.estimate,
             "low": r.low, "high": r.high,
             "DE": r.diagnostics.get("de") if r.available else None,
             "no number because": reason_text(r)}
            for name, m, r in ev.systems]  # fmt: skip
    for note in ev.notes:
        st.caption(literal(note))
    if not rows:
        return
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.dataframe(
        pd.DataFrame([{"pair": f"{p['a']} – {p['b']}", "method": p["method"],
                       "n": p["result"].n_human, "Δ": p["result"].estimate,
                       "low": p["result"].low, "high": p["result"].high,
                       "p (Holm)": p["p_holm"], "verdict": p["verdict"]} for p in ev.pairs]),
        hide_index=True, width="stretch",
    )  # fmt: skip
    st.caption("Fixed-n intervals: valid when the number of labels was fixed in advance. The "
               "live verdicts above are the anytime-valid ones.")  # fmt: skip

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
