"""SQL of the shared control block: the block's outputs, one slot per annotator and block
output (made when the annotator first asks for work), the counted-or-not choice carried by
the slots' kind, and the block's current judgments.

annotation.queue.control_block decides (which items, where the slots go, the logged choice);
this module reads and writes. Every function runs in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from db.judging.log import LABEL, campaign_log
from db.schema.models import Annotation, Annotator, Assignment, Item, Output, System
from db.schema.vocabulary import CONTROL_KINDS, SlotKind, SlotState

_A = Assignment.__table__


def block_outputs(s: Session, cid: int, item_ids: Sequence[str]) -> list[tuple[int, int]]:
    """(output id, item id) of every output of the named items (external ids), in item then
    system order."""
    if not item_ids:
        return []
    rows = s.execute(
        select(Output.id, Item.id, Item.external_id)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == cid, Item.external_id.in_(list(item_ids)))
        .order_by(Item.id, Output.system_id)
    ).all()
    return [(o, i) for o, i, _ in rows]


def known_items(s: Session, cid: int, item_ids: Sequence[str]) -> set[str]:
    """Which of ``item_ids`` (external ids) the campaign has."""
    return set(
        s.scalars(
            select(Item.external_id).where(
                Item.campaign_id == cid, Item.external_id.in_(list(item_ids))
            )
        )
    )


def all_item_ids(s: Session, cid: int) -> list[str]:
    """The campaign's items (external ids) in import order."""
    return list(s.scalars(select(Item.external_id).where(Item.campaign_id == cid)
                          .order_by(Item.id)))  # fmt: skip


def regular_span(s: Session, cid: int) -> tuple[int, int]:
    """(lowest, highest) position of the campaign's regular slots; (0, 0) with none."""
    lo, hi = s.execute(
        select(func.min(_A.c.position), func.max(_A.c.position)).where(
            _A.c.campaign_id == cid, _A.c.kind == SlotKind.REGULAR
        )
    ).one()
    return (int(lo or 0), int(hi or 0))


def my_block_outputs(s: Session, cid: int, annotator_id: int) -> set[int]:
    """Outputs the annotator already has a control slot for."""
    return set(
        s.scalars(
            select(_A.c.output_id).where(
                _A.c.campaign_id == cid, _A.c.annotator_id == annotator_id,
                _A.c.kind.in_(CONTROL_KINDS),
            )
        )
    )  # fmt: skip


def add_slots(s: Session, cid: int, annotator_id: int, slots: Sequence[tuple[int, int, int]],
              counted: bool) -> int:  # fmt: skip
    """Insert the annotator's control slots: (output id, item id, position) each, reserved
    for them, inclusion probability 1 (everyone judges the whole block)."""
    kind = SlotKind.CONTROL_COUNTED if counted else SlotKind.CONTROL
    rows = [
        {"campaign_id": cid, "output_id": o, "item_id": i, "annotator_id": annotator_id,
         "position": p, "inclusion_prob": 1.0, "state": SlotState.RESERVED.value,
         "kind": kind.value,
         "slot": 0, "claim_version": 0}
        for o, i, p in slots
    ]  # fmt: skip
    if rows:
        s.execute(_A.insert(), rows)
    return len(rows)


def set_counted(s: Session, cid: int, counted: bool) -> int:
    """Rewrite the kind of every control slot of the campaign (the choice); how many."""
    kind = SlotKind.CONTROL_COUNTED if counted else SlotKind.CONTROL
    return s.execute(
        update(Assignment)
        .where(Assignment.campaign_id == cid, Assignment.kind.in_(CONTROL_KINDS))
        .values(kind=kind.value)
    ).rowcount


def drop_open_slots(s: Session, cid: int) -> int:
    """Delete the block's slots nobody has answered (a block replaced or removed)."""
    answered = select(Annotation.assignment_id).where(Annotation.assignment_id.is_not(None))
    return s.execute(
        _A.delete().where(
            _A.c.campaign_id == cid, _A.c.kind.in_(CONTROL_KINDS),
            _A.c.state.in_([SlotState.RESERVED, SlotState.CLAIMED]), _A.c.id.not_in(answered),
        )
    ).rowcount  # fmt: skip


def block_judgments(s: Session, cid: int) -> list[Any]:
    """The block's current judgments: annotator name, item external id, system name, label,
    score, ESA score, DA score, created_at, in log order."""
    q = (
        campaign_log(
            cid, Annotator.name, Item.external_id, System.name, Annotation.label,
            Annotation.score, Annotation.esa_score, Annotation.da_score, Annotation.created_at,
            current_only=True,
        )
        .join(Output, Output.id == Annotation.output_id)
        .join(Item, Item.id == Output.item_id)
        .join(System, System.id == Output.system_id)
        .where(Annotation.kind == LABEL, Assignment.kind.in_(CONTROL_KINDS))
        .order_by(Annotation.id)
    )  # fmt: skip
    return list(s.execute(q).all())


def label_count(s: Session, cid: int) -> int:
    """The campaign's label rows so far (what a logged choice records it was made at)."""
    return int(s.scalar(
        select(func.count()).select_from(Annotation)
        .join(Annotator, Annotator.id == Annotation.annotator_id)
        .where(Annotator.campaign_id == cid, Annotation.kind == LABEL)
    ) or 0)  # fmt: skip


def block_progress(s: Session, cid: int) -> dict[str, tuple[int, int]]:
    """Annotator name → (block slots done, block slots made)."""
    rows = s.execute(
        select(Annotator.name, _A.c.state, func.count())
        .join(Annotator, Annotator.id == _A.c.annotator_id)
        .where(_A.c.campaign_id == cid, _A.c.kind.in_(CONTROL_KINDS))
        .group_by(Annotator.name, _A.c.state)
    ).all()
    out: dict[str, list[int]] = {}
    for name, state, n in rows:
        cell = out.setdefault(name, [0, 0])
        cell[1] += n
        if state == SlotState.DONE:
            cell[0] += n
    return {k: (v[0], v[1]) for k, v in out.items()}


def spread_positions(n: int, lo: int, hi: int, rng: np.random.Generator) -> list[int]:
    """``n`` positions spread evenly through [lo, hi], in a random order of the block."""
    if n == 0:
        return []
    step = (hi - lo + 1) / (n + 1)
    pos = [lo + round(step * (j + 1)) for j in range(n)]
    return [pos[k] for k in rng.permutation(n)]
