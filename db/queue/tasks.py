"""SQL of tasks: batches of a campaign's queue that one annotator takes and finishes.

:mod:`annotation.tasks.batches` decides (cutting, quotas, outcomes, codes); this module reads and
writes, inside the caller's transaction. Taking a task is a compare-and-set on its state
(open → active), after candidates were read ``FOR UPDATE SKIP LOCKED`` (PostgreSQL; SQLite's
``BEGIN IMMEDIATE`` serialises writers), so two annotators never share a task.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, case, func, insert, or_, select, update
from sqlalchemy.orm import Session

from db.queue.claim_statements import lock_group_claims
from db.schema.models import Annotator, Assignment, Item, Task
from db.schema.vocabulary import SlotKind, SlotState

OPEN, ACTIVE, PAUSED, DONE, EXPIRED = "open", "active", "paused", "done", "expired"
STATES = (OPEN, ACTIVE, PAUSED, DONE, EXPIRED)
#: Slot states that still need a judgment (a pending slot may still be drawn).
UNFINISHED = (SlotState.OPEN, SlotState.PENDING, SlotState.CLAIMED)
REGULAR = SlotKind.REGULAR


@dataclass(frozen=True)
class CutSlot:
    """An uncut slot as the cutter sees it, in queue order."""

    id: int
    position: int
    kind: str
    item_id: int | None
    slot: int
    doc_id: str | None


@dataclass(frozen=True)
class TaskRow:
    id: int
    campaign_id: int
    ordinal: int
    annotator_id: int | None
    annotator: str | None
    state: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    outcome: str | None
    completion_code: str | None
    slots: int = 0  # slots in the task (passed ones, never drawn, left out)
    left: int = 0  # slots still to judge (open, pending or held)


def uncut_slots(s: Session, campaign_id: int) -> list[CutSlot]:
    """Slots of no task that still need a judgment and nobody holds, in queue order."""
    rows = s.execute(
        select(
            Assignment.id,
            Assignment.position,
            Assignment.kind,
            Assignment.item_id,
            Assignment.slot,
            Item.doc_id,
        )
        .outerjoin(Item, Item.id == Assignment.item_id)
        .where(
            Assignment.campaign_id == campaign_id,
            Assignment.task_id.is_(None),
            Assignment.state.in_([SlotState.OPEN, SlotState.PENDING]),
        )
        .order_by(Assignment.position)
    )
    return [CutSlot(*r) for r in rows]


def next_ordinal(s: Session, campaign_id: int) -> int:
    """The campaign's next task ordinal. PostgreSQL: under the campaign's claim advisory
    lock (db.queue.claim_statements.lock_group_claims), so two transactions that each requeue a
    task's leftovers (an annotator ending a task, an administrator expiring another) cannot
    both read the same maximum (which would raise a UniqueViolation on
    ``uq_tasks_campaign_id_ordinal``). Not the campaign's row lock: an annotator ending a
    task holds that task's row, and the administrator's actions take the campaign row
    before the task, so that order would deadlock; and not a lock of its own, which would
    form a cycle with the claim lock (a requeue, then a claim, in one transaction)."""
    lock_group_claims(s.connection(), campaign_id)
    top = s.scalar(select(func.max(Task.ordinal)).where(Task.campaign_id == campaign_id))
    return int(top or 0) + 1


def insert_task(
    s: Session, campaign_id: int, ordinal: int, slot_ids: Sequence[int], now: datetime
) -> int:
    """A new open task holding these slots; its id."""
    task_id = s.execute(
        insert(Task)
        .values(campaign_id=campaign_id, ordinal=ordinal, state=OPEN, created_at=now)
        .returning(Task.id)
    ).scalar_one()
    s.execute(update(Assignment).where(Assignment.id.in_(list(slot_ids))).values(task_id=task_id))
    return int(task_id)


# The annotator's path runs on every label: its statements are built once, with bind
# parameters, and run on the session's connection without the ORM (as db.queue.claim's).
_T, _A, _AN = Task.__table__, Assignment.__table__, Annotator.__table__
_HAS_TASKS = select(_T.c.id).where(_T.c.campaign_id == bindparam("campaign_id")).limit(1)
_ROW = (
    select(
        _T.c.id, _T.c.campaign_id, _T.c.ordinal, _T.c.annotator_id, _AN.c.name, _T.c.state,
        _T.c.created_at, _T.c.started_at, _T.c.finished_at, _T.c.outcome, _T.c.completion_code,
        func.coalesce(func.sum(case((_A.c.state != SlotState.PASSED, 1), else_=0)), 0),
        func.coalesce(func.sum(case((_A.c.state.in_(list(UNFINISHED)), 1), else_=0)), 0),
    )
    .select_from(
        _T.outerjoin(_AN, _AN.c.id == _T.c.annotator_id).outerjoin(_A, _A.c.task_id == _T.c.id)
    )
    .where(_T.c.id == bindparam("task_id"))
    .group_by(_T.c.id, _AN.c.name)
)  # fmt: skip
_MINE_LOCKED = (
    select(_T.c.id)
    .where(
        _T.c.campaign_id == bindparam("campaign_id"),
        _T.c.annotator_id == bindparam("annotator_id"),
        _T.c.state.in_([ACTIVE, PAUSED]),
    )
    .order_by(_T.c.ordinal)
    .limit(1)
    .with_for_update()
)


def lock_current(s: Session, campaign_id: int, annotator_id: int) -> int | None:
    """Lock the annotator's task in progress (active or paused), if any; its id. Every
    annotator action calls it right after the annotator's row (annotation.judging.session
    .campaign_of), before any slot: the save that ends a task then changes its state, owner
    and code under the same lock as the administrator's pause/reassign/expire."""
    if not has_tasks(s, campaign_id):
        return None
    params = {"campaign_id": campaign_id, "annotator_id": annotator_id}
    return s.connection().execute(_MINE_LOCKED, params).scalar()


