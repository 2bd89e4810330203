"""Dashboard: not built yet (issue 7). Says so plainly instead of pretending."""

import streamlit as st

from pages.common import require_admin

require_admin()
st.title("Dashboard")
st.info(
    "Not available yet. The live significance dashboard (per-system estimates, pairwise "
    "verdicts, labels still needed) is being built. Campaign data can already be imported "
    "and exported on the **Campaigns** page."
)
