"""Engine and session factory. SQLite gets WAL, foreign keys, a busy timeout and a fair
in-process writer queue.

``DATABASE_URL`` selects the database (default: the SQLite file ``data/tandem.db`` in the
project); ``postgresql+psycopg://…`` URLs select PostgreSQL.

SQLite transactions (:func:`_configure_sqlite`): every transaction starts with
``BEGIN IMMEDIATE`` (the write lock up front, so no transaction fails upgrading a read lock),
and the threads of one process (one per browser session of the Streamlit server) first queue
for that database file on a first-come-first-served :class:`FairLock`, held from ``BEGIN`` to
``COMMIT``/``ROLLBACK``. Without it every waiting thread polls SQLite's busy handler, which
sleeps in growing steps (up to 100 ms) and serves nobody in order: with 20 annotators saving,
a few saves waited 1–6 s while most took 5 ms. Other processes (the CLI, a second server)
still meet SQLite's busy timeout.
"""

from __future__ import annotations

import functools
import os
import random
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SQLITE_PATH = PROJECT_ROOT / "data" / "tandem.db"
SQLITE_BUSY_TIMEOUT_MS = 30_000
#: Annotators labelling at once (each about a click a second) up to which SQLite was
#: measured to keep saves under 0.3 s (p99) on the project's 2-core machine
#: (bench/save_latency_bench.py --sweep: 40 ms at 40); with more, the Annotators page
#: suggests PostgreSQL.
SQLITE_ANNOTATOR_LIMIT = 40
#: Execution option of :func:`read_scope`'s transactions.
READ_ONLY = "tandem_read_only"


def database_url() -> str:
    return os.environ.get("DATABASE_URL") or f"sqlite:///{DEFAULT_SQLITE_PATH}"


