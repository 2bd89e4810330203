"""Long writes started from a page (an import, a queue build) that a click elsewhere on the
page cannot stop halfway.

Streamlit stops a script run at its next ``st`` call once another widget is used, and starts
the run that click asked for. A write whose progress bar is such a call was stopped inside
its transaction, which rolled back: the tour clicked "Create invite link" while "Build /
extend queue" was drawing its bar, and the queue was not built, with no word on the page.
Here the write runs on a worker thread that carries the page's script context: its bar is
drawn, but a thread other than the script's is never stopped, and the script thread waits
for it without making an ``st`` call. The click's run starts once the write has committed.

What the page says after the write is kept for the browser session and drawn from the next
run on (:func:`finished` ends the run): a message drawn in the write's own run would be wiped
when a click made meanwhile reruns the page. It is kept here, by session id, and not in
``st.session_state``: Streamlit drops what a run wrote there when a click was waiting to
rerun the page (seen: the report written before ``st.rerun()`` was gone in the next run).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

T = TypeVar("T")
_NOTES: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (session id, where) → notes
_GUARD = threading.Lock()


def run_to_the_end(work: Callable[[], T]) -> T:
    """``work()`` on a worker thread with this run's script context, waited for; its result,
    or its exception raised here."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = work()
        except BaseException as exc:  # handed to the script thread below
            out["error"] = exc

    worker = threading.Thread(target=target, name="tandem-long-write", daemon=True)
    add_script_run_ctx(worker, get_script_run_ctx())
    worker.start()
    worker.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def finished(where: str, *notes: tuple[str, str]) -> NoReturn:
    """End the run after the long write of ``where`` (its button's key, with the campaign's
    id where it has one) with what the page should say, as (kind, text) notes:
    ``st.success``, ``st.info``… :func:`show_finished` draws them from the next run on,
    until that button's next write: a message drawn in this run only would be wiped by the
    run of a click made during the write, or by the rerun that click's own action asks for."""
    with _GUARD:
        _NOTES[_key(where)] = list(notes)
    st.rerun()


def show_finished(where: str) -> None:
    """Draw what the last long write of ``where`` said (call it where its button is)."""
    with _GUARD:
        notes = list(_NOTES.get(_key(where), []))
    for kind, text in notes:
        getattr(st, kind)(text)


def _key(where: str) -> tuple[str, str]:
    ctx = get_script_run_ctx()
    return (ctx.session_id if ctx is not None else "", where)
