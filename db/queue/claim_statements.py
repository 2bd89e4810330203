"""The claim path's statements (db.queue.claim, db.queue.document_blocks), built once.

The claim path runs on every label, so its statements are built once, here, with bind
parameters (SQLAlchemy then reuses their cache keys and compiled forms) and executed on
the session's connection without the ORM.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, exists, or_, select, text, update

from db.schema.models import Assignment
from db.schema.vocabulary import CONTROL_KINDS, SlotKind, SlotState

OPEN, CLAIMED, DONE, SKIPPED, PENDING, PASSED = tuple(SlotState)[:6]  # short names of states
REGULAR, ATTENTION = SlotKind.REGULAR, SlotKind.ATTENTION

_A = Assignment.__table__
MINE = Assignment.__table__.alias("mine")
#: A control-block slot is its annotator's own: it waits ``reserved`` (unseen by the shared
#: statements below) and, once claimed and expired, nobody else may take it.
CONTROL = _A.c.kind.in_(CONTROL_KINDS)
MINE_OR_SHARED = or_(~CONTROL, _A.c.annotator_id == bindparam("annotator_id"))
NOT_JUDGED_BY_ME = or_(
    _A.c.kind == ATTENTION,
    ~exists().where(
        MINE.c.output_id == _A.c.output_id,
        MINE.c.annotator_id == bindparam("annotator_id"),
        MINE.c.kind == REGULAR,
    ),
)
MY_CLAIMS = (
    select(_A.c.id, _A.c.claimed_at)
    .where(
        _A.c.annotator_id == bindparam("annotator_id"),
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.state == CLAIMED,
    )
    .order_by(_A.c.position)
)
CANDIDATE_COLUMNS = (_A.c.id, _A.c.position, _A.c.kind, _A.c.item_id, _A.c.slot)
FIRST_OPEN = (
    select(*CANDIDATE_COLUMNS)
    .where(_A.c.campaign_id == bindparam("campaign_id"), _A.c.state == OPEN, NOT_JUDGED_BY_ME)
    .order_by(_A.c.position)
    .limit(1)
    .with_for_update(skip_locked=True, of=_A)
)
FIRST_EXPIRED = (
    select(*CANDIDATE_COLUMNS)
    .where(
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.state == CLAIMED,
        _A.c.claimed_at < bindparam("cutoff"),
        NOT_JUDGED_BY_ME,
        MINE_OR_SHARED,
    )
    .order_by(_A.c.position)
    .limit(1)
    .with_for_update(skip_locked=True, of=_A)
)
REST_OF_GROUP = (
    select(_A.c.id, _A.c.position)
    .where(
        _A.c.item_id == bindparam("item_id"),
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.slot == bindparam("slot"),
        _A.c.kind == REGULAR,
        _A.c.id != bindparam("first_id"),
        or_(_A.c.state == OPEN, and_(_A.c.state == CLAIMED, _A.c.claimed_at < bindparam("cutoff"))),
        NOT_JUDGED_BY_ME,
    )
    .with_for_update(skip_locked=True, of=_A)
)
#: A paired campaign's control slots are claimed as their item's group too: the annotator's
#: other open block slots of the same item.
REST_OF_CONTROL = (
    select(_A.c.id, _A.c.position)
    .where(
        _A.c.item_id == bindparam("item_id"),
        _A.c.campaign_id == bindparam("campaign_id"),
        CONTROL,
        _A.c.annotator_id == bindparam("annotator_id"),
        _A.c.id != bindparam("first_id"),
        _A.c.state == SlotState.RESERVED,
    )
    .with_for_update(skip_locked=True, of=_A)
)
#: The claim path's extra candidate in a campaign with a control block: the annotator's
#: next reserved block slot (the annotator_id index), and their held block claims, which
#: belong to no task.
MY_RESERVED = (
    select(*CANDIDATE_COLUMNS)
    .where(
        _A.c.annotator_id == bindparam("annotator_id"),
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.state == SlotState.RESERVED,
        CONTROL,
    )
    .order_by(_A.c.position)
    .limit(1)
    .with_for_update(skip_locked=True, of=_A)
)
MY_BLOCK_CLAIMS = MY_CLAIMS.where(CONTROL)
# The same statements restricted to one task's slots (a campaign cut into tasks).
IN_TASK = _A.c.task_id == bindparam("task_id")
TASK_STATEMENTS = tuple(
    q.where(IN_TASK) for q in (MY_CLAIMS, FIRST_OPEN, FIRST_EXPIRED, REST_OF_GROUP)
)
CLAIM = (
    update(_A)
    .where(_A.c.id.in_(bindparam("ids", expanding=True)))
    .values(
        state=CLAIMED,
        annotator_id=bindparam("claimer"),
        claimed_at=bindparam("now"),
        claim_version=_A.c.claim_version + 1,
    )
)
TOUCH = (
    update(_A)
    .where(_A.c.id.in_(bindparam("ids", expanding=True)))
    .values(claimed_at=bindparam("now"))
)
FINISH = (
    update(_A)
    .where(
        _A.c.id == bindparam("assignment_id"),
        _A.c.annotator_id == bindparam("holder"),
        _A.c.claim_version == bindparam("held_version"),
        _A.c.state == CLAIMED,
    )
    .values(state=bindparam("new_state"))
)


#: PostgreSQL's transaction-scoped advisory lock that serialises the NEW group claims of a campaign
#: (a paired item, a document block): the first slot is locked by one statement and the rest of its
#: group collected by a second one, and without this lock a concurrent claimer's SKIP LOCKED takes
#: the group's next slot in between (with 20 annotators claiming at once, 37 of 82 items were
#: split). Taken after the annotator's and task's locks, before any slot; no path waits for a row
#: lock while holding it (the slot statements SKIP LOCKED).
GROUP_LOCK_KEY = 0x7D0C
GROUP_LOCK = text("SELECT pg_advisory_xact_lock(:ns, :cid)")


def lock_group_claims(conn: Any, campaign_id: int) -> None:
    """Serialise new group claims of the campaign until the transaction ends (PostgreSQL;
    SQLite's ``BEGIN IMMEDIATE`` serialises every writer already)."""
    if conn.dialect.name == "postgresql":
        conn.execute(GROUP_LOCK, {"ns": GROUP_LOCK_KEY, "cid": campaign_id})


def naive(t: datetime | None) -> datetime:
    """Comparable datetimes (SQLite returns naive UTC, PostgreSQL aware)."""
    if t is None:
        return datetime.min
    return t.replace(tzinfo=None) if t.tzinfo else t
