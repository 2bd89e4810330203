"""The append-only annotation log: the SQL the annotate flow needs (the annotators' rows:
db.people.annotators; the per-annotator statistics: db.judging.annotator_stats).

Annotation kinds:

- ``label``     a judgment of a regular slot: ``label`` (1 adequate / 0 inadequate) and/or
                ``post_edit`` with its ``hter``; ``seconds`` spent on the item.
- ``skip``      no judgment, with a ``skip_reason``.
- ``attention`` an answer to an attention check (same fields as a label). A separate kind so
                that every reader of ``kind == "label"`` (exports, estimators) leaves them out;
                the real output is ``output_id`` but the annotator saw a degraded copy.
- ``undo``      supersedes (``supersedes_id``) the row it takes back; nothing is updated.

"Current" rows are those no later row supersedes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, bindparam, func, insert, select
from sqlalchemy.orm import Session, aliased

from db.clock import utcnow
from db.schema.models import (
    Annotation,
    Annotator,
    Assignment,
    AttentionCheck,
    Item,
    Output,
    System,
)
from db.schema.vocabulary import AnnotationKind, SlotState

LABEL, SKIP, ATTENTION, UNDO = AnnotationKind
JUDGMENT_KINDS = (LABEL, SKIP, ATTENTION)
#: The row that supersedes another (module level: keeps SQLAlchemy's statement cache warm).
_LATER = aliased(Annotation, name="later")
SUPERSEDING = _LATER


def campaign_log(campaign_id: int, *columns: Any, current_only: bool = False) -> Select:
    """SELECT ``columns`` over a campaign's append-only annotation log.

    Each annotation is joined to its annotator, its assignment and the assignment's
    attention check (outer: imported or free rows have none), and to ``SUPERSEDING``, the
    row that undoes or corrects it (NULL columns when none does). ``current_only`` keeps the
    rows nothing supersedes. Callers add their own joins (Output, Item, System), filters
    and order.
    """
    q = (
        select(*columns)
        .select_from(Annotation)
        .join(Annotator, Annotator.id == Annotation.annotator_id)
        .outerjoin(_LATER, _LATER.supersedes_id == Annotation.id)
        .outerjoin(Assignment, Assignment.id == Annotation.assignment_id)
        .outerjoin(AttentionCheck, AttentionCheck.id == Assignment.attention_check_id)
        .where(Annotator.campaign_id == campaign_id)
    )
    return q.where(_LATER.id.is_(None)) if current_only else q


# ---------------------------------------------------------------- the log


_LOG_COLUMNS = (
    "output_id",
    "annotator_id",
    "assignment_id",
    "kind",
    "label",
    "score",
    "post_edit",
    "hter",
    "skip_reason",
    "seconds",
    "spans",
    "esa_score",
    "da_score",
    "screen_position",
    "screen_size",
    "pair_output_id",
    "preference",
    "strength",
    "reason",
    "inclusion_prob",
    "comment",
    "supersedes_id",
    "created_at",
)
_APPEND = insert(Annotation.__table__).returning(Annotation.__table__.c.id)


def append(s: Session, **row: Any) -> int:
    """Append one annotation row; its id. ``created_at`` defaults to now."""
    unknown = set(row) - set(_LOG_COLUMNS)
    if unknown:
        raise TypeError(f"unknown annotation fields {sorted(unknown)}")
    params = dict.fromkeys(_LOG_COLUMNS)
    params.update(row)
    if params["created_at"] is None:
        params["created_at"] = utcnow()
    return s.connection().execute(_APPEND, params).scalar_one()


@dataclass(frozen=True)
class LastJudgment:
    """The annotator's newest current judgment or skip: what an undo takes back."""

    annotation_id: int
    output_id: int
    assignment_id: int | None
    kind: AnnotationKind
    label: int | None
    post_edit: str | None
    skip_reason: str | None
    spans: list[dict[str, Any]] | None


