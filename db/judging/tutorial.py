"""Tutorial answers' storage: one row per answer an annotator gave on a tutorial item, in
their own table, never in ``annotations`` (so no estimator ever reads them)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from db.schema.admin_models import TutorialAnswer


def add_answer(
    s: Session, campaign_id: int, annotator_id: int, attempt: int, index: int, label: int,
    correct: bool, now: datetime,
) -> None:  # fmt: skip
    s.execute(
        insert(TutorialAnswer).values(
            campaign_id=campaign_id, annotator_id=annotator_id, attempt=attempt,
            item_index=index, label=label, correct=correct, answered_at=now,
        )
    )  # fmt: skip


def answers(s: Session, campaign_id: int, annotator_id: int | None = None) -> list[tuple]:  # type: ignore[type-arg]
    """(annotator id, attempt, item index, label, correct) in the order given."""
    q = select(
        TutorialAnswer.annotator_id, TutorialAnswer.attempt, TutorialAnswer.item_index,
        TutorialAnswer.label, TutorialAnswer.correct,
    ).where(TutorialAnswer.campaign_id == campaign_id)  # fmt: skip
    if annotator_id is not None:
        q = q.where(TutorialAnswer.annotator_id == annotator_id)
    return [tuple(r) for r in s.execute(q.order_by(TutorialAnswer.id))]