def has_tasks(s: Session, campaign_id: int) -> bool:
    return s.connection().execute(_HAS_TASKS, {"campaign_id": campaign_id}).first() is not None


def _rows(
    s: Session, where: Any, order: Any = Task.ordinal, limit: int | None = None
) -> list[TaskRow]:
    left = func.sum(case((Assignment.state.in_(list(UNFINISHED)), 1), else_=0))
    counted = func.sum(case((Assignment.state != SlotState.PASSED, 1), else_=0))
    q = (
        select(
            Task.id, Task.campaign_id, Task.ordinal, Task.annotator_id, Annotator.name,
            Task.state, Task.created_at, Task.started_at, Task.finished_at, Task.outcome,
            Task.completion_code, func.coalesce(counted, 0), func.coalesce(left, 0),
        )
        .outerjoin(Annotator, Annotator.id == Task.annotator_id)
        .outerjoin(Assignment, Assignment.task_id == Task.id)
        .where(where)
        .group_by(Task.id, Annotator.name)
        .order_by(order)
        .limit(limit)
    )  # fmt: skip
    return [TaskRow(*r) for r in s.execute(q)]


_LOCK_TASK = select(_T.c.id).where(_T.c.id == bindparam("task_id")).with_for_update()


def locked_task(s: Session, task_id: int) -> TaskRow | None:
    """The task, its row locked (PostgreSQL) until the transaction ends: every change of a
    task's state, owner or code runs under it (the administrator's actions and the
    annotator's save that ends the task), so they happen one after the other."""
    s.connection().execute(_LOCK_TASK, {"task_id": task_id})
    return task(s, task_id)


def task(s: Session, task_id: int) -> TaskRow | None:
    row = s.connection().execute(_ROW, {"task_id": task_id}).first()
    return None if row is None else TaskRow(*row)


def list_tasks(s: Session, campaign_id: int) -> list[TaskRow]:
    return _rows(s, Task.campaign_id == campaign_id)


def current_task(s: Session, campaign_id: int, annotator_id: int) -> TaskRow | None:
    """The annotator's task in progress (active or paused), if any, its row locked
    (PostgreSQL) before any of its slots: the order the administrator's actions take too
    (task, then slots), so the two never deadlock."""
    params = {"campaign_id": campaign_id, "annotator_id": annotator_id}
    tid = s.connection().execute(_MINE_LOCKED, params).scalar()
    return None if tid is None else task(s, tid)


def last_done(s: Session, campaign_id: int, annotator_id: int) -> TaskRow | None:
    """The annotator's most recently finished task."""
    rows = _rows(
        s,
        and_(
            Task.campaign_id == campaign_id, Task.annotator_id == annotator_id, Task.state == DONE
        ),
        order=Task.finished_at.desc(),
        limit=1,
    )
    return rows[0] if rows else None


def latest_taken(s: Session, campaign_id: int, annotator_id: int) -> TaskRow | None:
    """The task the annotator took last (whatever became of it; a reassigned one is no
    longer theirs)."""
    rows = _rows(
        s,
        and_(Task.campaign_id == campaign_id, Task.annotator_id == annotator_id,
             Task.started_at.is_not(None)),
        order=Task.started_at.desc(),
        limit=1,
    )  # fmt: skip
    return rows[0] if rows else None


def any_open(s: Session, campaign_id: int) -> bool:
    q = select(Task.id).where(Task.campaign_id == campaign_id, Task.state == OPEN).limit(1)
    return s.scalar(q) is not None


