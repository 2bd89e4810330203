"""The annotator's task on the annotate page: the countdown, and at the end the completion
code, with the hand-off to the crowd platform (a redirect, and the link in case a browser
blocks it). Draws only: annotation.tasks.work decides."""

from __future__ import annotations

import json
from collections.abc import Callable
from html import escape

import streamlit as st

from annotation.tasks.work import TaskView

#: Seconds the code stays on screen before the hand-off redirect (time to note it down).
REDIRECT_AFTER_S = 3
#: A finished task that did not pass its attention checks: said, not thanked as a pass
#: (its code is the fail code, which the platform tells apart).
FAILED = (
    "Task {task} is finished, but it did not pass the attention checks (too few of them "
    "answered right). Your submission carries this code; thank you for your time."
)


def countdown(task: TaskView, judged: int, skipped: int) -> None:
    """The progress bar of the annotator's own task: "12 of 100 left in this task"
    (nothing when they have no task)."""
    if task.task_id is None:
        return
    done = task.size - task.left
    st.progress(
        done / task.size if task.size else 0.0,
        text=f"Task {task.task_id}: {task.countdown} · You: {judged:,} judged, {skipped:,} skipped",
    )


def screen_out(url: str | None) -> None:
    """A participant who cannot take part (a failed tutorial, a full study): the way back to
    their platform, when the administrator set a screen-out URL (a redirect and its link)."""
    if not url:
        return
    st.html(
        f"<p>Taking you back to your platform in {REDIRECT_AFTER_S} s. If nothing happens, "
        f'<a class="tandem-screen-out" href="{escape(url, quote=True)}" target="_top">'
        "continue here</a>.</p>"
    )
    _redirect(url)


def _redirect(url: str) -> None:
    # A trusted constant script; the URL is JSON-encoded (the administrator's, with the
    # code filled in, URL-quoted).
    st.html(
        f"<script>setTimeout(() => window.location.assign({json.dumps(url)}), "
        f"{REDIRECT_AFTER_S * 1000});</script>",
        unsafe_allow_javascript=True,
    )


def task_end(task: TaskView, start_next: Callable[[], None]) -> None:
    """What the page shows when there is no item: the finished task's code, a paused task,
    or why there is no task."""
    if task.state == "paused":
        st.info(
            "Your task is paused by the campaign's administrator. Your judgments are saved; "
            "come back to this page later to go on."
        )
        return
    if task.state != "done" or task.code is None:
        st.info(task.reason or "No task is open for you now. Thank you!")
        return
    if not task.fresh:  # back after the hand-off: the code again, no second redirect
        _returned(task, start_next)
        return
    if task.outcome == "fail":
        st.warning(FAILED.format(task=task.task_id))
    else:
        st.success(f"Task {task.task_id} is complete. Thank you!")
    _code(task.code)
    if task.handoff_url:
        st.html(
            f"<p>Taking you back in {REDIRECT_AFTER_S} s. If nothing happens, "
            f'<a class="tandem-handoff" href="{escape(task.handoff_url, quote=True)}" '
            'target="_top">continue here</a>.</p>'
        )
        _redirect(task.handoff_url)
    elif task.can_start_next:
        st.button("Start the next task", key="start_next_task", on_click=start_next)


def _code(code: str) -> None:
    st.html(
        '<div class="tandem-completion" style="font-size:1.1rem">Your completion code: '
        f'<code class="tandem-code" style="font-size:1.4rem">{escape(code)}</code></div>'
    )


def _returned(task: TaskView, start_next: Callable[[], None]) -> None:
    """A finished task seen again (a reload, the link reopened after the hand-off): its
    code and link, and the next task when one is open for them, or a plain "done"."""
    if task.outcome == "fail":
        st.warning(FAILED.format(task=task.task_id))
    else:
        st.success(f"You have completed task {task.task_id}. Thank you!")
    _code(task.code or "")
    if task.handoff_url:
        st.html(
            "<p>If you have not submitted this code yet, "
            f'<a class="tandem-handoff" href="{escape(task.handoff_url, quote=True)}" '
            'target="_top">submit it here</a>.</p>'
        )
    if task.can_start_next:
        st.button("Start the next task", key="start_next_task", on_click=start_next)
    else:
        st.info("There is nothing more for you to do here: you may close this page.")
