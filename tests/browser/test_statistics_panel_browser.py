"""The Statistics page in a real browser (issue 29.4): with the dashboard open in a second
tab, the admin sets the error rate α and the family (keyboard and mouse), the page reads
them back after a reload, and the open dashboard's settings box and its pairwise-verdicts
download follow to the new level without a reload."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from annotation.queue import admin as queue_admin
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "statistics-panel.png"
BOX_SHOT = PROJECT_ROOT / "docs" / "screenshots" / "statistics-dashboard-box.png"
NAME = "Stats campaign"


@pytest.mark.browser
def test_set_alpha_and_family_then_the_dashboard_reads_them(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    from db.campaign.campaigns import list_campaigns
    from tests.db.reads.test_campaign import seed_campaign

    cid = seed_campaign(server.engine, NAME, n_items=40, labelled=30, overlap=0)
    page.goto(f"{server.url}/statistics?campaign={NAME}")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    alpha = page.get_by_role("spinbutton", name="Error rate α")
    alpha.wait_for(timeout=60_000)
    # a second tab (same signed-in session) already shows the dashboard at the old level
    dash = page.context.new_page()
    dash.goto(f"{server.url}/dashboard?campaign={NAME}")
    box = dash.locator(".st-key-statistics-box")
    expect(box).to_contain_text("Error rate α: 0.05", timeout=90_000)
    alpha.fill("0.01")
    alpha.press("Tab")  # a number input commits on blur
    page.get_by_text("false discovery rate (e-BH)").click()
    page.get_by_role("button", name="Save statistics settings").click()
    expect(page.get_by_text("Saved. In force")).to_be_visible(timeout=30_000)
    logged = {c.key: (c.new_value, c.labels_before)
              for c in queue_admin.setting_changes(server.engine, cid)}  # fmt: skip
    n = next(c.n_judgments for c in list_campaigns(server.engine) if c.id == cid)
    assert n > 0 and logged == {"alpha": (0.01, n), "error_rate": ("ebh", n)}
    # changed after labels existed: the hazard is shown
    expect(page.get_by_text("valid only if the change did not depend on the data")).to_be_visible()
    page.reload()
    field = page.get_by_role("spinbutton", name="Error rate α")
    expect(field).to_have_value("0.010", timeout=60_000)
    assert page.locator("[data-testid='stException']").count() == 0
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)

    # the open dashboard tab follows without a reload (its refresh every 10 s sees the
    # logged change and redraws the whole page, box included)
    expect(box).to_contain_text("Error rate α: 0.01", timeout=40_000)
    expect(box).to_contain_text("Family: ebh")
    expect(box).to_contain_text("Statistics page")
    # clicked as soon as there is one: during the redraw the last run's button, with the old
    # α, is hidden until the new run draws its own (views.common.hide_stale_downloads)
    button = dash.get_by_role("button", name="Pairwise verdicts (CSV)")
    button.wait_for(timeout=90_000)
    with dash.expect_download() as got:
        button.click()
    rows = list(csv.DictReader(io.StringIO(Path(got.value.path()).read_text())))
    assert rows and {(r["alpha"], r["error_rate"]) for r in rows} == {("0.01", "ebh")}
    assert {r["racing"] for r in rows} == {"off"}
    dash.wait_for_selector(IDLE)  # the redraw done: no leftover of the last run counted
    assert dash.get_by_role("slider", name=re.compile("α")).count() == 0  # no per-viewer α
    box.scroll_into_view_if_needed()
    dash.screenshot(path=str(screenshot_path(BOX_SHOT)))
