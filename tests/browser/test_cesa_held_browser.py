"""A cESA screen in one round trip, in a real browser (Debian chromium): the page holds the
work of the screen's four outputs (views/spans/cesa_held.js) until its save. A word dragged
in output 1 and `w` in its box; a word dragged in output 3 and `q` on the page (the output
worked in is the current one); `j` on the page moves the highlight; scores typed in the
boxes and set with the slider's keys; Enter with a score missing names the output and
sends nothing; a reload mid-screen brings spans and scores back. The last score, then
Enter: the server ran once for the whole screen (counted from the page's script-run state),
and the database holds the four judgments of that screen, each with its place, its spans
and its score. Undo brings the screen back with its spans drawn."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.imports.modes import esa_span_config
from annotation.judging import comparative
from annotation.judging.span_judgments import META_KEY
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_compare_esa_browser import IDLE, WIDGET, frame_of, mark
from tests.browser.test_span_held_browser import COUNT

pytestmark = pytest.mark.browser
SHOT = PROJECT_ROOT / "docs" / "screenshots" / "cesa-held.png"
SYSTEMS = ("sys-a", "sys-b", "sys-c", "sys-d")
TITLES = "() => [...document.querySelectorAll('.tandem-cmp-title')].map(e => e.innerText)"
PARTS = "() => !!window.__tandemCesa && window.__tandemCesa.parts.filter(Boolean).length === 4"


def _seed(server: Server) -> str:
    with session_scope(server.engine) as s:
        meta = {META_KEY: esa_span_config().to_meta()}
        camp = Campaign(name="cesa held", mode="spans", show_metrics=False, meta=meta)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in SYSTEMS]
        s.add_all(systems)
        for j in range(2):
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"The cat sat here {j}.")
            s.add(item)
            s.flush()
            s.add_all(
                Output(item_id=item.id, system_id=sy.id, text=f"Die Katze {k} saß hier {j}.")
                for k, sy in enumerate(systems)
            )
        cid = camp.id
    comparative.set_comparative(server.engine, cid, True)
    queue_build.build_queue(server.engine, cid, seed=3)
    return create_annotator(server.engine, cid, "Ana").token


def _screen(page) -> list[str]:  # type: ignore[no-untyped-def]
    page.locator(WIDGET).nth(3).wait_for()
    page.wait_for_selector(IDLE)
    page.wait_for_function(PARTS)
    texts = []
    for k in range(4):
        box = frame_of(page, k).locator('.text[data-side="target"]')
        box.wait_for()
        texts.append(box.inner_text())
    return texts


def _type(page, k: int, score: int) -> None:  # type: ignore[no-untyped-def]
    box = page.get_by_role("spinbutton", name="Score").nth(k)
    box.scroll_into_view_if_needed()
    box.fill(str(score))
    page.locator(".tandem-source").first.click()  # the focus back on the page


def test_a_cesa_screen_is_one_server_run_and_a_reload_keeps_it(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 1280, "height": 2200})
    page.goto(f"{server.url}/?token={_seed(server)}")
    texts = _screen(page)
    assert len(set(texts)) == 4
    page.get_by_text("a severity — q minor, w major;").wait_for()  # ESA: no critical severity
    assert page.get_by_text("e critical").count() == 0
    assert page.get_by_text("a category").count() == 0  # ESA's one category is no choice
    page.evaluate(COUNT)

    mark(page, 0, "Katze", "w", "major")  # in output 1's box
    mark(page, 2, "saß", "q", "minor", on_page=True)  # on the page: output 3 is current now
    titles = page.evaluate(TITLES)
    assert "current" in titles[2] and "1 error span(s)" in titles[2]
    assert "current" not in titles[0] and "1 error span(s)" in titles[0]
    page.keyboard.press("j")  # the highlight moves to output 4
    page.wait_for_function(f"() => ({TITLES})()[3].includes('current')")
    assert (
        page.locator(".st-key-cmp_scard_3").evaluate("e => getComputedStyle(e).borderTopWidth")
        == "3px"
    )
    _type(page, 0, 20)
    _type(page, 1, 100)
    slider = page.get_by_role("slider", name="Overall quality (ESA), 0–100").nth(2)
    slider.focus()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")  # 99
    page.locator(".tandem-source").first.click()
    page.keyboard.press("Enter")  # output 4 has no score: said on the page, nothing sent
    page.get_by_text("of output(s) 4 before saving the screen").wait_for()
    assert page.evaluate("window.__runs") == 0  # nothing of it went to the server

    page.reload()  # mid-screen: every output's spans and score come back
    assert _screen(page) == texts
    frame_of(page, 0).locator(".err.major").first.wait_for()
    assert frame_of(page, 0).locator(".err.major").first.inner_text() == "Katze"
    assert frame_of(page, 2).locator(".err.minor").first.inner_text() == "saß"
    boxes = page.get_by_role("spinbutton", name="Score")
    assert [boxes.nth(k).input_value() for k in range(4)] == ["20", "100", "99", ""]
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

    with session_scope(server.engine) as s:
        rows = s.execute(
            select(Annotation.screen_position, Annotation.screen_size, Annotation.esa_score,
                   Annotation.spans, Annotation.label, Output.text)
            .join(Output, Output.id == Annotation.output_id)
            .order_by(Annotation.screen_position)
        ).all()  # fmt: skip
    assert [(r[0], r[1], r[2]) for r in rows] == [(0, 4, 20.0), (1, 4, 100.0), (2, 4, 99.0),
                                                  (3, 4, 50.0)]  # fmt: skip
    assert [r[5] for r in rows] == texts  # each output at the place it was shown
    marked = [[(r[5][x["start"] : x["end"]], x["severity"]) for x in r[3]] for r in rows]
    assert marked == [[("Katze", "major")], [], [("saß", "minor")], []]

    page.keyboard.press("u")  # undo: the saved screen comes back with its spans
    page.wait_for_function(
        "(b) => { const e = document.querySelector('.tandem-source');"
        " return e && e.innerText === b; }",
        arg=source,
    )
    _screen(page)
    frame_of(page, 0).locator(".err.major").first.wait_for()
    assert "1 error span(s)" in page.evaluate(TITLES)[2]
