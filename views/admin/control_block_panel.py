"""The Annotators page's shared control block: mark or sample the items every annotator
judges once, place them, choose (logged) whether they count in the estimates, and read the
block's per-annotator means and sds, Krippendorff's α and drift. Draws only;
annotation.queue.control_block decides and logs."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from annotation.queue import control_block as cb
from views.common import allowed, engine, literal

HELP = (
    "Every annotator judges the block's outputs once (its redundancy is the number of "
    "annotators), at the start of their work or spread through the queue. The same outputs "
    "for everyone give each annotator's scale (mean, sd: the z-score parameters), their "
    "agreement (Krippendorff's α) and any drift over time. Counting the block in the "
    "estimates is your explicit choice, logged; count it only when it was sampled at random."
)


def _f(x: float, digits: int = 3) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def control_block_panel(campaign: str, campaign_id: int, ro: bool) -> None:
    st.subheader("Shared control block", help=HELP)
    block = cb.block_of(engine(), campaign)
    with st.form("control_block_form"):
        how = st.radio("Block", ["Mark items", "Sample items"], horizontal=True,
                       key="control_how")  # fmt: skip
        items = st.text_input("Item ids (comma-separated)", key="control_items",
                              value=", ".join(block.items) if block else "")  # fmt: skip
        c = st.columns(3)
        n = c[0].number_input("Items to sample", 1, 100_000, 7, key="control_sample")
        seed = c[1].number_input("Seed", 0, 2**31 - 1, 0, key="control_seed")
        placement = c[2].radio("Placed", list(cb.PLACEMENTS), horizontal=True,
                               key="control_placement",
                               format_func={"start": "at the start",
                                            "spread": "spread through the queue"}.get)  # fmt: skip
        counted = st.checkbox(
            "Count the block's judgments in the estimates (logged)",
            value=bool(block and block.counted),
            key="control_counted",
        )
        if st.form_submit_button("Set control block", disabled=ro) and allowed(campaign_id):
            try:
                marked = [i for i in items.split(",") if i.strip()]
                chosen = marked if how == "Mark items" else None
                block = cb.set_block(
                    engine(), campaign, items=chosen, placement=placement, counted=counted,
                    sample=None if chosen is not None else int(n), seed=int(seed), by="page",
                )  # fmt: skip
                st.success(f"Control block set: {len(block.items)} item(s), "
                           f"{'counted' if block.counted else 'not counted'}.")  # fmt: skip
            except cb.ControlBlockError as exc:
                st.error(literal(exc))
    if block is None:
        st.caption("No control block.")
        return
    c1, c2 = st.columns(2)
    flip = "Do not count it" if block.counted else "Count it in the estimates"
    if c1.button(flip, disabled=ro, key="control_flip") and allowed(campaign_id):
        block = cb.set_counted(engine(), campaign, not block.counted, by="page")
    if c2.button("Remove the block", disabled=ro, key="control_remove") and allowed(campaign_id):
        cb.clear_block(engine(), campaign, by="page")
        st.rerun()
    report = cb.block_report(engine(), campaign)
    if report is None:
        return
    stats = report["stats"]
    alpha = _f(stats.alpha) if stats.alpha is not None else f"– ({stats.note})"
    st.markdown(
        f"**{len(block.items)} item(s), {report['outputs']} output(s)**, placed "
        f"{'at the start' if block.placement == 'start' else 'spread through the queue'}; "
        f"**{'counted' if block.counted else 'not counted'}** in the estimates. "
        f"Krippendorff's α ({stats.level}, {report['kind']}) on the block: **{alpha}**."
    )
    rows = [
        {"annotator": r.annotator,
         "block done": "{}/{}".format(*report["progress"].get(r.annotator, (r.n, r.n))),
         "mean": _f(r.mean), "sd": _f(r.sd), "drift (per judgment)": _f(r.drift_slope, 4),
         "drift p": _f(r.drift_p)}
        for r in stats.annotators
    ]  # fmt: skip
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption("Mean and sd: each annotator's z-score parameters on the same outputs. Drift: "
               "the slope of their judgment minus the others' mean on that output, against "
               "their order (fixed-n, per annotator, no multiplicity correction).")  # fmt: skip
    with st.expander("Log of the block's settings"):
        for e in block.log:
            st.text(f"{e.get('at')}  {e.get('action')}  by {e.get('by')}  "
                    f"at {e.get('labels')} labels")  # fmt: skip
