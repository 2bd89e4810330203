"""Apply Alembic migrations, and refuse to work on a database that is not at the head."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from db.engine import PROJECT_ROOT, get_engine


class DatabaseNotMigrated(RuntimeError):
    """The database schema is older (or newer) than this version of Tandem expects."""


def _config() -> Config:
    return Config(str(PROJECT_ROOT / "alembic.ini"))


def head_revision() -> str:
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None, "no Alembic revisions found in db/migrations/versions"
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine | None = None) -> None:
    """Bring the database to the newest schema (idempotent)."""
    engine = engine or get_engine()
    cfg = _config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def ensure_migrated(engine: Engine | None = None) -> None:
    """Raise :class:`DatabaseNotMigrated` with the command to run unless at the head."""
    engine = engine or get_engine()
    current, head = current_revision(engine), head_revision()
    if current != head:
        state = "has no Tandem tables" if current is None else f"is at revision {current}"
        raise DatabaseNotMigrated(
            f"The database {engine.url.render_as_string(hide_password=True)} {state}; "
            f"this version of Tandem needs revision {head}. "
            "Run `make migrate` (or `.venv/bin/python cli.py migrate`) and start again."
        )
