"""SQL of the assignment queue's claim path: claim slots atomically, finish them once.

Only :mod:`annotation.queue` and :mod:`annotation.judging.session` call these (they decide; this
module reads and writes). Every function runs inside the caller's transaction (a ``Session``
of ``db.engine.session_scope``). The rest of the queue's SQL: building it
(db.queue.build), its settings (db.queue.settings), reading a slot for display
(db.queue.slot_display), counts (db.queue.slot_counts), document blocks (db.queue.document_blocks),
active
sampling's rounds (db.queue.active_rounds), racing (db.queue.racing_slots).

Concurrency:

- PostgreSQL, paired items: a new claim of a paired campaign takes the campaign's group
  advisory lock (db.queue.claim_statements.lock_group_claims) before its first slot, so the item
  is claimed whole; the claim statements then never wait on a row while holding it.
- PostgreSQL: every action of an annotator (show, save, skip, undo) starts by locking the
  annotator's row (``annotator_campaign``), before any slot row. Two tabs of one annotator
  therefore run one after the other, and all paths take their locks in the same order:
  annotator, then slots. (A save that locked the slot first and the annotator last, through
  the judgment's foreign key and the claim, while a claim locks the annotator and then
  refreshes the held slot, would deadlock two tabs.) The claim selects candidate rows
  ``FOR UPDATE OF assignments SKIP LOCKED``, so two claimers never wait on or take the same
  slot, and two tabs of one annotator cannot take both slots of an overlapped output.
- SQLite: every transaction starts with ``BEGIN IMMEDIATE`` (db/engine.py), so claimers are
  serialised by the database's write lock; ``FOR UPDATE`` renders as nothing there.
- Finishing is a compare-and-set on (annotator, ``claim_version``, state = claimed): a claim
  that expired and was taken by someone else can no longer be finished by its first holder.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, bindparam, select, update
from sqlalchemy.orm import Session

from db.engine import session_scope
from db.locks import enter_campaign
from db.queue.claim_statements import (
    CLAIM,
    FINISH,
    FIRST_EXPIRED,
    FIRST_OPEN,
    MY_BLOCK_CLAIMS,
    MY_CLAIMS,
    MY_RESERVED,
    REST_OF_CONTROL,
    REST_OF_GROUP,
    TASK_STATEMENTS,
    TOUCH,
    lock_group_claims,
    naive,
)
from db.queue.document_blocks import claim_block
from db.schema.models import Annotator, Assignment, Campaign
from db.schema.vocabulary import (
    CONTROL_KINDS,
    CampaignMode,
    SlotKind,
    SlotState,
    documents_in_order,
)

OPEN, CLAIMED, DONE, SKIPPED, PENDING, PASSED = tuple(SlotState)[:6]  # short names of states
REGULAR, ATTENTION = SlotKind.REGULAR, SlotKind.ATTENTION


@contextmanager
def queue_transaction(engine: Engine) -> Iterator[Session]:
    """A write transaction of the queue.

    On SQLite, the threads of one server process (one per browser session) queue for the
    database in arrival order (db.engine's per-file ``FairLock``, taken by every transaction
    of the process, reads included) before ``BEGIN IMMEDIATE``: SQLite's busy handler polls
    with growing sleeps and is not fair, so under 20 concurrent annotators a writer could wait
    seconds. Other processes (the CLI) still meet the busy timeout. PostgreSQL needs no lock.
    """
    with session_scope(engine) as s:
        yield s


# ---------------------------------------------------------------- claiming


_AN, _CA = Annotator.__table__, Campaign.__table__
_ANNOTATOR_CAMPAIGN = (
    select(
        _AN.c.revoked_at,
        _CA.c.id,
        _CA.c.name,
        _CA.c.mode,
        _CA.c.show_metrics,
        _CA.c.show_reference,
        _CA.c.claim_timeout_s,
        _CA.c.paired,
        _CA.c.overlap,
        _CA.c.archived_at,
        _CA.c.meta,
        _AN.c.form_answers,
    )
    .join(_CA, _CA.c.id == _AN.c.campaign_id)
    .where(_AN.c.id == bindparam("annotator_id"))
    .with_for_update(of=_AN)
)


_CAMPAIGN_OF = select(_AN.c.campaign_id).where(_AN.c.id == bindparam("annotator_id"))


@dataclass(frozen=True)
class AnnotatorCampaign:
    """What an annotator's actions need of their campaign; ``revoked`` when the invite was."""

    revoked: bool
    id: int
    name: str
    mode: CampaignMode
    show_metrics: bool
    show_reference: bool
    claim_timeout_s: int
    paired: bool
    overlap: float = 0.0
    #: The campaign is archived: read-only, no annotating.
    archived: bool = False
    #: Documents are judged in order: the queue hands out whole blocks (claim_block).
    blocks: bool = False
    #: The campaign's tutorial as stored (None: none): an action asks whether the annotator
    #: passed it. Kept out of equality and the hash (a dict).
    tutorial: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    #: The campaign's shared control block (``meta["control_block"]``), None without one;
    #: kept out of equality and the hash like the tutorial.
    control: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    #: A DA campaign's Likert scale (``meta["likert"]``: labels and keys), None without one
    likert: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    #: The campaign's pre-task form (``meta["pretask_form"]``: intro and fields), None
    #: without one (formats.forms.pretask)
    form: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    #: The annotator has answered the pre-task form (``annotators.form_answers`` is set)
    form_answered: bool = False


