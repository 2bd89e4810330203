"""Scoring as a background job (issue 17.5) on SQLite and PostgreSQL: the estimate counts
what is missing, a job scores exactly what score_campaign would, a cancel stops it and
keeps what was stored, a job whose worker died is resumed and finishes the rest, only one
worker can hold a job, and a real worker process runs a job the page started."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import update

from db.admin import jobs as store
from db.clock import utcnow
from db.engine import session_scope
from db.schema.admin_models import Job
from db.scores import metric_scores as scores_store
from metrics import scoring, scoring_job
from metrics.scoring import pending_work, score_campaign
from metrics.scoring_estimate import estimate_scoring
from metrics.scoring_job import (
    ScoringAlreadyRunning,
    cancel_job,
    resume_orphaned,
    run_scoring_job,
    start_scoring,
)
from tests.metrics.conftest import make_campaign


def _rows(n_items: int, n_systems: int = 2) -> list[tuple[str, str, str, str]]:
    return [
        (f"i{j}", f"Das ist der Satz Nummer {j} im Test.", f"S{s}", f"Das ist Satz {j} von {s}.")
        for j in range(n_items)
        for s in range(n_systems)
    ]


def _n_scored(engine, cid: int, key: str) -> int:  # type: ignore[no-untyped-def]
    return sum(
        n for metric, _sig, n in scores_store.campaign_signatures(engine, cid) if metric == key
    )


@pytest.fixture
def inline(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """spawn_worker runs the job in this process (what the worker process would do)."""
    started: list[int] = []

    def spawn(engine, job_id, **_):  # type: ignore[no-untyped-def]
        started.append(job_id)
        run_scoring_job(engine, job_id)

    monkeypatch.setattr(scoring_job, "spawn_worker", spawn)
    return started


def test_estimate_counts_what_is_missing(engine) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, _rows(30))
    before = estimate_scoring(engine, cid, ["bleu", "ter"])
    assert [(w.metric, w.n_outputs, w.n_todo) for w in before.work] == [
        ("bleu", 60, 60),
        ("ter", 60, 60),
    ]
    assert before.seconds > 0 and "bleu 60 of 60" in before.describe()
    score_campaign(engine, cid, ["bleu"], workers=1)
    after = estimate_scoring(engine, cid, ["bleu", "ter"])
    assert [w.n_todo for w in after.work] == [0, 60]
    assert after.seconds < before.seconds
    score_campaign(engine, cid, ["ter"], workers=1)
    done = estimate_scoring(engine, cid, ["bleu", "ter"])
    assert done.n_todo == 0 and done.seconds == 0 and "nothing to do" in done.describe()


def test_a_job_scores_what_score_campaign_would(engine, inline) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, _rows(25))
    job_id = start_scoring(engine, cid, ["bleu", "chrf"])
    job = store.get_job(engine, job_id)
    assert job is not None and job.state == store.DONE, job
    assert job.done == job.total == 100 and job.attempts == 1
    assert "bleu: 50 new" in (job.message or "") and "chrf: 50 new" in (job.message or "")
    assert _n_scored(engine, cid, "bleu") == 50 and _n_scored(engine, cid, "chrf") == 50
    # The run taught the estimate nothing (< 1 s) or a bounded factor; a second job has
    # nothing to do and finishes at once.
    again = store.get_job(engine, start_scoring(engine, cid, ["bleu", "chrf"]))
    assert again is not None and again.state == store.DONE and again.total == 0


def test_only_one_active_job_per_campaign(engine) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, _rows(3))
    job_id = store.create_job(engine, cid, scoring_job.KIND, {"metrics": ["bleu"]})
    with pytest.raises(ScoringAlreadyRunning) as err:
        start_scoring(engine, cid, ["bleu"])
    assert err.value.job_id == job_id
    # A queued job is cancelled at once; then a new one may start.
    assert cancel_job(engine, job_id) == store.CANCELLED
    assert scoring_job.active_job(engine, cid) is None


@pytest.mark.slow
def test_cancel_stops_a_running_job_and_keeps_its_scores(engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(scoring, "SACREBLEU_CHUNK", 20)  # many small stored chunks
    monkeypatch.setattr(scoring_job, "HEARTBEAT_S", 0.05)
    cid, _ = make_campaign(engine, _rows(1500))
    slow = scoring.score_many

    def slower(*args, **kwargs):  # type: ignore[no-untyped-def]
        time.sleep(0.05)  # every chunk takes a while, so the cancel lands mid-run
        return slow(*args, **kwargs)

    monkeypatch.setattr(scoring, "score_many", slower)
    job_id = store.create_job(engine, cid, scoring_job.KIND, {"metrics": ["bleu"]}, total=3000)
    states: list[str | None] = []
    worker = threading.Thread(target=lambda: states.append(run_scoring_job(engine, job_id)))
    worker.start()
    deadline = time.monotonic() + 60
    while (job := store.get_job(engine, job_id)) is not None and job.done < 100:
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
    assert cancel_job(engine, job_id) == store.CANCELLING
    worker.join(timeout=60)
    assert states == [store.CANCELLED]
    job = store.get_job(engine, job_id)
    assert job is not None and job.state == store.CANCELLED and "kept" in (job.message or "")
    kept = _n_scored(engine, cid, "bleu")
    assert 100 <= kept < 3000, kept
    # A new run scores only the rest.
    [work] = pending_work(engine, cid, ["bleu"])
    assert work.n_todo == 3000 - kept


def test_a_cancel_after_the_last_score_ends_the_job_done(engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The cancel reaches the worker only after every score is stored (a fast machine, a
    late click): nothing is left to stop, so the job is done with its summary."""
    monkeypatch.setattr(scoring_job, "HEARTBEAT_S", 0.05)
    cid, _ = make_campaign(engine, _rows(20))
    job_id = store.create_job(engine, cid, scoring_job.KIND, {"metrics": ["bleu"]}, total=40)
    real = scoring_job.score_campaign

    def then_cancel(*args, **kwargs):  # type: ignore[no-untyped-def]
        report = real(*args, **kwargs)
        assert cancel_job(engine, job_id) == store.CANCELLING
        time.sleep(0.5)  # the heartbeat (every 0.05 s) has seen the cancel
        return report

    monkeypatch.setattr(scoring_job, "score_campaign", then_cancel)
    assert run_scoring_job(engine, job_id) == store.DONE
    job = store.get_job(engine, job_id)
    assert job is not None and job.state == store.DONE and (job.done, job.total) == (40, 40)
    assert (job.message or "").startswith("Scored:"), job.message
    assert _n_scored(engine, cid, "bleu") == 40