class FairLock:
    """A mutual-exclusion lock served in arrival order, held by a DBAPI connection (not a
    thread: a transaction may end in another thread, e.g. a pool's reset of a collected
    connection). ``release`` by a connection that does not hold it does nothing."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._waiters: deque[list] = deque()  # [holder, threading.Lock acquired by release]
        self._holder: int | None = None

    def acquire(self, holder: object, timeout: float) -> bool:
        with self._mutex:
            if self._holder is None and not self._waiters:
                self._holder = id(holder)
                return True
            waiter = [id(holder), threading.Lock()]
            waiter[1].acquire()
            self._waiters.append(waiter)
        if waiter[1].acquire(timeout=timeout):
            return True  # handed over by release: _holder is ours already
        with self._mutex:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
                return False
        return True  # handed over between the timeout and the mutex

    def release(self, holder: object) -> None:
        with self._mutex:
            if self._holder != id(holder):
                return
            if self._waiters:
                waiter = self._waiters.popleft()
                self._holder = waiter[0]
                waiter[1].release()
            else:
                self._holder = None

    @property
    def held(self) -> bool:
        return self._holder is not None

    @property
    def waiting(self) -> int:
        """How many connections wait for the lock."""
        with self._mutex:
            return len(self._waiters)


_FILE_LOCKS: dict[str, FairLock] = {}
_FILE_LOCKS_GUARD = threading.Lock()


def sqlite_file_lock(path: str) -> FairLock:
    """The process-wide writer queue of one SQLite database file (shared by every engine on
    that file: the server's, a job's, a test's)."""
    key = os.path.realpath(path)
    with _FILE_LOCKS_GUARD:
        return _FILE_LOCKS.setdefault(key, FairLock())


def _raw(connection: object) -> object:
    """The DBAPI connection behind a pool proxy (the lock's holder key)."""
    return getattr(connection, "dbapi_connection", None) or connection


def _configure_sqlite(engine: Engine, lock: FairLock | None) -> None:
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
        # instead of failing with "database is locked" when upgrading a read lock. The
        # threads of this process wait their turn on the file's FairLock first.
        if conn.get_execution_options().get(READ_ONLY):
            conn.exec_driver_sql("BEGIN")  # deferred: a WAL snapshot, no lock, no waiting
            return
        raw = _raw(conn.connection)
        if lock is not None and not lock.acquire(raw, SQLITE_BUSY_TIMEOUT_MS / 1000):
            raise OperationalError(
                "BEGIN IMMEDIATE", None, sqlite3.OperationalError("database is locked")
            )
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            if lock is not None:
                lock.release(raw)
            raise

    if lock is None:
        return
    _release_after(engine, lock)


def _release_after(engine: Engine, lock: FairLock) -> None:
    """Hand the file's lock on once the transaction's COMMIT or ROLLBACK has run (through
    the dialect, so the pool's rollback-on-return counts too), or once the connection is
    closed or invalidated."""
    dialect = engine.dialect
    do_commit, do_rollback = dialect.do_commit, dialect.do_rollback

    def commit(dbapi_connection) -> None:  # type: ignore[no-untyped-def]
        try:
            do_commit(dbapi_connection)
        finally:
            if not _in_transaction(dbapi_connection):  # a failed COMMIT leaves it open
                lock.release(_raw(dbapi_connection))

    def rollback(dbapi_connection) -> None:  # type: ignore[no-untyped-def]
        try:
            do_rollback(dbapi_connection)
        finally:
            lock.release(_raw(dbapi_connection))

    dialect.do_commit = commit  # type: ignore[method-assign]
    dialect.do_rollback = rollback  # type: ignore[method-assign]

    for name in ("close", "invalidate", "soft_invalidate", "close_detached"):
        event.listen(engine.pool, name, lambda dbapi_connection, *_: lock.release(dbapi_connection))


def _in_transaction(dbapi_connection) -> bool:  # type: ignore[no-untyped-def]
    try:
        return bool(_raw(dbapi_connection).in_transaction)
    except sqlite3.Error:  # closed
        return False


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
        in_memory = not path or path == ":memory:" or "mode=memory" in url
        _configure_sqlite(engine, None if in_memory else sqlite_file_lock(path.split("?")[0]))
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


@contextmanager
def read_scope(engine: Engine | None = None) -> Iterator[Session]:
    """A session for reading only (it is rolled back at the end, whatever it did).

    On SQLite its transaction is a deferred one: in WAL mode it reads a snapshot of the last
    commit, without the write lock or the process's writer queue, so it neither waits for a
    save nor makes one wait. PostgreSQL: an ordinary transaction (MVCC readers never wait).
    """
    engine = engine or get_engine()
    if engine.dialect.name == "sqlite":
        engine = engine.execution_options(**{READ_ONLY: True})
    session = Session(bind=engine, expire_on_commit=False)
    try:
        yield session
    finally:
        session.rollback()
        session.close()


# ----------------------------------------------------------------- transient failures

#: PostgreSQL's SQLSTATEs of a transaction that failed only because of another one running
#: at the same time (serialization_failure, deadlock_detected): running it again is safe.
TRANSIENT_SQLSTATES = frozenset({"40001", "40P01"})
#: Attempts of a transaction that failed transiently, and the first back-off (doubling).
RETRY_ATTEMPTS, RETRY_BACKOFF_S = 5, 0.02
_T = TypeVar("_T")


class TransientFailure(RuntimeError):
    """A transaction kept failing on concurrent ones (deadlock, serialization) after
    :data:`RETRY_ATTEMPTS` attempts; it was rolled back every time, so nothing was written."""


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` is a deadlock or serialization failure (PostgreSQL) or SQLite's
    "database is locked" after its busy timeout: the transaction may simply run again."""
    if not isinstance(exc, DBAPIError):
        return False
    if getattr(exc.orig, "sqlstate", None) in TRANSIENT_SQLSTATES:
        return True
    return isinstance(exc.orig, sqlite3.OperationalError) and "locked" in str(exc.orig)


def retry_transient(
    exhausted: Callable[[], Exception] | None = None, attempts: int = RETRY_ATTEMPTS
) -> Callable[[Callable[..., _T]], Callable[..., _T]]:
    """Decorate a function that runs whole transactions (it opens and commits its own): when
    one fails transiently (:func:`is_transient`) it was rolled back, and the function runs
    again after a short random back-off, up to ``attempts`` times; then ``exhausted()`` (by
    default :class:`TransientFailure`) is raised from the last failure. Other errors pass.

    Why retry rather than only order locks: PostgreSQL may still pick a victim among
    transactions that wait on each other through rows the code does not order (foreign-key
    checks, index pages); a retry turns that into a short wait instead of a traceback."""

    def decorate(fn: Callable[..., _T]) -> Callable[..., _T]:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> _T:
            for attempt in range(attempts):
                try:
                    return fn(*args, **kwargs)
                except DBAPIError as exc:
                    if not is_transient(exc):
                        raise
                    if attempt == attempts - 1:
                        raise (exhausted or _default_exhausted)() from exc
                    # jitter: two victims of one deadlock should not collide again
                    time.sleep(RETRY_BACKOFF_S * 2**attempt * (0.5 + random.random()))
            raise AssertionError("unreachable")  # pragma: no cover

        return run

    return decorate


def _default_exhausted() -> Exception:
    return TransientFailure(
        "the database stayed busy with concurrent changes; nothing was written: try again"
    )
