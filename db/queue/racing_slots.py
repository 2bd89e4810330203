"""Racing's slots (annotation.queue.racing): pending slots open or pass by their system, a dropped
system's open slots pass, and switching racing off opens them again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from db.schema.models import Assignment, Output
from db.schema.vocabulary import SlotKind, SlotState

OPEN, CLAIMED, DONE, SKIPPED, PENDING, PASSED = tuple(SlotState)[:6]  # short names of states
REGULAR, ATTENTION = SlotKind.REGULAR, SlotKind.ATTENTION

_A, _O = Assignment.__table__, Output.__table__


@dataclass(frozen=True)
class RacingSlot:
    """A pending slot as a racing round sees it: its system decides whether it opens."""

    id: int
    kind: SlotKind
    item_id: int | None
    system_id: int


def racing_pending(s: Session, campaign_id: int, limit: int) -> list[RacingSlot]:
    """The first ``limit`` pending slots of a racing campaign, in queue order, with the
    system of each slot's output."""
    rows = s.connection().execute(
        select(_A.c.id, _A.c.kind, _A.c.item_id, _O.c.system_id)
        .join(_O, _O.c.id == _A.c.output_id)
        .where(_A.c.campaign_id == campaign_id, _A.c.state == PENDING)
        .order_by(_A.c.position)
        .limit(limit)
    )
    return [RacingSlot(i, SlotKind(k), it, sys) for i, k, it, sys in rows]


def set_pending_states(s: Session, opened: Sequence[int], passed: Sequence[int]) -> None:
    """A racing round's decisions: pending slots open or pass, with no draw round recorded
    (inclusion probabilities stay the uniform design's; see annotation.queue.racing)."""
    for state, ids in ((OPEN, opened), (PASSED, passed)):
        if ids:
            s.connection().execute(
                update(_A).where(_A.c.id.in_(list(ids)), _A.c.state == PENDING).values(state=state)
            )


def pass_open_slots(s: Session, campaign_id: int, system_ids: Sequence[int]) -> int:
    """Pass the open regular slots of these systems (racing drops them): nobody holds them,
    so no label is lost; claimed and finished slots are left alone. Returns how many."""
    if not system_ids:
        return 0
    outputs = select(_O.c.id).where(_O.c.system_id.in_(list(system_ids)))
    return s.execute(
        update(_A)
        .where(
            _A.c.campaign_id == campaign_id,
            _A.c.kind == REGULAR,
            _A.c.state == OPEN,
            _A.c.output_id.in_(outputs),
        )
        .values(state=PASSED)
    ).rowcount


def end_racing(s: Session, campaign_id: int) -> int:
    """Racing switched off: every pending slot opens, and the slots racing passed (passed
    with no draw round; active sampling's passes always record one) open again at their
    own positions, so the queue is the uniform design's permutation again. Returns how many
    slots opened."""
    pending = update(_A).where(_A.c.campaign_id == campaign_id, _A.c.state == PENDING)
    raced = update(_A).where(
        _A.c.campaign_id == campaign_id,
        _A.c.state == PASSED,
        _A.c.kind == REGULAR,
        _A.c.draw_round.is_(None),
    )
    return sum(s.execute(q.values(state=OPEN)).rowcount for q in (pending, raced))
