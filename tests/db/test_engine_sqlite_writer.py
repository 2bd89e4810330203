"""SQLite: the threads of one process take the database in arrival order (db.engine's
FairLock), every way a transaction ends hands it on, and ``read_scope`` reads a snapshot
without waiting for a writer."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, insert, select, text
from sqlalchemy.exc import IntegrityError

from db.engine import FairLock, make_engine, read_scope, session_scope, sqlite_file_lock
from db.schema.models import Campaign


def _campaign_names(engine: Engine) -> list[str]:
    with read_scope(engine) as s:
        return list(s.scalars(select(Campaign.name).order_by(Campaign.id)))


def test_fair_lock_serves_in_arrival_order() -> None:
    lock = FairLock()
    holder = object()
    assert lock.acquire(holder, 1)
    order: list[int] = []
    waiters = [object() for _ in range(6)]

    def wait(k: int) -> None:
        assert lock.acquire(waiters[k], 10)
        order.append(k)
        lock.release(waiters[k])

    threads = []
    for k in range(6):
        threads.append(threading.Thread(target=wait, args=(k,)))
        threads[-1].start()
        time.sleep(0.05)  # arrive one after the other
    lock.release(object())  # not the holder: nothing happens
    time.sleep(0.05)
    assert order == []
    lock.release(holder)
    for t in threads:
        t.join(10)
    assert order == list(range(6))
    assert not lock.held


def test_fair_lock_times_out_and_leaves_the_queue() -> None:
    lock = FairLock()
    a, b, c = object(), object(), object()
    assert lock.acquire(a, 1)
    assert not lock.acquire(b, 0.05)  # gave up: must not be handed the lock later
    got: list[bool] = []
    t = threading.Thread(target=lambda: got.append(lock.acquire(c, 5)))
    t.start()
    time.sleep(0.05)
    lock.release(a)
    t.join(5)
    assert got == [True]
    lock.release(c)
    assert not lock.held


def test_threads_of_one_process_take_sqlite_in_arrival_order(sqlite_engine: Engine) -> None:
    """Six threads start a transaction one after the other while another holds the
    database: they get it in that order (SQLite's busy handler, polling with growing sleeps,
    served them in any order, and a late thread could wait for seconds)."""
    engine = make_engine(sqlite_engine.url.render_as_string(), pool_size=8)
    order: list[int] = []
    holding = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with session_scope(engine) as s:
            s.execute(insert(Campaign).values(name="first"))
            holding.set()
            release.wait(10)

    def writer(k: int) -> None:
        with session_scope(engine) as s:
            s.execute(insert(Campaign).values(name=f"w{k}"))
            order.append(k)

    h = threading.Thread(target=holder)
    h.start()
    assert holding.wait(10)
    lock = sqlite_file_lock(engine.url.database or "")
    threads = []
    for k in range(6):
        threads.append(threading.Thread(target=writer, args=(k,)))
        threads[-1].start()
        deadline = time.monotonic() + 10
        while lock.waiting < k + 1 and time.monotonic() < deadline:  # queued: it has arrived
            time.sleep(0.01)
        assert lock.waiting == k + 1, f"writer {k} never waited for the database"
    release.set()
    for t in [h, *threads]:
        t.join(30)
    engine.dispose()
    assert order == list(range(6))
    assert _campaign_names(sqlite_engine) == ["first", *(f"w{k}" for k in range(6))]


def test_every_end_of_a_transaction_hands_the_database_on(sqlite_engine: Engine) -> None:
    """Commit, an error (rollback), a failed statement, a connection closed mid-transaction
    and a dropped session all release the process's lock: the next transaction starts at
    once, not after the 30 s busy timeout."""
    engine = sqlite_engine
    lock = sqlite_file_lock(engine.url.database or "")
    with session_scope(engine) as s:
        s.execute(insert(Campaign).values(name="a"))
    assert not lock.held
    with pytest.raises(RuntimeError), session_scope(engine) as s:
        s.execute(insert(Campaign).values(name="b"))
        raise RuntimeError("the caller failed")
    assert not lock.held
    with pytest.raises(IntegrityError), session_scope(engine) as s:
        s.execute(insert(Campaign).values(name="a"))  # unique name
    assert not lock.held
    conn = engine.connect()
    conn.execute(text("select 1"))
    assert lock.held
    conn.close()
    assert not lock.held
    with engine.begin() as conn:
        conn.execute(insert(Campaign).values(name="c"))
    assert not lock.held
    t0 = time.perf_counter()
    with session_scope(engine) as s:
        s.execute(insert(Campaign).values(name="d"))
    assert time.perf_counter() - t0 < 5
    assert _campaign_names(engine) == ["a", "c", "d"]


def test_engines_on_one_file_share_the_queue(sqlite_engine: Engine, tmp_path: Path) -> None:
    url = sqlite_engine.url.render_as_string()
    other = make_engine(url)
    assert sqlite_file_lock(sqlite_engine.url.database or "") is sqlite_file_lock(
        other.url.database or ""
    )
    assert sqlite_file_lock(str(tmp_path / "x.db")) is not sqlite_file_lock(
        sqlite_engine.url.database or ""
    )
    other.dispose()


def test_read_scope_reads_a_snapshot_while_a_writer_holds_the_database(engine: Engine) -> None:
    """A reader neither waits for an open write transaction nor sees its rows (SQLite WAL
    snapshot; PostgreSQL MVCC)."""
    with session_scope(engine) as s:
        s.execute(insert(Campaign).values(name="committed"))
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with session_scope(engine) as s:
            s.execute(insert(Campaign).values(name="open"))
            s.flush()
            holding.set()
            release.wait(10)

    t = threading.Thread(target=writer)
    t.start()
    try:
        assert holding.wait(10)
        t0 = time.perf_counter()
        names = _campaign_names(engine)
        waited = time.perf_counter() - t0
    finally:
        release.set()
        t.join(10)
    assert names == ["committed"]
    assert waited < 2  # the writer holds on for up to 10 s
    assert _campaign_names(engine) == ["committed", "open"]
