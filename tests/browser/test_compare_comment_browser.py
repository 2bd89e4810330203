"""The comment per output on the DA and binary side-by-side screens, in a real browser
(Debian chromium), in campaigns whose comment box is on: each output has its own comment box
(under its slider; in its card), held in the page with the scores or labels
(views/annotate/da_slider.js, views/annotate/compare_draft.js). Typing in it — the screens'
keys among the letters (digits, j, k, a, i, s, u, Enter) — changes no score or label, moves
nothing, saves nothing and runs the server not once; a reload mid-screen brings every
comment back with the scores or labels; one save stores each output's comment on its own
judgment, and the next screen's boxes start empty."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotation.campaign.guidelines import set_comment_box
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Output
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_compare_browser import IDLE, seed_compare, source
from tests.browser.test_compare_draft_browser import MARKS, REV, ready
from tests.browser.test_da_browser import _seed_compare, shown_values
from tests.browser.test_span_held_browser import COUNT

pytestmark = pytest.mark.browser
SHOT = PROJECT_ROOT / "docs" / "screenshots" / "compare-da-comment.png"
BINARY_SHOT = PROJECT_ROOT / "docs" / "screenshots" / "compare-comment.png"
SOURCE_CHANGED = (
    "(b) => { const e = document.querySelector('.tandem-source'); return e && e.innerText !== b; }"
)


def _box(page, k: int):  # type: ignore[no-untyped-def]
    return page.get_by_role("textbox", name=f"Comment on output {k + 1} (optional)")


def _boxes(page, n: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [_box(page, k).input_value() for k in range(n)]


def _type_in(page, k: int, text: str) -> None:  # type: ignore[no-untyped-def]
    box = _box(page, k)
    box.scroll_into_view_if_needed()
    box.click()
    page.keyboard.type(text)  # the screen's keys typed as text
    page.keyboard.press("Enter")  # no save from the box
    page.keyboard.press("Escape")  # leaves the box (views/keys.js)


def _turn_on(server: Server, name: str) -> None:
    with session_scope(server.engine) as s:
        cid = s.scalar(select(Campaign.id).where(Campaign.name == name))
    set_comment_box(server.engine, cid, True)


def _saved(server: Server) -> list[tuple]:
    with session_scope(server.engine) as s:
        return s.execute(
            select(Annotation.screen_position, Annotation.comment, Annotation.da_score,
                   Annotation.label, Output.text)
            .join(Output, Output.id == Annotation.output_id)
            .where(Annotation.kind == "label")
            .order_by(Annotation.screen_position)
        ).all()  # fmt: skip


def _wait_saved(page, server: Server, n: int) -> list[tuple]:  # type: ignore[no-untyped-def]
    for _ in range(400):
        rows = _saved(server)
        if len(rows) >= n:
            return rows
        page.wait_for_timeout(50)
    raise AssertionError(f"{n} judgments expected, have {_saved(server)}")


def _da_ready(page) -> None:  # type: ignore[no-untyped-def]
    page.locator(".tandem-da-value").nth(2).wait_for()
    _box(page, 2).wait_for()
    page.wait_for_selector(IDLE)
    page.wait_for_function("window.__tandemKeysInstalled === true && !!window.__tandemDA")


def test_da_screen_comment_per_output(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = _seed_compare(server)
    _turn_on(server, "da compare")
    page.set_viewport_size({"width": 1280, "height": 1500})
    page.goto(f"{server.url}/?token={token}")
    _da_ready(page)
    texts = page.locator(".tandem-da-text").all_inner_texts()
    assert _boxes(page, 3) == ["", "", ""]
    assert page.locator(".tandem-da-comment input[dir='auto'][maxlength='2000']").count() == 3
    page.evaluate(COUNT)
    page.keyboard.press("8")  # output 1, the highlighted one
    _type_in(page, 1, "names 7 kept: jk s u")
    _type_in(page, 2, "Home End 0 9 <b>odd</b>")
    assert _boxes(page, 3) == ["", "names 7 kept: jk s u", "Home End 0 9 <b>odd</b>"]
    assert shown_values(page) == ["80", "not set", "not set"]  # no digit, j / k or End taken
    assert page.evaluate("window.__runs") == 0  # nothing went to the server
    assert _saved(server) == []
    page.keyboard.press("3")  # the output commented on last is the highlighted one
    page.keyboard.press("k")
    page.keyboard.press("6")
    assert shown_values(page) == ["80", "60", "30"]

    page.reload()  # mid-screen: the comments come back with the scores
    _da_ready(page)
    assert page.locator(".tandem-da-text").all_inner_texts() == texts
    page.wait_for_function("document.querySelectorAll('.tandem-da-value')[2]?.textContent === '30'")
    assert shown_values(page) == ["80", "60", "30"]
    assert _boxes(page, 3) == ["", "names 7 kept: jk s u", "Home End 0 9 <b>odd</b>"]
    page.evaluate(COUNT)
    _type_in(page, 0, "added after the reload")  # its Enter, every score set: still no save
    page.wait_for_timeout(300)
    assert page.evaluate("window.__runs") == 0 and _saved(server) == []
    page.locator(".tandem-da-row").first.scroll_into_view_if_needed()
    page.screenshot(path=screenshot_path(SHOT), full_page=True)
    before = source(page)
    page.keyboard.press("Enter")  # the page's Enter: one run saves the screen
    rows = _wait_saved(page, server, 3)
    assert [r[4] for r in rows] == texts  # each output at the place it was shown
    assert [(r[0], r[1], r[2]) for r in rows] == [
        (0, "added after the reload", 80.0),
        (1, "names 7 kept: jk s u", 60.0),
        (2, "Home End 0 9 <b>odd</b>", 30.0),
    ]
    page.wait_for_function(SOURCE_CHANGED, arg=before)
    _da_ready(page)
    assert page.evaluate("window.__runs") == 1
    assert _boxes(page, 3) == ["", "", ""]  # the next screen's boxes start empty


def test_binary_screen_comment_per_output(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = seed_compare(server.engine, n_items=3)
    _turn_on(server, "Compare en-de")
    page.set_viewport_size({"width": 1280, "height": 1600})
    page.goto(f"{server.url}/?token={token}")
    ready(page)
    _box(page, 3).wait_for()
    texts = page.locator(".tandem-output").all_inner_texts()
    first = source(page)
    assert _boxes(page, 4) == ["", "", "", ""]
    page.evaluate(COUNT)
    rev = page.evaluate(REV)
    page.keyboard.press("a")  # output 1; output 2 highlighted then
    _type_in(page, 2, "a i j k s u 1 2")
    assert _boxes(page, 4) == ["", "", "a i j k s u 1 2", ""]
    assert page.evaluate(MARKS) == ["✓ Adequate"] + ["not judged yet"] * 3  # no a / i taken
    page.wait_for_selector("[class*='st-key-cmp_card_cur_2']")  # the box's card: no j / k
    assert page.evaluate(REV) == rev and page.evaluate("window.__runs") == 0
    assert _saved(server) == []
    page.keyboard.press("i")  # the highlighted card, the one commented on
    _type_in(page, 0, "fine; Enter")

    page.reload()  # mid-screen: the comments come back with the labels
    ready(page)
    _box(page, 3).wait_for()
    assert source(page) == first
    page.wait_for_function(f"() => ({MARKS})()[2] === '✗ Inadequate'")
    assert page.evaluate(MARKS) == ["✓ Adequate", "not judged yet", "✗ Inadequate",
                                    "not judged yet"]  # fmt: skip
    assert _boxes(page, 4) == ["fine; Enter", "", "a i j k s u 1 2", ""]
    page.locator(".st-key-cmp_a_1 button").click()
    page.locator(".st-key-cmp_i_3 button").click()
    page.wait_for_function(f"() => ({MARKS})().every(t => t !== 'not judged yet')")
    page.evaluate(COUNT)
    rev = page.evaluate(REV)
    _type_in(page, 3, "typed after the reload")  # its Enter, every label given: no save
    page.wait_for_timeout(300)
    assert page.evaluate("window.__runs") == 0 and _saved(server) == []
    page.screenshot(path=screenshot_path(BINARY_SHOT), full_page=True)
    page.keyboard.press("Enter")  # the page's Enter: one round trip saves the screen
    rows = _wait_saved(page, server, 4)
    assert [r[4] for r in rows] == texts
    assert [(r[0], r[1], r[3]) for r in rows] == [
        (0, "fine; Enter", 1),
        (1, None, 1),
        (2, "a i j k s u 1 2", 0),
        (3, "typed after the reload", 0),
    ]
    page.wait_for_function(SOURCE_CHANGED, arg=first)
    ready(page)
    _box(page, 3).wait_for()
    assert page.evaluate(REV) == rev + 1
    page.wait_for_function(
        "[0, 1, 2, 3].every((k) => document.getElementById('tandem-cmp-comment-' + k)"
        "?.value === '')"
    )
    assert _boxes(page, 4) == ["", "", "", ""]  # the next screen's boxes start empty
