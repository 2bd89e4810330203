"""The tutorial before an annotator's first real item (annotation.judging.tutorial): one item at a
time, on the screen the campaign uses (label buttons; a 0–100 score for DA / SQM; the span
widget and the ESA score for error-span campaigns), feedback after each item that gives it
(what the answer missed, then the item's warning), nothing shown after a silent check, a
second attempt after a failed first, a stop after two. Called at the top of the annotate
page; draws only, and stops the page until the tutorial is passed."""

from html import escape

import streamlit as st

from annotation.judging import tutorial
from annotation.tasks import batches as tasks
from views.annotate.task_complete import screen_out
from views.common import engine, literal

FEEDBACK = "tutorial_feedback"
REFUSED = "tutorial_refused"
VIEW_FLAG = "tutorial_view"  # the page's "view" is the tutorial's stand-in, not a real item


def answer(campaign_id: int, annotator_id: int, index: int, **given) -> None:  # type: ignore[no-untyped-def]
    """Send an answer; keep its feedback for the next run (none after a silent check that is
    not the last of its attempt: the next item follows at once)."""
    st.session_state.pop(REFUSED, None)
    try:
        fb = tutorial.answer(engine(), campaign_id, annotator_id, index, **given)
    except tutorial.TutorialError as refused:  # a double click, a stale page, a third attempt
        st.session_state.pop(FEEDBACK, None)
        st.session_state[REFUSED] = str(refused)
        return
    if fb.silent and fb.outcome is None:
        st.session_state.pop(FEEDBACK, None)
    else:
        st.session_state[FEEDBACK] = fb


def _leave() -> None:
    """The tutorial is over for this annotator: drop its stand-in view (the page claims the
    first real item)."""
    if st.session_state.pop(VIEW_FLAG, False):
        st.session_state.pop("view", None)
        st.session_state.pop("hint", None)


def tutorial_gate(annotator_id: int, campaign_id: int, title: str) -> None:
    """Nothing when there is no tutorial or it was passed; else draw it and stop."""
    feedback = st.session_state.get(FEEDBACK)
    now = tutorial.status(engine(), campaign_id, annotator_id)
    if now is None or (now.state == "passed" and feedback is None):
        _leave()
        return
    st.title(literal(title))
    st.subheader("Before you start: a short tutorial")
    refused = st.session_state.get(REFUSED)
    if refused:
        st.info(refused)
    if feedback is not None:
        show_feedback(feedback)
        st.stop()
    if now.state == "failed":
        st.error(
            "You did not pass the comprehension check in two attempts, so you cannot take "
            "part in this study. Thank you for your time; please return the study on your "
            "platform."
        )
        screen_out(tasks.settings(engine(), campaign_id).screen_out)
        st.stop()
    item = now.item
    assert item is not None
    again = " (second attempt)" if now.attempt > 1 else ""
    st.caption(
        f"Item {now.index + 1} of {now.total}{again}: {_task_words(now.mode)} After each "
        f"answer you see whether it was right and why. {now.pass_needed} right let you start; "
        "you have two attempts."
    )
    if item.instructions:
        st.info(literal(item.instructions).replace("\n", "  \n"))
    if now.mode.asks_spans:
        from views.annotate.tutorial_spans import span_screen

        def send(**given) -> None:  # type: ignore[no-untyped-def]
            answer(campaign_id, annotator_id, now.index, **given)

        st.session_state[VIEW_FLAG] = True  # the span screen's stand-in view is the page's
        span_screen(annotator_id, campaign_id, title, now, send, FEEDBACK)
    elif now.mode.asks_preference:
        _pair_screen(annotator_id, campaign_id, now)
    elif now.mode.asks_slider:
        _texts(item)
        _score_screen(annotator_id, campaign_id, now)
    else:
        _texts(item)
        _label_screen(annotator_id, campaign_id, now)
    st.stop()


def _task_words(mode) -> str:  # type: ignore[no-untyped-def]
    if mode.asks_preference:
        return "which output is the better response to the source, or do they tie?"
    if mode.asks_spans:
        return "mark the errors in the output and give the score, as in the task."
    if mode.asks_slider:
        return "give the output the score it deserves, as in the task."
    return "is the output an adequate rendering of the source?"


def _texts(item: tutorial.TutorialItem) -> None:
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


def _label_screen(annotator_id: int, campaign_id: int, now: tutorial.Status) -> None:
    left, right = st.columns(2)
    tag = f"{now.attempt}-{now.index}"
    left.button(
        "Adequate",
        key=f"tutorial-yes-{tag}",
        width="stretch",
        on_click=answer,
        args=(campaign_id, annotator_id, now.index),
        kwargs={"label": 1},
    )
    right.button(
        "Inadequate",
        key=f"tutorial-no-{tag}",
        width="stretch",
        on_click=answer,
        args=(campaign_id, annotator_id, now.index),
        kwargs={"label": 0},
    )


