"""The dashboard's pairwise verdicts: the verdict heat map, the verdicts in words, racing,
the labels each unsettled pair still needs and the interval widths against labels."""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from annotation.queue import racing
from estimators.base.verdicts import ERROR_RATE_TEXT, ErrorRate
from estimators.live.ranking import ranking_csv, ranking_latex, ranking_rows, ranking_typst
from estimators.report.campaign_report import WIDTH_PAIRS
from formats.writers import MIME
from views.common import download, engine, table_height
from views.dashboard.text import fmt, needed_text, rounded

#: Up to this many systems the verdict heat map is drawn; beyond, the ranking and the
#: searchable pair table carry the verdicts (a 60 × 60 map is a wall of cells).
MAP_SYSTEMS = 15


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


def draw_ranking(report, mon, settings: dict | None = None) -> None:  # type: ignore[no-untyped-def]
    """Systems by their live estimate, with significance clusters (estimators.live.ranking);
    its downloads carry the statistics ``settings`` columns."""
    rows = ranking_rows(mon, report.higher_is_better, settings)
    n_clusters = rows[-1]["cluster"] if rows else 0
    clusters = f"{n_clusters} significance cluster{'s' if n_clusters != 1 else ''}"
    st.subheader(f"Ranking: {len(rows)} systems in {clusters}")
    frame = pd.DataFrame(
        [
            {
                "#": r["position"],
                "cluster": r["cluster"],
                "system": r["system"],
                "estimate": rounded(r["estimate"]),
                "interval": f"[{fmt(r['low'])}, {fmt(r['high'])}]",
                "labels": r["labels"],
                "better than": r["better_than"],
                "worse than": r["worse_than"],
            }
            for r in rows
        ]
    )
    st.dataframe(frame, hide_index=True, width="stretch", height=table_height(len(rows), 560))
    st.caption(
        "A new cluster starts where every system above is significantly better than every "
        "system below (the WMT findings' rule), from the live pair verdicts "
        f"(α = {mon.alpha:g}, {'e-BH' if str(mon.error_rate) == 'ebh' else 'Holm'}). "
        "Intervals: per system, simultaneous over the systems."
    )
    c1, c2, c3 = st.columns(3)
    download(c1, "Ranking (CSV)", lambda: ranking_csv(rows), "ranking.csv", MIME["csv"],
             key="dl-ranking-csv")  # fmt: skip
    download(c2, "Ranking (LaTeX)", lambda: ranking_latex(rows), "ranking.tex", MIME["tex"],
             key="dl-ranking-tex")  # fmt: skip
    download(c3, "Ranking (Typst)", lambda: ranking_typst(rows).encode(), "ranking.typ",
             MIME["typ"], key="dl-ranking-typ")  # fmt: skip


#: The pair table's outcome filter: label → the outcomes it keeps.
PAIR_FILTERS = {
    "every pair": None,
    "one system better": ("A better", "B better"),
    "no difference larger than ε": ("equivalent",),
    "not settled yet": ("undecided",),
}


def draw_pair_table(mon) -> None:  # type: ignore[no-untyped-def]
    """Every pair in a table that can be searched by system and filtered by outcome."""
    n_settled = sum(p.settled for p in mon.pairs)
    st.markdown(f"**Pairs:** {n_settled:,} of {len(mon.pairs):,} settled.")
    c1, c2 = st.columns([2, 1])
    query = c1.text_input("Find a system", key="dash-pair-find",
                          placeholder="part of a system name").strip().lower()  # fmt: skip
    keep = PAIR_FILTERS[c2.selectbox("Show", list(PAIR_FILTERS), key="dash-pair-filter")]
    rows = [
        {
            "pair": f"{p.a} – {p.b}",
            "verdict": p.verdict_text,
            "difference": rounded(p.result.estimate),
            "interval": f"[{fmt(p.result.low)}, {fmt(p.result.high)}]",
            "labelled items": p.result.n_human,
        }
        for p in sorted(mon.pairs, key=lambda p: not p.settled)
        if (keep is None or str(p.outcome) in keep)
        and (not query or query in p.a.lower() or query in p.b.lower())
    ]
    st.caption(f"{len(rows):,} pair(s) shown.")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                 height=table_height(len(rows)))  # fmt: skip


def draw_racing(cid: int) -> None:
    """Whether racing is on and which systems it dropped (annotation.queue.racing)."""
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


def draw_pairs(report, cid: int, settings: dict | None = None, beside=None) -> None:  # type: ignore[no-untyped-def]
    """The pairwise verdicts; ``beside``: drawn right after the ranking (WMT's table)."""
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
        f"(α = {mon.alpha:g}). **Equivalence margin:** ε = {mon.margin:g}. "
        "Each pair settles as one system better, or *no difference larger than ε*."
    )
    if mon.plan_note:
        st.warning(mon.plan_note)
    if mon.documents is not None:  # documents judged in order: say so, and when too few
        (st.warning if mon.documents.too_few else st.caption)(mon.documents.text())
    draw_racing(cid)
    draw_ranking(report, mon, settings)
    if beside is not None:
        beside()
    if len(report.systems) <= MAP_SYSTEMS:
        draw_verdict_map(report, mon, ebh)
    draw_pair_table(mon)
    draw_labels_needed(mon)
    if report.widths and len(mon.pairs) <= WIDTH_PAIRS:
        draw_widths(report.widths)


def _pair_cells(mon, ebh: bool, evidence: str) -> list[dict]:  # type: ignore[no-untyped-def]
    """Two cells per pair, one from each system's side (row minus column)."""
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
                    evidence: (p.e_value if math.isfinite(p.e_value) else None)
                    if ebh
                    else p.p_holm,
                    "labels": r.n_human,
                }
            )
    return cells


def draw_verdict_map(report, mon, ebh: bool) -> None:  # type: ignore[no-untyped-def]
    """The heat map of every pair's verdict, systems ordered by their estimate."""
    evidence = "e-value" if ebh else "Holm p"
    cells = _pair_cells(mon, ebh, evidence)
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


def draw_labels_needed(mon) -> None:  # type: ignore[no-untyped-def]
    """Each unsettled pair's forecast of the labels it still needs."""
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


def draw_widths(report_widths) -> None:  # type: ignore[no-untyped-def]
    """The confidence sequences' widths against the labelled items, one line per pair."""
    st.subheader("Interval width against human labels")
    widths = pd.DataFrame(report_widths)
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
