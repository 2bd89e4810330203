"""A scoring worker owns its process pool: a real ``kill -9`` of a real worker process
leaves none of its children alive (no orphans reparented to PID 1), and the resumed job's
worker leaves none behind either (a /proc scan; psutil is not a dependency)."""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from db.admin import jobs as store
from db.clock import utcnow
from db.engine import session_scope
from db.schema.admin_models import Job
from metrics.sacrebleu_metrics import available_cores
from metrics.scoring_job import resume_orphaned, start_scoring
from tests.metrics.conftest import make_campaign

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists() or available_cores() < 2,
    reason="needs Linux /proc and 2 cores (the pool is only used with 2 or more)",
)


def _parents() -> dict[int, int]:
    """pid → ppid of every live process (zombies count as gone)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            out[int(entry.name)] = int(fields[1])
    return out


def _descendants(pid: int) -> set[int]:
    parents, found, frontier = _parents(), set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def _alive(pids: set[int]) -> set[int]:
    return pids & set(_parents())


def _worker_pid(engine, job_id: int, deadline: float) -> int:  # type: ignore[no-untyped-def]
    """The job's worker pid, once it reports progress with its pool running."""
    while True:
        job = store.get_job(engine, job_id)
        assert job is not None and time.monotonic() < deadline, job
        if job.state == store.RUNNING and job.worker and 0 < job.done < job.total:
            pid = int(job.worker.split(":")[1])
            if len(_descendants(pid)) >= 2:  # pool workers (+ resource tracker) started
                return pid
        time.sleep(0.1)


def _rows(n: int) -> list[tuple[str, str, str, str]]:
    ref = "Das ist der lange Referenzsatz Nummer {j} mit einigen Wörtern mehr darin."
    return [
        (f"i{j}", ref.format(j=j), f"S{s}", f"Das ist Satz {j} von System {s}, etwas anders.")
        for j in range(n)
        for s in range(2)
    ]


@pytest.mark.slow
def test_a_killed_worker_leaves_no_children_and_the_resumed_job_none(sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(sqlite_engine, _rows(4000))
    job_id = start_scoring(sqlite_engine, cid, ["bleu", "ter"])
    pid = _worker_pid(sqlite_engine, job_id, time.monotonic() + 120)
    children = _descendants(pid)
    os.kill(pid, signal.SIGKILL)  # the real worker process, mid-run
    deadline = time.monotonic() + 10
    while _alive(children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(children), f"orphans of the killed worker: {_alive(children)}"

    with session_scope(sqlite_engine) as s:  # its heartbeat is stale: resume it now
        s.execute(
            update(Job).where(Job.id == job_id).values(heartbeat_at=utcnow() - timedelta(hours=1))
        )
    assert resume_orphaned(sqlite_engine) == [job_id]
    deadline = time.monotonic() + 300
    seen: set[int] = set()
    while (job := store.get_job(sqlite_engine, job_id)) is not None and job.active:
        assert time.monotonic() < deadline, job
        if job.worker and job.attempts == 2:
            seen |= _descendants(int(job.worker.split(":")[1]))
        time.sleep(0.2)
    assert job is not None and job.state == store.DONE and job.attempts == 2, job
    deadline = time.monotonic() + 10
    while _alive(seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(seen) and not _alive(children)