def _pair_screen(annotator_id: int, campaign_id: int, now: tutorial.Status) -> None:
    """A pair item: the two outputs on the sides a real pair would have, keys 1 / 2 / 0."""
    from views.keys import keyboard

    item = now.item
    assert item is not None and item.output_b is not None
    st.markdown("**Source**")
    st.text(item.source)
    if item.reference:
        st.markdown("**Reference**")
        st.text(item.reference)
    first_left = tutorial.pair_sides(annotator_id, now.index)
    texts = (item.output, item.output_b) if first_left else (item.output_b, item.output)
    for column, title, text in zip(st.columns(2), ("Output 1 (left)", "Output 2 (right)"),
                                   texts, strict=True):  # fmt: skip
        column.html(
            f'<p style="font-weight:700;margin:0 0 0.2rem">{title}</p>'
            '<div class="tandem-tutorial-output" style="white-space:pre-wrap;font-size:1.1rem">'
            f"{escape(text)}</div>"
        )
    tag = f"{now.attempt}-{now.index}"
    keys = {}
    for column, (word, choice, key) in zip(
        st.columns(3),
        (("Left is better `1`", "left", "1"), ("Tie `0`", "tie", "0"),
         ("Right is better `2`", "right", "2")),
        strict=True,
    ):  # fmt: skip
        keys[key] = f"tutorial-pref-{choice}-{tag}"
        column.button(word, key=keys[key], width="stretch", on_click=answer,
                      args=(campaign_id, annotator_id, now.index),
                      kwargs={"preference": choice})  # fmt: skip
    keyboard(None, keys)


def _score_screen(annotator_id: int, campaign_id: int, now: tutorial.Status) -> None:
    """DA: a 0–100 score; SQM: its seven points (0–6); a Likert scale: its labelled points
    (p of n sent as 100·(p − 1)/(n − 1)); each sent as the stored 0–100 score the item's
    range is written in."""
    from annotation.campaign.likert_scale import likert_scale
    from annotation.judging.da_judgments import SQM_ANCHORS, scale, sqm_to_score

    likert = likert_scale(engine(), campaign_id) if now.mode.asks_slider else None
    if likert is not None and scale(now.mode, likert).get("labels"):
        labels = likert["labels"]
        key = f"tutorial-likert-{now.attempt}-{now.index}"
        st.radio("Your point on the scale", list(range(len(labels))), index=None, key=key,
                 horizontal=True, format_func=lambda i: labels[i])  # fmt: skip

        def send_point() -> None:
            index = st.session_state.get(key)
            if index is not None:
                answer(campaign_id, annotator_id, now.index,
                       score=100.0 * index / (len(labels) - 1))  # fmt: skip

        st.button("Check my answer", key="tutorial-check", type="primary", on_click=send_point)
        return
    top = scale(now.mode)["top"]
    key = f"tutorial-score-{now.attempt}-{now.index}"
    words = dict(SQM_ANCHORS) if top != 100 else {}
    st.slider(f"Your score (0–{top})", min_value=0, max_value=top, value=top // 2, step=1,
              key=key, format="%d")  # fmt: skip
    if words:
        st.caption(" · ".join(f"{k}: {w}" for k, w in words.items()))

    def send() -> None:
        value = int(st.session_state[key])
        answer(campaign_id, annotator_id, now.index,
               score=float(value) if top == 100 else sqm_to_score(value))  # fmt: skip

    st.button("Check my answer", key="tutorial-check", type="primary", on_click=send)


def show_feedback(fb: tutorial.Feedback) -> None:
    """What the answer missed and the item's warning (loud items), then the attempt's end."""
    if not fb.silent:
        if fb.right:
            expects = f" ({fb.expects})" if fb.expects else ""
            st.success(literal(f"Right{expects}. {fb.explanation}".strip()))
        else:
            st.error(literal("Not quite: " + "; ".join(fb.problems) + "."))
            st.warning(literal(fb.warning or fb.explanation), icon=":material/warning:")
            if fb.warning and fb.explanation and fb.explanation != fb.warning:
                st.caption(literal(fb.explanation))
        if fb.output:
            st.html(
                '<div class="tandem-tutorial-output" style="white-space:pre-wrap">'
                f"<b>Output:</b> {escape(fb.output)}<br><b>Your answer:</b> {escape(fb.given)}"
                + ("" if fb.right else f"<br><b>Expected:</b> {escape(fb.expects)}")
                + "</div>"
            )
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
    st.button(label, key="tutorial-next", on_click=lambda: st.session_state.pop(FEEDBACK, None))
