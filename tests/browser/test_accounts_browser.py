"""Accounts and roles in a real browser: a viewer signs in and can change nothing (every
write control on Campaigns, Import, Annotators and Calibration is gone or disabled, and each
page says read-only; it sees only its granted campaign); the owner signs in while a stranger
in another browser keeps guessing the owner's password."""

from __future__ import annotations

import pytest

from accounts.grants import grant_campaign
from accounts.registry import create_account
from tests.browser.conftest import (
    PROJECT_ROOT,
    Server,
    screenshot_path,
    seed_edit_campaign,
)

OWNER_PASSWORD = "browser-test-password"  # TANDEM_ADMIN_PASSWORD of the server fixture
VIEWER_PASSWORD = "viewer's long password"
SIGN_IN_SHOT = PROJECT_ROOT / "docs" / "screenshots" / "accounts_sign_in.png"
VIEWER_SHOT = PROJECT_ROOT / "docs" / "screenshots" / "accounts_viewer_annotators.png"
OWNER_SHOT = PROJECT_ROOT / "docs" / "screenshots" / "accounts_page.png"


def _sign_in(page, url: str, name: str, password: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(url)
    page.get_by_label("Account").fill(name)
    page.get_by_label("Admin password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def _open(page, url: str, heading: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(url)
    page.get_by_role("heading", name=heading).first.wait_for()
    page.get_by_text("Read-only").first.wait_for()
    assert page.locator("[data-testid='stException']").count() == 0, url


def _disabled(page, label: str) -> bool:  # type: ignore[no-untyped-def]
    button = page.get_by_role("button", name=label, exact=True)
    button.first.wait_for()
    return all(b.is_disabled() for b in button.all())


@pytest.mark.browser
def test_a_viewer_can_change_nothing(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    seed_edit_campaign(server.engine, "binary", name="Granted", system="S", annotator="Ana",
                       n_items=3)  # fmt: skip
    seed_edit_campaign(server.engine, "binary", name="Hidden", system="S", annotator="Bo",
                       n_items=3)  # fmt: skip
    create_account(server.engine, "vic", "viewer", VIEWER_PASSWORD)
    grant_campaign(server.engine, "vic", "Granted")
    page.goto(server.url)
    page.get_by_label("Admin password").wait_for()
    page.screenshot(path=str(screenshot_path(SIGN_IN_SHOT)), full_page=True)
    _sign_in(page, server.url, "vic", VIEWER_PASSWORD)
    page.get_by_text("Signed in as").wait_for()
    page.wait_for_function("document.cookie.includes('tandem_admin=')")  # reloads keep it
    nav = page.locator("[data-testid='stSidebarNav']").inner_text()
    assert "Annotate" not in nav and "Accounts" not in nav and "Dashboard" in nav

    _open(page, server.url, "Campaigns")
    page.get_by_label("Campaign", exact=True).click()  # it lists the granted campaign only
    page.get_by_role("option").first.wait_for()
    options = page.get_by_role("option").all_inner_texts()
    assert [o.strip() for o in options] == ["Granted"], options
    page.keyboard.press("Escape")
    assert _disabled(page, "Start scoring")
    page.get_by_role("button", name="Download CSV").wait_for()  # exports stay

    _open(page, f"{server.url}/import_campaign", "Import a campaign or its metric scores")
    assert page.locator("[data-testid='stFileUploader']").count() == 0
    assert page.get_by_role("button", name="Import").count() == 0

    _open(page, f"{server.url}/annotators", "Annotators")
    for label in ("Save settings", "Save sampling", "Build / extend queue",
                  "Save guidelines", "Create invite link", "Re-issue link", "Revoke"):  # fmt: skip
        assert _disabled(page, label), label
    page.screenshot(path=str(screenshot_path(VIEWER_SHOT)), full_page=True)

    _open(page, f"{server.url}/calibration", "Calibration")
    for label in ("Import calibration set", "Save this threshold for the campaign"):
        assert page.get_by_role("button", name=label).count() == 0 or all(
            b.is_disabled() for b in page.get_by_role("button", name=label).all()
        )
    # Nothing the viewer could reach changed anything: still one annotator per campaign.
    from annotation.queue.admin import annotator_overview
    from db.reads.campaign import campaign_id

    assert [
        w.name for w in annotator_overview(server.engine, campaign_id(server.engine, "Granted"))
    ] == ["Ana"]


@pytest.mark.browser
def test_owner_signs_in_while_a_stranger_guesses(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    other = page.context.browser.new_context()  # another browser profile: its own session
    try:
        stranger = other.new_page()
        stranger.set_default_timeout(30_000)
        stranger.goto(server.url)
        messages = []
        for i in range(8):  # past the free guesses: the stranger's own client gets locked
            stranger.get_by_label("Account").fill("owner")
            stranger.get_by_label("Admin password").fill(f"stranger guess {i}")
            stranger.get_by_role("button", name="Sign in").click()
            stranger.wait_for_timeout(2500)  # the page run (one argon2 check) has ended
            error = stranger.locator("[data-testid='stAlertContentError']")
            messages.append(error.first.inner_text())
        assert messages[0] == "Wrong account name or password.", messages
        assert "locked until" in messages[-1], messages

        _sign_in(page, server.url, "owner", OWNER_PASSWORD)
        page.get_by_role("button", name="Sign out").wait_for()
        page.get_by_role("link", name="Accounts").wait_for()

        # The stranger keeps guessing; the owner keeps working.
        stranger.get_by_label("Admin password").fill(OWNER_PASSWORD)  # even the right one
        stranger.get_by_role("button", name="Sign in").click()
        stranger.get_by_text("locked until").first.wait_for()
        page.get_by_role("link", name="Accounts").click()
        page.get_by_role("heading", name="Accounts").wait_for()
        page.get_by_role("button", name="Create account").wait_for()
        page.screenshot(path=str(screenshot_path(OWNER_SHOT)), full_page=True)
    finally:
        other.close()
