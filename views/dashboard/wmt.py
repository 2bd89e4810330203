"""WMT's ranking beside Tandem's valid clusters: the WMT25 or WMT24 table (fixed-n, no
multiplicity correction), Tandem's cluster in a column beside it, and the pairs where the two
disagree (annotation.results.wmt_ranking, estimators.report.wmt)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation.results.wmt_ranking import comparison
from estimators.fixed_n.wmt_ranking import NO_CORRECTION, PROCEDURES
from estimators.fixed_n.wmt_tables import disagreements_csv, wmt_csv, wmt_latex, wmt_typst
from formats.writers import MIME
from views.common import download, engine, table_height
from views.dashboard.text import fmt


@st.cache_data(max_entries=16, show_spinner=False)
def cached_comparison(db: str, cid: int, fp: tuple[int, ...], kind: str, procedure: str,
                      alpha: float, sigs: tuple[str, ...], _data, _report):  # type: ignore[no-untyped-def]  # fmt: skip
    """WMT's table for this campaign read (``fp``) and settings; the arrays and the report
    (not hashed) are the ones the dashboard drew."""
    return comparison(engine(), _data, _report, procedure, kind=kind)


def draw_wmt(report, data, cid: int, fp: tuple[int, ...], kind: str | None,
             sigs: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    mon = report.monitor
    if mon is None or kind is None or len(report.systems) < 2:
        return
    st.subheader(f"WMT's ranking beside Tandem's ({NO_CORRECTION})")
    procedure = st.radio(
        "WMT procedure", ["wmt25", "wmt24"], format_func=PROCEDURES.get, horizontal=True,
        key="dash-wmt-procedure",
        help="WMT25: systems by mean score; neighbours walked with a one-sided Wilcoxon "
        "signed-rank test on paired segment scores at p < α/2, an output's two first judgments "
        "as two waves. WMT24: per-domain Wilcoxon tests combined by Stouffer's Z at p < α "
        "(domains from the campaign file's domain column). Neither corrects for the many "
        "pairs tested, nor holds when the table is read before the campaign ends.",
    )  # fmt: skip
    cmp = cached_comparison(str(engine().url), cid, fp, kind, procedure, mon.alpha, sigs,
                            data, report)  # fmt: skip
    if cmp is None:
        return
    w = cmp.ranking
    n_w = cmp.rows[-1]["cluster"] if cmp.rows else 0
    n_t = cmp.tandem_rows[-1]["cluster"] if cmp.tandem_rows else 0
    st.markdown(
        f"**{n_w} WMT cluster{'s' if n_w != 1 else ''}** ({NO_CORRECTION}) against "
        f"**{n_t} Tandem cluster{'s' if n_t != 1 else ''}** (anytime-valid, the ranking above); "
        f"each WMT test at {w.threshold:g}, {w.waves} wave(s), {len(w.domains) or 1} domain(s)."
    )
    frame = pd.DataFrame([
        {"rank": r["rank_range"], "system": r["system"], "mean": fmt(r["mean"]),
         "scores": r["scores"], "WMT cluster": r["cluster"], "Tandem cluster": r["tandem_cluster"]}
        for r in cmp.rows
    ])  # fmt: skip
    st.dataframe(frame, hide_index=True, width="stretch", height=table_height(len(cmp.rows), 480))
    if w.unranked:
        st.caption("Not ranked (no judgments): " + ", ".join(w.unranked))
    diff = cmp.disagreements
    st.markdown(f"**Pairs where the two disagree:** {len(diff):,}")
    if diff:
        st.dataframe(pd.DataFrame([
            {"pair": f"{d['a']} – {d['b']}", "WMT test": d["wmt_test"], "WMT p": fmt(d["wmt_p"]),
             "Tandem verdict": d["tandem_verdict"], "WMT clusters": d["wmt_clusters"],
             "Tandem clusters": d["tandem_clusters"], "differs in": d["differs"]}
            for d in diff
        ]), hide_index=True, width="stretch", height=table_height(len(diff), 400))  # fmt: skip
    st.caption(
        "A disagreement: the pair's own test calls it differently (WMT's at its level, "
        "Tandem's live verdict under the campaign's error rate), or one table puts the two in "
        "different clusters and the other does not. WMT's tests are the more liberal, so the "
        "usual case is a pair WMT separates and Tandem does not yet."
    )
    c1, c2, c3, c4 = st.columns(4)
    download(c1, "WMT table (CSV)", lambda: wmt_csv(cmp.rows), f"{procedure}.csv", MIME["csv"],
             key="dl-wmt-csv")  # fmt: skip
    download(c2, "WMT table (LaTeX)", lambda: wmt_latex(cmp.rows).encode(), f"{procedure}.tex",
             MIME["tex"], key="dl-wmt-tex")  # fmt: skip
    download(c3, "WMT table (Typst)", lambda: wmt_typst(cmp.rows).encode(), f"{procedure}.typ",
             MIME["typ"], key="dl-wmt-typ")  # fmt: skip
    download(c4, "Disagreements (CSV)", lambda: disagreements_csv(diff),
             f"{procedure}-disagreements.csv", MIME["csv"], key="dl-wmt-diff")  # fmt: skip
