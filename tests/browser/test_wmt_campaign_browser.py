"""A WMT-style campaign end to end in chromium, on the shipped WMT21 TED en-de file (13
systems, 529 segments in 5 talks, imported with its doc ids and without its judgments):
two campaigns judged as documents in order and cut into tasks of 100 judgments, one
comparative (all 13 outputs of a source on one screen, with the document's earlier sources
above), one judged one output at a time. Two annotators each finish a task with the keys
and get a completion code; the CLI lists both tasks done; the dashboard names documents as
the unit and says 5 talks are too few for a verdict; the export carries task, document and
screen position. Setup (import, switches, cut) goes through the service, as the CLI does."""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys

import pytest

from accounts.invites import create_annotator
from annotation.campaign import document_order
from annotation.imports.importer import import_campaign
from annotation.judging import comparative
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from annotation.tasks import batches as tasks
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path
from tests.conftest import shared_file

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
SHOTS = PROJECT_ROOT / "docs" / "screenshots"
PROGRESS = "[data-testid='stProgress']"
SIDE_BY_SIDE, ONE_AT_A_TIME = "WMT21 TED side by side", "WMT21 TED one at a time"
#: The file's judgments are left out, so that every output is open to judge.
JUDGMENTS = ["human_score", "human_label_binary", "rater", "post_edit"]
TASK_SIZE = 100


def _campaign(server: Server, name: str, compare: bool) -> str:
    """Import the file with its doc ids, switch the modes, build the queue, cut tasks of
    100 judgments; the annotator's invite token."""
    path = shared_file("wmt21-ted-mqm/wmt21_ted_ende.csv")
    report = import_campaign(
        server.engine, path, name, column_map={"doc_id": "doc"}, ignore=JUDGMENTS,
        settings={"attention_rate": 0.0, "overlap": 0.0, "paired": compare,
                  "show_metrics": False},
    )  # fmt: skip
    assert report.outputs_added == 6877 and report.items_added == 529
    cid = report.campaign_id
    if compare:
        comparative.set_comparative(server.engine, cid, True)
    queue_build.build_queue(server.engine, cid, seed=3)
    document_order.set_documents_in_order(server.engine, cid, True)
    # comparative: the size counts screens (7 screens of 13 outputs: 91 judgments)
    cut = tasks.cut(server.engine, cid, 7 if compare else TASK_SIZE)
    assert cut.task_ids and max(cut.sizes) <= TASK_SIZE
    return create_annotator(server.engine, cid, f"rater of {name}").token


def _tab(page, server: Server, token: str):  # type: ignore[no-untyped-def]
    tab = page.context.browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    tab.set_default_timeout(30_000)
    tab.goto(f"{server.url}/?token={token}")
    tab.locator(".tandem-output").first.wait_for()
    tab.wait_for_selector(IDLE)
    return tab


def _left(tab) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """(left, size) from the task countdown "N of M left in this task"."""
    text = tab.locator(PROGRESS).first.inner_text()
    m = re.search(r"(\d+) of (\d+) left in this task", text.replace(",", ""))
    assert m, text
    return int(m[1]), int(m[2])


def _after(tab, before: str, timeout: float = 30_000) -> None:  # type: ignore[no-untyped-def]
    """Wait until the countdown has moved on from ``before`` or the code is shown."""
    tab.wait_for_function(
        "(b) => { if (document.querySelector('.tandem-code')) return true;"
        " const e = document.querySelector(\"[data-testid='stProgress']\");"
        " return e && e.innerText !== b; }",
        arg=before,
        timeout=timeout,
    )
    tab.wait_for_selector(IDLE)


def _code(tab) -> str:  # type: ignore[no-untyped-def]
    code = tab.locator(".tandem-code")
    code.wait_for()
    tab.get_by_text(re.compile(r"\b0 of \d+ left in this task")).first.wait_for()
    return code.inner_text().strip()


def _judge_screen(tab, n: int) -> None:  # type: ignore[no-untyped-def]
    """Type one label key per output without waiting, then Enter: the screen queues the keys
    and clicks each once the previous one's run has drawn the page, so none is lost, even on
    a loaded machine (tests/browser/test_compare_fast_keys_browser.py)."""
    before = tab.locator(PROGRESS).first.inner_text()
    tab.wait_for_function("window.__tandemKeysInstalled === true")
    tab.keyboard.type(("ai" * 7)[:n], delay=15)
    tab.keyboard.press("Enter")
    _after(tab, before, timeout=60_000)


