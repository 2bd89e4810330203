"""The pre-task form (annotation.campaign.pretask), drawn once before an annotator's first
task and before the tutorial: the organiser's intro (markdown, no HTML) and one widget per
field; nothing else of the campaign is shown until the answers are stored."""

from __future__ import annotations

from typing import Any

import streamlit as st

from annotation.campaign import pretask
from views.common import engine, literal


def _widget(f: dict[str, Any], key: str) -> Any:
    label = literal(f["label"]) + (" *" if f["required"] else "")
    if f["type"] == "choice":
        return st.selectbox(label, f["choices"], index=None, key=key, placeholder="Choose…")
    if f["type"] == "number":
        return st.number_input(label, min_value=f.get("min"), max_value=f.get("max"),
                               value=None, key=key, placeholder="a number")  # fmt: skip
    return st.text_input(label, key=key, max_chars=500)


#: session key: the annotator whose form is known to be answered (or not asked)
CHECKED = "pretask_checked"


def pretask_gate(annotator_id: int, title: str) -> None:
    """Nothing when the campaign asks no form or it was answered; else draw it and stop.
    Once none is pending the session remembers it (no query on each label's rerun); a form
    set later is caught by the server (FormPending), whose handler forgets it again."""
    if st.session_state.get(CHECKED) == annotator_id:
        return
    form = pretask.pending_form(engine(), annotator_id)
    if form is None:
        st.session_state[CHECKED] = annotator_id
        return
    st.title(literal(title))
    st.subheader("Before you start: a few questions")
    if form.get("intro"):
        st.markdown(form["intro"])
    refused = st.session_state.pop("pretask_refused", None)
    if refused:
        st.warning(f"Nothing was saved: {literal(refused)}.")
    with st.form("pretask_form", border=True):
        answers = {f["name"]: _widget(f, f"pretask_{f['name']}") for f in form["fields"]}
        st.caption("Fields marked \\* need an answer.")
        sent = st.form_submit_button("Save and continue", type="primary", key="pretask_save")
    if sent:
        try:
            pretask.save_answers(engine(), annotator_id, answers)
        except ValueError as exc:
            st.session_state["pretask_refused"] = str(exc)
        st.session_state.pop("view", None)
        st.rerun()
    st.stop()
