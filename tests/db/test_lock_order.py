"""What an annotator is told when the administrator changed their task under them, and the
bounded retry of a transaction that failed on a concurrent one (issue 32)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.tasks import admin as task_admin
from annotation.tasks import batches as tasks
from annotation.tasks import work as task_work
from db.engine import RETRY_ATTEMPTS, TransientFailure, retry_transient
from tests.annotation.test_queue import make_campaign


def _held(engine: Engine) -> tuple[int, int, session.Slot]:
    cid = make_campaign(engine, 4, 1)
    queue_build.build_queue(engine, cid, seed=8)
    tasks.cut(engine, cid, 2)
    ann = create_annotator(engine, cid, "ann").annotator_id
    create_annotator(engine, cid, "bob")
    view = session.next_view(engine, ann)
    assert view.slot is not None and view.task is not None and view.task.task_id is not None
    return cid, ann, view.slot


def test_an_expired_task_is_reported_as_expired(engine: Engine) -> None:
    cid, ann, slot = _held(engine)
    (tid,) = [t.id for t in task_admin.list_tasks(engine, cid) if t.annotator_id == ann]
    task_admin.expire(engine, cid, tid)
    refused = judging.submit(engine, ann, slot.assignment_id, slot.claim_version, label=1)
    assert refused.notice == task_work.TASK_EXPIRED  # not "idle longer than the claim timeout"


def test_a_reassigned_task_is_reported_as_reassigned(engine: Engine) -> None:
    cid, ann, slot = _held(engine)
    (tid,) = [t.id for t in task_admin.list_tasks(engine, cid) if t.annotator_id == ann]
    task_admin.reassign(engine, cid, tid, "bob")
    refused = judging.submit(engine, ann, slot.assignment_id, slot.claim_version, label=1)
    assert refused.notice == task_work.TASK_REASSIGNED


class _Deadlock(Exception):
    sqlstate = "40P01"


def _failing(times: int) -> tuple[list[int], object]:
    calls: list[int] = []

    def work() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise OperationalError("UPDATE …", {}, _Deadlock("deadlock detected"))
        return "saved"

    return calls, work


def test_a_deadlock_victim_runs_again_then_gives_a_plain_error() -> None:
    calls, work = _failing(2)
    assert retry_transient()(work)() == "saved" and len(calls) == 3
    calls, work = _failing(99)
    with pytest.raises(TransientFailure, match="nothing was written"):
        retry_transient()(work)()
    assert len(calls) == RETRY_ATTEMPTS
    calls, work = _failing(99)
    with pytest.raises(session.Busy, match="nothing was saved"):
        session.retried(work)()  # what the annotation pages show: an InvalidJudgment
    assert isinstance(session.Busy("x"), session.InvalidJudgment)


def test_other_database_errors_are_not_retried() -> None:
    calls: list[int] = []

    def work() -> None:
        calls.append(1)
        raise OperationalError("SELECT 1", {}, Exception("connection refused"))

    with pytest.raises(OperationalError):
        retry_transient()(work)()
    assert len(calls) == 1


def test_two_requeues_at_once_get_distinct_ordinals(engine: Engine) -> None:
    """Two transactions that each put a task's leftovers back as a new task (an annotator
    ending theirs, an administrator expiring another) both read the same highest ordinal
    on PostgreSQL and the second failed with UniqueViolation on
    uq_tasks_campaign_id_ordinal; the ordinal is now taken under the campaign's claim
    lock, so the second waits and takes the next one."""
    import threading

    from annotation.tasks.expiry import requeue_unfinished
    from db.clock import utcnow
    from db.engine import session_scope
    from db.queue import tasks as dbt

    cid = make_campaign(engine, 4, 1)
    queue_build.build_queue(engine, cid, seed=8)
    tasks.cut(engine, cid, 1)  # four tasks of one slot each
    first, second = [t.id for t in task_admin.list_tasks(engine, cid)][:2]
    failures: list[BaseException] = []
    made: list[int | None] = []

    def other() -> None:
        try:
            with session_scope(engine) as s:
                made.append(requeue_unfinished(s, cid, second, utcnow()))
        except BaseException as exc:  # reported below
            failures.append(exc)

    with session_scope(engine) as s:  # the first requeue's transaction, held open
        made.append(requeue_unfinished(s, cid, first, utcnow()))
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(0.5)  # the second reads the ordinals while the first is open
    thread.join(30)
    assert not thread.is_alive() and failures == [], failures
    with session_scope(engine) as s:
        ordinals = [t.ordinal for t in dbt.list_tasks(s, cid)]
    assert len(ordinals) == 6 and len(set(ordinals)) == 6