def _current_newest_first(annotator_id: int, *columns: Any) -> Any:
    """``columns`` of the annotator's judgment rows (label/skip/attention) that no later row
    supersedes, newest first."""
    later = _LATER
    return (
        select(*columns)
        .outerjoin(later, later.supersedes_id == Annotation.id)
        .where(
            Annotation.annotator_id == annotator_id,
            Annotation.kind.in_(JUDGMENT_KINDS),
            later.id.is_(None),
        )
        .order_by(Annotation.id.desc())
    )


def last_current_judgment(s: Session, annotator_id: int) -> LastJudgment | None:
    """The annotator's newest label/skip/attention row that no later row supersedes, or
    None."""
    row = s.execute(
        _current_newest_first(
            annotator_id,
            Annotation.id,
            Annotation.output_id,
            Annotation.assignment_id,
            Annotation.kind,
            Annotation.label,
            Annotation.post_edit,
            Annotation.skip_reason,
            Annotation.spans,
        ).limit(1)
    ).one_or_none()
    if row is None:
        return None
    aid, oid, assignment, kind, label, post_edit, reason, spans = row
    return LastJudgment(aid, oid, assignment, AnnotationKind(kind), label, post_edit, reason, spans)


@dataclass(frozen=True)
class CurrentJudgment:
    """A current regular judgment with the queue's record of how it was drawn."""

    annotation_id: int
    output_id: int
    item_id: int
    system_id: int
    annotator_id: int
    label: int | None
    score: float | None
    post_edit: str | None
    hter: float | None
    seconds: float | None
    created_at: datetime | None
    assignment_id: int | None
    position: int | None  # arrival order (the queue's random order); None: no assignment
    inclusion_prob: float | None
    slot: int | None  # 0 first judgment, 1 overlap judgment


def current_judgments(
    s: Session, campaign_id: int, annotator_id: int | None = None
) -> list[CurrentJudgment]:
    """Current ``label`` rows of a campaign (attention answers and skips excluded), in
    arrival order (assignment position, then annotation id)."""
    q = (
        campaign_log(
            campaign_id,
            Annotation.id,
            Annotation.output_id,
            Output.item_id,
            Output.system_id,
            Annotation.annotator_id,
            Annotation.label,
            Annotation.score,
            Annotation.post_edit,
            Annotation.hter,
            Annotation.seconds,
            Annotation.created_at,
            Annotation.assignment_id,
            Assignment.position,
            Assignment.inclusion_prob,
            Assignment.slot,
            current_only=True,
        )
        .join(Output, Output.id == Annotation.output_id)
        .where(Annotation.kind == LABEL)
        .order_by(Assignment.position, Annotation.id)
    )
    if annotator_id is not None:
        q = q.where(Annotation.annotator_id == annotator_id)
    return [CurrentJudgment(*r) for r in s.execute(q)]


_AN = Annotation.__table__
_LATER_T = Annotation.__table__.alias("later_t")
_JUDGMENT_COUNTS = (
    select(_AN.c.kind, func.count())
    .select_from(_AN.outerjoin(_LATER_T, _LATER_T.c.supersedes_id == _AN.c.id))
    .where(
        _AN.c.annotator_id == bindparam("annotator_id"),
        _AN.c.kind.in_(JUDGMENT_KINDS),
        _LATER_T.c.id.is_(None),
    )
    .group_by(_AN.c.kind)
)


def annotator_judgment_counts(s: Session, annotator_id: int) -> tuple[int, int]:
    """(current judgments incl. attention answers, current skips) of one annotator: the
    page's own counter, one indexed query."""
    counts = dict(s.connection().execute(_JUDGMENT_COUNTS, {"annotator_id": annotator_id}).all())
    return counts.get(LABEL, 0) + counts.get(ATTENTION, 0), counts.get(SKIP, 0)


