"""What the task pages and the task cutter read about a campaign's tasks beyond the task rows
(:mod:`db.queue.tasks`): attention-check results and counts, the annotators to assign, the
annotation → task map of the export, whether the queue was touched yet, and whether an
annotator may take a task (outputs or items shared with their other work). Reads only,
inside the caller's transaction.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, literal, or_, select
from sqlalchemy.orm import Session, aliased

from db.judging.annotator_stats import attention_passed, span_attention_passed
from db.queue.tasks import OPEN, REGULAR
from db.schema.models import Annotation, Annotator, Assignment, AttentionCheck, Task
from db.schema.vocabulary import AnnotationKind, SlotKind


def attention_results(s: Session, task_id: int) -> list[bool]:
    """Per current attention-check answer in the task: whether it was right (the rule of
    the Annotators page: db.judging.annotator_stats.attention_passed / span_attention_passed)."""
    later = aliased(Annotation)
    rows = s.execute(
        select(
            Annotation.label,
            Annotation.post_edit,
            Annotation.spans,
            AttentionCheck.expected_label,
            AttentionCheck.degraded_text,
            AttentionCheck.operations,
            AttentionCheck.severity,
        )
        .join(Assignment, Assignment.id == Annotation.assignment_id)
        .join(AttentionCheck, AttentionCheck.id == Assignment.attention_check_id)
        .outerjoin(later, later.supersedes_id == Annotation.id)
        .where(
            Assignment.task_id == task_id,
            Annotation.kind == AnnotationKind.ATTENTION,
            later.id.is_(None),
        )
    )
    out = []
    for label, post_edit, spans, expected, shown, operations, severity in rows:
        passed = None
        if spans is not None:
            passed = span_attention_passed(spans, operations or [], severity)
        if passed is None:
            passed = attention_passed(label, post_edit, expected, shown or "")
        out.append(bool(passed))
    return out


def annotation_tasks(s: Session, campaign_id: int) -> dict[int, int]:
    """annotation id → task id, for the campaign's annotations whose slot is in a task."""
    rows = s.execute(
        select(Annotation.id, Assignment.task_id)
        .join(Assignment, Assignment.id == Annotation.assignment_id)
        .where(Assignment.campaign_id == campaign_id, Assignment.task_id.is_not(None))
    )
    return {aid: tid for aid, tid in rows}


def annotator_names(s: Session, campaign_id: int) -> dict[str, int]:
    """Invited annotators of the campaign: name → id (imported judges are no candidates)."""
    rows = s.execute(
        select(Annotator.name, Annotator.id).where(
            Annotator.campaign_id == campaign_id,
            Annotator.role == "annotator",
            Annotator.revoked_at.is_(None),
        )
    )
    return {name: aid for name, aid in rows}


def queue_untouched(s: Session, campaign_id: int) -> str | None:
    """Why the campaign's queue is no longer untouched (None: it is): a slot was claimed
    (an imported judgment's slot never is) or a task was taken."""
    claimed = s.scalar(
        select(func.count()).where(
            Assignment.campaign_id == campaign_id, Assignment.claimed_at.is_not(None)
        )
    )
    if claimed:
        return f"annotators have claimed {claimed:,} slot(s)"
    taken = s.scalar(
        select(func.count()).where(Task.campaign_id == campaign_id, Task.state != OPEN)
    )
    if taken:
        return f"{taken:,} task(s) were taken"
    return None


def check_counts(s: Session, campaign_id: int) -> dict[int, int]:
    """Task id → how many attention checks it holds (tasks without one left out)."""
    rows = s.execute(
        select(Assignment.task_id, func.count())
        .where(
            Assignment.campaign_id == campaign_id,
            Assignment.task_id.is_not(None),
            Assignment.kind == SlotKind.ATTENTION,
        )
        .group_by(Assignment.task_id)
    )
    return {int(t): int(n) for t, n in rows}


def _other_annotator_slots(annotator_id: int) -> Any:
    """Slots of outputs this annotator had or will have: held/judged by them, or in a task
    of theirs (taken, assigned, finished)."""
    b, tb = aliased(Assignment), aliased(Task)
    return b, tb, or_(b.annotator_id == annotator_id, tb.annotator_id == annotator_id)


def shares_outputs(s: Session, task_id: int, annotator_id: int) -> bool:
    """Whether the task holds a regular slot of an output the annotator judged, holds or has
    in another task of theirs (with overlap, an output's two slots may be in two tasks: one
    annotator could finish only one of them)."""
    b, tb, mine = _other_annotator_slots(annotator_id)
    q = (
        select(literal(1))
        .select_from(Assignment)
        .join(b, and_(b.output_id == Assignment.output_id, b.id != Assignment.id))
        .outerjoin(tb, tb.id == b.task_id)
        .where(Assignment.task_id == task_id, Assignment.kind == REGULAR, b.kind == REGULAR, mine)
        .limit(1)
    )
    return s.scalar(q) is not None


def most_annotators_per_item(s: Session, task_id: int, annotator_id: int) -> int:
    """Over the task's items: the largest number of other annotators who have (held,
    judged, or in a task of theirs) a slot of the same item. 0 when none."""
    b, tb = aliased(Assignment), aliased(Task)
    who = func.coalesce(tb.annotator_id, b.annotator_id)
    items = select(Assignment.item_id).where(
        Assignment.task_id == task_id, Assignment.item_id.is_not(None)
    )
    per_item = (
        select(b.item_id, func.count(who.distinct()).label("n"))
        .outerjoin(tb, tb.id == b.task_id)
        .where(
            b.item_id.in_(items),
            or_(b.task_id.is_(None), b.task_id != task_id),
            who.is_not(None),
            who != annotator_id,
        )
        .group_by(b.item_id)
        .subquery()
    )
    return int(s.scalar(select(func.max(per_item.c.n))) or 0)
