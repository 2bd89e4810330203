"""The append-only annotation log and the annotators: the SQL the annotate flow needs.

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
from statistics import median
from typing import Any

from sqlalchemy import Select, bindparam, func, insert, select, update
from sqlalchemy.orm import Session, aliased

from db.clock import utcnow
from db.models import (
    Annotation,
    Annotator,
    Assignment,
    AttentionCheck,
    Campaign,
    Item,
    Output,
    System,
)
from db.vocabulary import AnnotationKind, Severity, SlotState

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


# ---------------------------------------------------------------- annotators


@dataclass(frozen=True)
class AnnotatorRow:
    id: int
    name: str
    campaign_id: int
    campaign_name: str
    role: str
    revoked_at: datetime | None
    created_at: datetime | None


def _annotator_select():  # type: ignore[no-untyped-def]
    return select(
        Annotator.id,
        Annotator.name,
        Annotator.campaign_id,
        Campaign.name,
        Annotator.role,
        Annotator.revoked_at,
        Annotator.created_at,
    ).join(Campaign, Campaign.id == Annotator.campaign_id)


def annotator_name_taken(s: Session, campaign_id: int, name: str) -> bool:
    return s.scalar(
        select(func.count())
        .select_from(Annotator)
        .where(Annotator.campaign_id == campaign_id, Annotator.name == name)
    ) > 0


def insert_annotator(s: Session, campaign_id: int, name: str, token_hash: str) -> int:
    return s.execute(
        insert(Annotator)
        .values(campaign_id=campaign_id, name=name, token_hash=token_hash, role="annotator")
        .returning(Annotator.id)
    ).scalar_one()


def annotator_by_token_hash(s: Session, token_hash: str) -> AnnotatorRow | None:
    row = s.execute(_annotator_select().where(Annotator.token_hash == token_hash)).one_or_none()
    return None if row is None else AnnotatorRow(*row)


def annotator_by_id(s: Session, annotator_id: int) -> AnnotatorRow | None:
    row = s.execute(_annotator_select().where(Annotator.id == annotator_id)).one_or_none()
    return None if row is None else AnnotatorRow(*row)


def list_annotators(s: Session, campaign_id: int) -> list[AnnotatorRow]:
    rows = s.execute(
        _annotator_select().where(Annotator.campaign_id == campaign_id).order_by(Annotator.id)
    )
    return [AnnotatorRow(*r) for r in rows]


def revoke_annotator(s: Session, annotator_id: int, now: datetime) -> None:
    """Revoke an invite; the annotator's claimed slots go back to the queue."""
    s.execute(
        update(Annotator)
        .where(Annotator.id == annotator_id, Annotator.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    s.execute(
        update(Assignment)
        .where(Assignment.annotator_id == annotator_id, Assignment.state == SlotState.CLAIMED)
        .values(
            state=SlotState.OPEN,
            annotator_id=None,
            claimed_at=None,
            claim_version=Assignment.claim_version + 1,
        )
    )


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


def last_current_judgment(s: Session, annotator_id: int) -> LastJudgment | None:
    """The annotator's newest label/skip/attention row that no later row supersedes, or
    None."""
    later = _LATER
    row = s.execute(
        select(
            Annotation.id,
            Annotation.output_id,
            Annotation.assignment_id,
            Annotation.kind,
            Annotation.label,
            Annotation.post_edit,
            Annotation.skip_reason,
            Annotation.spans,
        )
        .outerjoin(later, later.supersedes_id == Annotation.id)
        .where(
            Annotation.annotator_id == annotator_id,
            Annotation.kind.in_(JUDGMENT_KINDS),
            later.id.is_(None),
        )
        .order_by(Annotation.id.desc())
        .limit(1)
    ).one_or_none()
    if row is None:
        return None
    aid, oid, assignment, kind, label, post_edit, reason, spans = row
    return LastJudgment(
        aid, oid, assignment, AnnotationKind(kind), label, post_edit, reason, spans
    )


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


# ---------------------------------------------------------------- per-annotator work


@dataclass(frozen=True)
class AnnotatorWork:
    """What an admin (and the dashboard) shows per annotator."""

    annotator_id: int
    name: str
    role: str
    revoked: bool
    n_labels: int  # current regular judgments
    n_skips: int
    n_undos: int
    median_seconds: float | None
    total_seconds: float
    attention_answered: int
    attention_passed: int
    claimed_now: int
    last_at: datetime | None = None  # the latest current judgment or skip

    @property
    def labels_per_hour(self) -> float | None:
        hours = self.total_seconds / 3600
        return self.n_labels / hours if hours > 0 else None

    @property
    def attention_pass_rate(self) -> float | None:
        if not self.attention_answered:
            return None
        return self.attention_passed / self.attention_answered


def attention_passed(label: int | None, post_edit: str | None, expected: int, shown: str) -> bool:
    """An answer passes when its label is the expected one; in post-edit-only answers
    (no label) when the degraded text was changed."""
    if label is not None:
        return label == expected
    return post_edit is not None and post_edit.split() != shown.split()


def span_attention_passed(
    spans: list[dict[str, Any]], operations: list[dict[str, Any]], severity: int
) -> bool | None:
    """A span-mode answer to an attention check passes when a span of the output overlaps a
    region of an injected edit of the check's severity (−5 major, −1 minor), with at least
    that severity (annotation.attention records the regions). None when the check has no
    regions (made before they were recorded): judge it by its derived label instead."""
    edits = [o for o in operations if o.get("severity") == severity and o.get("regions")]
    if not edits:
        return None
    need = (Severity.MAJOR if severity <= -5 else Severity.MINOR).rank
    marked = [
        (sp["start"], sp["end"])
        for sp in spans
        if sp.get("side") == "target" and Severity(sp["severity"]).rank >= need
    ]
    return any(
        s < e2 and s2 < e for o in edits for s2, e2 in o["regions"] for s, e in marked
    )


def _no_work() -> dict[str, Any]:
    return {"labels": 0, "skips": 0, "undos": 0, "secs": [], "att": 0, "passed": 0, "last": None}


def annotator_work(s: Session, campaign_id: int) -> list[AnnotatorWork]:
    rows = s.execute(
        campaign_log(
            campaign_id,
            Annotation.annotator_id,
            Annotation.kind,
            Annotation.label,
            Annotation.post_edit,
            Annotation.seconds,
            _LATER.id,
            AttentionCheck.expected_label,
            AttentionCheck.degraded_text,
            Annotation.created_at,
            Annotation.spans,
            AttentionCheck.operations,
            AttentionCheck.severity,
        )
    )
    acc: dict[int, dict[str, Any]] = {}
    for aid, kind, label, post_edit, secs, superseded, expected, shown, created, *att in rows:
        a = acc.setdefault(aid, _no_work())
        if kind == UNDO:
            a["undos"] += 1
            continue
        if superseded is not None:
            continue
        if created is not None and (a["last"] is None or created > a["last"]):
            a["last"] = created
        if secs is not None:
            a["secs"].append(float(secs))
        if kind == LABEL:
            a["labels"] += 1
        elif kind == SKIP:
            a["skips"] += 1
        elif kind == ATTENTION and expected is not None:
            a["att"] += 1
            spans, operations, severity = att
            passed = None
            if spans is not None:  # a span-mode answer: checked at span level
                passed = span_attention_passed(spans, operations or [], severity)
            if passed is None:
                passed = attention_passed(label, post_edit, expected, shown or "")
            a["passed"] += passed
    claimed = dict(
        s.execute(
            select(Assignment.annotator_id, func.count())
            .where(Assignment.campaign_id == campaign_id, Assignment.state == SlotState.CLAIMED)
            .group_by(Assignment.annotator_id)
        ).all()
    )
    out = []
    for r in list_annotators(s, campaign_id):
        a = acc.get(r.id) or _no_work()
        out.append(
            AnnotatorWork(
                annotator_id=r.id,
                name=r.name,
                role=r.role,
                revoked=r.revoked_at is not None,
                n_labels=a["labels"],
                n_skips=a["skips"],
                n_undos=a["undos"],
                median_seconds=median(a["secs"]) if a["secs"] else None,
                total_seconds=float(sum(a["secs"])),
                attention_answered=a["att"],
                attention_passed=a["passed"],
                claimed_now=int(claimed.get(r.id, 0)),
                last_at=a["last"],
            )
        )
    return out


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
