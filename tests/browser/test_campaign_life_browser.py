"""A campaign's life on the Campaigns page in chromium: archive (hidden, its invite link
says so), restore, rename (a taken name is refused) and delete (exports offered, the name
typed), with the database checked after each step: 0 rows of the campaign left, the other
campaign untouched. Saves docs/screenshots/campaign-manage.png when asked."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from db.engine import session_scope
from db.schema.models import Campaign
from tests.browser.conftest import Server, screenshot_path
from tests.browser.test_downloads_browser import sign_in
from tests.conftest import PROJECT_ROOT
from tests.support.life_data import owned_rows, populate, remaining

SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "campaign-manage.png"
INVITE_SHOT = PROJECT_ROOT / "docs" / "screenshots" / "campaign-archived-invite.png"


def _campaigns(server: Server) -> dict[str, bool]:
    """name → archived, as stored."""
    with session_scope(server.engine) as s:
        return {n: a is not None for n, a in s.execute(select(Campaign.name, Campaign.archived_at))}


def _choose(page, label: str, name: str) -> None:  # type: ignore[no-untyped-def]
    page.get_by_label(label, exact=True).click()
    page.get_by_role("option", name=name, exact=True).click()
    _idle(page)


def _manage(page) -> None:  # type: ignore[no-untyped-def]
    """Switch the Manage section on unless it is on (it starts off for each campaign)."""
    from playwright.sync_api import expect

    _idle(page)
    if not page.get_by_label("New name").is_visible():
        page.get_by_text("Manage: rename, archive or delete this campaign").click()
        _idle(page)
    expect(page.get_by_label("New name")).to_be_visible()


def _type(page, box, text: str) -> None:  # type: ignore[no-untyped-def]
    """Fill a text input and commit it (Enter), then wait for the rerun to end: a button
    clicked while the input still holds an uncommitted edit can lose the click."""

    box.fill(text)
    box.press("Enter")
    _idle(page)


def _idle(page) -> None:  # type: ignore[no-untyped-def]
    """Wait for the page's run to end (the buttons are keyed per campaign: a click on a
    button left over from the previous campaign's drawing does nothing)."""
    from playwright.sync_api import expect

    page.wait_for_timeout(400)
    expect(page.locator("[data-testid='stStatusWidget']")).to_have_count(0)
    expect(page.locator("[data-stale='true']")).to_have_count(0)


def test_archive_restore_rename_delete_in_the_browser(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    from accounts.invites import create_annotator

    cid = populate(server.engine, "alpha")
    beta = populate(server.engine, "beta")
    token = create_annotator(server.engine, cid, "late reader").token
    alpha_rows, beta_rows = owned_rows(server.engine, cid), owned_rows(server.engine, beta)
    sign_in(page, server.url)
    _choose(page, "Campaign", "alpha")
    _manage(page)

    # archive: hidden from the picker, listed as archived, its invite link says so
    page.get_by_role("button", name="Archive", exact=True).click()
    expect(page.get_by_text("Archived alpha: find it under")).to_be_visible()
    _idle(page)
    assert _campaigns(server) == {"alpha": True, "beta": False}
    expect(page.get_by_role("heading", name="Archived campaigns")).to_be_visible()
    page.get_by_label("Campaign", exact=True).click()
    expect(page.get_by_role("option", name="alpha", exact=True)).to_have_count(0)
    page.keyboard.press("Escape")
    browser_tab = page.context.new_page()
    browser_tab.goto(f"{server.url}/?token={token}", wait_until="domcontentloaded")
    expect(browser_tab.get_by_text("This campaign is closed")).to_be_visible(timeout=60_000)
    expect(browser_tab.get_by_role("button", name="Adequate")).to_have_count(0)
    browser_tab.screenshot(path=str(screenshot_path(INVITE_SHOT)))
    browser_tab.close()

    # restore
    page.get_by_role("button", name="Restore", exact=True).click()
    expect(page.get_by_text("Restored alpha.")).to_be_visible()
    _idle(page)
    _manage(page)
    assert _campaigns(server) == {"alpha": False, "beta": False}
    assert owned_rows(server.engine, cid) == alpha_rows  # archive + restore wrote nothing

    # rename: a taken name is refused with a clear error, then a free one is taken
    new_name = page.get_by_label("New name")
    expect(new_name).to_have_count(1)  # the run that drew it has ended (no stale form left)
    expect(new_name).to_have_value("alpha")
    _type(page, new_name, "beta")
    page.get_by_role("button", name="Rename", exact=True).click()
    expect(page.get_by_text("A campaign named 'beta' already exists")).to_be_visible()
    assert set(_campaigns(server)) == {"alpha", "beta"}
    _type(page, new_name, "alpha 2026")
    page.get_by_role("button", name="Rename", exact=True).click()
    expect(page.get_by_text("Renamed alpha to alpha 2026.")).to_be_visible()
    _idle(page)
    _manage(page)
    assert set(_campaigns(server)) == {"alpha 2026", "beta"}

    # delete: the exports are offered, the button waits for the name
    expect(page.get_by_role("button", name="Campaign file (CSV)").first).to_be_visible()
    page.get_by_role("button", name="Results (CSV)").first.scroll_into_view_if_needed()
    delete = page.get_by_role("button", name="Delete campaign").first
    expect(delete).to_be_disabled()
    confirm = page.get_by_label("Type the campaign's name to confirm").first
    _type(page, confirm, "alpha")
    expect(delete).to_be_disabled()
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)
    _type(page, confirm, "alpha 2026")
    expect(delete).to_be_enabled()
    with page.expect_download() as kept:
        page.get_by_role("button", name="Campaign file (CSV)").first.click()
    assert b"src alpha 0" in Path(kept.value.path()).read_bytes()
    delete.click()
    expect(page.get_by_text("Deleted alpha 2026:")).to_be_visible()
    assert _campaigns(server) == {"beta": False}
    assert sum(remaining(server.engine, alpha_rows).values()) == 0
    assert owned_rows(server.engine, beta) == beta_rows
    expect(page.locator("[data-testid='stException']")).to_have_count(0)
