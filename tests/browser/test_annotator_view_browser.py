"""Issue 17, item 8 in a real browser (Debian chromium), one test per defect: "Adequate" is
green and "Inadequate" red (not Streamlit's red primary for "Adequate"), the progress line
shows the annotator's own batch, an undo says what it took back, a paired campaign shows the
output's place among its source's outputs and all of them side by side, and guidelines an
admin writes on the Annotators page are shown to annotators."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path

PASSWORD = "browser-test-password"
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "annotator_view.png"
GUIDELINES_SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "annotator_guidelines.png"
SYSTEMS = ("sys-alpha", "sys-beta", "sys-gamma")
OUTPUTS = [
    ["Das Haus ist klein, aber gemütlich.", "Das Haus klein ist.", "Haus klein gemütlich."],
    ["<script>alert(1)</script> Ein **fetter** Satz.", "Ein fetter Satz.", "Satz fett ein."],
]
SOURCES = ["The house is small but cosy.", "A **bold** sentence."]
SIDE_BY_SIDE = "All outputs for this source (side by side)"


def _seed(server: Server, *, paired: bool = True) -> tuple[int, str]:
    with session_scope(server.engine) as s:
        camp = Campaign(name="Annotator view", paired=paired, show_metrics=False)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in SYSTEMS]
        s.add_all(systems)
        for j, (src, outs) in enumerate(zip(SOURCES, OUTPUTS, strict=True)):
            item = Item(campaign_id=camp.id, external_id=str(j), source=src, reference=src)
            s.add(item)
            s.flush()
            s.add_all(
                Output(item_id=item.id, system_id=sy.id, text=text)
                for sy, text in zip(systems, outs, strict=True)
            )
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=3)
    return cid, create_annotator(server.engine, cid, "Ana").token


def _open(page, server: Server, token: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/?token={token}")
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(".st-key-adequate button")


def _output_text(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator(".tandem-output").first.inner_text()


def _press_and_wait(page, key: str) -> str:  # type: ignore[no-untyped-def]
    before = _output_text(page)
    page.wait_for_function("window.__tandemKeysInstalled === true")  # listener ready
    page.keyboard.press(key)
    page.wait_for_function(
        "(before) => { const el = document.querySelector('.tandem-output');"
        " return el && el.innerText !== before; }",
        arg=before,
    )
    return _output_text(page)


def _progress(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator("[data-testid='stProgress']").first.inner_text()


def _rgb(page, selector: str) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    colour = page.eval_on_selector(selector, "el => getComputedStyle(el).backgroundColor")
    r, g, b = (int(v) for v in re.findall(r"\d+", colour)[:3])
    return r, g, b


def _labels(server: Server) -> list[tuple[str, int | None]]:
    with session_scope(server.engine) as s:
        return [tuple(r) for r in s.execute(select(Annotation.kind, Annotation.label))]  # type: ignore[misc]


@pytest.mark.browser
def test_adequate_is_green_and_inadequate_red(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    _, token = _seed(server)
    _open(page, server, token)
    r, g, b = _rgb(page, ".st-key-adequate button")
    assert g > 100 and g > r + 40 and g > b + 40, (r, g, b)  # green, not Streamlit's red
    r, g, b = _rgb(page, ".st-key-inadequate button")
    assert r > 140 and r > g + 80 and r > b + 80, (r, g, b)
    assert page.locator(".st-key-adequate button [data-testid='stIconMaterial']").count() == 1
    # the keys still reach the recoloured buttons
    _press_and_wait(page, "a")
    _press_and_wait(page, "i")
    assert _labels(server) == [("label", 1), ("label", 0)]


@pytest.mark.browser
def test_progress_shows_the_annotators_own_batch(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    cid, token = _seed(server)
    _open(page, server, token)
    assert "You: 0 judged, 0 skipped · 6 left for you · Campaign: 0 of 6 done" in _progress(page)
    _press_and_wait(page, "a")
    page.get_by_text("5 left for you").wait_for()
    # someone else takes the other source's three outputs: fewer are left for Ana
    from annotation.judging import session

    other = create_annotator(server.engine, cid, "Ben").annotator_id
    session.next_view(server.engine, other)
    _press_and_wait(page, "i")
    page.get_by_text("You: 2 judged, 0 skipped · 1 left for you · Campaign: 2 of 6 done").wait_for()


@pytest.mark.browser
def test_undo_says_what_it_took_back(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    _, token = _seed(server)
    _open(page, server, token)
    first = _output_text(page)
    _press_and_wait(page, "a")
    second = _output_text(page)
    _press_and_wait(page, "i")
    back = _press_and_wait(page, "u")
    assert back == second
    alert = page.locator("[data-testid='stAlert']").filter(has_text="Undone")
    alert.wait_for()
    assert (
        alert.inner_text()
        .strip()
        .endswith(
            f"Undone: your Inadequate label on your item 2 (output 2 of 3 for its source): "
            f"“{second}” The item is shown again: judge it anew."  # (its own full stop)
        )
    )
    assert _press_and_wait(page, "u") == first
    page.get_by_text("Undone: your Adequate label on your item 1 (output 1 of 3").wait_for()
    _press_and_wait(page, "a")
    page.wait_for_selector(IDLE)  # the last run's "Undone" alert is gone only at the run's end
    assert page.locator("[data-testid='stAlert']").filter(has_text="Undone").count() == 0


@pytest.mark.browser
def test_paired_position_and_all_outputs_side_by_side(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    _, token = _seed(server)
    _open(page, server, token)
    for k in (1, 2, 3):
        page.get_by_text(f"Output {k} of 3 for this source").wait_for()
        if k < 3:
            _press_and_wait(page, "a")
    # the key's run has finished (no stale element left), then open the expander
    page.wait_for_selector(IDLE)
    expander = page.locator("[data-testid='stExpander']").filter(has_text=SIDE_BY_SIDE)
    expander.get_by_text(SIDE_BY_SIDE).click()
    cells = expander.locator(".tandem-sibling")
    for k in range(3):
        cells.nth(k).wait_for(state="visible")
    shown = [cells.nth(k).inner_text() for k in range(cells.count())]
    source = next(j for j, outs in enumerate(OUTPUTS) if _output_text(page) in outs)
    assert sorted(shown) == sorted(OUTPUTS[source])  # every system's output, literally
    assert shown[2] == _output_text(page)  # the shown one in its place (3 of 3)
    boxes = [cells.nth(k).bounding_box() for k in range(3)]
    assert len({round(b["y"]) for b in boxes}) == 1  # side by side, one row
    assert expander.locator("script, strong").count() == 0
    content = page.content()
    assert not any(name in content for name in SYSTEMS)
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)


@pytest.mark.browser
def test_guidelines_written_by_the_admin_are_shown_to_annotators(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    _, token = _seed(server)
    page.goto(f"{server.url}/annotators")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_label("Guidelines (markdown)").fill(
        "Judge the **meaning**: an output that changes it is inadequate.\n\n"
        '<img src="x" onerror="window.__pwned = 1"> Ignore spelling.'
    )
    page.get_by_label("Examples (markdown)").fill("- *Der Hund* for “the cat”: inadequate")
    page.get_by_role("button", name="Save guidelines").click()
    page.get_by_text("Guidelines saved").wait_for()

    ana = page.context.browser.new_context().new_page()
    _open(ana, server, token)
    panel = ana.locator("[data-testid='stExpander']").filter(has_text="Guidelines for this")
    panel.get_by_text("an output that changes it is inadequate").wait_for()  # open at first
    assert panel.locator("strong").first.inner_text() == "meaning"  # markdown rendered
    assert panel.get_by_text("Der Hund").count() == 1 and panel.locator("li").count() == 1
    assert panel.locator("img").count() == 0  # no HTML
    assert ana.evaluate("window.__pwned") is None
    ana.screenshot(path=str(screenshot_path(GUIDELINES_SCREENSHOT)), full_page=True)
    ana.context.close()
