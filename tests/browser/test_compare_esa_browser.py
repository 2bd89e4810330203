"""cESA in a real browser (Debian chromium): an error-span campaign with the ESA score, in
comparative mode, shows the three outputs of a source on one screen, each in its own span
widget with its own slider. The annotator marks a major error in one output and a minor one
in another (mouse selection, then the keys in that output's box, or on the page for the
highlighted output), sets the three scores with the
keyboard and saves once with Enter: the database holds three judgments of that screen, each with its
place, its spans, its derived label and MQM score and its ESA score."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.judging import comparative
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_spans_browser import _RECT

SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "compare-esa.png"
WIDGET = 'iframe[title*="tandem_span_widget"]'
SYSTEMS = ("sys-alpha", "sys-beta", "sys-gamma")
UNSET = "Not set yet: move the slider"


def seed(engine) -> str:  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        meta = {META_KEY: SpanConfig(ask_esa=True).to_meta()}
        camp = Campaign(name="cESA demo", mode="spans", show_metrics=False, meta=meta)
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
    comparative.set_comparative(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=2)
    return create_annotator(engine, cid, "Ana").token


def frame_of(page, k: int):  # type: ignore[no-untyped-def]
    return page.locator(WIDGET).nth(k).element_handle().content_frame()


def mark(page, k: int, word: str, keys: str, css: str, on_page: bool = False) -> None:  # type: ignore[no-untyped-def]
    """Select ``word`` in output k with the mouse, then type ``keys`` (severity, category):
    in the output's box, or (``on_page``) on the page, for the highlighted output."""
    iframe = page.locator(WIDGET).nth(k)
    iframe.scroll_into_view_if_needed()
    frame = frame_of(page, k)
    text = frame.locator('.text[data-side="target"]').inner_text()
    start = text.index(word)
    x0, y0, x1, y1 = frame.evaluate(_RECT, [start, start + len(word)])
    box = iframe.bounding_box()
    page.mouse.move(box["x"] + x0, box["y"] + y0)
    page.mouse.down()
    page.mouse.move(box["x"] + (x0 + x1) / 2, box["y"] + y1, steps=4)
    page.mouse.move(box["x"] + x1, box["y"] + y1, steps=4)
    page.mouse.up()
    frame.locator(".pending").first.wait_for()
    if on_page:  # the focus back on the page: its listener clicks the shared buttons
        page.wait_for_selector(f".st-key-cmp_scard_{k}")
        page.wait_for_selector(IDLE)
        page.locator(".tandem-source").first.click()
    for key in keys:
        page.keyboard.press(key)
    frame.locator(f".err.{css}").first.wait_for()
    page.wait_for_selector(IDLE)


def set_score(page, k: int, keys: list[str], value: int) -> None:  # type: ignore[no-untyped-def]
    unset = page.get_by_text(UNSET).count()
    thumb = page.get_by_role("slider").nth(k)
    thumb.scroll_into_view_if_needed()
    thumb.focus()
    for key in keys:
        page.keyboard.press(key)
    # The box beside the slider mirrors it, so a rerun may redraw the slider between two
    # arrow keys and drop one: step to the value as a user watching the number would.
    value_js = "(k) => Number(document.querySelectorAll('input[type=range]')[k].value)"
    for _ in range(40):  # under load many of the keys above can be dropped, not only one
        page.wait_for_selector(IDLE)
        page.wait_for_timeout(300)
        now = page.evaluate(value_js, k)
        if now == value:
            break
        thumb.focus()
        page.keyboard.press("ArrowRight" if now < value else "ArrowLeft")
    page.wait_for_function(
        "([k, v]) => { const e = document.querySelectorAll('input[type=range]')[k];"
        " return e && e.value === String(v); }",
        arg=[k, value],
    )
    page.get_by_text(UNSET).nth(unset - 1).wait_for(state="detached")  # one fewer unset
    page.wait_for_selector(IDLE)


@pytest.mark.browser
def test_cesa_screen_in_the_browser(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = seed(server.engine)
    page.set_viewport_size({"width": 1280, "height": 1900})
    page.goto(f"{server.url}/?token={token}")
    page.locator(WIDGET).nth(2).wait_for()
    page.wait_for_selector(IDLE)
    assert page.locator(WIDGET).count() == 3
    assert not any(name in page.content() for name in SYSTEMS)  # names hidden
    targets = [
        frame_of(page, k).locator('.text[data-side="target"]').inner_text() for k in range(3)
    ]
    assert len(set(targets)) == 3
    assert all(frame_of(page, k).locator('.text[data-side="source"]').count() == 0
               for k in range(3))  # the source is drawn once, above the outputs  # fmt: skip

    mark(page, 0, "Katze", "w1", "major")  # output 1: a major accuracy error
    mark(page, 2, "saß", "q2", "minor", on_page=True)  # output 3: a minor fluency error
    assert page.get_by_text(UNSET).count() == 3
    set_score(page, 0, ["Home"] + ["ArrowRight"] * 20, 20)
    set_score(page, 1, ["End"], 100)
    set_score(page, 2, ["End"] + ["ArrowLeft"] * 25, 75)
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)

    source = page.locator(".tandem-source").first.inner_text()
    page.keyboard.press("Enter")  # from the last slider: saves the screen
    page.wait_for_function(
        "(b) => { const e = document.querySelector('.tandem-source');"
        " return e && e.innerText !== b; }",
        arg=source,
    )
    with session_scope(server.engine) as s:
        rows = s.execute(
            select(Annotation.screen_position, Annotation.screen_size, Annotation.label,
                   Annotation.score, Annotation.esa_score, Annotation.spans, Output.text)
            .join(Output, Output.id == Annotation.output_id)
            .order_by(Annotation.screen_position)
        ).all()  # fmt: skip
    assert [(r[0], r[1], r[2], r[3], r[4]) for r in rows] == [
        (0, 3, 0, -5.0, 20.0), (1, 3, 1, 0.0, 100.0), (2, 3, 1, -1.0, 75.0)]  # fmt: skip
    assert [r[6] for r in rows] == targets  # each output at the place it was shown
    (major,), none, (minor,) = (r[5] for r in rows)
    assert none == []
    assert (major["severity"], major["category"]) == ("major", "accuracy")
    assert targets[0][major["start"] : major["end"]] == "Katze"
    assert (minor["severity"], minor["category"]) == ("minor", "fluency")
    assert targets[2][minor["start"] : minor["end"]] == "saß"
