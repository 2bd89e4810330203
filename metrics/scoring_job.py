"""Scoring as a background job: estimated before it starts, run by a worker process outside
the page's session, polled by the page, cancellable, and resumed after a restart.

Why a separate process and a table rather than a thread of the web server: scoring is CPU
work (sacrebleu in Python, BERTScore in torch) that would compete with every page for the
server process; a worker process leaves the server free, survives a server restart, and can
be stopped hard without corrupting anything (scores are stored chunk by chunk, each chunk
one transaction). The ``jobs`` row (:mod:`db.admin.jobs`) is the only link between page and
worker: the page writes the request and reads progress; the worker writes progress and a
heartbeat every :data:`HEARTBEAT_S` and reads cancel requests. A job whose heartbeat is
older than :data:`STALE_AFTER_S` has lost its worker; :func:`resume_orphaned` (called when
the Campaigns page opens) starts a new one, which continues where the last stopped, because
:func:`metrics.scoring.score_campaign` only scores what is not stored yet.

How long a run should take is :mod:`metrics.scoring_estimate`.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from db.admin import jobs as store
from metrics import ter_fast
from metrics.bertscore import BertScoreConfig
from metrics.registry import KEYS, parse_metric_names
from metrics.score_report import ScoreReport
from metrics.scoring import PendingWork, pending_work, score_campaign
from metrics.scoring_estimate import (
    Estimate,
    default_seconds,
    estimate_scoring,
    learn_factor,
    measure_machine,
)

log = logging.getLogger(__name__)

KIND = "score"
HEARTBEAT_S = 1.0
STALE_AFTER_S = 30.0  # no heartbeat for this long: the worker is gone
QUEUED_AFTER_S = 30.0  # a queued job no worker took within this: start one
#: Set on the app's replicas when a dedicated process runs the jobs (deploy/, `cli.py
#: scoring-worker`): the replicas then only queue jobs, and never start a worker themselves.
EXTERNAL_ENV = "TANDEM_SCORING_WORKER"
CANCEL_GRACE_S = 10.0  # a worker that has not stopped this long after a cancel exits hard
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def external_worker() -> bool:
    """Whether jobs are run by a dedicated process (``TANDEM_SCORING_WORKER=external``)."""
    return os.environ.get(EXTERNAL_ENV, "") == "external"


class JobCancelled(Exception):
    """Raised inside the worker when its job was cancelled (or taken over)."""


class ScoringAlreadyRunning(RuntimeError):
    def __init__(self, job_id: int) -> None:
        super().__init__(
            f"scoring job {job_id} of this campaign is still running: wait for it or cancel it"
        )
        self.job_id = job_id


def _family(metric: str) -> str:
    return "bertscore" if metric == "bertscore" else "sacrebleu"


# ---------------------------------------------------------------- the page's side


def active_job(engine: Any, campaign_id: int) -> store.JobRow | None:
    """The campaign's queued or running scoring job, if any."""
    return next((j for j in store.campaign_jobs(engine, campaign_id, KIND, 5) if j.active), None)


def latest_jobs(engine: Any, campaign_id: int, limit: int = 5) -> list[store.JobRow]:
    return store.campaign_jobs(engine, campaign_id, KIND, limit)


def start_scoring(
    engine: Any,
    campaign_id: int,
    metrics: Sequence[str],
    *,
    idf: bool = False,
    rescale: bool = False,
    estimate: Estimate | None = None,
) -> int:
    """Queue a scoring job for the campaign and start its worker; the job's id.

    Raises :class:`ScoringAlreadyRunning` when one is active, and
    :class:`metrics.base.MetricConfigError` for unknown metric names."""
    names = parse_metric_names(list(metrics))
    running = active_job(engine, campaign_id)
    if running is not None:
        raise ScoringAlreadyRunning(running.id)
    estimate = estimate or estimate_scoring(engine, campaign_id, names, idf=idf, rescale=rescale)
    job_id = store.create_job(
        engine,
        campaign_id,
        KIND,
        {"metrics": names, "idf": idf, "rescale": rescale},
        total=estimate.units,
        estimate_s=estimate.seconds,
    )
    if not external_worker():  # else the dedicated process (serve_jobs) takes it
        spawn_worker(engine, job_id)
    return job_id


def cancel_job(engine: Any, job_id: int) -> str | None:
    """Ask the job to stop; what it stored so far is kept (a later run continues)."""
    return store.request_cancel(engine, job_id)


