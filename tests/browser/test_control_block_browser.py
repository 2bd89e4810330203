"""The shared control block in a real browser: the administrator marks one item as the block
on the Annotators page; two annotators, each in their own tab, judge the block's outputs
first and then their tasks; the page then shows both annotators' block done, their means
and Krippendorff's α. Saves docs/screenshots/control-block.png (TANDEM_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.queue import build as queue_build
from annotation.tasks import batches as tasks
from db.engine import session_scope
from db.schema.models import Assignment, Campaign, Item, Output, System
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_annotate_browser import _output_text, _press_and_wait

pytestmark = pytest.mark.browser

PASSWORD = "browser-test-password"
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "control-block.png"


def _seed(server: Server) -> tuple[int, list[str]]:
    with session_scope(server.engine) as s:
        camp = Campaign(name="Control", attention_rate=0.0, overlap=0.0, show_metrics=False,
                        paired=False)  # fmt: skip
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in ("sys-a", "sys-b")]
        s.add_all(systems)
        for j in range(4):
            item = Item(campaign_id=camp.id, external_id=f"seg{j}", source=f"Source sentence {j}.")
            s.add(item)
            s.flush()
            s.add_all(
                Output(item_id=item.id, system_id=sy.id, text=f"Ausgabe {k} für Satz {j}.")
                for k, sy in enumerate(systems)
            )
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=5)
    tasks.cut(server.engine, cid, 2)  # tasks of two outputs
    return cid, [create_annotator(server.engine, cid, n).token for n in ("Ana", "Ben")]


def test_block_first_then_tasks(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    cid, tokens = _seed(server)
    page.set_viewport_size({"width": 1300, "height": 1000})
    page.goto(f"{server.url}/annotators")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Set control block").wait_for()
    page.get_by_label("Item ids (comma-separated)").fill("seg2")
    page.get_by_role("button", name="Set control block").click()
    page.get_by_text("Control block set: 1 item(s), not counted.").wait_for()

    for token in tokens:
        tab = page.context.browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        tab.goto(f"{server.url}/?token={token}")
        tab.locator(".tandem-output").first.wait_for()
        shown = [_output_text(tab)]
        shown.append(_press_and_wait(tab, "a", shown[-1]))  # the block's first output judged
        shown.append(_press_and_wait(tab, "i", shown[-1]))  # the block's second: the task next
        assert sorted(shown[:2]) == ["Ausgabe 0 für Satz 2.", "Ausgabe 1 für Satz 2."], shown
        assert "Satz 2." not in shown[2]  # then their task's own outputs
        tab.get_by_text("2 of 2 left in this task").wait_for()
        tab.context.close()
    with session_scope(server.engine) as s:
        done = s.execute(select(Assignment.annotator_id, Assignment.state)
                         .where(Assignment.campaign_id == cid, Assignment.kind == "control")
                         ).all()  # fmt: skip
    assert len(done) == 4 and {st for _, st in done} == {"done"}

    page.reload()
    page.get_by_role("button", name="Set control block").wait_for()
    page.get_by_text("Krippendorff's α (nominal, label) on the block").wait_for()
    frame = page.locator("[data-testid='stDataFrame']").last
    frame.wait_for()
    page.get_by_role("button", name="Set control block").evaluate(
        "el => el.scrollIntoView({block: 'start'})"
    )  # the block's statistics fill the view
    page.wait_for_timeout(800)
    shot = screenshot_path(SCREENSHOT)
    page.screenshot(path=str(shot))
    assert page.locator("[data-testid='stException']").count() == 0
