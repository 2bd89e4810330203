"""SQL of the assignment queue: insert slots, claim them atomically, finish them once.

Only :mod:`annotation.queue` and :mod:`annotation.session` call these (they decide; this
module reads and writes). Every function runs inside the caller's transaction (a ``Session``
of ``db.engine.session_scope``).

Concurrency:

- PostgreSQL: every action of an annotator (show, save, skip, undo) starts by locking the
  annotator's row (``annotator_campaign``), before any slot row. Two tabs of one annotator
  therefore run one after the other, and all paths take their locks in the same order:
  annotator, then slots. (Saving used to lock the slot first and the annotator last, through
  the judgment's foreign key and the claim, while claiming locked the annotator and then
  refreshed the held slot: two tabs deadlocked.) The claim selects candidate rows
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
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    Engine,
    and_,
    bindparam,
    exists,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.orm import Session

from db import annotations as log
from db.campaigns import insert_returning_ids
from db.clock import utcnow
from db.engine import session_scope
from db.lifecycle import CampaignArchived
from db.models import (
    Annotation,
    Annotator,
    Assignment,
    AttentionCheck,
    Campaign,
    CampaignSettingChange,
    Item,
    MetricScore,
    Output,
)
from db.scores import IMPORTED_MARK
from db.vocabulary import AnnotationKind, CampaignMode, SlotKind, SlotState

OPEN, CLAIMED, DONE, SKIPPED, PENDING, PASSED = SlotState  # short names of states and kinds
REGULAR, ATTENTION = SlotKind

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
    kind: SlotKind
    position: int
    text: str  # the output, or the degraded copy for an attention check
    source: str
    reference: str | None
    slot: int = 0  # 0 the output's first judgment, 1 its overlap slot


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


# ---------------------------------------------------------------- building the queue


def campaign_for_update(s: Session, campaign_id: int) -> Campaign:
    """The campaign row, locked (PostgreSQL) so two queue builds cannot interleave;
    :class:`db.lifecycle.CampaignArchived` when it is archived (read-only)."""
    camp = s.scalar(select(Campaign).where(Campaign.id == campaign_id).with_for_update())
    if camp is None:
        raise KeyError(f"no campaign with id {campaign_id}")
    if camp.archived_at is not None:
        raise CampaignArchived(camp.name)
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


def insert_slots(s: Session, rows: Sequence[dict[str, Any]]) -> list[int]:
    """New assignment slots (campaign, output, item, position, kind, state, inclusion
    probability, ...); their ids in row order."""
    return insert_returning_ids(s, Assignment, rows)


def insert_attention_checks(s: Session, rows: Sequence[dict[str, Any]]) -> list[int]:
    """New attention checks (output, degraded text, severity, operations, expected label)."""
    return insert_returning_ids(s, AttentionCheck, rows)


def refresh_statistics(s: Session) -> None:
    """PostgreSQL: refresh the planner's statistics of the queue after a bulk build.

    Until autovacuum gets to it, a freshly loaded table looks empty to the planner, which then
    reads the progress counts by scanning the whole (campaign, state) index range (measured:
    38 ms instead of 0.05 ms per label at 100,000 slots). SQLite plans well without them.
    """
    if s.get_bind().dialect.name == "postgresql":
        s.execute(text("ANALYZE assignments"))


# ---------------------------------------------------------------- claiming


# The claim path runs on every label, so its statements are built once, here, with bind
# parameters (SQLAlchemy then reuses their cache keys and compiled forms) and executed on
# the session's connection without the ORM.
_A = Assignment.__table__
_MINE = Assignment.__table__.alias("mine")
_NOT_JUDGED_BY_ME = or_(
    _A.c.kind == ATTENTION,
    ~exists().where(
        _MINE.c.output_id == _A.c.output_id,
        _MINE.c.annotator_id == bindparam("annotator_id"),
        _MINE.c.kind == REGULAR,
    ),
)
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
    )
    .join(_CA, _CA.c.id == _AN.c.campaign_id)
    .where(_AN.c.id == bindparam("annotator_id"))
    .with_for_update(of=_AN)
)


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


def annotator_campaign(s: Session, annotator_id: int) -> AnnotatorCampaign | None:
    """The annotator's campaign, locking the annotator's row (PostgreSQL; SQLite's
    ``BEGIN IMMEDIATE`` holds the whole database). Call it first in every transaction of an
    annotator's action: it is the first lock of the one lock order (module docstring)."""
    row = s.connection().execute(_ANNOTATOR_CAMPAIGN, {"annotator_id": annotator_id}).first()
    if row is None:
        return None
    revoked, cid, name, mode, *rest, archived_at = row
    return AnnotatorCampaign(
        revoked is not None, cid, name, CampaignMode(mode), *rest, archived=archived_at is not None
    )


