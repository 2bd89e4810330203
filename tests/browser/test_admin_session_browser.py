"""Issue 17.6 in a real browser: a signed-in admin stays signed in across a reload, a new
tab and a bookmark (the signed cookie), a deep link returns to its page after sign-in, and
"Sign out" ends the session in every tab; a forged cookie is refused."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path

PASSWORD = "browser-test-password"
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "admin_session_reload.png"


def _seed(server: Server) -> None:
    with session_scope(server.engine) as s:
        camp = Campaign(name="Session campaign")
        s.add(camp)
        s.flush()
        sy = System(campaign_id=camp.id, name="sys")
        s.add(sy)
        s.flush()
        item = Item(campaign_id=camp.id, external_id="1", source="Hello.")
        s.add(item)
        s.flush()
        s.add(Output(item_id=item.id, system_id=sy.id, text="Hallo."))


def _signed_in_on(page, heading: str) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("heading", name=heading).first.wait_for()
    page.get_by_role("button", name="Sign out").wait_for()
    page.get_by_label("Admin password").wait_for(state="detached")


@pytest.mark.browser
def test_admin_stays_signed_in_across_reload_tab_and_bookmark(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    _seed(server)
    # A bookmark of a deep link: sign in there, and land on the page it pointed to.
    page.goto(f"{server.url}/annotators")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    _signed_in_on(page, "Annotators")
    # the path: the campaign picker adds its choice as ?campaign= (issue 34.1)
    assert urlparse(page.url).path.rstrip("/").endswith("/annotators")
    page.wait_for_function("document.cookie.includes('tandem_admin=')")

    page.reload()
    _signed_in_on(page, "Annotators")
    page.get_by_role("button", name="Create invite link").wait_for()
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)

    second = page.context.new_page()  # a new tab of the same browser
    second.goto(f"{server.url}/dashboard")
    _signed_in_on(second, "Dashboard")

    # Sign out in the second tab: the first tab's next load asks for the password again.
    second.get_by_role("button", name="Sign out").click()
    second.get_by_label("Admin password").wait_for()
    page.reload()
    page.get_by_label("Admin password").wait_for()
    assert page.get_by_role("button", name="Sign out").count() == 0


@pytest.mark.browser
def test_forged_or_stale_cookie_is_refused(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    _seed(server)
    page.goto(f"{server.url}/campaigns")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    _signed_in_on(page, "Campaigns")
    page.wait_for_function("document.cookie.includes('tandem_admin=')")
    [cookie] = [c for c in page.context.cookies() if c["name"] == "tandem_admin"]
    forged = cookie["value"][:-2] + ("AA" if not cookie["value"].endswith("AA") else "BB")
    page.context.clear_cookies()
    page.context.add_cookies([{**cookie, "value": forged}])
    page.reload()
    page.get_by_label("Admin password").wait_for()
    assert page.get_by_role("button", name="Sign out").count() == 0
