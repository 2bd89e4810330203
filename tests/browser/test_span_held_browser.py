"""An ESA judgment in one round trip, in a real browser (Debian chromium): the page holds the
item's work (views/spans/held.js) until the save. A drag, `e` (no critical severity in ESA:
nothing marked), `w`, the score by the slider's keys, then a reload mid-item: span and score
come back. Another drag and `q`, then Enter: the server ran once for the whole judgment
(counted from the page's script-run state), and the database holds both spans and the score."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.imports.modes import esa_span_config
from annotation.judging.span_judgments import META_KEY
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_spans_browser import WIDGET, _drag

pytestmark = pytest.mark.browser
SHOT = PROJECT_ROOT / "docs" / "screenshots" / "esa-held.png"
TEXTS = ["Die Katze sitzt heute auf der alten Matte.", "Der Hund schläft morgen im Garten."]
#: Counts the server runs the page sees start (the app's script-run state turning "running").
# The server runs the page made: each change of the app's script state to "running". Read
# from the mutation records' old values, not the state when the observer is called: a run
# that starts and ends between two calls (a fast run on a busy machine) still counts.
COUNT = """() => { const a = document.querySelector("[data-testid='stApp']");
  window.__runs = 0; let last = a.dataset.testScriptState;
  new MutationObserver((records) => {
    const states = records.map((r) => r.oldValue).slice(1).concat([a.dataset.testScriptState]);
    for (const s of states) { if (s !== last && s === 'running') window.__runs++; last = s; } })
  .observe(a, { attributes: true, attributeOldValue: true,
                attributeFilter: ['data-test-script-state'] }); }"""


def _seed(server: Server) -> str:
    with session_scope(server.engine) as s:
        meta = {META_KEY: esa_span_config().to_meta()}
        camp = Campaign(name="esa held", mode="spans", show_metrics=False, meta=meta)
        s.add(camp)
        s.flush()
        sy = System(campaign_id=camp.id, name="sys")
        s.add(sy)
        for j, text in enumerate(TEXTS):
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source {j}.")
            s.add(item)
            s.flush()
            s.add(Output(item_id=item.id, system_id=sy.id, text=text))
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=1)
    return create_annotator(server.engine, cid, "Ana").token


def _widget(page):  # type: ignore[no-untyped-def]
    page.locator(WIDGET).wait_for()
    frame = page.frame_locator(WIDGET)
    frame.locator('.text[data-side="target"]').wait_for()
    page.wait_for_selector(IDLE)
    return frame, next(f for f in page.frames if "tandem_span_widget" in f.url)


def test_one_esa_judgment_is_one_server_run_and_a_reload_keeps_it(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/?token={_seed(server)}")
    frame, inner = _widget(page)
    page.wait_for_function("() => !!window.__tandemSpans")
    page.evaluate(COUNT)
    text = frame.locator('.text[data-side="target"]').inner_text()
    first, second = text.split()[1], text.split()[-2]
    k = text.index(first)
    _drag(page, inner, text, k + 1, k + 3)
    frame.locator(".pending").first.wait_for()
    page.keyboard.press("e")  # ESA: minor and major only
    page.keyboard.press("w")
    frame.locator(".err.major").first.wait_for()
    assert frame.locator(".err.critical").count() == 0
    slider = page.get_by_role("slider", name="Overall quality (ESA), 0–100")
    slider.focus()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")  # 99
    page.get_by_text("Not set yet: move the slider").wait_for(state="detached")
    assert page.evaluate("window.__runs") == 0  # nothing of it went to the server

    page.reload()
    frame, inner = _widget(page)
    assert frame.locator('.text[data-side="target"]').inner_text() == text  # the same item
    frame.locator(".err.major").first.wait_for()
    assert frame.locator(".err.major").first.inner_text() == first
    assert page.get_by_role("spinbutton", name="Score").input_value() == "99"
    page.evaluate(COUNT)
    h = text.index(second)
    _drag(page, inner, text, h, h + 2)
    frame.locator(".pending").first.wait_for()
    page.keyboard.press("q")
    frame.locator(".err.minor").first.wait_for()
    page.screenshot(path=screenshot_path(SHOT), full_page=True)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(before) => { const f = [...document.querySelectorAll('iframe')].find("
        "i => (i.title || '').includes('tandem_span_widget'));"
        " const t = f && f.contentDocument.querySelector('.text[data-side=\"target\"]');"
        " return t && t.innerText !== before; }",
        arg=text,
    )
    page.wait_for_selector(IDLE)
    assert page.evaluate("window.__runs") == 1  # the save, which drew the next item
    with session_scope(server.engine) as s:
        ((spans, esa, label),) = s.execute(
            select(Annotation.spans, Annotation.esa_score, Annotation.label)
        ).all()
    assert (esa, label) == (99.0, 0)
    assert [(text[x["start"] : x["end"]], x["severity"]) for x in spans] == [
        (first, "major"),
        (second, "minor"),
    ]
    page.get_by_text("Not set yet: move the slider").wait_for()  # the next item: no score
    assert frame.locator(".err").count() == 0
