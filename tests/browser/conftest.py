"""Real-browser fixtures: a `streamlit run app.py` server on a free localhost port over a
fresh migrated SQLite file, and headless Debian chromium driven by Playwright.

Reusable by any browser test (``server`` gives the URL and an engine on the same database;
``page`` a fresh browser tab). Browser tests skip with the reason when /usr/bin/chromium is
missing, unless ``TANDEM_REQUIRE_BROWSER=1`` (CI), where they fail instead. Never runs
``playwright install``: the browser is the system's chromium.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Engine

from db.engine import make_engine
from db.migrate import upgrade
from tests.browser.app_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PROJECT_ROOT,
    app_env,
    streamlit_app,
)

__all__ = ["IDLE", "PROJECT_ROOT", "Server", "screenshot_path", "seed_edit_campaign"]

REQUIRE_BROWSER = os.environ.get("TANDEM_REQUIRE_BROWSER") == "1"
# The app has finished its run: no stale element of the last screen is left on the page.
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    message = f"needs Debian chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)"
    if REQUIRE_BROWSER:
        pytest.fail(f"TANDEM_REQUIRE_BROWSER=1 but {message}")
    pytest.skip(message)


@dataclass(frozen=True)
class Server:
    url: str
    engine: Engine
    log: Path


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """`streamlit run app.py` on localhost over a fresh migrated SQLite file."""
    _require_chromium()
    db_url = f"sqlite:///{tmp_path / 'tandem.db'}"
    engine = make_engine(db_url)
    upgrade(engine)
    env = app_env(db_url, "browser-test-password")
    log = tmp_path / "streamlit.log"
    try:
        with streamlit_app(env, log, fail=pytest.fail) as url:
            yield Server(url, engine, log)
    finally:
        engine.dispose()


@pytest.fixture
def page(server: Server):  # type: ignore[no-untyped-def]
    """A fresh tab of headless Debian chromium (Playwright, system browser)."""
    from playwright.sync_api import expect, sync_playwright

    # expect() waits 5 s by default, the page's own waits 30 s: on a loaded CI machine a page
    # run takes longer than 5 s, and an assertion on what it draws failed where the page was right.
    expect.set_options(timeout=30_000)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        tab = context.new_page()
        tab.set_default_timeout(30_000)
        try:
            yield tab
        finally:
            context.close()
            browser.close()


def screenshot_path(tracked: Path) -> Path:
    """Where a test saves its screenshot: the tracked file under docs/ only when asked
    (TANDEM_UPDATE_SCREENSHOTS=1), so an ordinary test run leaves the work tree clean."""
    if os.environ.get("TANDEM_UPDATE_SCREENSHOTS") == "1":
        return tracked
    out = Path(os.environ.get("TMPDIR", "/tmp")) / "tandem-screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out / tracked.name


def seed_edit_campaign(
    engine: Engine, mode: str, *, name: str, system: str, annotator: str, n_items: int
) -> str:
    """A one-system campaign in ``mode`` whose outputs all need an edit ("… ist fast gut"),
    with its queue built; returns the annotator's invite token."""
    from accounts.invites import create_annotator
    from annotation.queue import build as queue_build
    from db.engine import session_scope
    from db.schema.models import Campaign, Item, Output, System

    with session_scope(engine) as s:
        camp = Campaign(name=name, mode=mode, show_metrics=False)
        s.add(camp)
        s.flush()
        sy = System(campaign_id=camp.id, name=system)
        s.add(sy)
        for j in range(n_items):
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source {j}.")
            s.add(item)
            s.flush()
            s.add(Output(item_id=item.id, system_id=sy.id, text=f"Die Ausgabe {j} ist fast gut"))
        cid = camp.id
    queue_build.build_queue(engine, cid, seed=1)
    return create_annotator(engine, cid, annotator).token
