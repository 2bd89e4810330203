"""Active sampling's draw rounds: the pending slots a round visits, what its uncertainty
model reads, and the decisions it writes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, bindparam, func, select, update
from sqlalchemy.orm import Session

from db.judging import log
from db.schema.models import Annotation, Assignment, Item, MetricScore, Output
from db.schema.vocabulary import AnnotationKind, SlotKind, SlotState

OPEN, CLAIMED, DONE, SKIPPED, PENDING, PASSED = tuple(SlotState)[:6]  # short names of states
REGULAR, ATTENTION = SlotKind.REGULAR, SlotKind.ATTENTION

_A, _O, _I = Assignment.__table__, Output.__table__, Item.__table__


@dataclass(frozen=True)
class PendingSlot:
    id: int
    position: int
    kind: SlotKind
    item_id: int | None
    output_id: int
    slot: int
    #: the uniform design's probability (1.0, the overlap share, 0.0 for attention)
    base_prob: float


def pending_slots(s: Session, campaign_id: int, limit: int | None = None) -> list[PendingSlot]:
    """An active campaign's slots no draw round has visited yet, in queue order (the first
    ``limit``)."""
    rows = s.connection().execute(
        select(
            _A.c.id, _A.c.position, _A.c.kind, _A.c.item_id, _A.c.output_id, _A.c.slot,
            _A.c.inclusion_prob,
        )
        .where(_A.c.campaign_id == campaign_id, _A.c.state == PENDING)
        .order_by(_A.c.position)
        .limit(limit)
    )  # fmt: skip
    return [PendingSlot(i, p, SlotKind(k), it, o, sl, b) for i, p, k, it, o, sl, b in rows]


def pend_untouched_tail(s: Session, campaign_id: int) -> int:
    """Make the untouched tail of a uniform queue pending (switching to active sampling):
    the open slots after the last position any annotator has reached (claimed, done or
    skipped), none of which can have a label. Returns how many."""
    reached = s.scalar(
        select(func.max(_A.c.position)).where(
            _A.c.campaign_id == campaign_id, _A.c.state.in_([CLAIMED, DONE, SKIPPED])
        )
    )
    cond = [_A.c.campaign_id == campaign_id, _A.c.state == OPEN]
    if reached is not None:
        cond.append(_A.c.position > reached)
    return s.execute(update(_A).where(*cond).values(state=PENDING)).rowcount


def has_pending(s: Session, campaign_id: int) -> bool:
    # the state inline, as in annotator_slots: a parameter lets PostgreSQL's generic plan of
    # the prepared statement scan the whole table when nothing is pending (≈ 10 ms)
    pending = bindparam("pending", PENDING.value, literal_execute=True)
    query = select(_A.c.id).where(_A.c.campaign_id == campaign_id, _A.c.state == pending)
    return s.scalar(query.limit(1)) is not None


def settle_visits(s: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Write a draw round's decisions: per slot id its new state (open / passed), inclusion
    probability and round."""
    if not rows:
        return
    s.connection().execute(
        update(_A)
        .where(_A.c.id == bindparam("slot_id"), _A.c.state == PENDING)
        .values(
            state=bindparam("new_state"),
            inclusion_prob=bindparam("pi"),
            draw_round=bindparam("round"),
        ),
        [
            {"slot_id": r["id"], "new_state": r["state"], "pi": r["pi"], "round": r["round"]}
            for r in rows
        ],
    )


@dataclass(frozen=True)
class RoundInputs:
    """What a draw round's uncertainty model reads, in a few Core queries: per output of the
    campaign its item, system and score of one metric signature (None: no score), and the
    current regular judgments (output, label, HTER) in queue order."""

    outputs: list[tuple[int, int, int, float | None]]
    judgments: list[tuple[int, float | None, float | None]]


_MS = MetricScore.__table__


def round_signature(s: Session, campaign_id: int) -> list[tuple[str, str]]:
    """(signature, metric) of every metric scored in the campaign."""
    q = (
        select(_MS.c.signature, _MS.c.metric)
        .join(_O, _O.c.id == _MS.c.output_id)
        .join(_I, _I.c.id == _O.c.item_id)
        .where(_I.c.campaign_id == campaign_id)
        .distinct()
    )
    return [(sig, metric) for sig, metric in s.connection().execute(q)]


def round_inputs(s: Session, campaign_id: int, signature: str | None) -> RoundInputs:
    conn = s.connection()
    outputs = conn.execute(
        select(_O.c.id, _O.c.item_id, _O.c.system_id, _MS.c.value)
        .join(_I, _I.c.id == _O.c.item_id)
        .outerjoin(_MS, and_(_MS.c.output_id == _O.c.id, _MS.c.signature == signature))
        .where(_I.c.campaign_id == campaign_id)
    ).all()
    judged = conn.execute(
        log.campaign_log(
            campaign_id, Annotation.output_id, Annotation.label, Annotation.hter,
            current_only=True,
        )
        .where(Annotation.kind == AnnotationKind.LABEL, Assignment.kind == REGULAR)
        .order_by(Assignment.position)
    ).all()  # fmt: skip
    return RoundInputs([tuple(r) for r in outputs], [tuple(r) for r in judged])  # type: ignore[misc]