def annotator_campaign(s: Session, annotator_id: int) -> AnnotatorCampaign | None:
    """The annotator's campaign, locking the annotator's row (PostgreSQL; SQLite's
    ``BEGIN IMMEDIATE`` holds the whole database), after the campaign's gate (shared,
    db.locks: archive and delete wait for the action, or it for them). Call it first in
    every transaction of an annotator's action: it takes the first locks of the one lock
    order (docs/administration.md, "Locks")."""
    conn = s.connection()
    if conn.dialect.name == "postgresql":
        cid = conn.execute(_CAMPAIGN_OF, {"annotator_id": annotator_id}).scalar()
        if cid is not None:
            enter_campaign(conn, cid)
    row = conn.execute(_ANNOTATOR_CAMPAIGN, {"annotator_id": annotator_id}).first()
    if row is None:
        return None
    revoked, cid, name, mode, *rest, archived_at, meta, answers = row
    likert, form = (meta or {}).get("likert"), (meta or {}).get("pretask_form")
    return AnnotatorCampaign(
        revoked is not None, cid, name, CampaignMode(mode), *rest,
        archived=archived_at is not None, blocks=documents_in_order(meta),
        tutorial=(meta or {}).get("tutorial") or None,
        control=_block(meta),
        likert=likert if isinstance(likert, dict) else None,
        form=form if isinstance(form, dict) and form.get("fields") else None,
        form_answered=answers is not None,
    )  # fmt: skip


