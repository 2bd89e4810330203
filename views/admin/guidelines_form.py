"""The Annotators page's guidelines form: the guidelines and examples (markdown) that
every annotator of the campaign sees above the item."""

import streamlit as st

from annotation.campaign.guidelines import MAX_GUIDELINES_CHARS, guidelines, set_guidelines
from views.common import allowed, engine, literal


def guidelines_form(campaign_id: int, ro: bool) -> None:
    """The form, what a save did, and when the guidelines last changed."""
    st.subheader("Guidelines for annotators")
    notes = guidelines(engine(), campaign_id)
    with st.form("guidelines"):
        guideline_text = st.text_area(
            "Guidelines (markdown)",
            notes.text,
            height=180,
            max_chars=MAX_GUIDELINES_CHARS,
            placeholder="What makes an output adequate here: meaning, terminology, style…",
            key=f"guidelines_text_{campaign_id}",  # per campaign: a switch shows its own
        )
        example_text = st.text_area(
            "Examples (markdown)",
            notes.examples,
            height=140,
            max_chars=MAX_GUIDELINES_CHARS,
            placeholder="A source, an output and the label it should get, with the reason.",
            key=f"guidelines_examples_{campaign_id}",
        )
        if st.form_submit_button("Save guidelines", key="save_guidelines", disabled=ro) and allowed(
            campaign_id
        ):
            try:
                set_guidelines(engine(), campaign_id, guideline_text, example_text)
            except ValueError as exc:
                st.error(f"Nothing was saved: {literal(exc)}.")
            else:
                st.session_state["guidelines_saved"] = True
                st.rerun()
    if st.session_state.pop("guidelines_saved", False):
        st.success("Guidelines saved: annotators see them when they next open or reload the page.")
    changed = (
        f" Last changed {notes.updated_at[:16].replace('T', ' ')} UTC, when "
        f"{notes.labels_before:,} labels existed."
        if notes.updated_at and notes.labels_before is not None
        else ""
    )
    st.caption(
        "Shown to every annotator of this campaign in a panel above the item, open on their "
        "first item. Markdown (headings, lists, **bold**, links) is rendered; HTML is not."
        + changed
    )
