"""The dashboard's controls panel: the learned control ŷ next to the single metrics, and
fixed-n results with the chosen controls (estimators.fixed_n.controls)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from estimators.base.result import reason_text
from views.common import campaign_data, incremental, literal


@st.cache_resource(max_entries=16, show_spinner=False)
def _carried(db: str, cid: int, kind: str) -> dict:  # type: ignore[type-arg]
    """What this server process carries between reads of a campaign's controls: the last
    learned ŷ (``"learned"``, refitted only when the labels double or one it used is taken
    back: estimators.fixed_n.learned.learned_grid) and the per-system and per-pair results
    (``"parts"``, keyed by digests of their inputs: estimators.caches.report)."""
    from estimators.caches.report import ReportCache

    return {"learned": None, "parts": ReportCache()}


@st.cache_data(max_entries=16, show_spinner=False)
def cached_controls(  # type: ignore[no-untyped-def]
    db: str,
    cid: int,
    key: tuple[int, ...],
    kind: str,
    chosen: tuple[str, ...],
    alpha: float,
):
    """(learned ŷ, efficiency per control, fixed-n evaluation) per fingerprint ``key``."""
    from estimators.fixed_n.controls import control_efficiency, evaluate, learned_control

    data = campaign_data(db, cid, key)
    carried = _carried(db, cid, kind) if incremental() else {"learned": None, "parts": None}
    learned = learned_control(data, kind, previous=carried["learned"])
    carried["learned"] = learned
    parts = carried["parts"]
    # a learned control that cannot be fitted is dropped by evaluate, with the reason
    return (
        learned,
        control_efficiency(data, kind, learned, cache=parts),
        evaluate(data, kind, list(chosen), learned=learned, alpha=alpha, cache=parts),
    )


def draw_controls(  # type: ignore[no-untyped-def]
    data, fp: tuple[int, ...], kind: str | None, alpha: float, db_url: str
) -> None:
    """The learned control ŷ next to the single metrics: how well each predicts the human
    judgment, the data efficiency it measured here, and fixed-n results with the chosen
    controls (estimators.fixed_n.controls). ŷ is refitted only when the labels have doubled."""
    from estimators.fixed_n.controls import LEARNED

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
    learned, eff, ev = cached_controls(db_url, data.campaign_id, fp, kind, tuple(chosen), alpha)
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
        st.info(
            "No data efficiency measured: it needs at least 10 labels and 3 unlabelled "
            "outputs per system or pair (a census has no unlabelled outputs)."
        )
    elif not any(e.helps for e in eff):
        st.info(
            "No control helps on this campaign: every measured data efficiency is below "
            "1.02, so metric-assisted estimates need as many labels as human-only ones."
        )
    draw_fixed_n(ev)


def draw_fixed_n(ev) -> None:  # type: ignore[no-untyped-def]
    """Fixed-n results per system and per pair with the chosen controls."""
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
