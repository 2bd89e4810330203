"""The Annotators page's live plan: the planned labels per system (or the measurable
difference), the live design and the estimand, fixed before the first label. The other
statistics settings are on the Statistics page (views/statistics_panel.py)."""

import streamlit as st

from annotation.live_plan import LivePlan, campaign_planned_labels, current_plan, set_plan
from db.campaigns import CampaignSummary
from estimators.live_designs import DESIGN_TEXT, SUPERPOPULATION, TEST_SET, LiveDesign
from views.common import allowed, engine, literal


def live_plan_panel(campaign_id: int, summary: CampaignSummary, ro: bool) -> None:
    """The plan in force, its form, and what a save did."""
    st.subheader("Live plan")
    plan = current_plan(engine(), campaign_id)
    st.caption(
        "The dashboard's live verdicts are tuned to a planned number of labels per system "
        "(your label budget divided by the number of systems). Fix the plan before the first "
        "label: a change made after labels exist is recorded and shown on the dashboard, but "
        "not applied, because a plan chosen after seeing data could turn past verdicts "
        "significant. The error rate α, its family, the equivalence margin, racing and the "
        "plan by measurable difference and power are on the **Statistics** page."
    )
    _plan_form(campaign_id, plan, summary, ro)
    saved = st.session_state.pop("plan_saved", None)
    if saved is not None:
        size, late = saved
        if late:
            st.warning(
                "Saved and recorded, but not applied: labels already exist (see the dashboard)."
            )
        else:
            per_system = "each pool" if size is None else f"{size:,} labels per system"
            st.success(f"Plan saved: {per_system}.")
    size_text = "each pool's size" if plan.planned_labels is None else f"{plan.planned_labels:,}"
    st.caption(
        f"In force: {size_text} labels per system, design {plan.design}, estimand {plan.estimand}."
        + (f" {len(plan.late)} later change(s) recorded, not applied." if plan.late else "")
    )


def _plan_form(campaign_id: int, plan: LivePlan, summary: CampaignSummary, ro: bool) -> None:
    """Planned labels or the measurable difference, design and estimand; saved only as a
    whole."""
    with st.form("live_plan"):
        left, right = st.columns(2)
        planned = left.number_input(
            "Planned labels per system", min_value=0, step=10,
            value=int(plan.planned_labels or 0), help="0 = not set: tuned to the pool size.",
        )  # fmt: skip
        smallest = left.number_input(
            "…or the measurable difference (in adequacy rate)", min_value=0.0, max_value=0.99,
            value=0.0, step=0.01, format="%.2f",
            help="If set, the planner's forecast replaces the number above: labels per system "
            "for an 80% chance to detect this difference in adequacy rates.",
        )  # fmt: skip
        designs = list(LiveDesign)
        design = right.selectbox(
            "Live design", designs, index=designs.index(plan.design),
            format_func=lambda d: f"{d} — {DESIGN_TEXT[d]}",
        )  # fmt: skip
        estimands = [TEST_SET, SUPERPOPULATION]
        estimand = right.selectbox(
            "Estimand", estimands, index=estimands.index(plan.estimand),
            format_func={TEST_SET: "this campaign's own items (test set, as WMT reports)",
                         SUPERPOPULATION: "the average annotator (super-population)"}.get,
        )  # fmt: skip
        if st.form_submit_button("Save plan", disabled=ro) and allowed(campaign_id):
            try:
                n_systems = summary.n_systems
                size = (
                    campaign_planned_labels(engine(), campaign_id, n_systems, smallest, plan.alpha)
                    if smallest > 0
                    else (int(planned) or None)
                )  # fmt: skip
                after = set_plan(
                    engine(), campaign_id, planned_labels=size, live_design=design,
                    estimand=estimand,
                )
            except ValueError as exc:
                st.error(f"Could not save the plan: {literal(exc)}")
            else:
                st.session_state["plan_saved"] = (size, len(after.late) > len(plan.late))
                st.rerun()
