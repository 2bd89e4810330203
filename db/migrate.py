"""Apply Alembic migrations, and refuse to work on a database that is not at the head.

SQLite cannot alter a table, so Alembic's batch mode rebuilds it (copy, DROP, rename). With
``PRAGMA foreign_keys=ON`` (db/engine.py) that DROP deletes through every ``ON DELETE
CASCADE`` pointing at the table: rebuilding ``campaigns`` emptied the whole database. So
migrations run the way SQLite's ALTER TABLE documentation prescribes: foreign keys off
(which SQLite only allows outside a transaction), one transaction, ``PRAGMA
foreign_key_check`` before the commit (a violation rolls everything back), foreign keys on.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine

from db.engine import PROJECT_ROOT, get_engine


class DatabaseNotMigrated(RuntimeError):
    """The database schema is older (or newer) than this version of Tandem expects."""


class MigrationFailed(RuntimeError):
    """A migration did not complete; its transaction was rolled back."""


def _config() -> Config:
    return Config(str(PROJECT_ROOT / "alembic.ini"))


@functools.cache
def head_revision() -> str:
    """The newest revision in db/migrations/versions. Read once per process: the files are
    this code's own (they change only with a new version, which restarts the server), and
    parsing them cost every page run 20 ms (app.py checks the schema on each run)."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    assert head is not None, "no Alembic revisions found in db/migrations/versions"
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine | None = None) -> None:
    """Bring the database to the newest schema (idempotent)."""
    migrate_to(engine or get_engine(), "head")


def migrate_to(engine: Engine, revision: str = "head") -> tuple[str | None, str | None]:
    """Upgrade or downgrade the database to ``revision`` ("head", "base" or an id such as
    "0002") in one transaction; (revision before, revision after).

    Raises :class:`MigrationFailed` (the database is left as it was) when the revision is
    unknown, a migration fails, or the result would violate a foreign key.
    """
    cfg = _config()
    before = current_revision(engine)
    order = _revisions_oldest_first()
    target = {"head": order[-1], "base": None}.get(revision, revision)
    if target is not None and target not in order:
        raise MigrationFailed(
            f"Unknown revision {revision!r}; known: base, {', '.join(order)}, head."
        )
    if before is not None and before not in order:
        raise MigrationFailed(
            f"The database is at revision {before!r}, which this version of Tandem does not "
            "know (made by a newer version?); nothing was changed."
        )
    rank = {None: -1, **{rev: i for i, rev in enumerate(order)}}
    step = command.downgrade if rank[target] < rank[before] else command.upgrade
    where = engine.url.render_as_string(hide_password=True)
    try:
        with engine.connect() as conn, foreign_keys_off(conn), conn.begin():
            cfg.attributes["connection"] = conn
            step(cfg, target or "base")
            check_foreign_keys(conn)
    except Exception as exc:
        raise MigrationFailed(
            f"Migrating {where} from revision {before or 'base'} to {target or 'base'} "
            f"failed and was rolled back (the database is unchanged): {exc}"
        ) from exc
    return before, current_revision(engine)


def _revisions_oldest_first() -> list[str]:
    script = ScriptDirectory.from_config(_config())
    return [s.revision for s in reversed(list(script.walk_revisions()))]


@contextmanager
def foreign_keys_off(conn: Connection) -> Iterator[None]:
    """SQLite: foreign keys off for the duration (set on the DB-API connection, before
    SQLAlchemy begins a transaction, since SQLite ignores the pragma inside one)."""
    if conn.dialect.name != "sqlite":
        yield
        return
    assert not conn.in_transaction(), "PRAGMA foreign_keys is a no-op inside a transaction"
    raw = conn.connection.driver_connection
    assert raw is not None
    raw.execute("PRAGMA foreign_keys=OFF")
    if raw.execute("PRAGMA foreign_keys").fetchone()[0] != 0:
        raise MigrationFailed("could not turn SQLite foreign keys off for the migration")
    try:
        yield
    finally:
        raw.execute("PRAGMA foreign_keys=ON")
        if raw.execute("PRAGMA foreign_keys").fetchone()[0] != 1:
            conn.invalidate()  # never hand a connection without foreign keys back to the pool


def check_foreign_keys(conn: Connection) -> None:
    """SQLite: raise if any row references a missing row (``PRAGMA foreign_key_check``).
    PostgreSQL enforces foreign keys during DDL itself."""
    if conn.dialect.name != "sqlite":
        return
    bad = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
    if bad:
        shown = "; ".join(
            f"{table} rowid {rowid} → {parent}" for table, rowid, parent, _fk in bad[:5]
        )
        raise MigrationFailed(
            f"{len(bad)} row(s) reference missing rows (PRAGMA foreign_key_check): {shown}"
            + (" …" if len(bad) > 5 else "")
        )


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
