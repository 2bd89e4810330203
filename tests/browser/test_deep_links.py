"""Deep links in a real browser: every path goes through app.py's gate.

Each case is the first visit to a freshly started server, the run Streamlit used to hand to
its "views/ directory" mode (every script listed in the sidebar and the URL's script run
without app.py). Without a session an admin path shows the sign-in; an invite link opens
the annotate page on any path; an invalid token is refused; the sidebar only ever lists
routed pages.
"""

from __future__ import annotations

import pytest

from accounts.invites import create_annotator
from annotation.campaign.public_title import DEFAULT
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
PATHS = ("dashboard", "annotators", "import_campaign", "campaigns", "calibration", "planner",
         "review", "annotate", "accounts")  # fmt: skip
ROUTED = {
    "Campaigns",
    "Import",
    "Annotators",
    "Statistics",
    "Dashboard",
    "Calibration",
    "Planner",
    "Review",
    "Annotate",
    "Accounts",
}  # fmt: skip (the owner's pages)
NEVER_LISTED = {"app", "common", "login", "views"}
ADMIN_ONLY = ("This page is for the campaign's administrators.", "Invite an annotator",
              "Import a campaign", "sys-alpha")  # fmt: skip
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "deep_link_invite.png"


def _seed(server: Server) -> str:
    with session_scope(server.engine) as s:
        camp = Campaign(name="Deep link campaign", source_lang="en", target_lang="de")
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in ("sys-alpha", "sys-beta")]
        s.add_all(systems)
        for j in range(3):
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source {j}.")
            s.add(item)
            s.flush()
            s.add_all(Output(item_id=item.id, system_id=sy.id, text=f"Satz {j}") for sy in systems)
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=1)
    return create_annotator(server.engine, cid, "Ana").token


def _sidebar_entries(page) -> set[str]:  # type: ignore[no-untyped-def]
    links = page.locator("[data-testid='stSidebarNav'] a")
    return {t.strip().splitlines()[-1] for t in links.all_inner_texts()}  # drop the icon name


def _assert_no_admin_content(page, path: str) -> None:  # type: ignore[no-untyped-def]
    body = page.locator("body").inner_text()
    for text in ADMIN_ONLY:
        assert text not in body, (path, text)
    assert page.locator("[data-testid='stDataFrame']").count() == 0, path
    assert page.locator("[data-testid='stException']").count() == 0, path


@pytest.mark.browser
@pytest.mark.parametrize("path", PATHS)
def test_deep_link_without_session_shows_sign_in(server: Server, page, path: str) -> None:  # type: ignore[no-untyped-def]
    _seed(server)
    page.goto(f"{server.url}/{path}")
    page.get_by_label("Admin password").wait_for()
    _assert_no_admin_content(page, path)
    assert not _sidebar_entries(page) & NEVER_LISTED, path
    # Signing in on the deep link: the sidebar lists the routed pages and nothing else.
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Dashboard").wait_for()
    entries = _sidebar_entries(page)
    assert entries == ROUTED, (path, entries)


def _fresh_tabs(page):  # type: ignore[no-untyped-def]
    """One new browser context (a new Streamlit session) per path, in the page's browser."""
    browser = page.context.browser
    for path in PATHS:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        tab = context.new_page()
        tab.set_default_timeout(30_000)
        try:
            yield path, tab
        finally:
            context.close()


# The two tests below visit every path on one server, each in a new session: the first
# visit to a fresh server (where Streamlit's own views/ mode used to take over) is covered
# path by path by the sign-in test above; these check what an invite link and a bad token
# get on each path.
@pytest.mark.browser
def test_invite_link_opens_annotate_on_any_path(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = _seed(server)
    for path, tab in _fresh_tabs(page):
        tab.goto(f"{server.url}/{path}?token={token}")
        tab.locator(".tandem-output").first.wait_for()
        # the public title, never the campaign's internal name (issue 31)
        assert tab.locator("h1").first.inner_text().strip() == DEFAULT, path
        _assert_no_admin_content(tab, path)
        assert _sidebar_entries(tab) == set(), path  # an annotator sees no navigation at all
        if path == "dashboard":
            tab.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)


@pytest.mark.browser
def test_invalid_token_is_refused_on_any_path(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    _seed(server)
    for path, tab in _fresh_tabs(page):
        tab.goto(f"{server.url}/{path}?token=not-a-real-token")
        tab.get_by_text("This invite link is not valid").wait_for()
        _assert_no_admin_content(tab, path)
        assert tab.locator(".tandem-output").count() == 0, path
        assert _sidebar_entries(tab) == set(), path
