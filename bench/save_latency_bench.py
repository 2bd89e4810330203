"""Save latency under concurrent annotators, SQLite and PostgreSQL, as a ratio to one annotator.

Each annotator is a thread (as each browser session is a thread of the Streamlit server) with
its own invite link, sharing the server's one engine (``db.engine.get_engine``'s pool, as the
app's ``views.common.engine``). An annotator's loop is what the annotate page does on a label
click, through the app's real functions:

- the page run's gate: ``ensure_migrated``, ``annotator_for_token`` (the link in the URL)
  and ``active_annotator`` (the click's own check of the invite);
- the **save**: ``annotation.judging.save.submit`` (records the label, finishes the slot, claims
  the next one and reads it: db.queue.claim → db.judging.log, one transaction), timed;
- the page's guidelines read.

Between clicks an annotator pauses a uniform random 0–2 s (``--think-ms``, default 2000):
one click a second on average, several times faster than people read and judge, so 20
annotators offer ≈ 20 saves/s. ``--think-ms 0`` clicks again as soon as the page is back:
then the two cores, not the database, set the pace and every figure is queueing for CPU.
Reported per database and number of annotators: p50 / p99 / max of the save (and of the
whole page run), each as a ratio to the same figure for a single annotator measured in the
same run, then 0 lost / duplicated / double-assigned labels checked in the database.

Run: ``.venv/bin/python bench/save_latency_bench.py`` (``--quick``: fewer saves;
``--sweep``: 1, 5, 10, 20, 40 annotators, to see where a p99 goal stops holding;
``--only sqlite``). PostgreSQL at 127.0.0.1:5432 (``--pg-admin`` to change); the bench
creates and drops its own database.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import Engine, create_engine, func, select, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from accounts.invites import active_annotator, annotator_for_token, create_annotator, token_hash  # noqa: E402
from annotation.campaign import guidelines as campaign_guidelines  # noqa: E402
from annotation.judging import save as judging  # noqa: E402
from annotation.judging import session  # noqa: E402
from annotation.queue import build as queue_build  # noqa: E402
from db.engine import make_engine, session_scope  # noqa: E402
from db.migrate import ensure_migrated, upgrade  # noqa: E402
from db.schema.models import Annotation, Assignment, Campaign, Item, Output, System  # noqa: E402

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
N_ITEMS, N_SYSTEMS = 1_000, 8  # 8,000 outputs per campaign: enough for every run's saves
P99_GOAL_MS = 300.0


@dataclass
class Run:
    annotators: int
    saves: list[float]  # seconds per submit()
    pages: list[float]  # seconds per page run (gate + submit + guidelines)
    elapsed: float
    problems: list[str]

    def pct(self, q: float, page: bool = False) -> float:
        xs = sorted(self.pages if page else self.saves)
        return 1000 * xs[min(len(xs) - 1, int(q * len(xs)))]

    def p50(self, page: bool = False) -> float:
        return 1000 * statistics.median(self.pages if page else self.saves)

    def p99(self, page: bool = False) -> float:
        return self.pct(0.99, page)

    def max(self, page: bool = False) -> float:
        return 1000 * max(self.pages if page else self.saves)


def make_campaign(engine: Engine, name: str) -> int:
    with session_scope(engine) as s:
        camp = Campaign(name=name)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"sys{k}") for k in range(N_SYSTEMS)]
        items = [
            Item(campaign_id=camp.id, external_id=f"i{j}", source=f"source {j}", reference=None)
            for j in range(N_ITEMS)
        ]
        s.add_all(systems + items)
        s.flush()
        s.execute(
            Output.__table__.insert(),
            [
                {"item_id": it.id, "system_id": sy.id, "text": f"output {k} of {j}", "meta": {}}
                for j, it in enumerate(items)
                for k, sy in enumerate(systems)
            ],
        )
        cid = camp.id
    queue_build.build_queue(engine, cid, seed=7)
    return cid


def annotator_loop(
    engine: Engine, token: str, saves: int, think_ms: float, start: threading.Barrier, run: Run
) -> None:
    rng = random.Random(token)
    who = annotator_for_token(engine, token)
    assert who is not None
    invite = token_hash(token)
    start.wait()
    view = session.next_view(engine, who.annotator_id)
    for _ in range(saves):
        if view.slot is None:
            run.problems.append(f"annotator {who.annotator_id}: queue ran dry")
            return
        if think_ms:
            time.sleep(rng.uniform(0, think_ms) / 1000)
        t0 = time.perf_counter()
        ensure_migrated(engine)  # the page run's gate (app.py), then the click's own check
        annotator_for_token(engine, token)
        active_annotator(engine, who.annotator_id, invite)
        slot = view.slot
        t1 = time.perf_counter()
        view = judging.submit(
            engine, who.annotator_id, slot.assignment_id, slot.claim_version, label=1
        )
        t2 = time.perf_counter()
        campaign_guidelines.guidelines(engine, who.campaign_id)
        run.saves.append(t2 - t1)
        run.pages.append(time.perf_counter() - t0)
        if view.notice is not None:
            run.problems.append(f"annotator {who.annotator_id}: {view.notice}")


def measure(url: str, n: int, saves: int, think_ms: float) -> Run:
    engine = make_engine(url)  # the app's engine: default pool, as views.common.engine
    cid = make_campaign(engine, f"bench-{n}-{uuid.uuid4().hex[:6]}")
    tokens = [create_annotator(engine, cid, f"a{k}").token for k in range(n)]
    run = Run(n, [], [], 0.0, [])
    start = threading.Barrier(n)
    errors: list[BaseException] = []

    def work(token: str) -> None:
        try:
            annotator_loop(engine, token, saves, think_ms, start, run)
        except BaseException as exc:  # reported below
            errors.append(exc)
            start.abort()

    threads = [threading.Thread(target=work, args=(t,)) for t in tokens]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    run.elapsed = time.perf_counter() - t0
    run.problems += [f"{type(e).__name__}: {e}" for e in errors]
    run.problems += integrity(engine, cid, len(run.saves))
    engine.dispose()
    return run


def integrity(engine: Engine, cid: int, n_saved: int) -> list[str]:
    """Lost, duplicated and double-assigned labels, read back from the database."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(Annotation.assignment_id, Annotation.output_id, Annotation.annotator_id)
            .join(Assignment, Assignment.id == Annotation.assignment_id)
            .where(Assignment.campaign_id == cid)
        ).all()
        done = s.scalar(
            select(func.count()).where(Assignment.campaign_id == cid, Assignment.state == "done")
        )
    out = []
    if len(rows) != n_saved or done != n_saved:
        out.append(f"{n_saved} saves, {len(rows)} labels stored, {done} slots done")
    if len({a for a, _, _ in rows}) != len(rows):
        out.append("a slot has two labels")
    if rows and max(Counter((o, w) for _, o, w in rows).values()) > 1:
        out.append("an annotator judged an output twice")
    return out


