"""Admin: a campaign's statistics settings on one page — the error rate α, the
family (Holm or e-BH), the equivalence margin ε, racing, the live design, the estimand and
the plan. Written through
annotation.campaign.statistics_settings (checked, logged with the label count); this page draws."""

import pandas as pd
import streamlit as st

from annotation.campaign.statistics_settings import (
    FAMILIES,
    LEVEL_WARNING,
    SETTING_KEYS,
    StatisticsSettings,
    change_sentence,
    read_statistics,
    set_statistics,
    setting_words,
    value_words,
)
from annotation.queue import racing
from annotation.queue.admin import setting_changes
from db.campaign.campaigns import list_campaigns
from estimators.sequences.designs import DESIGN_TEXT, ESTIMAND_TEXT, LiveDesign
from views.common import admin_page, allowed, campaign_picker, engine, literal, may_write, permitted

admin_page("Statistics")
st.caption(
    "How the dashboard reads its verdicts: the error rate α and its family, the equivalence "
    "margin, racing, the live design, the estimand and the plan (fix the plan, design and "
    "estimand before the first label). Every change is logged with the number of labels at that "
    "moment; the dashboard, `cli.py evaluate` and every export read these settings."
)
# archived ones too: their settings can be read (a save is refused, saying why)
summaries = {c.name: c for c in permitted(list_campaigns(engine(), archived=None))}
name = campaign_picker(list(summaries), key="statistics_campaign")
if name is None:
    st.stop()
cid = summaries[name].id
RO = not may_write(cid)  # a viewer: the form is disabled (and allowed() refuses anyway)
now = read_statistics(engine(), cid)


def in_force(now: StatisticsSettings) -> dict:
    """The form's boxes as the settings in force (by widget key)."""
    return {
        "stat-alpha": now.alpha, "stat-family": now.family,
        "stat-margin": now.equivalence_margin, "stat-racing": now.racing,
        "stat-plan-by": "difference" if now.measurable_difference is not None else "labels",
        "stat-difference": now.measurable_difference or 0.1, "stat-power": now.power,
        "stat-labels": int(now.planned_labels or 0), "stat-design": now.design,
        "stat-estimand": now.estimand,
    }  # fmt: skip


# The boxes start from the settings in force: on a campaign's first draw, and after a save
# (a change recorded but not applied, after labels existed, is named beside its box instead
# of staying in it). Set through the session state, which the browser's widgets follow even
# when the value in force did not change (a widget's own value= would not reset it).
fresh = st.session_state.get("statistics_page_campaign") != cid
if fresh or "statistics_saved" in st.session_state:
    st.session_state.update(in_force(now))
    st.session_state["statistics_page_campaign"] = cid


def settings_form(now: StatisticsSettings) -> None:
    """The form; a save writes only what changed, and only as a whole."""
    with st.form("statistics_settings"):
        left, right = st.columns(2)
        alpha = left.number_input(
            "Error rate α", min_value=0.0, max_value=1.0, step=0.01,
            format="%.3f", key="stat-alpha", help="The level of the family below: at most "
            "(0, 0.5]. Not the adequacy rate (the share of outputs judged adequate).",
        )  # fmt: skip
        families = list(FAMILIES)
        family = left.radio(
            "Family of errors", families, key="stat-family",
            format_func=lambda f: FAMILIES[f],
        )  # fmt: skip
        margin = left.number_input(
            "Equivalence margin ε", min_value=0.0, max_value=1.0, step=0.01, format="%.3f",
            key="stat-margin", help="A pair whose interval lies within ±ε settles as 'no "
            "difference larger than ε'. Not the measurable difference.",
        )  # fmt: skip
        _late_note(left, now, "equivalence_margin")
        plan_by = right.radio(
            "Plan by", ["difference", "labels"], key="stat-plan-by",
            format_func={"difference": "the measurable difference (the planner)",
                         "labels": "a label budget per system"}.get,
        )  # fmt: skip
        for key in ("measurable_difference", "power", "planned_labels", "live_design"):
            _late_note(right, now, key)
        difference = right.number_input(
            "Measurable difference (in adequacy rate)", min_value=0.0, max_value=1.0,
            step=0.01, format="%.3f",
            key="stat-difference", help="The difference between two systems the plan should "
            "detect; the planner turns it into labels per system (at α over all pairs).",
        )  # fmt: skip
        power = right.number_input(
            "Power", min_value=0.0, max_value=1.0, step=0.05, format="%.2f",
            key="stat-power", help="The chance to detect the measurable difference.",
        )  # fmt: skip
        labels = right.number_input(
            "Planned labels per system", min_value=0, step=10, key="stat-labels",
            help="0 = each pool's size.",
        )  # fmt: skip
        designs = [str(d) for d in LiveDesign]
        design = right.selectbox(
            "Live design", designs, key="stat-design",
            format_func=lambda d: f"{d} — {DESIGN_TEXT[LiveDesign(d)]}",
        )  # fmt: skip
        estimands = list(ESTIMAND_TEXT)
        estimand = left.selectbox(
            "Estimand", estimands, key="stat-estimand",
            format_func=ESTIMAND_TEXT.get,
        )  # fmt: skip
        _late_note(left, now, "estimand")
        racing_on = st.toggle(
            "Racing: stop drawing a system once all its pairs are settled", key="stat-racing",
            help="Each newly drawn item is queued only for the systems that still have an "
            "unsettled pair; the freed labels go to them. Off: every system, every item "
            "(uniform). Labels already given are always kept.",
        )  # fmt: skip
        if st.form_submit_button("Save statistics settings", disabled=RO) and allowed(cid):
            plan = _plan_values(now, plan_by, difference, power, int(labels))
            chosen = {"design": design, "estimand": estimand}
            plan |= {k: v for k, v in chosen.items() if v != getattr(now, k)}
            _save(alpha=alpha, family=family, equivalence_margin=margin, racing_on=racing_on,
                  **plan)  # fmt: skip