@dataclass(frozen=True)
class SpanJudgment:
    """A current span judgment with the texts and names an MQM TSV export needs."""

    system: str
    doc: str
    doc_id: str  # WMT's within-document id (output metadata), else the item id
    seg_id: str  # the item's external id
    rater: str
    source: str
    target: str
    spans: list[dict[str, Any]]


def current_span_judgments(s: Session, campaign_id: int) -> list[SpanJudgment]:
    """Current ``label`` rows that carry spans, by output then annotation id."""
    rows = s.execute(
        campaign_log(
            campaign_id,
            System.name,
            Item.doc_id,
            Output.meta,
            Item.external_id,
            Annotator.name,
            Item.source,
            Output.text,
            Annotation.spans,
            current_only=True,
        )
        .join(Output, Output.id == Annotation.output_id)
        .join(Item, Item.id == Output.item_id)
        .join(System, System.id == Output.system_id)
        .where(Annotation.kind == LABEL, Annotation.spans.is_not(None))
        .order_by(Output.id, Annotation.id)
    )
    out = []
    for system, doc, meta, ext, rater, source, text, spans in rows:
        doc_id = str((meta or {}).get("wmt_doc_id") or ext)
        out.append(SpanJudgment(system, doc or "", doc_id, ext, rater, source, text, spans))
    return out


def undone_spans(s: Session, annotator_id: int, assignment_id: int) -> list[dict[str, Any]] | None:
    """The spans of the annotator's newest undone judgment of a slot (None: none), so an
    item that comes back after an undo shows what was marked."""
    later = _LATER
    return s.execute(
        select(Annotation.spans)
        .join(later, later.supersedes_id == Annotation.id)
        .where(
            Annotation.annotator_id == annotator_id,
            Annotation.assignment_id == assignment_id,
            Annotation.spans.is_not(None),
            later.kind == UNDO,
        )
        .order_by(Annotation.id.desc())
        .limit(1)
    ).scalar()


# ---------------------------------------------------------------- comparative screens


def held_slot_ids(s: Session, campaign_id: int, annotator_id: int) -> list[int]:
    """The slots an annotator holds now (claimed), in queue order: the comparative screen's
    outputs. A plain read (no claim, no touch)."""
    rows = s.execute(
        select(Assignment.id)
        .where(
            Assignment.campaign_id == campaign_id,
            Assignment.annotator_id == annotator_id,
            Assignment.state == SlotState.CLAIMED,
        )
        .order_by(Assignment.position)
    )
    return [r[0] for r in rows]


@dataclass(frozen=True)
class ScreenRow:
    annotation_id: int
    output_id: int
    assignment_id: int | None


def last_screen(s: Session, annotator_id: int) -> list[ScreenRow]:
    """The annotator's newest current judgments saved together from one comparative screen
    (same time, ``screen_size`` set); [] when the newest current judgment was not."""
    current = _current_newest_first(
        annotator_id,
        Annotation.id,
        Annotation.output_id,
        Annotation.assignment_id,
        Annotation.created_at,
        Annotation.screen_size,
    )
    newest = s.execute(current.limit(1)).one_or_none()
    if newest is None or newest.screen_size is None:
        return []
    rows = s.execute(current.where(Annotation.created_at == newest.created_at).limit(64))
    return [ScreenRow(r.id, r.output_id, r.assignment_id) for r in rows if r.screen_size]


def screen_labels(s: Session, campaign_id: int) -> list[tuple[int, datetime, int, int, int]]:
    """(annotator, saved at, screen position, screen size, label) of a campaign's current
    regular labels given on comparative screens (one screen: same annotator and time)."""
    rows = s.execute(
        campaign_log(
            campaign_id,
            Annotation.annotator_id,
            Annotation.created_at,
            Annotation.screen_position,
            Annotation.screen_size,
            Annotation.label,
            current_only=True,
        ).where(
            Annotation.kind == LABEL,
            Annotation.screen_size.is_not(None),
            Annotation.label.is_not(None),
        )
    )
    return [tuple(r) for r in rows]