def test_a_job_whose_worker_died_is_resumed(engine, inline) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, _rows(20))
    score_campaign(engine, cid, ["bleu"], output_ids=None, workers=1)  # part of the work
    job_id = store.create_job(engine, cid, scoring_job.KIND, {"metrics": ["bleu", "chrf"]})
    assert store.claim(engine, job_id, "dead-worker", 30) is not None
    assert resume_orphaned(engine) == []  # its heartbeat is fresh: not orphaned yet
    with session_scope(engine) as s:
        s.execute(
            update(Job).where(Job.id == job_id).values(heartbeat_at=utcnow() - timedelta(minutes=5))
        )
    assert resume_orphaned(engine) == [job_id]
    job = store.get_job(engine, job_id)
    assert job is not None and job.state == store.DONE and job.attempts == 2
    assert "bleu: 0 new, all 40 outputs already scored" in (job.message or "")
    assert _n_scored(engine, cid, "chrf") == 40


def test_a_lost_job_that_was_being_cancelled_ends_cancelled(engine, inline) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, _rows(2))
    job_id = store.create_job(engine, cid, scoring_job.KIND, {"metrics": ["bleu"]})
    store.claim(engine, job_id, "dead-worker", 30)
    store.request_cancel(engine, job_id)
    with session_scope(engine) as s:
        s.execute(
            update(Job).where(Job.id == job_id).values(heartbeat_at=utcnow() - timedelta(hours=1))
        )
    assert resume_orphaned(engine) == [] and inline == []
    job = store.get_job(engine, job_id)
    assert job is not None and job.state == store.CANCELLED


def test_two_workers_never_hold_one_job(engine) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, _rows(2))
    job_id = store.create_job(engine, cid, scoring_job.KIND, {"metrics": ["bleu"]})
    results: list[object] = []
    barrier = threading.Barrier(4)

    def claim(name: str) -> None:
        barrier.wait()
        results.append(store.claim(engine, job_id, name, 30))

    threads = [threading.Thread(target=claim, args=(f"w{k}",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r is not None for r in results) == 1
    # The holder's progress is accepted; another worker's beat is refused.
    holder = next(r for r in results if r is not None).worker  # type: ignore[union-attr]
    assert store.beat(engine, job_id, holder, 1, 2) == store.RUNNING
    assert store.beat(engine, job_id, "intruder", 2, 2) is None


def test_a_real_worker_process_runs_the_job(sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(sqlite_engine, _rows(10))
    job_id = start_scoring(sqlite_engine, cid, ["chrf"])
    deadline = time.monotonic() + 120
    while (job := store.get_job(sqlite_engine, job_id)) is not None and job.active:
        assert time.monotonic() < deadline, job
        time.sleep(0.2)
    assert job is not None and job.state == store.DONE, job
    assert job.worker is not None and job.worker.split(":")[1] != str(__import__("os").getpid())
    assert _n_scored(sqlite_engine, cid, "chrf") == 20


@pytest.mark.slow
def test_a_killed_worker_process_is_resumed_and_finishes(sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    import os
    import signal

    # enough work that the job cannot end between its first progress report (heartbeat:
    # 1 s) and the kill: 1,200 items were scored whole within one beat on a quiet machine
    cid, _ = make_campaign(sqlite_engine, _rows(4000))
    job_id = start_scoring(sqlite_engine, cid, ["bleu", "ter"])
    deadline = time.monotonic() + 120
    while (job := store.get_job(sqlite_engine, job_id)) is not None and job.done == 0:
        assert job.state != store.DONE and time.monotonic() < deadline, job
        time.sleep(0.1)
    assert job is not None and job.state == store.RUNNING and job.done < job.total, job
    pid = int(job.worker.split(":")[1])  # type: ignore[union-attr]
    os.kill(pid, signal.SIGKILL)  # the worker this test started dies mid-run
    time.sleep(scoring_job.STALE_AFTER_S + 2)  # its heartbeat goes stale (the real threshold)
    assert store.get_job(sqlite_engine, job_id).state == store.RUNNING  # type: ignore[union-attr]
    assert resume_orphaned(sqlite_engine) == [job_id]
    deadline = time.monotonic() + 300
    while (job := store.get_job(sqlite_engine, job_id)) is not None and job.active:
        assert time.monotonic() < deadline, job
        time.sleep(0.2)
    assert job is not None and job.state == store.DONE and job.attempts == 2, job
    assert (
        _n_scored(sqlite_engine, cid, "bleu") == 8000
        and _n_scored(sqlite_engine, cid, "ter") == 8000
    )
