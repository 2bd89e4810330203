"""Storage of background jobs (the ``jobs`` table): create, claim, report progress, finish.

A job's life: ``queued`` → ``running`` → ``done`` | ``failed`` | ``cancelled``; a cancel
request turns a queued job ``cancelled`` at once and a running one ``cancelling`` (its
worker stops at its next heartbeat). A worker holds a job by name (``worker``) and proves it
is alive with ``heartbeat_at``; :func:`claim` hands a ``running`` job whose heartbeat is
stale to a new worker, which is how a job survives a killed worker or a restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, and_, func, or_, select, update

from db.campaign.lifecycle import ensure_active
from db.clock import utcnow
from db.engine import session_scope
from db.schema.admin_models import Job

QUEUED, RUNNING, CANCELLING = "queued", "running", "cancelling"
DONE, FAILED, CANCELLED = "done", "failed", "cancelled"
ACTIVE = (QUEUED, RUNNING, CANCELLING)
FINISHED = (DONE, FAILED, CANCELLED)


@dataclass(frozen=True)
class JobRow:
    id: int
    campaign_id: int
    kind: str
    params: dict[str, Any]
    state: str
    done: int
    total: int
    estimate_s: float | None
    message: str | None
    worker: str | None
    attempts: int
    created_at: datetime
    started_at: datetime | None
    heartbeat_at: datetime | None
    finished_at: datetime | None

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    @property
    def seconds(self) -> float | None:
        """Run time so far (or in all, once finished)."""
        if self.started_at is None:
            return None
        end = self.finished_at or utcnow()
        return max(0.0, (end - self.started_at).total_seconds())


def _aware(value: datetime | None) -> datetime | None:
    """SQLite gives timestamps back without a zone; every stored one is UTC."""
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


def _row(job: Job) -> JobRow:
    return JobRow(
        id=job.id,
        campaign_id=job.campaign_id,
        kind=job.kind,
        params=dict(job.params or {}),
        state=job.state,
        done=job.done,
        total=job.total,
        estimate_s=job.estimate_s,
        message=job.message,
        worker=job.worker,
        attempts=job.attempts,
        created_at=_aware(job.created_at),  # type: ignore[arg-type]
        started_at=_aware(job.started_at),
        heartbeat_at=_aware(job.heartbeat_at),
        finished_at=_aware(job.finished_at),
    )


def create_job(
    engine: Engine,
    campaign_id: int,
    kind: str,
    params: dict[str, Any],
    *,
    total: int = 0,
    estimate_s: float | None = None,
) -> int:
    with session_scope(engine) as s:
        ensure_active(s, campaign_id)  # an archived campaign is read-only: no scoring
        job = Job(
            campaign_id=campaign_id,
            kind=kind,
            params=params,
            state=QUEUED,
            done=0,
            total=total,
            estimate_s=estimate_s,
            attempts=0,
            created_at=utcnow(),
        )
        s.add(job)
        s.flush()
        return job.id


def get_job(engine: Engine, job_id: int) -> JobRow | None:
    with session_scope(engine) as s:
        job = s.get(Job, job_id)
        return None if job is None else _row(job)


def campaign_jobs(engine: Engine, campaign_id: int, kind: str, limit: int = 10) -> list[JobRow]:
    """The campaign's latest jobs of ``kind``, newest first."""
    with session_scope(engine) as s:
        jobs = s.scalars(
            select(Job)
            .where(Job.campaign_id == campaign_id, Job.kind == kind)
            .order_by(Job.id.desc())
            .limit(limit)
        )
        return [_row(j) for j in jobs]


def _stale(stale_after_s: float, now: datetime) -> Any:
    """A running job whose worker stopped beating (or never beat)."""
    limit = now - timedelta(seconds=stale_after_s)
    return or_(Job.heartbeat_at.is_(None), Job.heartbeat_at < limit)


