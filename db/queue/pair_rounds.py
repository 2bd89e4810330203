"""Adaptive preference rounds' SQL: the pending pair slots in queue order, with the systems
of their two outputs (annotation.queue.pair_policy draws among them)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from db.schema.models import Assignment, Output, System
from db.schema.vocabulary import SlotKind, SlotState

_A = Assignment.__table__
_FIRST, _SECOND = aliased(Output, name="first_output"), aliased(Output, name="second_output")
_SA, _SB = aliased(System, name="system_a"), aliased(System, name="system_b")


@dataclass(frozen=True)
class PendingPair:
    id: int
    position: int
    item_id: int | None
    attention: bool
    system_a: str  # the slot's first output's system
    system_b: str  # its pair output's system


def pending_pairs(s: Session, campaign_id: int, limit: int) -> list[PendingPair]:
    """The first ``limit`` pending slots of a preference campaign, in queue order."""
    rows = s.execute(
        select(
            Assignment.id, Assignment.position, Assignment.item_id, Assignment.kind,
            _SA.name, _SB.name,
        )
        .join(_FIRST, _FIRST.id == Assignment.output_id)
        .join(_SECOND, _SECOND.id == Assignment.pair_output_id)
        .join(_SA, _SA.id == _FIRST.system_id)
        .join(_SB, _SB.id == _SECOND.system_id)
        .where(Assignment.campaign_id == campaign_id, Assignment.state == SlotState.PENDING)
        .order_by(Assignment.position)
        .limit(limit)
    ).all()  # fmt: skip
    return [
        PendingPair(i, p, item, SlotKind(kind) == SlotKind.ATTENTION, a, b)
        for i, p, item, kind, a, b in rows
    ]


def system_names(s: Session, campaign_id: int) -> tuple[tuple[str, ...], dict[str, int]]:
    """The campaign's systems by name (sorted: the estimators' order) and their indices."""
    names = tuple(
        s.scalars(
            select(System.name).where(System.campaign_id == campaign_id).order_by(System.name)
        ).all()
    )
    return names, {n: k for k, n in enumerate(names)}


def pair_key(i: int, j: int, k: int) -> int:
    """The index of the pair of systems i ≠ j in estimators.base.multiple.pairs order."""
    a, b = min(i, j), max(i, j)
    return a * k - a * (a + 1) // 2 + (b - a - 1)
