"""WMT's ranking beside Tandem's clusters on the dashboard, in a real browser, on the WMT21
TED en-de campaign (expert MQM scores, −MQM as the score): the panel is labelled fixed-n with
no multiplicity correction, switches between WMT25 and WMT24, and lists the pairs where it
and Tandem's clusters disagree. Saves docs/screenshots/wmt-ranking.png (with
TANDEM_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import IDLE, Server, screenshot_path
from tests.conftest import PROJECT_ROOT, shared_file

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PASSWORD = "browser-test-password"
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "wmt-ranking.png"


@pytest.fixture
def ted_server(server: Server) -> str:
    data = shared_file("wmt21-ted-mqm/wmt21_ted_ende.csv")
    from annotation.imports.importer import import_campaign

    import_campaign(server.engine, data, "ted", column_map={"annotator": "rater"},
                    settings={"target_lang": "de"})  # fmt: skip
    return server.url


def test_wmt_ranking_panel(ted_server: str, page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(ted_server, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Dashboard").click()
    heading = "WMT's ranking beside Tandem's (fixed-n, no multiplicity correction)"
    expect(page.get_by_role("heading", name=heading)).to_be_visible(timeout=120_000)
    expect(page.get_by_text("Pairs where the two disagree:")).to_be_visible()
    expect(page.get_by_text("13 systems in").first).to_be_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    page.get_by_text("WMT24: per-domain Wilcoxon").click()
    expect(page.get_by_text("1 domain(s)")).to_be_visible(timeout=60_000)
    page.get_by_text("WMT25: neighbour walk").click()
    expect(page.get_by_text("each WMT test at 0.025")).to_be_visible(timeout=60_000)
    # the last run's panel is on the page beside the new one until the run ends
    page.wait_for_selector(IDLE, timeout=60_000)
    page.get_by_text("Pairs where the two disagree:").scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    shot = screenshot_path(SCREENSHOT)
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert page.locator("[data-testid='stException']").count() == 0
