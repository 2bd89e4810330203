"""A comparative screen's labels stay in the browser until Enter (views/annotate/compare_draft.py):
keys and mouse clicks on the cards are drawn without a server run, a reload mid-screen
brings the labels back, Enter saves them in one round trip, and `u` still undoes the screen."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from db.engine import session_scope
from db.schema.models import Annotation
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_compare_browser import IDLE, seed_compare, source

MARKS = ("() => [...document.querySelectorAll('.tandem-cmp-label')]"
         ".map(e => e.innerText)")  # fmt: skip
REV = "window.__tandemKeysRev"


def current_labels(server: Server) -> list[tuple[int, int]]:
    with session_scope(server.engine) as s:
        rows = s.execute(
            select(Annotation.screen_position, Annotation.label, Annotation.kind).order_by(
                Annotation.id
            )
        )
        return [(r[0], r[1]) for r in rows if r[2] == "label"]


def ready(page) -> None:  # type: ignore[no-untyped-def]
    page.locator(".tandem-output").nth(3).wait_for()
    page.wait_for_selector(IDLE)
    page.wait_for_function("window.__tandemDraft && window.__tandemDraft.ident"
                           " === window.__tandemDraftIdent")  # fmt: skip


# the source shown on the screen (absent for a moment while a run redraws the page)
SOURCE_CHANGED = (
    "(b) => { const e = document.querySelector('.tandem-source'); return e && e.innerText !== b; }"
)
SOURCE_BACK = (
    "(b) => { const e = document.querySelector('.tandem-source'); return e && e.innerText === b; }"
)


@pytest.mark.browser
def test_labels_kept_in_the_page_until_enter(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = seed_compare(server.engine, n_items=3)
    page.goto(f"{server.url}/?token={token}")
    ready(page)
    first = source(page)
    rev = page.evaluate(REV)

    page.keyboard.press("a")
    page.keyboard.press("i")
    page.locator(".st-key-cmp_a_3 button").click()  # the mouse, on the 4th card
    page.wait_for_function(f"() => ({MARKS})().filter(t => t !== 'not judged yet').length == 3")
    assert page.evaluate(MARKS) == ["✓ Adequate", "✗ Inadequate", "not judged yet", "✓ Adequate"]
    page.wait_for_selector("[class*='st-key-cmp_card_cur_2']")  # the one left is highlighted
    assert page.evaluate(REV) == rev  # no server run for any of them
    assert current_labels(server) == []

    page.reload()  # mid-screen: the same screen, its labels back from the tab's storage
    ready(page)
    assert source(page) == first
    page.wait_for_function(f"() => ({MARKS})()[3] === '✓ Adequate'")
    assert page.evaluate(MARKS) == ["✓ Adequate", "✗ Inadequate", "not judged yet", "✓ Adequate"]
    page.wait_for_selector("[class*='st-key-cmp_card_cur_2']")
    shot = screenshot_path(PROJECT_ROOT / "docs" / "screenshots" / "compare_draft.png")
    page.screenshot(path=str(shot), full_page=True)

    page.keyboard.press("i")
    rev = page.evaluate(REV)
    page.keyboard.press("Enter")
    page.wait_for_function(SOURCE_CHANGED, arg=first)
    page.wait_for_selector(IDLE)
    assert page.evaluate(REV) == rev + 1  # one round trip saved the screen
    assert current_labels(server) == [(0, 1), (1, 0), (2, 0), (3, 1)]
    assert page.evaluate(MARKS) == ["not judged yet"] * 4  # the next screen starts empty

    page.keyboard.press("u")  # the saved screen comes back, its labels withdrawn
    page.wait_for_function(SOURCE_BACK, arg=first)
    page.wait_for_selector(IDLE)
    assert current_labels(server) == [(0, 1), (1, 0), (2, 0), (3, 1)]  # the log keeps them
    assert page.evaluate(MARKS) == ["not judged yet"] * 4  # the screen is judged afresh
    with session_scope(server.engine) as s:
        kinds = [r[0] for r in s.execute(select(Annotation.kind).order_by(Annotation.id))]
    assert kinds.count("undo") == 4
