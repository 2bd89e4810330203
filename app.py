"""Tandem's entry point: checks the database, gates roles, and routes to the pages."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may reach a model hub at run time

import streamlit as st

from db.migrate import DatabaseNotMigrated, ensure_migrated
from pages.common import engine

st.set_page_config(page_title="Tandem", page_icon="⚖️", layout="wide")

try:
    ensure_migrated(engine())
except DatabaseNotMigrated as exc:
    st.error(str(exc))
    st.stop()

if st.session_state.get("role") == "admin":
    pages = {
        "Campaigns": [
            st.Page("pages/campaigns.py", title="Campaigns", icon="📋", default=True),
            st.Page("pages/import_campaign.py", title="Import", icon="📥"),
        ],
        "Analysis": [
            st.Page("pages/dashboard.py", title="Dashboard", icon="📈"),
            st.Page("pages/calibration.py", title="Calibration", icon="🎯"),
        ],
        "Annotation": [
            st.Page("pages/annotate.py", title="Annotate", icon="✍️"),
        ],
    }
    with st.sidebar:
        if st.button("Sign out"):
            st.session_state.clear()
            st.rerun()
else:
    pages = [st.Page("pages/login.py", title="Sign in", icon="🔑", default=True)]

st.navigation(pages).run()
