"""Engine and session factory. SQLite gets WAL, foreign keys and a busy timeout.

``DATABASE_URL`` selects the database (default: the SQLite file ``data/tandem.db`` in the
project); ``postgresql+psycopg://…`` URLs select PostgreSQL.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SQLITE_PATH = PROJECT_ROOT / "data" / "tandem.db"
SQLITE_BUSY_TIMEOUT_MS = 30_000


def database_url() -> str:
    return os.environ.get("DATABASE_URL") or f"sqlite:///{DEFAULT_SQLITE_PATH}"


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        # pysqlite's own transaction handling would defer BEGIN; we issue BEGIN IMMEDIATE
        # ourselves for writers (see `begin`), so let SQLAlchemy manage transactions.
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn) -> None:  # type: ignore[no-untyped-def]
        # IMMEDIATE takes the write lock up front: concurrent writers wait (busy timeout)
        # instead of failing with "database is locked" when upgrading a read lock.
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(url: str | None = None, **kwargs) -> Engine:  # type: ignore[no-untyped-def]
    """A new engine for ``url`` (default :func:`database_url`)."""
    url = url or database_url()
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30}, **kwargs
        )
        _configure_sqlite(engine)
        return engine
    return create_engine(url, pool_pre_ping=True, **kwargs)


@lru_cache(maxsize=8)
def get_engine(url: str | None = None) -> Engine:
    """The process-wide engine for ``url`` (cached; one pool per URL)."""
    return make_engine(url or database_url())


def session_factory(engine: Engine | None = None) -> sessionmaker[Session]:
    return sessionmaker(bind=engine or get_engine(), expire_on_commit=False)


@contextmanager
def session_scope(engine: Engine | None = None) -> Iterator[Session]:
    """A session whose transaction commits on success and rolls back on any error."""
    session = session_factory(engine)()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
