"""A deployment's dedicated scoring process (`cli.py scoring-worker`, deploy/): replicas
started with TANDEM_SCORING_WORKER=external only queue jobs, and that process starts one
worker per job (not one per look), also when a page of a replica asks for lost jobs."""

from __future__ import annotations

import pytest

from db.admin import jobs as store
from metrics import scoring_job
from metrics.scoring_job import resume_orphaned, run_scoring_job, serve_jobs, start_scoring
from tests.metrics.conftest import make_campaign


def test_replicas_queue_and_the_dedicated_process_runs(engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    started: list[int] = []

    def spawn(engine, job_id, **_):  # type: ignore[no-untyped-def]
        started.append(job_id)
        if len(started) == 1:  # the first look: the worker runs the job to its end
            run_scoring_job(engine, job_id)

    monkeypatch.setattr(scoring_job, "spawn_worker", spawn)
    monkeypatch.setenv(scoring_job.EXTERNAL_ENV, "external")
    rows = [(f"i{j}", f"ref {j}", f"s{k}", f"out {j} {k}") for j in range(5) for k in range(2)]
    cid, _ = make_campaign(engine, rows)
    job_id = start_scoring(engine, cid, ["bleu"])
    job = store.get_job(engine, job_id)
    assert job is not None and job.state == store.QUEUED and started == []
    assert resume_orphaned(engine, 0.0) == []  # a replica's page never starts one
    serve_jobs(engine, poll_s=0.0, rounds=3)
    assert started == [job_id]  # three looks, one worker
    job = store.get_job(engine, job_id)
    assert job is not None and job.state == store.DONE, job


@pytest.mark.parametrize("value", ["", "inline", "EXTERNAL"])
def test_only_the_exact_setting_turns_it_on(monkeypatch, value: str) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(scoring_job.EXTERNAL_ENV, value)
    assert scoring_job.external_worker() is False


def test_a_job_whose_local_process_died_is_requeued_at_once(engine) -> None:  # type: ignore[no-untyped-def]
    """A worker killed with the dedicated process (same host, its pid gone) loses its job
    now, not after the stale heartbeat; a job whose process lives stays with it."""
    import socket
    import subprocess
    import sys

    rows = [(f"i{j}", f"ref {j}", f"s{k}", f"out {j} {k}") for j in range(3) for k in range(2)]
    cid, _ = make_campaign(engine, rows)
    other, _ = make_campaign(engine, rows, name="Other")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    lost = store.create_job(engine, cid, scoring_job.KIND, {"metrics": ["bleu"]})
    alive = store.create_job(engine, other, scoring_job.KIND, {"metrics": ["bleu"]})
    host = socket.gethostname()
    assert store.claim(engine, lost, f"{host}:{dead}:1", scoring_job.STALE_AFTER_S)
    assert store.claim(engine, alive, f"{host}:{__import__('os').getpid()}:1", 30.0)
    assert scoring_job.requeue_dead_local(engine) == [lost]
    states = {j: store.get_job(engine, j).state for j in (lost, alive)}  # type: ignore[union-attr]
    assert states == {lost: store.QUEUED, alive: store.RUNNING}
    assert scoring_job.requeue_dead_local(engine) == []  # once
