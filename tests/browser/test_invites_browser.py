"""Issue 17.9 in a real browser: a duplicate annotator name is a clear message (no database
error, no token hash), a lost link is re-issued (the old link stops working, in an open tab
at its next key press; the new one opens the annotate page), and the Annotators page states
the quality-control defaults with what they cost."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path

PASSWORD = "browser-test-password"
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "annotators_reissue.png"


def _seed(server: Server) -> int:
    with session_scope(server.engine) as s:
        camp = Campaign(name="Invites", overlap=0.1, attention_rate=0.05)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in ("A", "B")]
        s.add_all(systems)
        for j in range(10):
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source number {j}.")
            s.add(item)
            s.flush()
            s.add_all(
                Output(item_id=item.id, system_id=sy.id, text=f"Ausgabe {j} von {sy.name} hier")
                for sy in systems
            )
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=1)
    return cid


def _invite_link(page) -> str:  # type: ignore[no-untyped-def]
    code = page.locator("[data-testid='stCode']").first
    code.wait_for()
    link = code.inner_text().strip()
    assert re.search(r"\?token=[A-Za-z0-9_-]{20,}$", link), link
    return link


@pytest.mark.browser
def test_duplicate_name_reissue_and_quality_defaults(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    _seed(server)
    page.goto(f"{server.url}/annotators")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Create invite link").wait_for()
    page.get_by_text("New campaigns start with 10% overlap").wait_for()
    page.get_by_text("extra judgments on top of the 20 outputs").wait_for()

    page.get_by_label("Name").fill("Ana")
    page.get_by_role("button", name="Create invite link").click()
    first = _invite_link(page)

    # A second "Ana": the page says what to do, and shows nothing of the database.
    page.get_by_label("Name").fill("Ana")
    page.get_by_role("button", name="Create invite link").click()
    page.get_by_text("already has an annotator named").wait_for()
    body = page.locator("body").inner_text()
    assert "IntegrityError" not in body and "token_hash" not in body and "UNIQUE" not in body
    assert "re-issue" in body

    # Ana opened her link in a tab, then lost it: re-issue.
    ana = page.context.browser.new_context().new_page()
    ana.goto(first)
    ana.locator(".tandem-output").first.wait_for()
    page.get_by_role("button", name="Re-issue link").click()
    page.get_by_text("the previous link no longer works").wait_for()
    page.wait_for_selector(IDLE)  # the code under the message may still be the first link's
    second = _invite_link(page)
    assert second != first
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)

    ana.wait_for_function("window.__tandemKeysInstalled === true")  # listener ready
    ana.keyboard.press("a")  # the old tab's next action is refused
    ana.get_by_text("This invite link is not valid").wait_for()
    with session_scope(server.engine) as s:
        assert s.scalar(select(func.count()).select_from(Annotation)) == 0  # nothing saved
    fresh = page.context.browser.new_context().new_page()
    fresh.goto(first)
    fresh.get_by_text("This invite link is not valid").wait_for()
    fresh.goto(second)
    fresh.locator(".tandem-output").first.wait_for()
    page.reload()
    page.get_by_role("button", name="Create invite link").wait_for()
    page.locator("[data-testid='stDataFrame']").first.wait_for()
