"""End to end in a real browser (Debian chromium): open an invite link of an error-span
campaign, mark two spans with mouse selections and keys (one minor, one major), delete one,
save, mark "no errors" on the next item with one key, reload; the database holds exactly
that, with the derived labels and MQM scores. Item text with HTML and markdown shows
literally inside the span widget."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path

SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "annotate_spans.png"
ITEMS = [
    ("The cat sits on the mat today.", "Die Katze <b>sitzt</b> heute auf der **Matte**."),
    ("Good morning, everyone.", "Guten Morgen, alle zusammen."),
]
WIDGET = 'iframe[title*="tandem_span_widget"]'
#: Per output: the word marked minor (then deleted) and the words marked major.
WORDS = {ITEMS[0][1]: ("Katze", "heute auf"), ITEMS[1][1]: ("Morgen", "alle zusammen")}


def _seed(server: Server) -> str:
    with session_scope(server.engine) as s:
        camp = Campaign(name="spans demo", mode="spans", show_metrics=False)
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


# Page coordinates of the code points [start, end) of the output inside the widget.
_RECT = """([start, end]) => {
  const box = document.querySelector('.text[data-side="target"]');
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  const at = (cp) => {
    let node; while ((node = walker.nextNode())) {
      const s = Number(node.parentElement.dataset.s), chars = Array.from(node.textContent);
      if (cp <= s + chars.length) return [node, chars.slice(0, cp - s).join('').length];
    }
  };
  const r = document.createRange();
  r.setStart(...at(start)); walker.currentNode = box; r.setEnd(...at(end));
  const rects = r.getClientRects(); const a = rects[0], b = rects[rects.length - 1];
  return [a.left + 1, (a.top + a.bottom) / 2, b.right - 1, (b.top + b.bottom) / 2];
}"""


def _drag(page, frame, text: str, start: int, end: int) -> None:  # type: ignore[no-untyped-def]
    """A mouse selection over characters [start, end) of the output."""
    x0, y0, x1, y1 = frame.evaluate(_RECT, [start, end])
    box = page.locator(WIDGET).bounding_box()
    page.mouse.move(box["x"] + x0, box["y"] + y0)
    page.mouse.down()
    page.mouse.move(box["x"] + (x0 + x1) / 2, box["y"] + y1, steps=4)
    page.mouse.move(box["x"] + x1, box["y"] + y1, steps=4)
    page.mouse.up()


def _rows(server: Server) -> list[tuple]:
    with session_scope(server.engine) as s:
        return s.execute(
            select(
                Annotation.kind, Annotation.label, Annotation.score, Annotation.spans, Output.text
            )
            .join(Output, Output.id == Annotation.output_id)
            .order_by(Annotation.id)
        ).all()


@pytest.mark.browser
def test_mark_delete_save_no_errors_reload(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = _seed(server)
    page.goto(f"{server.url}/?token={token}")
    frame_el = page.locator(WIDGET)
    frame_el.wait_for()
    frame = page.frame_locator(WIDGET)
    target = frame.locator('.text[data-side="target"]')
    target.wait_for()
    first = target.inner_text()
    outputs = [out for _, out in ITEMS]
    assert first in outputs
    second = outputs[1 - outputs.index(first)]  # whichever item the random draw put first
    minor_word, major_words = WORDS[first]
    # literal text: the markup is characters, not elements
    assert target.locator("b").count() == 0
    html_item = ITEMS[0][1]
    if first == html_item:
        assert "<b>sitzt</b>" in first and "**Matte**" in first
    inner = next(f for f in page.frames if "tandem_span_widget" in f.url)

    # 1. a word by a sloppy drag (from inside the word to its middle) → snapped; minor, 1
    k = first.index(minor_word)
    _drag(page, inner, first, k + 1, k + 3)
    frame.locator(".pending").first.wait_for()
    assert frame.locator(".pending").first.inner_text() == minor_word
    page.keyboard.press("q")
    page.keyboard.press("1")
    frame.locator(".err.minor").first.wait_for()
    # 2. two words as major accuracy
    h = first.index(major_words)
    _drag(page, inner, first, h + 2, h + len(major_words) - 1)
    frame.locator(".pending").first.wait_for()
    page.keyboard.press("w")
    page.keyboard.press("1")
    frame.locator(".err.major").first.wait_for()
    assert frame.locator(".err.minor").count() >= 1
    page.screenshot(path=screenshot_path(SCREENSHOT), full_page=True)
    # 3. delete the minor one: click it, press Delete
    frame.locator(".err.minor").first.click()
    frame.locator(".sel").first.wait_for()
    page.keyboard.press("Delete")
    page.wait_for_function(
        "() => { const f = [...document.querySelectorAll('iframe')].find("
        "i => (i.title || '').includes('tandem_span_widget'));"
        " return f && f.contentDocument.querySelectorAll('.err.minor').length === 0; }"
    )
    # 4. save with Enter → the next item; "no errors" with n
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(before) => { const f = [...document.querySelectorAll('iframe')].find("
        "i => (i.title || '').includes('tandem_span_widget'));"
        " const t = f && f.contentDocument.querySelector('.text[data-side=\"target\"]');"
        " return t && t.innerText !== before; }",
        arg=first,
    )
    assert target.inner_text() == second
    if second == html_item:
        assert target.locator("b").count() == 0 and "<b>sitzt</b>" in second
    target.click()  # focus the widget again after the redraw (a click marks nothing there)
    page.keyboard.press("n")
    page.get_by_text("Nothing left for you").wait_for()
    page.reload()
    page.get_by_text("Nothing left for you").wait_for()

    rows = _rows(server)
    assert [(r[0], r[1], r[2], r[4]) for r in rows] == [
        ("label", 0, -5.0, first),
        ("label", 1, 0.0, second),
    ]
    ((span,),) = [rows[0][3]]
    assert first[span["start"] : span["end"]] == major_words
    assert (span["severity"], span["category"], span["side"]) == ("major", "accuracy", "target")
    assert rows[1][3] == []
