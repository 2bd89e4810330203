"""The dashboard names the live design a campaign gets by default and what it promises, in a
real browser: an ESA campaign without a design in its plan reads its verdicts with the
graded scores' default (asympcs_mix, asymptotic), and the page says so."""

from __future__ import annotations

import pytest

from tests.annotation.judging.test_span_judgments_esa import _esa_campaign
from tests.browser.conftest import Server

pytestmark = pytest.mark.browser
PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures


def test_an_esa_campaign_shows_the_score_design_and_its_guarantee(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    _esa_campaign(server.engine)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(server.url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").wait_for(timeout=120_000)  # a busy machine
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    dashboard = page.get_by_role("link", name="Dashboard")
    expect(dashboard).to_be_visible(timeout=90_000)
    dashboard.click()
    heading = page.get_by_role("heading", name="What the live verdicts report", exact=True)
    expect(heading).to_be_visible(timeout=90_000)
    expect(page.get_by_text("asympcs_mix", exact=True)).to_be_visible(timeout=90_000)
    caption = page.get_by_text("(the default for this judgment kind)", exact=False)
    expect(caption).to_be_visible()
    expect(page.get_by_text("like the t-test (asymptotic)", exact=False)).to_be_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    heading.scroll_into_view_if_needed()
    page.screenshot(path="/tmp/scores-dashboard-design.png")
