"""Issue 17 in a real browser: a "both" campaign (binary label + post-edit on one item).

1. Ctrl+Enter in the post-edit box never records a label the annotator did not choose
   (before the fix, Streamlit's form shortcut fired the form's first submit button: Adequate).
2. A label given with the box untouched stores no post-edit and no HTER unless the annotator
   ticks "No edit needed" (before the fix every click stored the output itself with HTER 0.0).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from db.engine import session_scope
from db.schema.models import Annotation, Output
from tests.browser.conftest import (
    IDLE,
    PROJECT_ROOT,
    Server,
    screenshot_path,
    seed_edit_campaign,
)

SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "annotate_both.png"
CHANGED = (
    "(b) => { const el = document.querySelector('.tandem-output');"
    " return el && el.innerText !== b; }"
)


def _seed(server: Server) -> str:
    return seed_edit_campaign(
        server.engine,
        "both",
        name="both demo",
        system="sys-delta",
        annotator="both-editor",
        n_items=4,
    )


def _rows(server: Server) -> list[tuple]:
    with session_scope(server.engine) as s:
        return [
            tuple(r)
            for r in s.execute(
                select(
                    Annotation.kind,
                    Annotation.label,
                    Annotation.post_edit,
                    Annotation.hter,
                    Annotation.output_id,
                ).order_by(Annotation.id)
            )
        ]


FOCUSED = "document.activeElement && document.activeElement.tagName === 'TEXTAREA'"


def _text_of(server: Server, output_id: int) -> str:
    with session_scope(server.engine) as s:
        return s.scalar(select(Output.text).where(Output.id == output_id))


def _open(server: Server, page):  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/?token={_seed(server)}")
    box = page.locator("textarea").first
    box.wait_for()
    page.wait_for_function(FOCUSED)
    page.wait_for_function("window.__tandemKeysInstalled === true")  # listener ready
    return box


def _output_text(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator(".tandem-output").first.inner_text()


@pytest.mark.browser
def test_ctrl_enter_never_records_an_unchosen_label(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    box = _open(server, page)
    before = _output_text(page)
    edited = before.replace("fast gut", "sehr gut")
    box.fill(edited)
    page.keyboard.press("Control+Enter")
    # The rerun that Ctrl+Enter caused has finished once its message shows; a wrong save
    # would have been written before it.
    expect(page.get_by_text("choose Adequate or Inadequate")).to_be_visible(timeout=30_000)
    assert _rows(server) == []  # nothing recorded: no label was chosen
    assert _output_text(page) == before  # still the same item
    body = page.locator("body").inner_text()
    assert "choose Adequate or Inadequate" in body
    # Ctrl+Enter left the box with the edit kept; "i" now saves the chosen label with it.
    page.wait_for_function("document.activeElement.tagName !== 'TEXTAREA'")
    assert box.input_value() == edited
    page.keyboard.press("i")
    page.wait_for_function(CHANGED, arg=before)
    ((kind, label, post_edit, hter, oid),) = _rows(server)
    assert (kind, label, post_edit) == ("label", 0, edited) and hter > 0
    assert _text_of(server, oid) == before


@pytest.mark.browser
def test_untouched_box_stores_no_post_edit_unless_confirmed(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    _open(server, page)
    # A label with the box untouched and no confirmation: label only, no post-edit, no HTER.
    first = _output_text(page)
    page.keyboard.press("Escape")
    page.keyboard.press("a")
    page.wait_for_function(CHANGED, arg=first)
    assert [r[:4] for r in _rows(server)] == [("label", 1, None, None)]

    # "No edit needed" ticked: the output is stored as its own post-edit, HTER 0.0.
    second = _output_text(page)
    page.locator("textarea").first.wait_for()
    no_edit = page.get_by_text("No edit needed")
    # While a rerun finishes the previous item's widgets can linger for a moment: wait
    # until the page holds this item's one checkbox (a second one would be a real defect).
    expect(no_edit).to_have_count(1, timeout=30_000)
    page.wait_for_timeout(300)
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)
    no_edit.click()
    page.locator(".st-key-inadequate button").click()
    page.wait_for_function(CHANGED, arg=second)
    rows = _rows(server)
    assert rows[1][:4] == ("label", 0, second, 0.0)
    assert _text_of(server, rows[1][4]) == second
    # The next item's box is fresh: untouched again and the confirmation unticked.
    third = _output_text(page)
    # By mouse this time: after a mouse save the box's focus may come late, and a key
    # pressed before it would be typed into the box (the key path is checked above).
    adequate = page.locator(".st-key-adequate button")
    expect(adequate).to_have_count(1, timeout=30_000)
    page.wait_for_selector(IDLE)  # a click while the run still draws can be dropped
    adequate.click()
    page.wait_for_function(CHANGED, arg=third)
    assert [r[:4] for r in _rows(server)][2] == ("label", 1, None, None)
