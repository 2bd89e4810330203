"""Tasks in a real browser: the administrator sets a hand-off URL and cuts tasks of a few
items on the Annotators page; an annotator finishes a task with the keys, sees the countdown
and the completion code, and is sent to the hand-off URL (a local page) with the code."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System, Task
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_annotate_browser import _output_text, _press_and_wait

PASSWORD = "browser-test-password"
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "task-complete.png"


class _Platform(http.server.BaseHTTPRequestHandler):
    """A stand-in crowd platform: says which code it received."""

    def do_GET(self) -> None:
        body = f"<h1>Platform received {self.path}</h1>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def platform() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Platform)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _seed(server: Server) -> str:
    with session_scope(server.engine) as s:
        camp = Campaign(name="Crowd batch", attention_rate=0.0, overlap=0.0, show_metrics=False)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in ("sys-a", "sys-b")]
        s.add_all(systems)
        for j in range(3):
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source sentence {j}.")
            s.add(item)
            s.flush()
            s.add_all(
                Output(item_id=item.id, system_id=sy.id, text=f"Ausgabe {k} für Satz {j}.")
                for k, sy in enumerate(systems)
            )
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=5)
    return create_annotator(server.engine, cid, "Ana").token


@pytest.mark.browser
def test_cut_tasks_finish_one_and_hand_off(server: Server, page, platform: str) -> None:  # type: ignore[no-untyped-def]
    token = _seed(server)
    page.goto(f"{server.url}/annotators")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Cut tasks").wait_for()
    page.get_by_label("Hand-off URL", exact=False).fill(f"{platform}/complete?cc={{code}}")
    page.get_by_role("button", name="Save task settings").click()
    page.get_by_text("Codes: a generated code per task").wait_for()
    page.wait_for_timeout(500)
    assert page.get_by_label("Hand-off URL", exact=False).input_value().endswith("cc={code}")
    page.get_by_label("Items per task").fill("2")  # one item: its two outputs
    page.get_by_role("button", name="Cut tasks").click()
    page.get_by_text("Cut 3 task(s) of 2–2 items").wait_for()
    page.locator("[data-testid='stDataFrame']").first.wait_for()

    ana = page.context.browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    ana.goto(f"{server.url}/?token={token}")
    ana.locator(".tandem-output").first.wait_for()
    ana.get_by_text("2 of 2 left in this task").wait_for()
    shown = _press_and_wait(ana, "a", _output_text(ana))
    ana.get_by_text("1 of 2 left in this task").wait_for()
    assert shown
    ana.wait_for_function("window.__tandemKeysInstalled === true")
    ana.keyboard.press("i")
    code_el = ana.locator(".tandem-code")
    code_el.wait_for()
    code = code_el.inner_text().strip()
    ana.get_by_text("0 of 2 left in this task").wait_for()
    link = ana.locator("a.tandem-handoff")
    assert link.get_attribute("href") == f"{platform}/complete?cc={code}"
    ana.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)
    with session_scope(server.engine) as s:
        done = s.scalars(select(Task).where(Task.state == "done")).all()
    assert [(t.completion_code, t.outcome) for t in done] == [(code, "pass")]
    ana.wait_for_url(f"{platform}/complete?cc={code}", timeout=15_000)
    assert code in ana.locator("h1").inner_text()
