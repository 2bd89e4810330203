"""An ESA campaign by name, end to end in a real browser (Debian chromium): a file imported
with `cli.py import --mode esa` opens on the annotate page with the 0–100 overall-score
control and WMT's ESA guidelines; a drag and `w` alone mark a major error (ESA has one
category), the typed score and Save store both. A `--mode spans` (MQM) campaign shows no
score control."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.imports.modes import ESA_CATEGORIES
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.reads.campaign import campaign_id
from db.schema.models import Annotation
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_spans_browser import WIDGET, _drag

SHOT = PROJECT_ROOT / "docs" / "screenshots" / "esa-mode.png"
TEXT = "Die Katze sitzt heute auf der alten Matte {j}."
SCORE = "Overall quality (ESA), 0–100"


def _cli_import(server: Server, tmp_path: Path, name: str, mode: str) -> str:
    """`cli.py import` of a 2-item, 1-system file in ``mode``; the annotator's invite token."""
    path = tmp_path / f"{mode}.csv"
    rows = ["item_id,source,reference,system,output"]
    rows += [f"i{j},The cat sits on the old mat {j}.,,sys,{TEXT.format(j=j)}" for j in range(2)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    env = {**os.environ, "DATABASE_URL": server.engine.url.render_as_string(False)}
    done = subprocess.run(
        [sys.executable, "cli.py", "import", str(path), "--campaign", name, "--mode", mode],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    cid = campaign_id(server.engine, name)
    assert cid is not None
    queue_build.build_queue(server.engine, cid, seed=2)
    return create_annotator(server.engine, cid, "Ana").token


@pytest.mark.browser
def test_an_esa_campaign_asks_for_the_score(server: Server, page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    token = _cli_import(server, tmp_path, "esa by name", "esa")
    page.goto(f"{server.url}/?token={token}")
    page.locator(WIDGET).wait_for()
    frame = page.frame_locator(WIDGET)
    target = frame.locator('.text[data-side="target"]')
    target.wait_for()
    page.get_by_role("slider", name=SCORE).wait_for()
    page.get_by_text("Error Span Annotation (ESA), as WMT runs it", exact=False).first.wait_for()
    text = target.inner_text()
    inner = next(f for f in page.frames if "tandem_span_widget" in f.url)
    k = text.index("Katze")
    page.locator(WIDGET).scroll_into_view_if_needed()  # below the guidelines
    _drag(page, inner, text, k + 1, k + 3)
    frame.locator(".pending").first.wait_for()
    page.keyboard.press("w")  # a severity alone: the campaign's one category is filled in
    frame.locator(".err.major").first.wait_for()
    box = page.get_by_role("spinbutton", name="Score")
    box.fill("40")
    box.press("Enter")
    page.get_by_text("Not set yet: move the slider").wait_for(state="detached")
    page.screenshot(path=screenshot_path(SHOT), full_page=True)
    page.wait_for_function(
        "() => [...document.querySelectorAll('button')]"
        ".filter(b => b.innerText.includes('Save and next')).length === 1"
    )
    page.get_by_role("button", name="Save and next").click()
    page.get_by_text("Not set yet: move the slider").wait_for()  # the next item
    with session_scope(server.engine) as s:
        rows = s.execute(select(Annotation.esa_score, Annotation.spans, Annotation.label)).all()
    assert len(rows) == 1
    esa, spans, label = rows[0]
    assert esa == 40.0 and label == 0
    assert [(sp["start"], sp["end"], sp["severity"], sp["category"]) for sp in spans] == [
        (k, k + len("Katze"), "major", ESA_CATEGORIES[0])
    ]


@pytest.mark.browser
def test_a_spans_campaign_asks_for_no_score(server: Server, page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    token = _cli_import(server, tmp_path, "mqm by name", "spans")
    page.goto(f"{server.url}/?token={token}")
    page.frame_locator(WIDGET).locator('.text[data-side="target"]').wait_for()
    page.get_by_role("button", name="Save and next").first.wait_for()
    assert page.get_by_role("slider", name=SCORE).count() == 0
