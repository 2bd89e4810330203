"""The cESA screen's comment per output, in a real browser (Debian chromium), in an ESA
campaign whose comment box is on: each output's card has its own comment box, held in the
page with that output's spans and score (views/spans/cesa_held.js). Typing in it — letters
that are the screen's keys among them (q, w, j, k, s, u, 1, Enter) — marks nothing, moves
nothing, saves nothing and runs the server not once; a reload mid-screen brings every
comment back with the spans and scores; Enter (on the page) saves the screen in one run and
the database holds each output's comment on its own judgment."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotation.campaign.guidelines import set_comment_box
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Output
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_cesa_held_browser import TITLES, _screen, _seed, _type
from tests.browser.test_compare_esa_browser import frame_of, mark
from tests.browser.test_span_held_browser import COUNT

pytestmark = pytest.mark.browser
SHOT = PROJECT_ROOT / "docs" / "screenshots" / "cesa-comment.png"
COMMENTS = ("names kept: sjk", "", "word order odd; q w e u", "1 2 3 fine")


def _box(page, k: int):  # type: ignore[no-untyped-def]
    return page.get_by_role("textbox", name=f"Comment on output {k + 1} (optional)")


def test_a_comment_per_output_is_held_kept_and_saved(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = _seed(server)
    with session_scope(server.engine) as s:
        cid = s.scalar(select(Campaign.id).where(Campaign.name == "cesa held"))
    set_comment_box(server.engine, cid, True)
    page.set_viewport_size({"width": 1280, "height": 2600})
    page.goto(f"{server.url}/?token={token}")
    texts = _screen(page)
    mark(page, 0, "Katze", "w", "major")  # output 1 is the current one
    page.evaluate(COUNT)

    for k, comment in enumerate(COMMENTS):
        if not comment:
            continue
        box = _box(page, k)
        box.scroll_into_view_if_needed()
        box.click()
        page.keyboard.type(comment)  # the screen's keys typed as text
        page.keyboard.press("Enter")  # no save from the box
    page.keyboard.press("Escape")  # leaves the box (views/keys.js)
    assert [_box(page, k).input_value() for k in range(4)] == list(COMMENTS)
    titles = page.evaluate(TITLES)
    assert "current" in titles[0]  # no j / k moved the highlight
    assert ["1 error span(s)" in t for t in titles] == [True, False, False, False]  # nothing marked
    assert page.get_by_text("Select the wrong words").count() == 0  # no q / w / e taken
    assert page.evaluate("window.__runs") == 0  # no key of it went to the server
    for k, score in enumerate((20, 100, 60)):
        _type(page, k, score)

    page.reload()  # mid-screen: the comments come back with the spans and the scores
    assert _screen(page) == texts
    frame_of(page, 0).locator(".err.major").first.wait_for()
    assert [_box(page, k).input_value() for k in range(4)] == list(COMMENTS)
    boxes = page.get_by_role("spinbutton", name="Score")
    assert [boxes.nth(k).input_value() for k in range(4)] == ["20", "100", "60", ""]
    _box(page, 1).click()
    page.keyboard.type("added after the reload")
    page.evaluate(COUNT)
    _type(page, 3, 50)
    page.screenshot(path=screenshot_path(SHOT), full_page=True)
    source = page.locator(".tandem-source").first.inner_text()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(b) => { const e = document.querySelector('.tandem-source');"
        " return e && e.innerText !== b; }",
        arg=source,
    )
    _screen(page)
    assert page.evaluate("window.__runs") == 1  # the save, which drew the next screen
    # the next screen's boxes start empty
    assert [_box(page, k).input_value() for k in range(4)] == ["", "", "", ""]

    with session_scope(server.engine) as s:
        rows = s.execute(
            select(Annotation.screen_position, Annotation.comment, Annotation.esa_score,
                   Output.text)
            .join(Output, Output.id == Annotation.output_id)
            .order_by(Annotation.screen_position)
        ).all()  # fmt: skip
    assert [r[3] for r in rows] == texts  # each output at the place it was shown
    assert [(r[0], r[1], r[2]) for r in rows] == [
        (0, "names kept: sjk", 20.0),
        (1, "added after the reload", 100.0),
        (2, "word order odd; q w e u", 60.0),
        (3, "1 2 3 fine", 50.0),
    ]
