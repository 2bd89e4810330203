"""What the live monitor reads of a campaign's queue besides its judgments: the queue's
frontier (the first position whose label could still come), and the active design's visits
(db.reads.campaign.read_campaign gathers them into CampaignData)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from db.schema.models import Assignment
from db.schema.vocabulary import SlotKind, SlotState
from estimators.sampling.active import Visits


def has_rounds(cid: int) -> Any:
    """Whether an active draw round ever ran (else the monitor needs no visits)."""
    a = Assignment.__table__
    return exists().where(a.c.campaign_id == cid, a.c.draw_round.is_not(None))


def visit_rows(s: Session, cid: int) -> list[Any]:
    """First-judgment regular slots visited so far: output, position, π, state, round."""
    a = Assignment.__table__
    return s.execute(
        select(a.c.output_id, a.c.position, a.c.inclusion_prob, a.c.state, a.c.draw_round)
        .where(
            a.c.campaign_id == cid,
            a.c.kind == SlotKind.REGULAR,
            a.c.slot == 0,
            a.c.state != SlotState.PENDING,
        )
        .order_by(a.c.position)
    ).all()


def visits(rows: list[Any], out_pos: dict[int, tuple[int, int]]) -> Visits | None:
    """The active design's visits, one per item (its first slot's position), in queue order:
    π as recorded by the draw round (1.0 for a uniform slot: every visited item labelled),
    drawn unless "passed". Skipped items are dropped later, with their labels missing."""
    if not rows:
        return None
    seen: dict[int, int] = {}
    item, pi, drawn, position = [], [], [], []
    for oid, pos, incl, state, rnd in rows:
        col = out_pos[oid][1]
        if col in seen:
            continue
        seen[col] = len(item)
        item.append(col)
        pi.append(float(incl) if rnd is not None else 1.0)
        drawn.append(state != SlotState.PASSED)
        position.append(float(pos))
    return Visits(
        item=np.array(item, dtype=np.int64),
        pi=np.array(pi, dtype=float),
        drawn=np.array(drawn, dtype=bool),
        position=np.array(position, dtype=float),
    )


def first_pending(cid: int) -> list[Any]:
    """The queue's frontier as two scalar subqueries: the smallest position of an open and
    of a claimed regular slot whose label the monitor could still use (min of the two).

    Skipped slots are settled (no label comes at that position); an expired claim is still
    ``claimed`` until someone takes it, so it blocks; attention slots never carry estimator
    labels. An overlap slot of an output already judged (a done regular slot at an earlier
    position) does not block: its label is a repeat, used for agreement only (and one
    annotator alone can never take it). One subquery per state, so each walks the
    (campaign, state, position) index from its start.
    """
    a = Assignment.__table__
    done = a.alias("done_before")
    return [
        select(a.c.position)
        .where(
            a.c.campaign_id == cid,
            a.c.state == state,
            a.c.kind == SlotKind.REGULAR,
            ~exists().where(
                done.c.output_id == a.c.output_id,
                done.c.kind == SlotKind.REGULAR,
                done.c.state == SlotState.DONE,
                done.c.position < a.c.position,
            ),
        )
        .order_by(a.c.position)
        .limit(1)
        .scalar_subquery()
        for state in (SlotState.OPEN, SlotState.CLAIMED)
    ]
