"""Comparative mode's queued keys in chromium when the server answers late: 13 label keys
typed fast on one screen of 13 outputs, then Enter, while the Streamlit server is paused
(SIGSTOP, then SIGCONT: what a loaded machine does to it) for longer than the key queue
used to wait for a click's run to start. Every key must land on its own output, none lost
and none twice on the same output: the labels in the database are the typed ones, in screen
order. The labels are drawn by the page while the server is stopped, and the screen costs
one round trip (views/annotate/compare_draft.py), not one per key."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from db.engine import session_scope
from db.schema.models import Annotation
from tests.browser.conftest import Server
from tests.browser.test_compare_browser import IDLE, seed_compare

SYSTEMS = 13
KEYS = "aiaaiiaiaaaii"  # 13 labels, not a repeating pattern
MARKS = ("() => [...document.querySelectorAll('.tandem-cmp-label')]"
         ".filter(e => e.innerText !== 'not judged yet').length")  # fmt: skip


def seed(engine) -> str:  # type: ignore[no-untyped-def]
    import tests.browser.test_compare_browser as compare

    systems = compare.SYSTEMS
    compare.SYSTEMS = tuple(f"sys-{k}" for k in range(SYSTEMS))
    try:
        return seed_compare(engine, name="Thirteen", n_items=2)
    finally:
        compare.SYSTEMS = systems


def labels(server: Server) -> list[tuple[int, int]]:
    with session_scope(server.engine) as s:
        query = select(Annotation.screen_position, Annotation.label).order_by(Annotation.id)
        return [(r[0], r[1]) for r in s.execute(query)]


def server_pid(server: Server) -> int:
    """The `streamlit run` process the fixture started (found by its port)."""
    port = server.url.rsplit(":", 1)[1]
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"--server.port={port}".encode() in cmd and b"streamlit" in b" ".join(cmd):
            return int(proc.name)
    raise AssertionError("the test's streamlit server was not found")


def pause(pid: int, seconds: float) -> threading.Thread:
    """Stop the server now and let it go on after ``seconds`` (in a thread)."""
    os.kill(pid, signal.SIGSTOP)

    def resume() -> None:
        time.sleep(seconds)
        os.kill(pid, signal.SIGCONT)

    thread = threading.Thread(target=resume)
    thread.start()
    return thread


def saved_or_refused(page, before: str, timeout: float) -> None:  # type: ignore[no-untyped-def]
    """Until the next screen is drawn, or the page says an output has no judgment (a key
    was lost)."""
    page.wait_for_function(
        "(b) => { const e = document.querySelector('.tandem-source');"
        " return (e && e.innerText !== b) || document.body.innerText.includes('no judgment');"
        " }",
        arg=before,
        timeout=timeout,
    )


@pytest.mark.browser
def test_thirteen_keys_typed_fast_on_a_slow_server(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = seed(server.engine)
    page.goto(f"{server.url}/?token={token}")
    page.locator(".tandem-output").nth(SYSTEMS - 1).wait_for()
    page.wait_for_selector(IDLE)
    page.wait_for_function("window.__tandemKeysInstalled === true")
    # the screen's draft drawn (on a loaded server it can come seconds after the page is idle):
    # keys typed before it wait for it (views/keys.js), which a stopped server delays
    page.wait_for_function(
        "window.__tandemDraft && window.__tandemDraft.ident === window.__tandemDraftIdent"
    )
    before = page.locator(".tandem-source").first.inner_text()
    first_draw = page.evaluate("window.__tandemKeysRev")
    pid = server_pid(server)
    resumed = pause(pid, 2.5)  # longer than any wait for a click's run to start
    try:
        page.keyboard.type(KEYS[:5], delay=15)
        # the labels are drawn by the page itself while the server is stopped (issue 33)
        drawn_while_stopped = page.evaluate(MARKS)
    finally:
        resumed.join()
    page.wait_for_timeout(300)
    resumed = pause(pid, 1.5)  # and again, with keys still queued
    resumed.join()
    page.keyboard.type(KEYS[5:], delay=15)
    page.keyboard.press("Enter")
    saved_or_refused(page, before, timeout=120_000)
    shown = page.evaluate(
        "() => [...document.querySelectorAll('.tandem-cmp-label')].map(e => e.innerText)"
    )
    expected = [(k, 1 if key == "a" else 0) for k, key in enumerate(KEYS)]
    assert labels(server) == expected, shown
    assert drawn_while_stopped == 5
    # one round trip for the screen, not one per key: the draws are numbered in the page
    assert page.evaluate("window.__tandemKeysRev") <= first_draw + 2


@pytest.mark.browser
def test_keys_typed_before_the_draft_is_drawn_wait_for_it(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    """The screen's draft (its components v2 element) can be drawn seconds after the page is
    idle on a loaded server. Keys typed before it wait, in order, and each lands on its own
    output: none is dropped, so no later label moves onto the wrong output. The draft is
    held back here for 6 s (the page's own object, put back as its draw would put it)."""
    token = seed(server.engine)
    page.goto(f"{server.url}/?token={token}")
    page.locator(".tandem-output").nth(SYSTEMS - 1).wait_for()
    page.wait_for_selector(IDLE)
    page.wait_for_function(
        "window.__tandemDraft && window.__tandemDraft.ident === window.__tandemDraftIdent"
    )
    before = page.locator(".tandem-source").first.inner_text()
    page.evaluate(
        "() => { window.__heldDraft = window.__tandemDraft; window.__tandemDraft = undefined; }"
    )
    page.keyboard.type(KEYS, delay=15)
    page.wait_for_timeout(6000)
    assert page.evaluate(MARKS) == 0  # nothing drawn without the draft
    page.evaluate("() => { window.__tandemDraft = window.__heldDraft; }")
    page.wait_for_function(f"({MARKS})() === {SYSTEMS}")
    page.keyboard.press("Enter")
    saved_or_refused(page, before, timeout=60_000)
    assert labels(server) == [(k, 1 if key == "a" else 0) for k, key in enumerate(KEYS)]