def taken_count(s: Session, campaign_id: int, annotator_id: int) -> int:
    """Tasks the annotator took (started), whatever became of them."""
    return int(
        s.scalar(
            select(func.count()).where(
                Task.campaign_id == campaign_id,
                Task.annotator_id == annotator_id,
                Task.state != OPEN,
            )
        )
        or 0
    )


def next_open(s: Session, campaign_id: int, annotator_id: int, skip: Sequence[int]) -> int | None:
    """The first open task this annotator may take (one assigned to them first, then in
    order), not in ``skip``; locked (PostgreSQL), passing over one another claimer holds.
    One row at a time: locking every candidate would hide them all from the others."""
    mine_first = case((Task.annotator_id == annotator_id, 0), else_=1)
    return s.scalar(
        select(Task.id)
        .where(
            Task.campaign_id == campaign_id,
            Task.state == OPEN,
            or_(Task.annotator_id.is_(None), Task.annotator_id == annotator_id),
            Task.id.not_in(list(skip)),
        )
        .order_by(mine_first, Task.ordinal)
        .limit(1)
        .with_for_update(skip_locked=True)
    )


def take(s: Session, task_id: int, annotator_id: int, now: datetime) -> bool:
    """Compare-and-set: the open task becomes the annotator's active task."""
    result = s.execute(
        update(Task)
        .where(
            Task.id == task_id,
            Task.state == OPEN,
            or_(Task.annotator_id.is_(None), Task.annotator_id == annotator_id),
        )
        .values(state=ACTIVE, annotator_id=annotator_id, started_at=now)
    )
    return result.rowcount == 1


def set_task(s: Session, task_id: int, **values: Any) -> None:
    s.execute(update(Task).where(Task.id == task_id).values(**values))


def release_unfinished(s: Session, task_id: int, new_task_id: int) -> int:
    """Move a task's unfinished slots into another task, open and held by nobody (a late
    save of their old holder is then refused by the claim's compare-and-set). How many."""
    return s.execute(
        update(Assignment)
        .where(Assignment.task_id == task_id, Assignment.state.in_(list(UNFINISHED)))
        .values(
            task_id=new_task_id,
            state=case(
                (Assignment.state == SlotState.CLAIMED, SlotState.OPEN.value),
                else_=Assignment.state,
            ),
            annotator_id=None,
            claimed_at=None,
        )
    ).rowcount


def reset_held(s: Session, task_id: int) -> int:
    """The task's held slots back to open, held by nobody (a reassigned task)."""
    return s.execute(
        update(Assignment)
        .where(Assignment.task_id == task_id, Assignment.state == SlotState.CLAIMED)
        .values(state=SlotState.OPEN, annotator_id=None, claimed_at=None)
    ).rowcount


def unfinished_slot_ids(s: Session, task_id: int) -> list[int]:
    rows = s.scalars(
        select(Assignment.id)
        .where(Assignment.task_id == task_id, Assignment.state.in_(list(UNFINISHED)))
        .order_by(Assignment.position)
    )
    return list(rows)


def idle_active(s: Session, campaign_id: int, cutoff: datetime) -> list[int]:
    """Active tasks with no claim (so no label, which claims the next slot) since ``cutoff``."""
    last = func.max(func.coalesce(Assignment.claimed_at, Task.started_at))
    q = (
        select(Task.id)
        .outerjoin(Assignment, Assignment.task_id == Task.id)
        .where(Task.campaign_id == campaign_id, Task.state == ACTIVE)
        .group_by(Task.id, Task.started_at)
        .having(func.coalesce(last, Task.started_at) < cutoff)
    )
    return [r[0] for r in s.execute(q)]


def lock_free_active(s: Session, task_ids: Sequence[int]) -> list[int]:
    """Of these tasks, the active ones nobody else holds, locked (PostgreSQL: SKIP LOCKED,
    so an idle-task sweep never waits for an annotator who is saving in their task: that
    task is not idle, and waiting would put a task lock after the claim lock)."""
    if not task_ids:
        return []
    q = (
        select(Task.id)
        .where(Task.id.in_(list(task_ids)), Task.state == ACTIVE)
        .order_by(Task.id)
        .with_for_update(skip_locked=True)
    )
    return list(s.scalars(q))


def task_of_slot(s: Session, assignment_id: int) -> TaskRow | None:
    tid = s.scalar(select(Assignment.task_id).where(Assignment.id == assignment_id))
    return None if tid is None else task(s, tid)


def delete_tasks(s: Session, campaign_id: int) -> int:
    """Delete the campaign's tasks (their slots become uncut); how many were deleted."""
    s.execute(
        update(Assignment)
        .where(Assignment.campaign_id == campaign_id, Assignment.task_id.is_not(None))
        .values(task_id=None)
    )
    return int(s.execute(_T.delete().where(_T.c.campaign_id == campaign_id)).rowcount or 0)