def _late_note(col, now: StatisticsSettings, key: str) -> None:  # type: ignore[no-untyped-def]
    """Beside a box: its latest value saved after labels existed, recorded but not applied
    (the box shows the value in force)."""
    late = [c for c in now.late if c.key == key]
    if late:
        c = late[-1]
        col.caption(
            f"{value_words(key, c.new_value)} **recorded, not applied** (saved after "
            f"{c.labels_before:,} labels): the {setting_words(key)} in force stays "
            f"{value_words(key, c.old_value)}."
        )


def _plan_values(now: StatisticsSettings, by: str, difference: float, power: float,
                 labels: int) -> dict:  # fmt: skip
    """Only the plan inputs that changed: an unchanged plan is not recomputed."""
    if by == "difference":
        same = (difference, power) == (now.measurable_difference, now.power)
        return {} if same else {"measurable_difference": difference, "power": power}
    same = (labels or None) == now.planned_labels and now.measurable_difference is None
    return {} if same else {"planned_labels": labels}


def _save(**values) -> None:  # type: ignore[no-untyped-def]
    try:
        after = set_statistics(engine(), cid, **values)
    except ValueError as exc:  # also an archived campaign: nothing was written
        st.error(f"Nothing saved: {literal(exc)}.")
        return
    st.session_state["statistics_saved"] = after.lines()
    st.rerun()


def change_log() -> None:
    """The setting log's statistics entries, with the labels that existed then."""
    rows = [{"setting": setting_words(c.key), "from": value_words(c.key, c.old_value),
             "to": value_words(c.key, c.new_value), "labels then": c.labels_before,
             "when": c.changed_at}
            for c in setting_changes(engine(), cid) if c.key in SETTING_KEYS]  # fmt: skip
    st.subheader("Changes")
    if not rows:
        st.caption("No statistics setting changed yet: the defaults are in force.")
        return
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


n_labels = summaries[name].n_judgments
if summaries[name].archived_at is not None:
    st.info("This campaign is archived, so it is read-only: restore it first (Campaigns page).")
if now.level_changes:
    st.warning(LEVEL_WARNING)
if now.late:
    st.info(
        "Recorded but not applied (changed after labels existed; the plan and ε stay as at "
        "the first label): "
        + "; ".join(f"{change_sentence(c)} after {c.labels_before:,} labels" for c in now.late)
    )
if n_labels:
    st.caption(
        f"{n_labels:,} labels exist. A new α or family applies at once (read the warning it "
        "raises); a new plan or ε is recorded but not applied."
    )
saved = st.session_state.pop("statistics_saved", None)
if saved:
    st.success("Saved. In force: " + " · ".join(saved))
settings_form(now)
dropped = racing.dropped_systems(engine(), cid)
if dropped:
    st.caption("Racing dropped (all pairs settled): " + racing.dropped_text(dropped))
st.markdown("\n".join(f"- {literal(line)}" for line in now.lines()))
change_log()
