"""Undo: the annotator takes back their newest judgment or skip, and the page says what
was taken back (annotation.judging.session.Undone)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from annotation.judging.session import Undone, View, build_view, campaign_of, retried, slot_group
from annotation.tasks import work as task_work
from db import Engine
from db.clock import utcnow
from db.judging import log
from db.queue import claim as dbq
from db.queue import slot_display as dbshow


@retried
def undo(engine: Engine, annotator_id: int, now: datetime | None = None) -> View:
    """Take back the annotator's newest judgment or skip by appending an ``undo`` row; the
    item is theirs again and shown next. Repeated undos walk further back. The view's
    ``undone`` says what was taken back."""
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = campaign_of(s, annotator_id)
        last = log.last_current_judgment(s, annotator_id)
        if last is None:
            return build_view(s, annotator_id, camp, now, "Nothing to undo.")
        if not task_work.undo_allowed(s, last.assignment_id, annotator_id):
            return build_view(s, annotator_id, camp, now, FINISHED_TASK)
        judged, skipped = log.annotator_judgment_counts(s, annotator_id)
        undone = _undone(s, camp, last, judged + skipped)
        log.append(
            s,
            output_id=last.output_id,
            annotator_id=annotator_id,
            assignment_id=last.assignment_id,
            kind=log.UNDO,
            supersedes_id=last.annotation_id,
            created_at=now,
        )
        if last.assignment_id is not None:
            dbq.reclaim_for_undo(s, last.assignment_id, annotator_id, now)
        return build_view(s, annotator_id, camp, now, None, undone)


EXCERPT_CHARS = 60
FINISHED_TASK = "Nothing to undo: your last judgment belongs to a finished task."


def _excerpt(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= EXCERPT_CHARS else words[: EXCERPT_CHARS - 1].rstrip() + "…"


def _what(last: log.LastJudgment) -> str:
    """The judgment in the annotator's words (an attention answer reads like any label)."""
    if last.kind == log.SKIP:
        return f"your skip (“{last.skip_reason}”)" if last.skip_reason else "your skip"
    if last.spans is not None:
        n = len(last.spans)
        marked = "no errors marked" if not n else f"{n} error{'s' if n != 1 else ''} marked"
        return f"your error-span judgment ({marked})"
    label = {1: "Adequate", 0: "Inadequate"}.get(last.label) if last.label is not None else None
    if label is not None:
        return f"your {label} label" + (" and post-edit" if last.post_edit is not None else "")
    if last.post_edit is not None:
        return "your post-edit"
    return "your judgment"


def _undone(s: Any, camp: dbq.AnnotatorCampaign, last: log.LastJudgment, ordinal: int) -> Undone:
    row = dbshow.slot_row(s, last.assignment_id) if last.assignment_id is not None else None
    group = slot_group(s, camp, row) if row is not None else None
    what = _what(last)
    if camp.mode.asks_preference and last.kind != log.SKIP:  # its label is a check's grade
        what = "your preference"
    return Undone(
        what=what,
        ordinal=ordinal,
        excerpt=_excerpt(row.text) if row is not None else None,
        group_position=group.position if group is not None and group.size > 1 else None,
        group_size=group.size if group is not None and group.size > 1 else None,
        back=last.assignment_id is not None,
    )
