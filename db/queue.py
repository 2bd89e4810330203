"""SQL of the assignment queue: insert slots, claim them atomically, finish them once.

Only :mod:`annotation.queue` calls these (it decides; this module reads and writes). Every
function runs inside the caller's transaction (a ``Session`` of ``db.engine.session_scope``).

Concurrency:

- PostgreSQL: the claim selects candidate rows ``FOR UPDATE OF assignments SKIP LOCKED``, so
  two claimers never wait on or take the same slot, and the annotator's own row is locked
  first so two tabs of one annotator cannot take both slots of an overlapped output.
- SQLite: every transaction starts with ``BEGIN IMMEDIATE`` (db/engine.py), so claimers are
  serialised by the database's write lock; ``FOR UPDATE`` renders as nothing there.
- Finishing is a compare-and-set on (annotator, ``claim_version``, state = claimed): a claim
  that expired and was taken by someone else can no longer be finished by its first holder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, exists, func, insert, or_, select, update
from sqlalchemy.orm import Session, aliased

from db.models import (
    Annotator,
    Assignment,
    AttentionCheck,
    Campaign,
    Item,
    MetricScore,
    Output,
)

OPEN, CLAIMED, DONE, SKIPPED = "open", "claimed", "done", "skipped"
REGULAR, ATTENTION = "regular", "attention"

#: Metric keys shown beside an item, in display order.
SHOWN_METRICS = ("bleu", "chrf", "ter", "bertscore_f")


@dataclass(frozen=True)
class SlotRow:
    """Everything the annotate page shows for one claimed slot (no system name)."""

    assignment_id: int
    claim_version: int
    campaign_id: int
    annotator_id: int
    output_id: int
    item_id: int | None
    kind: str
    position: int
    text: str  # the output, or the degraded copy for an attention check
    source: str
    reference: str | None


# ---------------------------------------------------------------- building the queue


def campaign_for_update(s: Session, campaign_id: int) -> Campaign:
    """The campaign row, locked (PostgreSQL) so two queue builds cannot interleave."""
    camp = s.scalar(select(Campaign).where(Campaign.id == campaign_id).with_for_update())
    if camp is None:
        raise KeyError(f"no campaign with id {campaign_id}")
    return camp


def pool_outputs(s: Session, campaign_id: int) -> list[tuple[int, int, int, str]]:
    """(output id, item id, system id, text) of every output of a campaign."""
    rows = s.execute(
        select(Output.id, Output.item_id, Output.system_id, Output.text)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == campaign_id)
        .order_by(Output.id)
    )
    return [tuple(r) for r in rows]  # type: ignore[misc]


def queued_output_ids(s: Session, campaign_id: int) -> set[int]:
    """Outputs that already have a regular slot (queued earlier, or imported judgments)."""
    rows = s.scalars(
        select(Assignment.output_id)
        .where(Assignment.campaign_id == campaign_id, Assignment.kind == REGULAR)
        .distinct()
    )
    return set(rows)


def next_position(s: Session, campaign_id: int) -> int:
    last = s.scalar(
        select(func.max(Assignment.position)).where(Assignment.campaign_id == campaign_id)
    )
    return 0 if last is None else last + 1


def insert_rows(s: Session, model: type, rows: Sequence[dict[str, Any]]) -> list[int]:
    """Bulk INSERT returning the new ids in order."""
    if not rows:
        return []
    result = s.execute(insert(model).returning(model.id, sort_by_parameter_order=True), list(rows))
    return [r[0] for r in result]


# ---------------------------------------------------------------- claiming


def _lock_annotator(s: Session, annotator_id: int) -> None:
    s.execute(select(Annotator.id).where(Annotator.id == annotator_id).with_for_update())


def my_claims(s: Session, campaign_id: int, annotator_id: int) -> list[int]:
    """Ids of the slots the annotator holds, in queue order."""
    return list(
        s.scalars(
            select(Assignment.id)
            .where(
                Assignment.annotator_id == annotator_id,
                Assignment.campaign_id == campaign_id,
                Assignment.state == CLAIMED,
            )
            .order_by(Assignment.position)
        )
    )


_MINE = aliased(Assignment, name="mine")  # module level: keeps SQLAlchemy's statement cache warm


def _not_judged_by(annotator_id: int, a: Any) -> Any:
    """SQL condition: ``a`` is an attention slot, or its output never had a regular slot
    of this annotator (an annotator never gets the same output twice)."""
    mine = _MINE
    return or_(
        a.kind == ATTENTION,
        ~exists().where(
            mine.output_id == a.output_id,
            mine.annotator_id == annotator_id,
            mine.kind == REGULAR,
        ),
    )


def _first_candidate(
    s: Session, campaign_id: int, annotator_id: int, state: str, cutoff: datetime | None
) -> Assignment | None:
    a = Assignment
    cond = [a.campaign_id == campaign_id, a.state == state, _not_judged_by(annotator_id, a)]
    if cutoff is not None:
        cond.append(a.claimed_at < cutoff)
    return s.scalar(
        select(a).where(*cond).order_by(a.position).limit(1).with_for_update(skip_locked=True, of=a)
    )


def claim_next(
    s: Session,
    campaign_id: int,
    annotator_id: int,
    now: datetime,
    cutoff: datetime,
    paired: bool,
) -> list[int]:
    """Claim the next open (or expired) slot(s) for an annotator; their ids in queue order.

    Resumes the annotator's own claims first (and refreshes their ``claimed_at``). A new
    claim takes the lowest-position slot the annotator may judge and, for a paired campaign,
    every other claimable slot of the same item and overlap slot. Returns [] when nothing is
    left for this annotator.
    """
    _lock_annotator(s, annotator_id)
    held = my_claims(s, campaign_id, annotator_id)
    if held:
        s.execute(update(Assignment).where(Assignment.id.in_(held)).values(claimed_at=now))
        return held
    candidates = [
        c
        for c in (
            _first_candidate(s, campaign_id, annotator_id, OPEN, None),
            _first_candidate(s, campaign_id, annotator_id, CLAIMED, cutoff),
        )
        if c is not None
    ]
    if not candidates:
        return []
    first = min(candidates, key=lambda c: c.position)
    ids = [first.id]
    if paired and first.kind == REGULAR and first.item_id is not None:
        a = Assignment
        ids += list(
            s.scalars(
                select(a.id)
                .where(
                    a.item_id == first.item_id,
                    a.campaign_id == campaign_id,
                    a.slot == first.slot,
                    a.kind == REGULAR,
                    a.id != first.id,
                    or_(a.state == OPEN, and_(a.state == CLAIMED, a.claimed_at < cutoff)),
                    _not_judged_by(annotator_id, a),
                )
                .with_for_update(skip_locked=True, of=a)
            )
        )
    s.execute(
        update(Assignment)
        .where(Assignment.id.in_(ids))
        .values(
            state=CLAIMED,
            annotator_id=annotator_id,
            claimed_at=now,
            claim_version=Assignment.claim_version + 1,
        )
    )
    return list(
        s.scalars(select(Assignment.id).where(Assignment.id.in_(ids)).order_by(Assignment.position))
    )


def finish(
    s: Session, assignment_id: int, annotator_id: int, claim_version: int, state: str
) -> bool:
    """Compare-and-set a held claim to ``state``; False when the claim was lost meanwhile."""
    result = s.execute(
        update(Assignment)
        .where(
            Assignment.id == assignment_id,
            Assignment.annotator_id == annotator_id,
            Assignment.claim_version == claim_version,
            Assignment.state == CLAIMED,
        )
        .values(state=state)
    )
    return result.rowcount == 1


def reclaim_for_undo(s: Session, assignment_id: int, annotator_id: int, now: datetime) -> None:
    """Give an undone slot back to its annotator (claimed again, new claim version)."""
    s.execute(
        update(Assignment)
        .where(Assignment.id == assignment_id, Assignment.annotator_id == annotator_id)
        .values(state=CLAIMED, claimed_at=now, claim_version=Assignment.claim_version + 1)
    )


# ---------------------------------------------------------------- reading for display


def slot_row(s: Session, assignment_id: int) -> SlotRow | None:
    a = Assignment
    row = s.execute(
        select(
            a.id,
            a.claim_version,
            a.campaign_id,
            a.annotator_id,
            a.output_id,
            Output.item_id,
            a.kind,
            a.position,
            Output.text,
            AttentionCheck.degraded_text,
            Item.source,
            Item.reference,
        )
        .join(Output, Output.id == a.output_id)
        .join(Item, Item.id == Output.item_id)
        .outerjoin(AttentionCheck, AttentionCheck.id == a.attention_check_id)
        .where(a.id == assignment_id)
    ).one_or_none()
    if row is None:
        return None
    (aid, version, cid, annotator, oid, item, kind, pos, text, degraded, src, ref) = row
    return SlotRow(
        assignment_id=aid,
        claim_version=version,
        campaign_id=cid,
        annotator_id=annotator,
        output_id=oid,
        item_id=item,
        kind=kind,
        position=pos,
        text=degraded if kind == ATTENTION and degraded is not None else text,
        source=src,
        reference=ref,
    )


def output_scores(s: Session, output_id: int) -> dict[str, float | None]:
    """metric key → value for the shown metrics of one output (newest signature wins)."""
    rows = s.execute(
        select(MetricScore.metric, MetricScore.value)
        .where(MetricScore.output_id == output_id, MetricScore.metric.in_(SHOWN_METRICS))
        .order_by(MetricScore.id)
    )
    return {metric: value for metric, value in rows}


def queue_counts(s: Session, campaign_id: int, regular_only: bool = False) -> dict[str, int]:
    """Slots of a campaign by state (open / claimed / done / skipped).

    All slots by default (answered from the claim index alone: the page's progress bar);
    ``regular_only`` leaves out attention checks.
    """
    cond = [Assignment.campaign_id == campaign_id]
    if regular_only:
        cond.append(Assignment.kind == REGULAR)
    rows = s.execute(select(Assignment.state, func.count()).where(*cond).group_by(Assignment.state))
    counts = {OPEN: 0, CLAIMED: 0, DONE: 0, SKIPPED: 0}
    counts.update({state: n for state, n in rows})
    return counts


def annotator_slot_counts(s: Session, annotator_id: int) -> dict[str, int]:
    """This annotator's slots by state (regular and attention alike; the page hides which)."""
    rows = s.execute(
        select(Assignment.state, func.count())
        .where(Assignment.annotator_id == annotator_id)
        .group_by(Assignment.state)
    )
    counts = {CLAIMED: 0, DONE: 0, SKIPPED: 0}
    counts.update({state: n for state, n in rows})
    return counts