def claim_next(
    s: Session,
    campaign_id: int,
    annotator_id: int,
    now: datetime,
    cutoff: datetime,
    paired: bool,
    blocks: bool = False,
    task_id: int | None = None,
    control: bool = False,
) -> list[int]:
    """Claim the next open (or expired) slot(s) for an annotator; their ids in queue order.

    ``task_id``: only that task's slots (held, open, expired; the paired group is one
    task's by construction, annotation.tasks.batches).

    Resumes the annotator's own claims first (refreshing ``claimed_at`` once it is older than
    half the timeout). A new claim takes the lowest-position slot the annotator may judge
    (open, or claimed by someone before ``cutoff``) and, for a paired campaign, every other
    claimable slot of the same item and overlap slot. [] when nothing is left for them.
    ``blocks``: the campaign judges documents in order
    (:func:`db.queue.document_blocks.claim_block`).

    The caller holds the annotator's lock (``annotator_campaign``), so two tabs of one
    annotator claim one after the other.

    ``control``: the campaign has a shared control block; the annotator's next reserved
    block slot is a candidate too (by position: before every regular slot when the block
    is placed at the start), and their held block claims, which belong to no task, are
    resumed in a task as well.
    """
    if blocks:  # documents judged in order: whole blocks (claim_block)
        return claim_block(s, campaign_id, annotator_id, now, cutoff, paired, task_id)
    conn = s.connection()
    mine, first_open, first_expired, rest = (
        (MY_CLAIMS, FIRST_OPEN, FIRST_EXPIRED, REST_OF_GROUP)
        if task_id is None
        else TASK_STATEMENTS
    )
    scope = {} if task_id is None else {"task_id": task_id}
    me = {"annotator_id": annotator_id, "campaign_id": campaign_id}
    held = conn.execute(mine, {**me, **scope}).all()
    if control and not held and task_id is not None:
        held = conn.execute(MY_BLOCK_CLAIMS, me).all()
    if held:
        return _resume_held(conn, held, now, cutoff)
    if paired:  # the item is claimed whole: one new group claim at a time (PostgreSQL)
        lock_group_claims(conn, campaign_id)
    params = {"annotator_id": annotator_id, "campaign_id": campaign_id, "cutoff": cutoff}
    candidates = [
        row
        for row in (
            conn.execute(first_open, {**params, **scope}).first(),
            conn.execute(first_expired, {**params, **scope}).first(),
            conn.execute(MY_RESERVED, me).first() if control else None,
        )
        if row is not None
    ]
    if not candidates:
        return []
    first_id, position, kind, item_id, slot = min(candidates, key=lambda r: r[1])
    claimed = [(position, first_id)]
    if paired and kind == REGULAR and item_id is not None:
        group = {**params, **scope, "item_id": item_id, "slot": slot, "first_id": first_id}
        claimed += [(pos, id_) for id_, pos in conn.execute(rest, group)]
    elif paired and kind in CONTROL_KINDS and item_id is not None:  # the block item whole
        group = {**params, "item_id": item_id, "first_id": first_id}
        claimed += [(pos, id_) for id_, pos in conn.execute(REST_OF_CONTROL, group)]
    ids = [id_ for _, id_ in sorted(claimed)]  # queue order, as MY_CLAIMS would read them
    conn.execute(CLAIM, {"ids": ids, "claimer": annotator_id, "now": now})
    return ids


def _resume_held(conn: Any, held: Sequence[Any], now: datetime, cutoff: datetime) -> list[int]:
    """The annotator's held claims, in queue order; their ``claimed_at`` refreshed once the
    oldest is past half the timeout."""
    ids = [r[0] for r in held]
    half = cutoff + (now - cutoff) / 2
    if any(naive(r[1]) < naive(half) for r in held):
        conn.execute(TOUCH, {"ids": ids, "now": now})
    return ids


def finish(
    s: Session, assignment_id: int, annotator_id: int, claim_version: int, state: str
) -> bool:
    """Compare-and-set a held claim to ``state``; False when the claim was lost meanwhile."""
    result = s.connection().execute(
        FINISH,
        {
            "assignment_id": assignment_id,
            "holder": annotator_id,
            "held_version": claim_version,
            "new_state": state,
        },
    )
    return result.rowcount == 1


def reclaim_for_undo(s: Session, assignment_id: int, annotator_id: int, now: datetime) -> None:
    """Give an undone slot back to its annotator (claimed again, new claim version)."""
    s.execute(
        update(Assignment)
        .where(Assignment.id == assignment_id, Assignment.annotator_id == annotator_id)
        .values(state=CLAIMED, claimed_at=now, claim_version=Assignment.claim_version + 1)
    )


def _block(meta: dict | None) -> dict | None:
    """The campaign's control block settings when it has one with items."""
    raw = (meta or {}).get("control_block")
    return raw if isinstance(raw, dict) and raw.get("items") else None
