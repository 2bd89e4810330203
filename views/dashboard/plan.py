"""The dashboard's "What the live verdicts report": the estimand, the planned labels and
the design in force, and late plan changes that were recorded but not applied."""

from __future__ import annotations

import streamlit as st

from annotation.campaign.statistics_settings import setting_words, value_words
from estimators.sequences.designs import DESIGN_TEXT, GUARANTEE
from views.common import literal


def draw_plan(report, data) -> None:  # type: ignore[no-untyped-def]
    """What the live verdicts estimate and what they are tuned to."""
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
                "Statistics page before the first label)")  # fmt: skip
    c[1].metric("Labels so far per system", so_far)
    # the design in force can differ from the plan's (a judgment kind with no known range,
    # z-scores, active sampling fall back to asympcs: the report's notes say why)
    kind = report.label_kind or "label"
    planned = plan.design_for(kind)
    design = mon.design if mon is not None else planned
    c[2].metric("Design", str(design), help=DESIGN_TEXT[design])
    shown = (
        f" (the plan's is {planned}; see the note above)" if design != planned
        else "" if plan.design_set else " (the default for this judgment kind)"
    )  # fmt: skip
    promise = (
        "exact at any number of labels (finite-sample)" if GUARANTEE[design] == "finite-sample"
        else "valid as the number of labels grows, like the t-test (asymptotic)"
    )  # fmt: skip
    st.caption(f"Design in force: {DESIGN_TEXT[design]}{shown}. Its guarantee: {promise}.")
    for ch in plan.late:
        st.warning(
            f"The plan's {setting_words(ch.key)} was changed from "
            f"{literal(value_words(ch.key, ch.old_value))} to "
            f"{literal(value_words(ch.key, ch.new_value))} after {ch.labels_before:,} labels "
            "existed. The change is "
            "recorded but not applied: a plan chosen after seeing data could make past "
            "verdicts significant."
        )