def spawn_worker(engine: Any, job_id: int, *, own_session: bool = True) -> None:
    """Run the job in a new worker process. Started by a page, in its own session, so a
    server restart leaves it running; started by the dedicated worker (``own_session``
    False), in that worker's process group, so stopping the deployment stops the job too
    (its stored chunks stay; the next start resumes it)."""
    env = {**os.environ, "DATABASE_URL": engine.url.render_as_string(hide_password=False)}
    subprocess.Popen(  # our own interpreter and module, an int argument
        [sys.executable, "-m", "metrics.scoring_job", str(int(job_id))],
        cwd=PROJECT_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=own_session,
    )


def _worker_dead_here(worker: str | None) -> bool:
    """Whether ``worker`` (``host:pid:thread``, :func:`run_scoring_job`) ran on this host in a
    process that no longer exists: its job is lost now, not after :data:`STALE_AFTER_S`."""
    host, _, rest = (worker or "").partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        stat = Path(f"/proc/{int(pid)}/stat").read_text()
    except FileNotFoundError:
        return True
    except OSError:
        return False  # no /proc to read: wait for the heartbeat to go stale
    # a killed process not yet reaped by its new parent is a zombie ("Z"): dead all the same
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def requeue_dead_local(engine: Any) -> list[int]:
    """Put back in the queue the running jobs whose worker process on this host is gone
    (killed with the dedicated worker): the jobs it resumes at once. Their ids."""
    return [
        job.id
        for job in store.running_jobs(engine)
        if job.state == store.RUNNING
        and _worker_dead_here(job.worker)
        and store.requeue_lost(engine, job.id, job.worker or "")
    ]


def resume_orphaned(engine: Any, queued_after_s: float = QUEUED_AFTER_S,
                    skip: Sequence[int] = (), dedicated: bool = False) -> list[int]:  # fmt: skip
    """Start a worker for every job that lost its own (server restarted, worker killed), and
    for queued jobs older than ``queued_after_s``; a lost job that was being cancelled is
    marked cancelled. ``skip``: jobs whose worker was just started. The ids resumed.
    Nothing on a replica whose jobs a dedicated process runs (:func:`external_worker`)
    unless called by that process (``dedicated``)."""
    if external_worker() and not dedicated:
        return []  # called by a page of a replica: the dedicated process does it
    resumed = []
    for job in store.orphaned_jobs(engine, STALE_AFTER_S, queued_after_s):
        if job.id in skip:
            continue
        if job.kind != KIND:
            continue
        if job.state == store.CANCELLING:
            store.finish(
                engine, job.id, None, store.CANCELLED, _cancel_message(job.done, job.total)
            )
            continue
        if dedicated:  # in its process group: stopped with it
            spawn_worker(engine, job.id, own_session=False)
        else:
            spawn_worker(engine, job.id)
        resumed.append(job.id)
    return resumed


def serve_jobs(engine: Any, poll_s: float = 2.0, rounds: int | None = None) -> None:
    """The dedicated scoring process of a deployment (`cli.py scoring-worker`): every
    ``poll_s`` it starts a worker process for each new queued job and resumes lost ones.
    A job just given a worker is not started again while that worker loads (its claim,
    :func:`db.admin.jobs.claim`, would refuse a second one anyway). ``rounds``: stop after so many
    (tests); forever otherwise."""
    started: dict[int, float] = {}
    n = 0
    while rounds is None or n < rounds:
        now = time.monotonic()
        requeued = requeue_dead_local(engine)
        recent = [j for j, t in started.items() if now - t < QUEUED_AFTER_S and j not in requeued]
        for job_id in resume_orphaned(engine, 0.0, skip=recent, dedicated=True):
            started[job_id] = now
        n += 1
        if rounds is None or n < rounds:
            time.sleep(poll_s)


# ---------------------------------------------------------------- the worker's side