def claim(engine: Engine, job_id: int, worker: str, stale_after_s: float) -> JobRow | None:
    """Take the job for ``worker`` when it is queued, or running with a stale heartbeat (its
    worker died); None when another worker holds it or it is finished. Atomic: one UPDATE
    with the condition, so two workers never both win."""
    now = utcnow()
    with session_scope(engine) as s:
        won = s.execute(
            update(Job)
            .where(
                Job.id == job_id,
                or_(
                    Job.state == QUEUED,
                    and_(Job.state == RUNNING, _stale(stale_after_s, now)),
                ),
            )
            .values(
                state=RUNNING,
                worker=worker,
                attempts=Job.attempts + 1,
                started_at=func.coalesce(Job.started_at, now),
                heartbeat_at=now,
            )
        ).rowcount
        if not won:
            return None
        job = s.get(Job, job_id)
        return None if job is None else _row(job)


def beat(
    engine: Engine, job_id: int, worker: str, done: int | None = None, total: int | None = None
) -> str | None:
    """Record that ``worker`` is alive (and its progress); return the job's state, or None
    when the job is no longer this worker's (taken over, or deleted with its campaign)."""
    values: dict[str, Any] = {"heartbeat_at": utcnow()}
    if done is not None:
        values["done"] = done
    if total is not None:
        values["total"] = total
    with session_scope(engine) as s:
        s.execute(update(Job).where(Job.id == job_id, Job.worker == worker).values(**values))
        row = s.execute(select(Job.state, Job.worker).where(Job.id == job_id)).first()
    if row is None or row.worker != worker:
        return None
    return row.state


def finish(
    engine: Engine,
    job_id: int,
    worker: str | None,
    state: str,
    message: str,
    *,
    done: int | None = None,
    total: int | None = None,
) -> bool:
    """End the job (done / failed / cancelled) with its last progress, if ``worker`` still
    holds it (None: whoever does, e.g. for a job whose worker is gone)."""
    if state not in FINISHED:
        raise ValueError(f"a finished job is {', '.join(FINISHED)}, not {state!r}")
    cond = [Job.id == job_id, Job.state.in_(ACTIVE)]
    if worker is not None:
        cond.append(Job.worker == worker)
    values: dict[str, Any] = {"state": state, "message": message, "finished_at": utcnow()}
    if done is not None:
        values["done"] = done
    if total is not None:
        values["total"] = total
    with session_scope(engine) as s:
        return bool(s.execute(update(Job).where(*cond).values(**values)).rowcount)


def request_cancel(engine: Engine, job_id: int) -> str | None:
    """Ask a job to stop: a queued one is cancelled at once, a running one becomes
    ``cancelling`` (its worker stops within a heartbeat). Returns the new state."""
    now = utcnow()
    with session_scope(engine) as s:
        s.execute(
            update(Job)
            .where(Job.id == job_id, Job.state == QUEUED)
            .values(state=CANCELLED, message="cancelled before it started", finished_at=now)
        )
        s.execute(
            update(Job).where(Job.id == job_id, Job.state == RUNNING).values(state=CANCELLING)
        )
        return s.scalar(select(Job.state).where(Job.id == job_id))


def orphaned_jobs(engine: Engine, stale_after_s: float, queued_after_s: float) -> list[JobRow]:
    """Jobs no live worker holds: running or cancelling with a stale heartbeat, and queued
    ones no worker picked up within ``queued_after_s`` (the server stopped in between)."""
    now = utcnow()
    with session_scope(engine) as s:
        jobs = s.scalars(
            select(Job).where(
                or_(
                    and_(Job.state.in_((RUNNING, CANCELLING)), _stale(stale_after_s, now)),
                    and_(
                        Job.state == QUEUED,
                        Job.created_at < now - timedelta(seconds=queued_after_s),
                    ),
                )
            )
        )
        return [_row(j) for j in jobs]


def running_jobs(engine: Engine) -> list[JobRow]:
    """Jobs a worker holds (running or cancelling), whatever their heartbeat."""
    with session_scope(engine) as s:
        jobs = s.scalars(select(Job).where(Job.state.in_((RUNNING, CANCELLING))))
        return [_row(j) for j in jobs]


def requeue_lost(engine: Engine, job_id: int, worker: str) -> bool:
    """Put a running job back in the queue when ``worker`` — known to be dead — still holds
    it; False when the job moved on meanwhile (finished, or claimed by another worker)."""
    with session_scope(engine) as s:
        return bool(
            s.execute(
                update(Job)
                .where(Job.id == job_id, Job.state == RUNNING, Job.worker == worker)
                .values(state=QUEUED, worker=None, heartbeat_at=None)
            ).rowcount
        )
