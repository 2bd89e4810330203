"""End to end in a real browser (Debian chromium): in an error-span campaign that asks for
the ESA score, mark a span, reload the page: the unsaved span is shown again (the widget's
localStorage draft). Set the ESA slider with keys, save: the database holds the span and
that ESA score, and the saved item's draft is gone from the browser."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_spans_browser import WIDGET, _drag

SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "annotate_spans_draft.png"
ITEMS = [
    ("The cat sits on the mat today.", "Die Katze sitzt heute auf der Matte."),
    ("Good morning, everyone.", "Guten Morgen, alle zusammen."),
]
MARKED = {ITEMS[0][1]: "Katze", ITEMS[1][1]: "Morgen"}
DRAFTS = "() => Object.keys(localStorage).filter(k => k.startsWith('tandem-span-draft:'))"


def _seed(server: Server) -> str:
    with session_scope(server.engine) as s:
        meta = {META_KEY: SpanConfig(ask_esa=True).to_meta()}
        camp = Campaign(name="esa demo", mode="spans", show_metrics=False, meta=meta)
        s.add(camp)
        s.flush()
        sy = System(campaign_id=camp.id, name="secret-system")
        s.add(sy)
        for j, (src, out) in enumerate(ITEMS):
            item = Item(campaign_id=camp.id, external_id=str(j), source=src)
            s.add(item)
            s.flush()
            s.add(Output(item_id=item.id, system_id=sy.id, text=out))
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=1)
    return create_annotator(server.engine, cid, "Ana").token


def _inner(page):  # type: ignore[no-untyped-def]
    page.locator(WIDGET).wait_for()
    frame = page.frame_locator(WIDGET)
    frame.locator('.text[data-side="target"]').wait_for()
    return frame, next(f for f in page.frames if "tandem_span_widget" in f.url)


@pytest.mark.browser
def test_span_draft_survives_a_reload_and_the_esa_slider_is_stored(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = _seed(server)
    page.goto(f"{server.url}/?token={token}")
    frame, inner = _inner(page)
    first = frame.locator('.text[data-side="target"]').inner_text()
    word = MARKED[first]
    k = first.index(word)
    _drag(page, inner, first, k, k + len(word))
    frame.locator(".pending").first.wait_for()
    page.keyboard.press("w")
    page.keyboard.press("1")
    frame.locator(".err.major").first.wait_for()
    assert len(inner.evaluate(DRAFTS)) == 1  # the draft is in the browser

    page.reload()
    frame, inner = _inner(page)
    assert frame.locator('.text[data-side="target"]').inner_text() == first  # same item
    frame.locator(".err.major").first.wait_for()  # the unsaved span is back
    assert frame.locator(".err.major").first.inner_text() == word
    page.get_by_text("Not set yet: move the slider").wait_for()
    page.get_by_text("some meaning preserved").wait_for()
    page.screenshot(path=screenshot_path(SCREENSHOT), full_page=True)

    thumb = page.get_by_role("slider")
    thumb.focus()
    page.keyboard.press("End")  # 100
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "() => [...document.querySelectorAll('input[type=range]')].some(e => e.value === '97')"
    )
    page.get_by_text("Not set yet: move the slider").wait_for(state="detached")
    # the slider's rerun redraws the page below it; until it ends the old button is still
    # on screen beside the new one, so click only once a single one is left
    page.wait_for_function(
        "() => [...document.querySelectorAll('button')]"
        ".filter(b => b.innerText.includes('Save and next')).length === 1"
    )
    page.get_by_role("button", name="Save and next").click()
    page.wait_for_function(
        "(before) => { const f = [...document.querySelectorAll('iframe')].find("
        "i => (i.title || '').includes('tandem_span_widget'));"
        " const t = f && f.contentDocument.querySelector('.text[data-side=\"target\"]');"
        " return t && t.innerText !== before; }",
        arg=first,
    )
    with session_scope(server.engine) as s:
        rows = s.execute(
            select(Annotation.kind, Annotation.label, Annotation.spans, Annotation.esa_score)
        ).all()
    assert len(rows) == 1
    kind, label, spans, esa = rows[0]
    assert (kind, label, esa) == ("label", 0, 97.0)
    (span,) = spans
    assert first[span["start"] : span["end"]] == word and span["severity"] == "major"
    _, inner = _inner(page)
    page.wait_for_function(
        "() => { const f = [...document.querySelectorAll('iframe')].find("
        "i => (i.title || '').includes('tandem_span_widget'));"
        " return f && Object.keys(f.contentWindow.localStorage)"
        ".filter(k => k.startsWith('tandem-span-draft:')).length === 0; }"
    )
