"""How many slots of a campaign are in which state, and an annotator's share of them (the
page's progress bar and its "left for you")."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, exists, func, select
from sqlalchemy.orm import Session

from db.schema.models import Assignment
from db.schema.vocabulary import SlotKind, SlotState

OPEN, CLAIMED, DONE, SKIPPED, PENDING, PASSED = tuple(SlotState)[:6]  # short names of states
REGULAR, ATTENTION = SlotKind.REGULAR, SlotKind.ATTENTION

_A = Assignment.__table__


def _per_state(fn, state: str):  # type: ignore[no-untyped-def]
    return (
        select(fn)
        .where(_A.c.campaign_id == bindparam("campaign_id"), _A.c.state == state)
        .scalar_subquery()
    )


# Progress without scanning the queue: positions are dense from 0 (every build and the
# importer append at max + 1), so the number of slots is 1 + the largest position, found
# by one index lookup per state; only the finished and held slots are counted.
# Active sampling: pending slots count as open (not yet settled); passed ones as settled.
_FAST_COUNTS = select(
    *(
        _per_state(func.max(_A.c.position), st)
        for st in (OPEN, CLAIMED, DONE, SKIPPED, PENDING, PASSED)
    ),
    *(_per_state(func.count(), st) for st in (CLAIMED, DONE, SKIPPED, PASSED)),
)


def queue_counts(s: Session, campaign_id: int) -> dict[str, int]:
    """All slots of a campaign by state (open / claimed / done / skipped / passed), in
    O(log n + finished) (the page's progress bar, see ``_FAST_COUNTS``); an active
    campaign's pending slots count as open."""
    row = s.connection().execute(_FAST_COUNTS, {"campaign_id": campaign_id}).one()
    *maxes, claimed, done, skipped, passed = row
    total = 1 + max((m for m in maxes if m is not None), default=-1)
    return {
        OPEN: total - claimed - done - skipped - passed,
        CLAIMED: claimed,
        DONE: done,
        SKIPPED: skipped,
        PASSED: passed,
    }


_MY_SLOTS = Assignment.__table__.alias("my_slots")
_ANNOTATOR_COUNTS = select(
    select(func.count())
    .where(
        _A.c.annotator_id == bindparam("annotator_id"),
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.state == CLAIMED,
    )
    .scalar_subquery(),
    # open (or not yet drawn) regular slots of outputs this annotator had: never theirs.
    # No campaign filter (an output belongs to one campaign): the output index is then the
    # only one to use, so SQLite (no statistics) does not walk the campaign's whole open
    # range of the queue index instead (100 ms at 100,000 slots instead of 0.1 ms).
    select(func.count())
    .where(
        _A.c.output_id.in_(
            select(_MY_SLOTS.c.output_id).where(
                _MY_SLOTS.c.annotator_id == bindparam("annotator_id"),
                _MY_SLOTS.c.kind == REGULAR,
            )
        ),
        _A.c.kind == REGULAR,
        _A.c.state.in_([OPEN, PENDING]),
    )
    .scalar_subquery(),
    # the state inline: with a parameter, PostgreSQL's generic plan (from the sixth run of
    # the prepared statement on) scans the whole table when nothing is pending (18 ms)
    exists().where(
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.state == bindparam("pending", PENDING.value, literal_execute=True),
    ),
)


@dataclass(frozen=True)
class AnnotatorSlots:
    """An annotator's share of the queue: the slots they hold now, and the open (or pending)
    slots they may never take because they judged, skipped or hold the output already."""

    held: int
    open_not_theirs: int
    pending: bool  # active sampling: the campaign has slots no draw round visited yet


def annotator_slots(s: Session, campaign_id: int, annotator_id: int) -> AnnotatorSlots:
    """Held and excluded slots of one annotator in O(their own slots) (the annotator
    index, then the output index per slot of theirs), in one statement: the page's "left
    for you" is the campaign's open slots (``queue_counts``, pending ones included)
    − ``open_not_theirs`` + ``held``."""
    row = (
        s.connection()
        .execute(_ANNOTATOR_COUNTS, {"annotator_id": annotator_id, "campaign_id": campaign_id})
        .one()
    )
    return AnnotatorSlots(int(row[0] or 0), int(row[1] or 0), bool(row[2]))


def kind_counts(s: Session, campaign_id: int) -> dict[str, int]:
    rows = s.execute(
        select(Assignment.kind, func.count())
        .where(Assignment.campaign_id == campaign_id)
        .group_by(Assignment.kind)
    )
    return {kind: n for kind, n in rows}
