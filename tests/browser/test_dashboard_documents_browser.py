"""The dashboard in a real browser on the shipped WMT21 TED en-de file judged as documents in
order: it names documents as the unit and says there are too few (5 talks) for a verdict;
saves docs/screenshots/dashboard-documents-unit.png (with TANDEM_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

from tests.browser.conftest import Server, screenshot_path
from tests.conftest import PROJECT_ROOT, shared_file

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "dashboard-documents-unit.png"


def test_dashboard_says_too_few_documents_in_chromium(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    from annotation.imports.importer import import_campaign
    from db.reads.campaign import campaign_id
    from tests.estimators.test_clustered_route import set_document_order

    mapping = {"doc_id": "doc", "human_label": "human_label_binary", "annotator": "rater"}
    import_campaign(server.engine, shared_file("wmt21-ted-mqm/wmt21_ted_ende.csv"), "wmt",
                    column_map=mapping)  # fmt: skip
    set_document_order(server.engine, campaign_id(server.engine, "wmt"), True)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(server.url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    dashboard = page.get_by_role("link", name="Dashboard")
    expect(dashboard).to_be_visible(timeout=90_000)
    dashboard.click()
    message = page.get_by_text("Too few documents for a verdict", exact=False).first
    expect(message).to_be_visible(timeout=120_000)
    expect(page.get_by_text("only 5 documents", exact=False).first).to_be_visible()
    message.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path(SCREENSHOT)))
