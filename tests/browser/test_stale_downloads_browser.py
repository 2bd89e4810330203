"""While the dashboard redraws, no download button of the last run can be clicked.

Streamlit leaves the last run's elements on the page (greyed, ``data-stale``) until the new
run draws its own at their place; at twenty systems the redraw after an α change takes
seconds, and a download button clicked in that time handed out the last run's report (the
old α) or nothing. A MutationObserver in the page checks every state the page passes
through while the app runs: the last run's buttons are there (the case under test happens)
and none of them is visible (views.common.hide_stale_downloads)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.browser.conftest import IDLE, Server

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
NAME = "stale"
SYSTEMS = 20  # 190 pairs: the redraw at a new α takes seconds, not one frame

# Records, over every DOM state while the app runs, the most download buttons of the last
# run (inside an element Streamlit marks stale) and the most of them a reader could click.
RECORDER = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  const seen = window.__staleDownloads = {stale: 0, clickable: 0, runningStates: 0};
  const check = () => {
    if (app.getAttribute('data-test-script-state') !== 'running') return;
    seen.runningStates++;
    const stale = [...document.querySelectorAll(
      "[data-stale='true'] [data-testid='stDownloadButton'] button")];
    const clickable = stale.filter(b => !b.disabled && b.checkVisibility(
      {visibilityProperty: true, opacityProperty: true}));
    seen.stale = Math.max(seen.stale, stale.length);
    seen.clickable = Math.max(seen.clickable, clickable.length);
  };
  new MutationObserver(check).observe(
    document.body, {subtree: true, childList: true, attributes: true});
}"""


@pytest.mark.browser
def test_no_download_of_the_last_run_during_the_redraw(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    from annotation.campaign.statistics_settings import set_statistics
    from tests.db.reads.test_campaign import seed_campaign

    deltas = tuple(0.8 - 1.6 * s / (SYSTEMS - 1) for s in range(SYSTEMS))
    cid = seed_campaign(server.engine, NAME, n_items=300, labelled=200, overlap=0, deltas=deltas)
    page.goto(server.url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD, timeout=90_000)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Campaigns", exact=True)).to_be_visible(timeout=90_000)
    page.goto(f"{server.url}/dashboard?campaign={NAME}", wait_until="domcontentloaded")
    button = page.get_by_role("button", name="Pairwise verdicts (CSV)")
    expect(button).to_be_visible(timeout=90_000)
    page.wait_for_selector(IDLE, timeout=90_000)
    page.evaluate(RECORDER)

    # the Statistics page's change, as the organiser makes it in another tab: the page's
    # refresh sees it and redraws the whole page at the new level
    set_statistics(server.engine, cid, alpha=0.01)
    expect(page.locator(".st-key-statistics-box")).to_contain_text(
        "Error rate α: 0.01", timeout=60_000
    )
    page.wait_for_selector(IDLE, timeout=90_000)
    seen = page.evaluate("window.__staleDownloads")
    assert seen["stale"] > 0, seen  # the redraw left the last run's buttons on the page
    assert seen["clickable"] == 0, seen

    with page.expect_download(timeout=30_000) as got:
        button.click()
    rows = list(csv.DictReader(io.StringIO(Path(got.value.path()).read_text())))
    assert len(rows) == SYSTEMS * (SYSTEMS - 1) // 2 and {r["alpha"] for r in rows} == {"0.01"}
    assert page.locator("[data-testid='stException']").count() == 0