_MY_CLAIMS = (
    select(_A.c.id, _A.c.claimed_at)
    .where(
        _A.c.annotator_id == bindparam("annotator_id"),
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.state == CLAIMED,
    )
    .order_by(_A.c.position)
)
_CANDIDATE_COLUMNS = (_A.c.id, _A.c.position, _A.c.kind, _A.c.item_id, _A.c.slot)
_FIRST_OPEN = (
    select(*_CANDIDATE_COLUMNS)
    .where(_A.c.campaign_id == bindparam("campaign_id"), _A.c.state == OPEN, _NOT_JUDGED_BY_ME)
    .order_by(_A.c.position)
    .limit(1)
    .with_for_update(skip_locked=True, of=_A)
)
_FIRST_EXPIRED = (
    select(*_CANDIDATE_COLUMNS)
    .where(
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.state == CLAIMED,
        _A.c.claimed_at < bindparam("cutoff"),
        _NOT_JUDGED_BY_ME,
    )
    .order_by(_A.c.position)
    .limit(1)
    .with_for_update(skip_locked=True, of=_A)
)
_REST_OF_GROUP = (
    select(_A.c.id, _A.c.position)
    .where(
        _A.c.item_id == bindparam("item_id"),
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.slot == bindparam("slot"),
        _A.c.kind == REGULAR,
        _A.c.id != bindparam("first_id"),
        or_(_A.c.state == OPEN, and_(_A.c.state == CLAIMED, _A.c.claimed_at < bindparam("cutoff"))),
        _NOT_JUDGED_BY_ME,
    )
    .with_for_update(skip_locked=True, of=_A)
)
_CLAIM = (
    update(_A)
    .where(_A.c.id.in_(bindparam("ids", expanding=True)))
    .values(
        state=CLAIMED,
        annotator_id=bindparam("claimer"),
        claimed_at=bindparam("now"),
        claim_version=_A.c.claim_version + 1,
    )
)
_TOUCH = (
    update(_A)
    .where(_A.c.id.in_(bindparam("ids", expanding=True)))
    .values(claimed_at=bindparam("now"))
)
_FINISH = (
    update(_A)
    .where(
        _A.c.id == bindparam("assignment_id"),
        _A.c.annotator_id == bindparam("holder"),
        _A.c.claim_version == bindparam("held_version"),
        _A.c.state == CLAIMED,
    )
    .values(state=bindparam("new_state"))
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

    Resumes the annotator's own claims first (refreshing ``claimed_at`` once it is older than
    half the timeout). A new claim takes the lowest-position slot the annotator may judge
    (open, or claimed by someone before ``cutoff``) and, for a paired campaign, every other
    claimable slot of the same item and overlap slot. [] when nothing is left for them.

    The caller holds the annotator's lock (``annotator_campaign``), so two tabs of one
    annotator claim one after the other.
    """
    conn = s.connection()
    held = conn.execute(
        _MY_CLAIMS, {"annotator_id": annotator_id, "campaign_id": campaign_id}
    ).all()
    if held:
        ids = [r[0] for r in held]
        half = cutoff + (now - cutoff) / 2
        if any(_naive(r[1]) < _naive(half) for r in held):
            conn.execute(_TOUCH, {"ids": ids, "now": now})
        return ids
    params = {"annotator_id": annotator_id, "campaign_id": campaign_id, "cutoff": cutoff}
    candidates = [
        row
        for row in (
            conn.execute(_FIRST_OPEN, params).first(),
            conn.execute(_FIRST_EXPIRED, params).first(),
        )
        if row is not None
    ]
    if not candidates:
        return []
    first_id, position, kind, item_id, slot = min(candidates, key=lambda r: r[1])
    claimed = [(position, first_id)]
    if paired and kind == REGULAR and item_id is not None:
        group = {**params, "item_id": item_id, "slot": slot, "first_id": first_id}
        claimed += [(pos, id_) for id_, pos in conn.execute(_REST_OF_GROUP, group)]
    ids = [id_ for _, id_ in sorted(claimed)]  # queue order, as _MY_CLAIMS would read them
    conn.execute(_CLAIM, {"ids": ids, "claimer": annotator_id, "now": now})
    return ids


def _naive(t: datetime | None) -> datetime:
    """Comparable datetimes (SQLite returns naive UTC, PostgreSQL aware)."""
    if t is None:
        return datetime.min
    return t.replace(tzinfo=None) if t.tzinfo else t


def finish(
    s: Session, assignment_id: int, annotator_id: int, claim_version: int, state: str
) -> bool:
    """Compare-and-set a held claim to ``state``; False when the claim was lost meanwhile."""
    result = s.connection().execute(
        _FINISH,
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


# ---------------------------------------------------------------- reading for display


_O, _I, _C = Output.__table__, Item.__table__, AttentionCheck.__table__
_SLOT_ROW = (
    select(
        _A.c.id,
        _A.c.claim_version,
        _A.c.campaign_id,
        _A.c.annotator_id,
        _A.c.output_id,
        _O.c.item_id,
        _A.c.kind,
        _A.c.position,
        _O.c.text,
        _C.c.degraded_text,
        _I.c.source,
        _I.c.reference,
        _A.c.slot,
    )
    .select_from(_A)
    .join(_O, _O.c.id == _A.c.output_id)
    .join(_I, _I.c.id == _O.c.item_id)
    .outerjoin(_C, _C.c.id == _A.c.attention_check_id)
    .where(_A.c.id == bindparam("assignment_id"))
)
_S = MetricScore.__table__
_SCORES = (
    select(_S.c.metric, _S.c.value)
    .where(
        _S.c.output_id == bindparam("output_id"),
        # the built-in shown keys, and every metric the campaign's team imported
        _S.c.metric.in_(SHOWN_METRICS) | _S.c.signature.contains(IMPORTED_MARK, autoescape=True),
    )
    .order_by(_S.c.id)
)


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


def slot_row(s: Session, assignment_id: int) -> SlotRow | None:
    row = s.connection().execute(_SLOT_ROW, {"assignment_id": assignment_id}).first()
    if row is None:
        return None
    (aid, version, cid, annotator, oid, item, kind, pos, text, degraded, src, ref, slot) = row
    return SlotRow(
        assignment_id=aid,
        claim_version=version,
        campaign_id=cid,
        annotator_id=annotator,
        output_id=oid,
        item_id=item,
        kind=SlotKind(kind),
        position=pos,
        text=degraded if kind == ATTENTION and degraded is not None else text,
        source=src,
        reference=ref,
        slot=slot,
    )


def output_scores(s: Session, output_id: int) -> dict[str, float | None]:
    """metric key → value for the shown metrics of one output (newest signature wins):
    :data:`SHOWN_METRICS`, then the imported metrics by name."""
    rows = s.connection().execute(_SCORES, {"output_id": output_id})
    return {metric: value for metric, value in rows}


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


# The outputs of one item that the paired design serves together: the item's regular slots
# of one overlap slot number, in queue order (a shuffled system order, no system name).
_GROUP = (
    select(_A.c.output_id, _O.c.text)
    .select_from(_A)
    .join(_O, _O.c.id == _A.c.output_id)
    .where(
        _A.c.item_id == bindparam("item_id"),
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.slot == bindparam("slot"),
        _A.c.kind == REGULAR,
    )
    .order_by(_A.c.position)
)


def item_group(s: Session, campaign_id: int, item_id: int, slot: int) -> list[tuple[int, str]]:
    """(output id, text) of every output of an item queued in overlap slot ``slot`` (0 the
    first judgments, 1 the overlap ones), in queue order: the paired design's group, which
    one annotator claims together (``claim_next``). One indexed lookup (``item_id``)."""
    params = {"item_id": item_id, "campaign_id": campaign_id, "slot": slot}
    return [(oid, text) for oid, text in s.connection().execute(_GROUP, params)]


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
    row = s.connection().execute(
        _ANNOTATOR_COUNTS, {"annotator_id": annotator_id, "campaign_id": campaign_id}
    ).one()
    return AnnotatorSlots(int(row[0] or 0), int(row[1] or 0), bool(row[2]))


# ---------------------------------------------------------------- admin side

QUEUE_SETTINGS = (
    "mode",
    "paired",
    "overlap",
    "attention_rate",
    "claim_timeout_s",
    "show_metrics",
    "show_reference",
    "planned_labels",
    "live_design",
    "estimand",
    "sampling",
    "active_tau",
)


def campaign_settings(s: Session, campaign_id: int) -> dict[str, Any]:
    camp = s.get(Campaign, campaign_id)
    if camp is None:
        raise KeyError(f"no campaign with id {campaign_id}")
    return {k: getattr(camp, k) for k in (*QUEUE_SETTINGS, "queue_seed", "meta", "name")}


def update_campaign_settings(s: Session, campaign_id: int, values: dict[str, Any]) -> None:
    """Write the settings and log every value that changes, with the number of current
    labels at that moment (:class:`db.models.CampaignSettingChange`; append-only)."""
    camp = campaign_for_update(s, campaign_id)
    changed = {k: v for k, v in values.items() if getattr(camp, k) != v}
    if not changed:
        return
    log_setting_changes(s, campaign_id, {k: (getattr(camp, k), v) for k, v in changed.items()})
    s.execute(update(Campaign).where(Campaign.id == campaign_id).values(**changed))


def log_setting_changes(s: Session, campaign_id: int, changes: dict[str, tuple[Any, Any]]) -> None:
    """Append ``key → (old, new)`` to the campaign's setting log with the number of current
    labels now; also for settings kept outside the campaign's columns (guidelines in meta).
    The caller holds the campaign row (:func:`campaign_for_update`)."""
    labels = current_label_count(s, campaign_id)
    s.execute(
        insert(CampaignSettingChange),
        [
            {
                "campaign_id": campaign_id,
                "key": key,
                "old_value": _jsonable(old),
                "new_value": _jsonable(new),
                "labels_before": labels,
                "changed_at": utcnow(),
            }
            for key, (old, new) in changes.items()
        ],
    )


def _jsonable(value: Any) -> Any:
    return value.value if isinstance(value, StrEnum) else value


def current_label_count(s: Session, campaign_id: int) -> int:
    """Current (not undone) regular judgments of a campaign, imported ones included."""
    return int(
        s.scalar(
            log.campaign_log(campaign_id, func.count(), current_only=True).where(
                Annotation.kind == AnnotationKind.LABEL
            )
        )
        or 0
    )


@dataclass(frozen=True)
class SettingChange:
    key: str
    old_value: Any
    new_value: Any
    labels_before: int
    changed_at: datetime


def setting_changes(s: Session, campaign_id: int) -> list[SettingChange]:
    """Every logged change of a campaign's settings, oldest first."""
    rows = s.execute(
        select(
            CampaignSettingChange.key,
            CampaignSettingChange.old_value,
            CampaignSettingChange.new_value,
            CampaignSettingChange.labels_before,
            CampaignSettingChange.changed_at,
        )
        .where(CampaignSettingChange.campaign_id == campaign_id)
        .order_by(CampaignSettingChange.id)
    )
    return [SettingChange(*row) for row in rows]


def kind_counts(s: Session, campaign_id: int) -> dict[str, int]:
    rows = s.execute(
        select(Assignment.kind, func.count())
        .where(Assignment.campaign_id == campaign_id)
        .group_by(Assignment.kind)
    )
    return {kind: n for kind, n in rows}


# ---------------------------------------------------------------- active sampling's rounds


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


# ---------------------------------------------------------------- racing (annotation.racing)


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
    (inclusion probabilities stay the uniform design's; see annotation.racing)."""
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


