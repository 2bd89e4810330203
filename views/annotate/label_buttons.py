"""The annotate page's judgment controls: the label buttons in colours that mean what they
say, and the post-edit form of post-edit and "both" campaigns."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from annotation.judging import session
from db.schema.vocabulary import CampaignMode

# The label buttons in colours that mean what they say, and with equal weight (neither is
# Streamlit's red "primary"): by their keys' classes (``st-key-<key>``), which views/keys.js
# clicks too. Icons (✓ / ✗) and the words carry the meaning for colour-blind annotators.
BUTTON_CSS = """
.st-key-adequate button:not(:disabled), .st-key-inadequate button:not(:disabled) {
  color: #fff; font-weight: 600;
}
.st-key-adequate button:not(:disabled) { background-color: #15803d; border-color: #15803d; }
.st-key-adequate button:not(:disabled):hover,
.st-key-adequate button:not(:disabled):focus-visible {
  background-color: #166534; border-color: #14532d; color: #fff;
}
.st-key-inadequate button:not(:disabled) { background-color: #b42318; border-color: #b42318; }
.st-key-inadequate button:not(:disabled):hover,
.st-key-inadequate button:not(:disabled):focus-visible {
  background-color: #912018; border-color: #7a271a; color: #fff;
}
.st-key-adequate button:not(:disabled):active,
.st-key-inadequate button:not(:disabled):active { color: #fff; filter: brightness(0.9); }
.st-key-adequate button code, .st-key-inadequate button code {
  color: inherit; background: rgba(255, 255, 255, 0.18);
}
"""


def button_colours() -> None:
    """The label buttons' colours (a style element only: it takes no room on the page)."""
    st.html(f"<style>{BUTTON_CSS}</style>")


def post_edit_key(slot: session.Slot) -> str:
    return f"post_edit_{slot.assignment_id}_{slot.claim_version}"


def no_edit_key(slot: session.Slot) -> str:
    return f"no_edit_{slot.assignment_id}_{slot.claim_version}"


def post_edit_form(
    slot: session.Slot,
    mode: CampaignMode,
    on_label: Callable[[int | None], None],
    on_done: Callable[[], None],
) -> None:
    """The post-edit box with its "No edit needed" tick and the buttons that save it."""
    with st.form(f"post_edit_form_{slot.assignment_id}_{slot.claim_version}", border=False):
        st.text_area(
            "Post-edit (fix the output; Ctrl+Enter saves, Esc leaves the box)"
            if mode == CampaignMode.POST_EDIT
            else "Post-edit (fix the output; Ctrl+Enter or Esc leaves the box, then "
            "`a` / `i` saves your edit with your judgment)",
            value=slot.text,
            key=post_edit_key(slot),
            height=120,
        )
        st.checkbox(
            "No edit needed (the output is correct as it is; without this tick an "
            "unchanged box is not stored as a post-edit)",
            key=no_edit_key(slot),
        )
        if mode == CampaignMode.POST_EDIT:
            st.form_submit_button(
                "Save post-edit `Ctrl+Enter`",
                key="save_post_edit",
                type="primary",
                on_click=on_label,
                args=(None,),
            )
        else:
            # The first submit button is the one Streamlit's own Ctrl+Enter fires: make
            # it one that records nothing, so no key can pick a label for the annotator.
            c0, c1, c2 = st.columns(3)
            c0.form_submit_button("Done editing `Ctrl+Enter`", key="done_editing", on_click=on_done)
            c1.form_submit_button(
                "Adequate `a`",
                key="adequate",
                icon=":material/check:",
                on_click=on_label,
                args=(1,),
            )
            c2.form_submit_button(
                "Inadequate `i`",
                key="inadequate",
                icon=":material/close:",
                on_click=on_label,
                args=(0,),
            )


def label_buttons(on_label: Callable[[int | None], None]) -> None:
    """Adequate and Inadequate, side by side with equal weight."""
    c1, c2 = st.columns(2)
    c1.button(
        "Adequate `a`",
        key="adequate",
        icon=":material/check:",
        on_click=on_label,
        args=(1,),
        width="stretch",
    )
    c2.button(
        "Inadequate `i`",
        key="inadequate",
        icon=":material/close:",
        on_click=on_label,
        args=(0,),
        width="stretch",
    )
