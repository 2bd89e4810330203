"""Alembic migrations: they build exactly the schema the models declare, on both databases,
and the app refuses a database that is not at the head."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, inspect

from db.migrate import (
    DatabaseNotMigrated,
    _config,
    current_revision,
    ensure_migrated,
    head_revision,
    upgrade,
)
from db.schema import admin_models, document_models
from db.schema.models import Base

# Every model module, so Base.metadata holds every table whichever tests ran before.
assert admin_models and document_models


def test_migrations_match_models(engine: Engine) -> None:
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == [], f"models and migrations disagree: {diff}"
    assert current_revision(engine) == head_revision()


def test_upgrade_is_idempotent_and_downgrade_reverses(engine: Engine) -> None:
    upgrade(engine)
    ensure_migrated(engine)
    cfg = _config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    with pytest.raises(DatabaseNotMigrated, match="make migrate"):
        ensure_migrated(engine)
    upgrade(engine)
    ensure_migrated(engine)
    assert {"campaigns", "annotations", "metric_scores"} <= set(inspect(engine).get_table_names())


def test_sqlite_pragmas(sqlite_engine: Engine) -> None:
    with sqlite_engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
