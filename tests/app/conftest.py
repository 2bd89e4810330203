"""AppTest fixtures: a migrated SQLite database named by DATABASE_URL for the app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from annotation.auth import set_admin_password

APP = str(Path(__file__).resolve().parents[2] / "app.py")
ADMIN_PASSWORD = "correct horse battery"


@pytest.fixture
def app_engine(sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    monkeypatch.delenv("TANDEM_ADMIN_PASSWORD", raising=False)
    set_admin_password(sqlite_engine, ADMIN_PASSWORD)
    yield sqlite_engine
