"""Tandem's entry point: checks the database, gates roles, and routes to the pages."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may reach a model hub at run time

import streamlit as st

from annotation.auth import active_annotator, annotator_for_token
from db.migrate import DatabaseNotMigrated, ensure_migrated
from pages.common import engine

st.set_page_config(page_title="Tandem", page_icon=":material/balance:", layout="wide")

try:
    ensure_migrated(engine())
except DatabaseNotMigrated as exc:
    st.error(str(exc))
    st.stop()

# An invite link (?token=…) makes this session an annotator of that annotator's campaign,
# and nothing else: only the annotate page is routed. The invite is checked on every run, so
# a revoked link stops working at the next click.
token = st.query_params.get("token")
if token or st.session_state.get("role") == "annotator":
    who = (
        annotator_for_token(engine(), token)
        if token
        else active_annotator(engine(), st.session_state.get("annotator_id", -1))
    )
    if who is None:
        st.session_state.clear()
        st.title("Tandem")
        st.error(
            "This invite link is not valid: it was revoked or mistyped. "
            "Ask the campaign's administrator for a new one."
        )
        st.stop()
    if st.session_state.get("annotator_id") != who.annotator_id:
        st.session_state.clear()  # never carry an admin (or another annotator) session over
    st.session_state.update(
        role="annotator",
        annotator_id=who.annotator_id,
        annotator_name=who.name,
        campaign_id=who.campaign_id,
        campaign_name=who.campaign_name,
    )
    pages = [
        st.Page("pages/annotate.py", title="Annotate", icon=":material/edit_note:", default=True)
    ]
elif st.session_state.get("role") == "admin":
    pages = {
        "Campaigns": [
            st.Page(
                "pages/campaigns.py", title="Campaigns", icon=":material/list_alt:", default=True
            ),
            st.Page("pages/import_campaign.py", title="Import", icon=":material/upload_file:"),
            st.Page("pages/annotators.py", title="Annotators", icon=":material/group:"),
        ],
        "Analysis": [
            st.Page("pages/dashboard.py", title="Dashboard", icon=":material/monitoring:"),
            st.Page("pages/calibration.py", title="Calibration", icon=":material/tune:"),
            st.Page("pages/planner.py", title="Planner", icon=":material/calculate:"),
        ],
        "Annotation": [
            st.Page("pages/annotate.py", title="Annotate", icon=":material/edit_note:"),
        ],
    }
    with st.sidebar:
        if st.button("Sign out"):
            st.session_state.clear()
            st.rerun()
else:
    pages = [st.Page("pages/login.py", title="Sign in", icon=":material/key:", default=True)]

st.navigation(pages, position="hidden" if isinstance(pages, list) else "sidebar").run()
