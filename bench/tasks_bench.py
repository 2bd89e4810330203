"""Cost of tasks on the keyboard path: ``judging.submit`` (label → next item claimed) in a
campaign cut into tasks of 100 against the same campaign without tasks, alternated.

    .venv/bin/python bench/tasks_bench.py [--url postgresql+psycopg://…] [--labels 200]

Prints the medians and their ratio (tasks / shared queue). A fresh SQLite file per run unless
``--url`` names a database (it must be empty and migrated).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.tasks import batches as tasks
from db.engine import make_engine
from db.migrate import upgrade
from tests.annotation.test_queue import make_campaign


def _times(engine, ann: int, n: int) -> list[float]:  # type: ignore[no-untyped-def]
    view = session.next_view(engine, ann)
    out = []
    for _ in range(n):
        assert view.slot is not None
        t0 = time.perf_counter()
        view = judging.submit(
            engine, ann, view.slot.assignment_id, view.slot.claim_version, label=1
        )
        out.append(time.perf_counter() - t0)
        if view.slot is None and view.task is not None:
            view = session.start_next_task(engine, ann)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url")
    ap.add_argument("--labels", type=int, default=200)
    args = ap.parse_args()
    url = args.url or f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    engine = make_engine(url)
    upgrade(engine)
    ids = {}
    for name, cut in (("shared", False), ("tasks", True)):
        cid = make_campaign(engine, 2500, 4, name=name)
        queue_build.build_queue(engine, cid, seed=1)
        if cut:
            tasks.cut(engine, cid, 100)
        ids[name] = create_annotator(engine, cid, f"{name}-ann").annotator_id
    times: dict[str, list[float]] = {"shared": [], "tasks": []}
    for _ in range(4):  # alternate, so both see the same machine load
        for name in times:
            times[name] += _times(engine, ids[name], args.labels // 4)
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    print(f"{engine.dialect.name}: 10,000 outputs, {args.labels} labels each")
    print(f"submit median: shared queue {med['shared']:.2f} ms, tasks of 100 {med['tasks']:.2f} ms")
    print(f"ratio tasks / shared: {med['tasks'] / med['shared']:.2f}x")


if __name__ == "__main__":
    main()
