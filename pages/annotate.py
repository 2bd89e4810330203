"""Annotation: not built yet (issue 6). Says so plainly instead of pretending."""

import streamlit as st

st.title("Annotate")
st.info(
    "Not available yet. Invite links, the random assignment queue and keyboard labelling "
    "are being built. Judgments can already be imported with a campaign file."
)
