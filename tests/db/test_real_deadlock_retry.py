"""A real PostgreSQL deadlock is retried (issue 32): two transactions lock two rows in
opposite orders, the server picks a victim (DeadlockDetected, SQLSTATE 40P01), and
db.engine.retry_transient runs the victim's transaction again, so both writes land and no
one sees an error. tests/db/test_lock_order.py checks the retry with a stand-in error; this
one checks that the server's own error is recognised as transient."""

from __future__ import annotations

import threading

from sqlalchemy import Engine, text

from db.engine import make_engine, retry_transient, session_scope
from db.schema.models import Campaign


def test_a_real_deadlock_victim_is_run_again_and_both_writes_land(pg_engine: Engine) -> None:
    with session_scope(pg_engine) as s:
        rows = [Campaign(name="first"), Campaign(name="second")]
        s.add_all(rows)
        s.flush()
        ids = [c.id for c in rows]
    par = make_engine(pg_engine.url.render_as_string(hide_password=False), pool_size=4)
    both_hold_one = threading.Barrier(2, timeout=30)
    runs = [0, 0]
    errors: list[BaseException] = []

    def transfer(k: int) -> None:
        @retry_transient()
        def once() -> None:
            runs[k] += 1
            first, second = (ids[0], ids[1]) if k == 0 else (ids[1], ids[0])
            with session_scope(par) as s:
                s.execute(text("SET LOCAL deadlock_timeout = '200ms'"))
                bump = "UPDATE campaigns SET name = name || :m "
                s.execute(text(bump + "WHERE id = :id"), {"id": first, "m": f"{k}"})
                if runs[k] == 1:
                    both_hold_one.wait()  # each holds one row and asks for the other's
                s.execute(text(bump + "WHERE id = :id"), {"id": second, "m": f"{k}"})

        try:
            once()
        except BaseException as exc:  # checked below
            errors.append(exc)

    threads = [threading.Thread(target=transfer, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    par.dispose()
    assert errors == []
    assert sorted(runs) == [1, 2]  # one victim, run again once
    with session_scope(pg_engine) as s:
        names = [s.get(Campaign, i).name for i in ids]
    assert sorted(names[0].removeprefix("first")) == ["0", "1"]  # both writes, once each
    assert sorted(names[1].removeprefix("second")) == ["0", "1"]