class _Heartbeat(threading.Thread):
    """Beats for the job every HEARTBEAT_S with the latest progress; notices a cancel."""

    def __init__(self, engine: Any, job_id: int, worker: str, hard_exit: bool) -> None:
        super().__init__(daemon=True, name=f"job-{job_id}-heartbeat")
        self.engine, self.job_id, self.worker, self.hard_exit = engine, job_id, worker, hard_exit
        self.done, self.total = 0, 0
        self.stop_requested: float | None = None  # monotonic time of the cancel
        self.finished = threading.Event()

    def run(self) -> None:
        while not self.finished.wait(HEARTBEAT_S):
            try:
                state = store.beat(self.engine, self.job_id, self.worker, self.done, self.total)
            except Exception:  # a busy database: try again at the next beat
                log.exception("heartbeat of job %s failed", self.job_id)
                continue
            if state in (None, store.CANCELLING) and self.stop_requested is None:
                self.stop_requested = time.monotonic()
            if (
                self.hard_exit
                and self.stop_requested is not None
                and time.monotonic() - self.stop_requested > CANCEL_GRACE_S
            ):
                # Stuck in one long step (a model load, a baseline): stop the process; the
                # chunks stored so far stay, the one in flight is rolled back.
                store.finish(
                    self.engine,
                    self.job_id,
                    self.worker,
                    store.CANCELLED,
                    _cancel_message(self.done, self.total),
                    done=self.done,
                )
                os._exit(0)

    def progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        # a cancel that comes once every score is stored has nothing left to stop: the job
        # ends done, with its summary, not "cancelled after 13,500 of 13,500"
        if self.stop_requested is not None and done < total:
            raise JobCancelled


def _cancel_message(done: int, total: int) -> str:
    return (
        f"Cancelled after {done:,} of {total:,} scores; the scores stored so far are kept and "
        "a new run scores only the rest."
    )


def _summary(reports: Sequence[ScoreReport], work: Sequence[PendingWork]) -> str:
    """The runs' own summaries, plus a line per chosen metric that had nothing to do."""
    lines = []
    for r in reports:
        lines += r.summary().splitlines()[1:]
    for w in work:
        if not w.n_todo:
            lines.append(f"  {w.metric}: 0 new, all {w.n_outputs:,} outputs already scored")
    # No time here: the page reports the job's one time against its estimate (one run gets one
    # figure, not several times and ratios that disagree).
    return "\n".join(["Scored:", *lines])


def run_scoring_job(engine: Any, job_id: int, *, hard_exit: bool = False) -> str | None:
    """The worker: claim the job, score (sacrebleu metrics first, then BERTScore, each
    timed to improve the estimate), report progress, finish; the final state, or None when
    another worker holds the job."""
    worker = f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"
    job = store.claim(engine, job_id, worker, STALE_AFTER_S)
    if job is None:
        return None
    beat = _Heartbeat(engine, job_id, worker, hard_exit)
    beat.start()
    state, message = store.FAILED, "stopped"
    try:
        names = parse_metric_names(job.params.get("metrics"))
        config = BertScoreConfig(
            idf=bool(job.params.get("idf")), rescale=bool(job.params.get("rescale"))
        )
        work = pending_work(engine, job.campaign_id, names, bertscore=config)
        total = sum(w.n_todo * len(KEYS[w.metric]) for w in work)
        beat.progress(0, total)
        # the machine as this run finds it: the factor learns what the calibration misses
        defaults = default_seconds(work, measure_machine())
        if any(w.metric == "ter" and w.n_todo for w in work):
            ter_fast.warm()  # a first compile is a fixed cost, not the machine's speed
        reports: list[ScoreReport] = []
        offset = 0
        for family in ("sacrebleu", "bertscore"):
            chosen = [w.metric for w in work if _family(w.metric) == family and w.n_todo]
            if not chosen:
                continue
            started = time.perf_counter()
            report = score_campaign(
                engine,
                job.campaign_id,
                chosen,
                progress=lambda done, _total, base=offset: beat.progress(base + done, total),
                bertscore=config,
            )
            learn_factor(engine, family, defaults[family], time.perf_counter() - started)
            offset += sum(r.n_scored for r in report.runs)
            reports.append(report)
        beat.progress(total, total)
        state, message = store.DONE, _summary(reports, work)
    except JobCancelled:
        state, message = store.CANCELLED, _cancel_message(beat.done, beat.total)
    except Exception as exc:  # reported on the page; the log has the traceback
        log.exception("scoring job %s failed", job_id)
        state, message = store.FAILED, f"{type(exc).__name__}: {exc}"
    finally:
        beat.finished.set()
        beat.join()
    store.finish(engine, job_id, worker, state, message, done=beat.done, total=beat.total)
    return state


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m metrics.scoring_job JOB_ID`` (what :func:`spawn_worker` runs)."""
    from db.engine import get_engine

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or not args[0].isdigit():
        print("usage: python -m metrics.scoring_job JOB_ID", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    logging.basicConfig(level=logging.INFO)
    run_scoring_job(get_engine(), int(args[0]), hard_exit=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
