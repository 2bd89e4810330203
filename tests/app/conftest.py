"""AppTest fixtures: a migrated SQLite database named by DATABASE_URL for the app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from streamlit.testing.v1 import AppTest

from accounts.sessions import set_admin_password

APP = str(Path(__file__).resolve().parents[2] / "app.py")
ADMIN_PASSWORD = "correct horse battery"


@pytest.fixture
def app_engine(sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    monkeypatch.delenv("TANDEM_ADMIN_PASSWORD", raising=False)
    set_admin_password(sqlite_engine, ADMIN_PASSWORD)
    # AppTest runs every test's pages under one session id, so a long write's kept report
    # (views.admin.long_work, kept per browser session) would leak into the next test's page.
    from views.admin import long_work

    long_work._NOTES.clear()
    yield sqlite_engine


def admin_page(page: str, campaign: str | None = None) -> AppTest:
    """An admin session switched to ``page`` (with ``campaign`` chosen), run without error."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["role"] = "admin"
    if campaign:
        at.session_state["current_campaign"] = campaign
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at