def _finish_side_by_side(tab) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    """Judge every screen of the task with the keys (one label key per output, typed
    without waiting: the screen queues them, then Enter); the code and the doc counters."""
    counters: list[str] = []
    screens = 0
    while tab.locator(".tandem-code").count() == 0:
        counter = tab.locator(".tandem-doc-counter")
        counter.wait_for()
        counters.append(counter.inner_text())
        n = tab.locator(".tandem-output").count()
        assert n == 13, n  # every system's output of the source
        if screens == 1:  # the second segment: its document's first source above it
            assert tab.locator(".tandem-context-source").count() >= 1
            assert tab.locator(".tandem-context-output").count() == 0  # sources only
            tab.set_viewport_size({"width": 1280, "height": 1400})
            tab.wait_for_timeout(300)
            tab.screenshot(path=str(screenshot_path(SHOTS / "wmt-compare-document.png")))
            tab.set_viewport_size({"width": 1280, "height": 900})
        _judge_screen(tab, n)
        screens += 1
    assert screens >= 2  # the second screen's document-context checks above ran
    return _code(tab), counters


def _finish_one_at_a_time(tab) -> str:  # type: ignore[no-untyped-def]
    """One key per output, waiting for the countdown each time; the code."""
    while tab.locator(".tandem-code").count() == 0:
        tab.locator(".tandem-doc-counter").wait_for()
        left, _ = _left(tab)
        before = tab.locator(PROGRESS).first.inner_text()
        tab.wait_for_function("window.__tandemKeysInstalled === true")
        tab.keyboard.press("a" if left % 3 else "i")
        _after(tab, before)
    return _code(tab)


def _cli_tasks(server: Server, command: str, name: str) -> str:
    env = {**os.environ, "DATABASE_URL": server.engine.url.render_as_string(False)}
    out = subprocess.run(
        [sys.executable, "cli.py", "tasks", command, "--campaign", name],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return out.stdout


def _dashboard(page, server: Server) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(server.url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    dashboard = page.get_by_role("link", name="Dashboard")
    expect(dashboard).to_be_visible(timeout=90_000)
    dashboard.click()
    expect(page.get_by_text("Documents are the sampling unit", exact=False).first).to_be_visible(
        timeout=120_000
    )
    expect(page.get_by_text("Too few documents for a verdict", exact=False).first).to_be_visible()
    expect(page.get_by_text("only 5 documents", exact=False).first).to_be_visible()


@pytest.mark.browser
def test_wmt_campaign_end_to_end(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    ana_token = _campaign(server, SIDE_BY_SIDE, compare=True)  # first: the dashboard's default
    ben_token = _campaign(server, ONE_AT_A_TIME, compare=False)

    ana = _tab(page, server, ana_token)
    assert _left(ana)[1] <= TASK_SIZE
    assert not any(f"metricsystem{k}" in ana.content() for k in range(1, 6))  # names hidden
    ana_code, counters = _finish_side_by_side(ana)
    doc = re.match(r"Document (\S+) — segment (\d+) of (\d+)", counters[0])
    assert doc, counters[0]
    # one document's segments in order, one screen each
    assert [c.split(" — ")[0] for c in counters] == [f"Document {doc[1]}"] * len(counters)
    segments = [int(re.search(r"segment (\d+)", c)[1]) for c in counters]  # type: ignore[index]
    assert segments == list(range(segments[0], segments[0] + len(counters)))

    ben = _tab(page, server, ben_token)
    ben_size = _left(ben)[1]
    assert ben_size <= TASK_SIZE
    ben_code = _finish_one_at_a_time(ben)
    ben.screenshot(path=str(screenshot_path(SHOTS / "wmt-completion-code.png")))
    assert ana_code and ben_code and ana_code != ben_code

    for name, code in ((SIDE_BY_SIDE, ana_code), (ONE_AT_A_TIME, ben_code)):
        listed = _cli_tasks(server, "list", name)
        done = [line.split() for line in listed.splitlines() if " done " in line]
        assert len(done) == 1 and done[0][-1] == "pass", listed
        assert f"rater of {name}" in listed
        assert code in _cli_tasks(server, "codes", name)

    _dashboard(page, server)

    rows = list(
        csv.DictReader(io.StringIO(export_annotations(server.engine, SIDE_BY_SIDE, "csv").decode()))
    )
    assert len(rows) == 13 * len(counters)
    assert all(r["task_id"] and r["doc_id"] == doc[1] for r in rows)
    assert sorted({r["screen_position"] for r in rows}, key=int) == [str(k) for k in range(13)]
    assert {r["screen_size"] for r in rows} == {"13"}
    plain = list(
        csv.DictReader(
            io.StringIO(export_annotations(server.engine, ONE_AT_A_TIME, "csv").decode())
        )
    )
    assert len(plain) == ben_size
    assert all(r["task_id"] and r["doc_id"] for r in plain)
    assert not any(r["screen_position"] for r in plain)  # not a comparative judgment
