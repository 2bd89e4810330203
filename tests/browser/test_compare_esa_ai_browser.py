"""cESA with AI error spans (ESA^AI on the comparative screen) in a real browser (Debian
chromium). Each output of the screen starts with its own AI spans (dashed violet, "not
checked" in its card's title); `a` on the page accepts the current output's, `a` in an
output's box accepts that one's, a mouse selection and `w` `1` add an own span beside them;
a reload keeps the draft. Enter saves the screen: every output keeps its AI spans (as
accepted, or unchecked: saved as they are) and the export says where each final span came
from. Before the fix the comparative screen started every output empty (its slots carried no
output id), so the AI spans were silently not shown."""

from __future__ import annotations

import csv
import io
import json

import pytest
from sqlalchemy import select

from annotation.imports.ai_spans import import_ai_spans
from annotation.results.exports import export_annotations
from db.engine import session_scope
from db.schema.models import Annotation, Output
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_compare_esa_browser import (
    IDLE,
    SYSTEMS,
    WIDGET,
    frame_of,
    mark,
    seed,
    set_score,
)

SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "compare-esa-ai.png"
NAME = "cESA demo"
#: One AI span per output: the word after "Katze" (the outputs read "Die Katze {k} saß hier {j}.")
AI_WORD = "hier"


def _ai_file() -> bytes:
    rows = ["item_id,system,start,end,severity,category,confidence,model"]
    for j in range(2):
        for k, system in enumerate(SYSTEMS):
            text = f"Die Katze {k} saß hier {j}."
            start = text.index(AI_WORD)
            rows.append(f"{j},{system},{start},{start + len(AI_WORD)},minor,fluency,0.7,qe")
    return ("\n".join(rows) + "\n").encode()


def _ai_marks(page, k: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Classes of the marked pieces in output k's box."""
    return (
        frame_of(page, k)
        .locator('.text[data-side="target"] .err')
        .evaluate_all("els => els.map(e => e.className)")
    )


def _titles(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator(".tandem-cmp-title").all_inner_texts()


@pytest.mark.browser
def test_cesa_screen_starts_from_the_ai_spans(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = seed(server.engine)
    done = import_ai_spans(server.engine, _ai_file(), NAME, source="qe", filename="ai.csv")
    assert done.prefill
    page.set_viewport_size({"width": 1280, "height": 1900})
    page.goto(f"{server.url}/?token={token}")
    page.locator(WIDGET).nth(2).wait_for()
    page.wait_for_selector(IDLE)
    page.get_by_text("Violet outlines are an AI's error spans", exact=False).wait_for()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.tandem-cmp-title')]"
        ".filter(e => e.innerText.includes('1 AI span(s) not checked')).length === 3"
    )
    for k in range(3):  # every output starts with its own AI span, dashed (unchecked)
        frame_of(page, k).locator(".err").first.wait_for()
        assert len(_ai_marks(page, k)) == 1

    page.locator(".tandem-source").first.click()  # the focus on the page: output 1 current
    page.keyboard.press("a")  # accepts output 1's AI span
    page.wait_for_function(
        "() => !document.querySelectorAll('.tandem-cmp-title')[0].innerText.includes('AI span')"
    )
    assert "AI span(s) not checked" in _titles(page)[1]
    frame_of(page, 1).locator('.text[data-side="target"]').click()  # in output 2's box
    page.keyboard.press("a")
    page.wait_for_function(
        "() => !document.querySelectorAll('.tandem-cmp-title')[1].innerText.includes('AI span')"
    )
    page.wait_for_selector(IDLE)
    mark(page, 2, "Katze", "w1", "major")  # output 3: an own span beside its unchecked AI one
    assert "1 AI span(s) not checked" in _titles(page)[2]

    page.reload()  # the draft comes back: accepted, unchecked and own spans as they were
    page.locator(WIDGET).nth(2).wait_for()
    page.wait_for_selector(IDLE)
    page.wait_for_function(
        "() => { const t = [...document.querySelectorAll('.tandem-cmp-title')];"
        " return t.length === 3 && t[2].innerText.includes('2 error span(s)')"
        " && t[2].innerText.includes('1 AI span(s) not checked')"
        " && !t[0].innerText.includes('AI span'); }"
    )
    set_score(page, 0, ["End"], 100)
    set_score(page, 1, ["End"], 100)
    set_score(page, 2, ["End"] + ["ArrowLeft"] * 40, 60)
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)
    source = page.locator(".tandem-source").first.inner_text()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(b) => { const e = document.querySelector('.tandem-source');"
        " return e && e.innerText !== b; }",
        arg=source,
    )

    with session_scope(server.engine) as s:
        rows = s.execute(
            select(Annotation.screen_position, Annotation.spans, Output.text)
            .join(Output, Output.id == Annotation.output_id)
            .order_by(Annotation.screen_position)
        ).all()
    assert len(rows) == 3
    for _, spans, text in rows[:2]:  # accepted: the AI span is the final one
        assert [(text[x["start"] : x["end"]], x["severity"]) for x in spans] == [(AI_WORD, "minor")]
    _, spans, text = rows[2]
    assert sorted((text[x["start"] : x["end"]], x["severity"]) for x in spans) == [
        ("Katze", "major"),
        (AI_WORD, "minor"),
    ]
    export = csv.DictReader(io.StringIO(export_annotations(server.engine, NAME, "csv").decode()))
    origins = sorted(json.loads(r["span_origins"]) for r in export if r["spans"])
    assert origins == [["ai"], ["ai"], ["new", "ai"]] or origins == [["ai"], ["ai"], ["ai", "new"]]
