"""The tutorial before an annotator's first real item (annotation.judging.tutorial): one item at a
time, feedback after each, a second attempt after a failed first, a stop after two. Called
at the top of the annotate page; draws only, and stops the page until the tutorial is
passed."""

from html import escape

import streamlit as st

from annotation.judging import tutorial
from views.common import engine, literal

_FEEDBACK = "tutorial_feedback"


def _answer(campaign_id: int, annotator_id: int, index: int, label: int) -> None:
    try:
        st.session_state[_FEEDBACK] = tutorial.answer(
            engine(), campaign_id, annotator_id, index, label
        )
    except tutorial.TutorialError:
        st.session_state.pop(_FEEDBACK, None)  # answered already (a double click): move on


def tutorial_gate(annotator_id: int, campaign_id: int, title: str) -> None:
    """Nothing when there is no tutorial or it was passed; else draw it and stop."""
    feedback = st.session_state.get(_FEEDBACK)
    now = tutorial.status(engine(), campaign_id, annotator_id)
    if now is None or (now.state == "passed" and feedback is None):
        return
    st.title(literal(title))
    st.subheader("Before you start: a short tutorial")
    if feedback is not None:
        _show_feedback(feedback)
        st.stop()
    if now.state == "failed":
        st.error(
            "You did not pass the comprehension check in two attempts, so you cannot take "
            "part in this study. Thank you for your time; please return the study on your "
            "platform."
        )
        st.stop()
    item = now.item
    assert item is not None
    again = " (second attempt)" if now.attempt > 1 else ""
    st.caption(
        f"Item {now.index + 1} of {now.total}{again}: is the output an adequate rendering of "
        f"the source? After each answer you see whether it was right and why. "
        f"{now.pass_needed} of {now.total} right let you start; you have two attempts."
    )
    st.markdown("**Source**")
    st.text(item.source)
    if item.reference:
        st.markdown("**Reference**")
        st.text(item.reference)
    st.markdown("**Output**")
    st.html(
        '<div class="tandem-tutorial-output" style="white-space:pre-wrap;font-size:1.1rem">'
        f"{escape(item.output)}</div>"
    )
    left, right = st.columns(2)
    left.button("Adequate", key=f"tutorial-yes-{now.attempt}-{now.index}", width="stretch",
                on_click=_answer, args=(campaign_id, annotator_id, now.index, 1))  # fmt: skip
    right.button("Inadequate", key=f"tutorial-no-{now.attempt}-{now.index}", width="stretch",
                 on_click=_answer, args=(campaign_id, annotator_id, now.index, 0))  # fmt: skip
    st.stop()


def _show_feedback(fb: tutorial.Feedback) -> None:
    word = "adequate" if fb.expected else "inadequate"
    if fb.right:
        st.success(f"Right: this output is {word}. {fb.explanation}")
    else:
        st.error(f"Not quite: this output is {word}. {fb.explanation}")
    label = "Next item"
    if fb.outcome == "passed":
        st.success(f"You passed the tutorial ({fb.score} of {fb.total} right). On to the task.")
        label = "Start the task"
    elif fb.outcome == "retry":
        st.warning(
            f"{fb.score} of {fb.total} right: not enough to start. You have one more attempt "
            "at the tutorial."
        )
        label = "Try again"
    elif fb.outcome == "failed":
        label = "Continue"
    st.button(label, key="tutorial-next", on_click=lambda: st.session_state.pop(_FEEDBACK, None))