def sqlite_url(tmp: Path) -> str:
    path = tmp / "bench.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    engine.dispose()
    return f"sqlite:///{path}"


def pg_database(admin_url: str) -> tuple[str, str]:
    name = f"tandem_savebench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    return name, url


def drop_pg(admin_url: str, name: str) -> None:
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def report(db: str, runs: list[Run]) -> None:
    one = runs[0]
    print(f"\n{db}: save = annotation.judging.save.submit; page = gate + save + guidelines")
    print(
        "  annotators  saves   save p50 / p99 / max ms   × 1 annotator (p50/p99/max)"
        "   page p99 ms (×1)   labels/s  problems"
    )
    for r in runs:
        ratios = (r.p50() / one.p50(), r.p99() / one.p99(), r.max() / one.max())
        print(
            f"  {r.annotators:>10}  {len(r.saves):>5}   "
            f"{r.p50():7.1f} / {r.p99():7.1f} / {r.max():7.1f}   "
            f"{ratios[0]:5.1f} / {ratios[1]:5.1f} / {ratios[2]:5.1f}        "
            f"{r.p99(page=True):7.1f} ({r.p99(page=True) / one.p99(page=True):4.1f})"
            f"   {len(r.saves) / r.elapsed:7.0f}  {'; '.join(r.problems[:3]) or 'none'}"
        )
    holding = [r.annotators for r in runs if r.p99() <= P99_GOAL_MS]
    failing = [r.annotators for r in runs if r.p99() > P99_GOAL_MS]
    print(
        f"  save p99 ≤ {P99_GOAL_MS:.0f} ms with {holding or 'none'} annotators"
        + (f"; over it with {failing}" if failing else "")
    )


def bench(url: str, db: str, counts: list[int], saves: int, think_ms: float) -> list[Run]:
    runs = []
    for n in counts:
        each = saves if n > 1 else max(saves * 2, 60)  # the baseline: enough samples for p99
        runs.append(measure(url, n, each, think_ms))
        print(f"  {db}: {n} annotators done ({runs[-1].elapsed:.1f} s)", flush=True)
    report(db, runs)
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="40 saves per annotator (else 150)")
    parser.add_argument("--sweep", action="store_true", help="1, 5, 10, 20, 40 annotators")
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--think-ms", type=float, default=2000.0)
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    parser.add_argument("--pg-admin", default=os.environ.get("TANDEM_TEST_POSTGRES_URL", PG_ADMIN))
    args = parser.parse_args()
    saves = 20 if args.quick else 60
    counts = [1, 5, 10, 20, 40] if args.sweep else [1, args.annotators]
    problems = 0
    if args.only != "postgresql":
        with tempfile.TemporaryDirectory(prefix="tandem-savebench-") as tmp:
            runs = bench(sqlite_url(Path(tmp)), "SQLite", counts, saves, args.think_ms)
            problems += sum(len(r.problems) for r in runs)
    if args.only != "sqlite":
        try:
            name, url = pg_database(args.pg_admin)
        except Exception as exc:  # no server: say so, keep the SQLite figures
            print(f"\nPostgreSQL skipped: no server at {args.pg_admin} ({exc.__class__.__name__})")
            return 1 if problems else 0
        try:
            runs = bench(url, "PostgreSQL", counts, saves, args.think_ms)
            problems += sum(len(r.problems) for r in runs)
        finally:
            drop_pg(args.pg_admin, name)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
