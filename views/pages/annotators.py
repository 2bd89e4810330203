"""Admin: a campaign's way to annotators, as five steps in the order of the work: set up
(queue settings with the quality-control cost, sampling, document order, comparative
screens, guidelines, the public title; the live plan is on the Statistics page), build the
queue (and re-build it before anyone starts), tasks, invite (personal links, the study
link), watch (each annotator's work and link). Each step says what is locked at it now
(annotation.campaign.setup_steps); each section is drawn by its own module; this page puts them in
order."""

import streamlit as st

from annotation.campaign import setup_steps
from db.campaign.campaigns import list_campaigns
from views.admin.annotator_list import annotator_table, invite_form
from views.admin.annotators_study import public_title_form, rebuild_button, study_link_panel
from views.admin.comparative_form import comparative_form
from views.admin.control_block_panel import control_block_panel
from views.admin.guidelines_form import guidelines_form
from views.admin.judging_extras_form import comment_form, likert_form, pretask_form_panel
from views.admin.queue_panel import (
    build_queue_button,
    document_context_form,
    document_order_form,
    queue_settings_panel,
    queue_status,
    sampling_form,
    statistics_pointer,
)
from views.admin.tasks_panel import tasks_panel
from views.admin.tutorial_form import tutorial_form
from views.common import admin_page, campaign_picker, engine, literal, may_write, permitted

#: The page's widgets with fixed keys that show a campaign's stored setting.
CAMPAIGN_WIDGET_KEYS = (
    "active_tau", "document_context", "document_context_window", "document_order",
    "comparative_on", "comparative_all", "comparative_outputs", "task_per_annotator",
    "task_per_item", "task_pass_share", "task_timeout", "task_handoff_url", "task_pass_code",
    "task_fail_code", "task_size", "task_action_task", "task_action", "task_action_who",
    "control_items", "control_counted",
)  # fmt: skip

admin_page("Annotators")

summaries = {c.name: c for c in permitted(list_campaigns(engine()))}
name = campaign_picker(list(summaries), key="annotators_campaign")
if name is None:
    st.stop()
campaign_id = summaries[name].id
if st.session_state.get("annotators_page_campaign") != campaign_id:
    # Widgets with fixed keys keep their state across reruns and ignore their ``value``:
    # after a switch they would show (and a Save would write) the previous campaign's.
    for key in CAMPAIGN_WIDGET_KEYS:
        st.session_state.pop(key, None)
    st.session_state["annotators_page_campaign"] = campaign_id
RO = not may_write(campaign_id)  # a viewer: every write control below is disabled

STAGE = setup_steps.stage(engine(), campaign_id)
LOCKS = STAGE.locks()


def step(number: int, title: str, key: str, what: str) -> None:
    """A step's heading, what it is for, and what is locked at it now."""
    st.header(f"{number} · {title}", divider="gray")
    st.caption(what)
    if key in LOCKS:
        st.caption(f":material/lock: {literal(LOCKS[key])}.")


step(1, "Set up", "setup", "How the campaign is judged: settings first, before the queue.")
queue_status(campaign_id)
settings = queue_settings_panel(campaign_id, summaries[name], RO)
sampling_form(campaign_id, settings, RO)
statistics_pointer()  # racing, α, family, ε: the Statistics page
document_context_form(campaign_id, RO)
comparative_form(campaign_id, RO)  # several outputs of one source on one screen
document_order_form(campaign_id, RO)
guidelines_form(campaign_id, RO)
comment_form(campaign_id, RO)  # the optional comment box on the judgments
likert_form(campaign_id, summaries[name].mode, RO)  # a DA campaign's labelled points
pretask_form_panel(campaign_id, name, RO)  # the form before the first task
tutorial_form(campaign_id, name, summaries[name].mode, RO)  # tutorial items and checks
public_title_form(campaign_id, RO)  # what annotators see instead of the campaign's name

step(2, "Build the queue", "build", "The random order of everything to judge, checks spread.")
build_queue_button(campaign_id, RO)
rebuild_button(campaign_id, RO, STAGE)

step(3, "Tasks", "tasks", "Optional: batches of N with completion codes (crowd studies).")
tasks_panel(campaign_id, RO)  # tasks, quotas and completion codes (views/admin/tasks_panel.py)
control_block_panel(name, campaign_id, RO)  # every annotator judges the block once

step(4, "Invite", "invite", "Personal links, or one study link for a crowd platform.")
invite_form(campaign_id, RO)
study_link_panel(campaign_id, RO)  # one link for a crowd study (views/admin/annotators_study.py)

step(5, "Watch", "watch", "Who judged what; the Dashboard has the verdicts.")
annotator_table(campaign_id, RO)
