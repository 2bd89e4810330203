"""Document order's blocks: a new claim takes a whole document (db.queue.claim.claim_next hands
over to claim_block when the campaign judges documents in order)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, func, or_, select, update
from sqlalchemy.orm import Session

from db.queue.claim_statements import (
    CLAIM,
    FIRST_EXPIRED,
    FIRST_OPEN,
    IN_TASK,
    NOT_JUDGED_BY_ME,
    lock_group_claims,
    naive,
)
from db.schema.models import Assignment, Item, Output
from db.schema.vocabulary import SlotKind, SlotState

OPEN, CLAIMED, DONE, SKIPPED, PENDING, PASSED = tuple(SlotState)[:6]  # short names of states
REGULAR, ATTENTION = SlotKind.REGULAR, SlotKind.ATTENTION

_A, _O, _I = Assignment.__table__, Output.__table__, Item.__table__

_BLOCK_OF = (
    select(_I.c.doc_id, _O.c.system_id, _O.c.item_id)
    .select_from(_A)
    .join(_O, _O.c.id == _A.c.output_id)
    .join(_I, _I.c.id == _O.c.item_id)
    .where(_A.c.id == bindparam("first_id"))
)


_MY_FIRST_CLAIM = (
    select(
        _A.c.id,
        select(func.min(_A.c.claimed_at))
        .where(
            _A.c.annotator_id == bindparam("annotator_id"),
            _A.c.campaign_id == bindparam("campaign_id"),
            _A.c.state == CLAIMED,
        )
        .scalar_subquery(),
    )
    .where(
        _A.c.annotator_id == bindparam("annotator_id"),
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.state == CLAIMED,
    )
    .order_by(_A.c.position)
    .limit(1)
)
_TOUCH_MINE = (
    update(_A)
    .where(
        _A.c.annotator_id == bindparam("holder"),
        _A.c.campaign_id == bindparam("in_campaign"),
        _A.c.state == CLAIMED,
    )
    .values(claimed_at=bindparam("now"))
)


_BLOCK_STATEMENTS = (_MY_FIRST_CLAIM, FIRST_OPEN, FIRST_EXPIRED)
_BLOCK_TASK_STATEMENTS = tuple(q.where(IN_TASK) for q in _BLOCK_STATEMENTS)


def claim_block(
    s: Session, campaign_id: int, annotator_id: int, now: datetime, cutoff: datetime,
    paired: bool, task_id: int | None = None,
) -> list[int]:  # fmt: skip
    """Document order: a new claim takes the whole block of its first slot (one system's
    document, or the document with every system's outputs when ``paired``) — every slot of
    the block that is open or whose claim expired — so nobody else takes a segment of a
    document someone is on, and :data:`db.queue.claim_statements.MY_CLAIMS` serves the block in
    queue (= document) order. A block abandoned midway expires as a whole (its claims share
    ``claimed_at``) and the next claimer takes over its unanswered segments. With ``task_id``
    only the task's slots are claimed (a task holds whole blocks, or consecutive parts of a
    document longer than the task). While they hold a block, only its first held slot is
    returned (a paired block holds up to documents × systems slots; the page shows the
    first), and all their claims are refreshed together past half the timeout.

    PostgreSQL: new block claims of a campaign are serialised by the advisory lock of
    :func:`db.queue.claim_statements.lock_group_claims`, as paired item claims are.
    """
    conn = s.connection()
    params = {"annotator_id": annotator_id, "campaign_id": campaign_id, "cutoff": cutoff}
    first_claim, first_open, first_expired = _BLOCK_STATEMENTS
    if task_id is not None:
        params["task_id"] = task_id
        first_claim, first_open, first_expired = _BLOCK_TASK_STATEMENTS
    held = conn.execute(first_claim, params).first()
    if held is not None:  # the block they are on: its next segment (one row, not the block)
        if naive(held[1]) < naive(cutoff + (now - cutoff) / 2):
            touch = {"holder": annotator_id, "in_campaign": campaign_id, "now": now}
            conn.execute(_TOUCH_MINE, touch)
        return [held[0]]
    lock_group_claims(conn, campaign_id)
    candidates = [
        row
        for row in (
            conn.execute(first_open, params).first(),
            conn.execute(first_expired, params).first(),
        )
        if row is not None
    ]
    if not candidates:
        return []
    first_id, position, kind, _item, slot = min(candidates, key=lambda r: r[1])
    claimed = [(position, first_id)]
    if kind == REGULAR:
        claimed += _rest_of_block(conn, params, first_id, slot, paired)
    ids = [id_ for _, id_ in sorted(claimed)]
    conn.execute(CLAIM, {"ids": ids, "claimer": annotator_id, "now": now})
    return ids


def _rest_of_block(
    conn: Any, params: dict[str, Any], first_id: int, slot: int, paired: bool
) -> list[tuple[int, int]]:
    """(position, id) of the other claimable slots of ``first_id``'s block (same document —
    or same item when it has no doc_id —, same system unless paired, same overlap slot)."""
    doc, system, item = conn.execute(_BLOCK_OF, {"first_id": first_id}).one()
    items = [item]
    if doc is not None:  # the document's items first (the campaign's items, by doc_id), so
        # that the slots are found by the item index, not among the campaign's open slots
        same_doc = select(_I.c.id).where(
            _I.c.campaign_id == params["campaign_id"], _I.c.doc_id == doc
        )
        items = list(conn.execute(same_doc).scalars())
    same = [_A.c.item_id.in_(items)]
    if "task_id" in params:
        same.append(IN_TASK)
    if not paired:
        same.append(_O.c.system_id == system)
    query = (
        select(_A.c.position, _A.c.id)
        .select_from(_A)
        .join(_O, _O.c.id == _A.c.output_id)
        .where(
            *same,
            _A.c.campaign_id == bindparam("campaign_id"),
            _A.c.slot == slot,
            _A.c.kind == REGULAR,
            _A.c.id != first_id,
            or_(
                _A.c.state == OPEN,
                and_(_A.c.state == CLAIMED, _A.c.claimed_at < bindparam("cutoff")),
            ),
            NOT_JUDGED_BY_ME,
        )
        .with_for_update(skip_locked=True, of=_A)
    )
    return [(pos, id_) for pos, id_ in conn.execute(query, params)]
