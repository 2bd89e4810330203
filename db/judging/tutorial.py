"""Tutorial answers' storage: one row per answer an annotator gave on a tutorial item, in
their own table, never in ``annotations`` (so no estimator ever reads them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select
from sqlalchemy.orm import Session

from db.schema.admin_models import TutorialAnswer
from db.schema.models import Annotator


def add_answer(
    s: Session, campaign_id: int, annotator_id: int, attempt: int, index: int,
    label: int | None, correct: bool, now: datetime, answer: dict[str, Any] | None = None,
) -> None:  # fmt: skip
    s.execute(
        insert(TutorialAnswer).values(
            campaign_id=campaign_id, annotator_id=annotator_id, attempt=attempt,
            item_index=index, label=label, correct=correct, answer=answer, answered_at=now,
        )
    )  # fmt: skip


_TA = TutorialAnswer.__table__
#: One annotator's answers, built once: every action of an annotator in a campaign with a
#: tutorial runs it (annotation.judging.tutorial.pending), so it skips the ORM's work.
_MINE = (
    select(_TA.c.annotator_id, _TA.c.attempt, _TA.c.item_index, _TA.c.label, _TA.c.correct)
    .where(_TA.c.campaign_id == bindparam("cid"), _TA.c.annotator_id == bindparam("aid"))
    .order_by(_TA.c.id)
)


def answers(s: Session, campaign_id: int, annotator_id: int | None = None) -> list[tuple]:  # type: ignore[type-arg]
    """(annotator id, attempt, item index, label, correct) in the order given."""
    if annotator_id is not None:
        rows = s.connection().execute(_MINE, {"cid": campaign_id, "aid": annotator_id})
        return [tuple(r) for r in rows]
    q = select(
        TutorialAnswer.annotator_id, TutorialAnswer.attempt, TutorialAnswer.item_index,
        TutorialAnswer.label, TutorialAnswer.correct,
    ).where(TutorialAnswer.campaign_id == campaign_id)  # fmt: skip
    if annotator_id is not None:
        q = q.where(TutorialAnswer.annotator_id == annotator_id)
    return [tuple(r) for r in s.execute(q.order_by(TutorialAnswer.id))]


def answer_details(s: Session, campaign_id: int) -> list[tuple]:  # type: ignore[type-arg]
    """(annotator name, attempt, item index, label, correct, answer, answered at) of every
    answer of the campaign, by annotator then in the order given (the export)."""
    columns = (
        Annotator.name, TutorialAnswer.attempt, TutorialAnswer.item_index,
        TutorialAnswer.label, TutorialAnswer.correct, TutorialAnswer.answer,
        TutorialAnswer.answered_at,
    )  # fmt: skip
    q = (
        select(*columns)
        .join(Annotator, Annotator.id == TutorialAnswer.annotator_id)
        .where(TutorialAnswer.campaign_id == campaign_id)
        .order_by(Annotator.name, TutorialAnswer.id)
    )
    return [tuple(r) for r in s.execute(q)]
