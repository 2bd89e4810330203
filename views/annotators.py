"""Admin: a campaign's annotators (invite links, re-issue and revocation, their work and
attention-check pass rate), its assignment queue (settings with the quality-control cost
and the recorded metric-visibility choice, build/extend) and the guidelines and examples
its annotators see. Each section is drawn by its own module; this page puts them in order."""

import streamlit as st

from db.campaigns import list_campaigns
from views.annotator_list import annotator_table, invite_form
from views.annotators_study import public_title_form, study_link_panel
from views.common import admin_page, campaign_picker, engine, may_write, permitted
from views.comparative_form import comparative_form
from views.guidelines_form import guidelines_form
from views.live_plan_form import live_plan_panel
from views.queue_panel import (
    build_queue_button,
    document_context_form,
    document_order_form,
    queue_settings_panel,
    queue_status,
    racing_form,
    sampling_form,
)
from views.tasks_panel import tasks_panel

#: The page's widgets with fixed keys that show a campaign's stored setting.
CAMPAIGN_WIDGET_KEYS = (
    "active_tau", "racing", "document_context", "document_context_window", "document_order",
    "comparative_on", "comparative_all", "comparative_outputs", "task_per_annotator",
    "task_per_item", "task_pass_share", "task_timeout", "task_handoff_url", "task_pass_code",
    "task_fail_code", "task_size", "task_action_task", "task_action", "task_action_who",
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

# ---------------------------------------------------------------- queue
queue_status(campaign_id)
settings = queue_settings_panel(campaign_id, summaries[name], RO)
sampling_form(campaign_id, settings, RO)
racing_form(campaign_id, RO)
document_context_form(campaign_id, RO)
comparative_form(campaign_id, RO)  # several outputs of one source on one screen
document_order_form(campaign_id, RO)
build_queue_button(campaign_id, RO)

# ---------------------------------------------------------------- live plan
live_plan_panel(campaign_id, summaries[name], RO)

# ---------------------------------------------------------------- guidelines
guidelines_form(campaign_id, RO)

# ---------------------------------------------------------------- annotators
invite_form(campaign_id, RO)
public_title_form(campaign_id, RO)  # what annotators see instead of the campaign's name
study_link_panel(campaign_id, RO)  # one link for a crowd study (views/annotators_study.py)
tasks_panel(campaign_id, RO)  # tasks, quotas and completion codes (views/tasks_panel.py)
annotator_table(campaign_id, RO)
