"""ESA^AI end to end in a real browser (Debian chromium). An ESA campaign (imported through
the service, as the CLI does) gets AI error spans through the Import page's "AI error spans"
tab. The annotator's first item shows three AI spans pre-filled (dashed violet): `j` selects
the first and `a` accepts it, a mouse click on the second and `w` makes it major (edited),
`j` and `Del` delete the third, a drag and `q` `1` add a new one; a reload keeps exactly that
draft (so does a second tab); the typed ESA score and Save store the final spans. The
export keeps the AI spans with their fate (kept, edited, deleted) and each final span's
origin (ai, edited, new); the rest of the campaign is judged through the service, the
dashboard gives its verdicts on the ESA score, and `cli.py export-ranking` writes the
ranking table."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_spans_browser import WIDGET, _drag

PASSWORD = "browser-test-password"
SHOTS = PROJECT_ROOT / "docs" / "screenshots"
NAME = "esa-ai demo"
N_ITEMS = 10
TEXT = "Die Katze sitzt heute auf der alten Matte im Garten {j}."
AI = [("Katze", "major", "accuracy"), ("heute", "minor", "fluency"), ("alten", "minor", "style")]


def _seed(server: Server) -> int:
    with session_scope(server.engine) as s:
        meta = {META_KEY: SpanConfig(ask_esa=True).to_meta()}
        camp = Campaign(name=NAME, mode="spans", show_metrics=False, meta=meta)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in ("sys-good", "sys-bad")]
        s.add_all(systems)
        for j in range(N_ITEMS):
            item = Item(campaign_id=camp.id, external_id=f"i{j}", source=f"The cat sits {j}.")
            s.add(item)
            s.flush()
            s.add_all(
                Output(item_id=item.id, system_id=sy.id, text=TEXT.format(j=j)) for sy in systems
            )
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=4)
    return cid


def _ai_file(tmp_path: Path) -> Path:
    rows = ["item_id,system,start,end,severity,category,confidence,model"]
    for j in range(N_ITEMS):
        text = TEXT.format(j=j)
        for system in ("sys-good", "sys-bad"):
            for word, severity, category in AI:
                k = text.index(word)
                rows.append(f"i{j},{system},{k},{k + len(word)},{severity},{category},0.8,qe-demo")
    path = tmp_path / "ai_spans.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def _sign_in(page, server: Server) -> None:  # type: ignore[no-untyped-def]
    page.goto(server.url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Import").wait_for(timeout=90_000)


def _import_ai_spans(page, path: Path) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("link", name="Import").click()
    page.get_by_role("tab", name="AI error spans (ESA^AI)").click()
    page.get_by_label("Source (the model or run)").fill("qe-demo")
    page.get_by_label("Source (the model or run)").press("Enter")
    page.wait_for_selector(IDLE)
    panel = page.get_by_role("tabpanel", name="AI error spans (ESA^AI)")
    panel.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    panel.get_by_text(path.name).wait_for()
    page.wait_for_selector(IDLE)
    panel.get_by_role("button", name="Import AI spans").click()
    page.get_by_text("Imported 60 AI span(s)", exact=False).wait_for(timeout=60_000)
    page.screenshot(path=screenshot_path(SHOTS / "esa-ai-import.png"), full_page=True)


def _widget(tab):  # type: ignore[no-untyped-def]
    tab.locator(WIDGET).wait_for()
    frame = tab.frame_locator(WIDGET)
    frame.locator('.text[data-side="target"]').wait_for()
    return frame, next(f for f in tab.frames if "tandem_span_widget" in f.url)


def _state(frame) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """(text, classes) of every marked piece of the output."""
    return frame.locator('.text[data-side="target"] .err').evaluate_all(
        "els => els.map(e => [e.textContent, e.className])"
    )


def _wait_state(tab, expected: list[tuple[str, str]]) -> None:  # type: ignore[no-untyped-def]
    tab.wait_for_function(
        """(want) => { const f = [...document.querySelectorAll('iframe')].find(
             i => (i.title || '').includes('tandem_span_widget'));
           const els = f && f.contentDocument.querySelectorAll('.text[data-side="target"] .err');
           if (!els) return false;
           const got = [...els].map(e => [e.textContent, e.className.replace(' sel', '')]);
           return JSON.stringify(got) === JSON.stringify(want); }""",
        arg=[list(e) for e in expected],
    )


def _annotate_first_item(tab) -> str:  # type: ignore[no-untyped-def]
    frame, inner = _widget(tab)
    text = frame.locator('.text[data-side="target"]').inner_text()
    _wait_state(
        tab, [("Katze", "err major ai"), ("heute", "err minor ai"), ("alten", "err minor ai")]
    )
    tab.screenshot(path=screenshot_path(SHOTS / "esa-ai-prefill.png"), full_page=True)
    tab.keyboard.press("j")  # on the page: select the first span
    tab.wait_for_selector(IDLE)
    tab.keyboard.press("a")  # accept it
    _wait_state(
        tab,
        [("Katze", "err major ai checked"), ("heute", "err minor ai"), ("alten", "err minor ai")],
    )
    frame.locator(".err", has_text="heute").click()  # mouse: select the second
    frame.locator(".err.sel", has_text="heute").wait_for()
    tab.keyboard.press("w")  # in the widget: major
    _wait_state(
        tab,
        [
            ("Katze", "err major ai checked"),
            ("heute", "err major ai checked"),
            ("alten", "err minor ai"),
        ],
    )
    tab.keyboard.press("j")  # next span: the third
    frame.locator(".err.sel", has_text="alten").wait_for()
    tab.keyboard.press("Delete")
    _wait_state(tab, [("Katze", "err major ai checked"), ("heute", "err major ai checked")])
    k = text.index("Garten")
    _drag(tab, inner, text, k + 1, k + 4)  # a sloppy drag, snapped to the word
    frame.locator(".pending").first.wait_for()
    tab.keyboard.press("q")
    tab.keyboard.press("1")
    edited = [
        ("Katze", "err major ai checked"),
        ("heute", "err major ai checked"),
        ("Garten", "err minor"),
    ]
    _wait_state(tab, edited)
    tab.reload()  # mid-item: the draft, not the AI's prefill, comes back
    frame, _ = _widget(tab)
    assert frame.locator('.text[data-side="target"]').inner_text() == text
    _wait_state(tab, edited)
    tab.get_by_text("AI · edited").wait_for()
    tab.screenshot(path=screenshot_path(SHOTS / "esa-ai-edited.png"), full_page=True)
    second = tab.context.new_page()  # a second tab on the same item: the same draft
    second.goto(tab.url)
    _widget(second)
    _wait_state(second, edited)
    second.close()
    box = tab.get_by_role("spinbutton", name="Score")  # typed: exact, unlike held arrow keys
    box.fill("85")
    box.press("Enter")
    tab.get_by_text("Not set yet: move the slider").wait_for(state="detached")
    tab.wait_for_function(
        "() => [...document.querySelectorAll('button')]"
        ".filter(b => b.innerText.includes('Save and next')).length === 1"
    )
    tab.get_by_role("button", name="Save and next").click()
    tab.get_by_text("Not set yet: move the slider").wait_for()  # the next item
    return text


def _judge_the_rest(server: Server, a: int) -> None:
    """Everything else, through the service (the item Ana holds first, so that every label
    is in queue order): sys-good scored 85–94, sys-bad 20–29."""
    v = session.next_view(server.engine, a)
    n = 0
    while v.slot is not None:
        with session_scope(server.engine) as s:
            system = s.scalar(select(System.name).join(Output).where(Output.id == v.slot.output_id))
        score = (85.0 if system == "sys-good" else 20.0) + n % 10
        n += 1
        v = judging.submit(
            server.engine, a, v.slot.assignment_id, v.slot.claim_version, spans=[], esa_score=score
        )


@pytest.mark.browser
def test_esa_ai_end_to_end(server: Server, page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cid = _seed(server)
    ana = create_annotator(server.engine, cid, "Ana")
    _sign_in(page, server)
    _import_ai_spans(page, _ai_file(tmp_path))
    tab = page.context.browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    tab.set_default_timeout(30_000)
    tab.goto(f"{server.url}/?token={ana.token}")
    text = _annotate_first_item(tab)

    with session_scope(server.engine) as s:
        ((spans, esa),) = s.execute(select(Annotation.spans, Annotation.esa_score)).all()
    assert esa == 85.0
    assert [(text[x["start"] : x["end"]], x["severity"]) for x in spans] == [
        ("Katze", "major"),
        ("heute", "major"),
        ("Garten", "minor"),
    ]
    rows = list(
        csv.DictReader(io.StringIO(export_annotations(server.engine, NAME, "csv").decode()))
    )
    (row,) = [r for r in rows if r["spans"]]
    assert json.loads(row["span_origins"]) == ["ai", "edited", "new"]
    assert [x["fate"] for x in json.loads(row["ai_spans"])] == ["kept", "edited", "deleted"]

    _judge_the_rest(server, ana.annotator_id)
    page.get_by_role("link", name="Dashboard").click()
    page.get_by_text("The ESA score is analysed and shown ÷ 100", exact=False).first.wait_for(
        timeout=120_000
    )
    page.get_by_text("significance cluster", exact=False).first.wait_for(timeout=60_000)
    out = tmp_path / "ranking.csv"
    env = {**os.environ, "DATABASE_URL": server.engine.url.render_as_string(False)}
    done = subprocess.run(
        [sys.executable, "cli.py", "export-ranking", "--campaign", NAME, "--out", str(out)],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    ranking = list(csv.DictReader(out.open()))
    assert [r["system"] for r in ranking][:2] == ["sys-good", "sys-bad"], ranking
    tab.context.close()
