"""The racing switch in a real browser: the admin signs in on the Annotators page, switches
racing on and saves; the campaign's meta and setting log say so, and the page reads it back
after a reload."""

from __future__ import annotations

import pytest

from annotation import queue, racing
from db.engine import session_scope
from db.models import Campaign, Item, Output, System
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "racing_switch.png"
LABEL = "Racing: stop drawing a system once all its pairs are settled"


def _seed(server: Server) -> int:
    with session_scope(server.engine) as s:
        camp = Campaign(name="Racing campaign", source_lang="en", target_lang="de")
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"sys-{k}") for k in range(3)]
        s.add_all(systems)
        for j in range(5):
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source {j}.")
            s.add(item)
            s.flush()
            s.add_all(Output(item_id=item.id, system_id=sy.id, text=f"Satz {j}") for sy in systems)
        cid = camp.id
    queue.build_queue(server.engine, cid, seed=1)
    return cid


@pytest.mark.browser
def test_racing_switch_in_the_browser(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    cid = _seed(server)
    page.goto(f"{server.url}/annotators")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    switch = page.get_by_text(LABEL)
    switch.wait_for()
    switch.click()
    page.get_by_role("button", name="Save racing").click()
    for _ in range(100):  # the save reruns the page
        if racing.racing_status(server.engine, cid)[0]:
            break
        page.wait_for_timeout(200)
    assert racing.racing_status(server.engine, cid) == (True, [])
    assert [(c.key, c.new_value) for c in queue.setting_changes(server.engine, cid)] == [
        ("racing", True)
    ]
    page.reload()
    page.get_by_text(LABEL).wait_for()
    assert page.get_by_role("switch", name=LABEL).is_checked()
    assert page.locator("[data-testid='stException']").count() == 0
    page.get_by_text(LABEL).scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path(SCREENSHOT)))
