"""The racing switch in a real browser: the admin signs in on the Statistics page, switches
racing on and saves; the campaign's meta and setting log say so, and the page reads it back
after a reload."""

from __future__ import annotations

import pytest

from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from annotation.queue import racing
from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System
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
    queue_build.build_queue(server.engine, cid, seed=1)
    return cid


@pytest.mark.browser
def test_racing_switch_in_the_browser(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    cid = _seed(server)
    page.goto(f"{server.url}/statistics")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    switch = page.get_by_text(LABEL)
    switch.wait_for()
    switch.click()
    page.get_by_role("button", name="Save statistics settings").click()
    for _ in range(100):  # the save reruns the page
        if racing.racing_status(server.engine, cid)[0]:
            break
        page.wait_for_timeout(200)
    assert racing.racing_status(server.engine, cid) == (True, [])
    assert [(c.key, c.new_value) for c in queue_admin.setting_changes(server.engine, cid)] == [
        ("racing", True)
    ]
    page.reload()
    page.get_by_text(LABEL).wait_for()
    assert page.get_by_role("switch", name=LABEL).is_checked()
    assert page.locator("[data-testid='stException']").count() == 0
    page.get_by_text(LABEL).scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path(SCREENSHOT)))


DASHBOARD_SHOT = PROJECT_ROOT / "docs" / "screenshots" / "dashboard-racing.png"


@pytest.mark.browser
def test_dashboard_of_a_racing_campaign(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    """4 systems, 400 of 800 items labelled, ε = 0.2: sys1 and sys2 (same true quality)
    read "no difference larger than 0.2"; racing on with sys0 and sys3 dropped."""
    from playwright.sync_api import expect

    from db.campaign import campaigns as dbc
    from db.queue.claim import queue_transaction
    from tests.db.reads.test_campaign import seed_campaign

    cid = seed_campaign(server.engine, "Racing campaign", n_items=800, labelled=400, overlap=0,
                        deltas=(1.5, 0.0, 0.0, -1.5), seed=3)  # fmt: skip
    dropped = [{"system": s, "labels": 640, "at": "2026-11-24T20:00:00"} for s in ("sys0", "sys3")]
    with queue_transaction(server.engine) as s:
        dbc.set_campaign_meta_key(s, cid, "equivalence_margin", 0.2)
        dbc.set_campaign_meta_key(s, cid, "racing", {"on": True, "dropped": dropped})
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(server.url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    dashboard = page.get_by_role("link", name="Dashboard")
    expect(dashboard).to_be_visible(timeout=90_000)
    dashboard.click()
    caption = page.get_by_text("Racing is on", exact=False)
    expect(caption).to_be_visible(timeout=90_000)
    expect(
        page.get_by_text("sys0 (after 640 labels), sys3 (after 640 labels)", exact=False)
    ).to_be_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    page.get_by_text("pair(s) shown", exact=False).wait_for(timeout=30_000)
    page.wait_for_timeout(1500)  # the pair table (a canvas) draws
    height = page.evaluate(
        "document.querySelector(\"[data-testid='stMainBlockContainer']\").scrollHeight"
    )
    page.set_viewport_size({"width": 1400, "height": int(height) + 120})
    page.wait_for_timeout(1500)
    heading = page.get_by_role("heading", name="Pairwise verdicts", exact=False).bounding_box()
    bottom = page.get_by_text("pair(s) shown", exact=False).bounding_box()
    assert heading and bottom
    top = max(heading["y"] - 20, 0)
    clip = {"x": 0, "y": top, "width": 1400, "height": bottom["y"] + 330 - top}
    shot = screenshot_path(DASHBOARD_SHOT)  # docs/ only with TANDEM_UPDATE_SCREENSHOTS=1
    page.screenshot(path=str(shot), clip=clip, full_page=True)
    assert shot.stat().st_size > 10_000
