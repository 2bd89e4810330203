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

admin_page("Annotators")

summaries = {c.name: c for c in permitted(list_campaigns(engine()))}
name = campaign_picker(list(summaries), key="annotators_campaign")
if name is None:
    st.stop()
campaign_id = summaries[name].id
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
