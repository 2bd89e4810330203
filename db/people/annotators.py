"""The annotators of a campaign: their rows, invites' names, and revoking one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from db.schema.models import Annotator, Assignment, Campaign
from db.schema.vocabulary import CONTROL_KINDS, SlotState


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
    return (
        s.scalar(
            select(func.count())
            .select_from(Annotator)
            .where(Annotator.campaign_id == campaign_id, Annotator.name == name)
        )
        > 0
    )


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
        .where(
            Assignment.annotator_id == annotator_id,
            Assignment.state == SlotState.CLAIMED,
            Assignment.kind.not_in(CONTROL_KINDS),  # their own block slots are nobody else's
        )
        .values(
            state=SlotState.OPEN,
            annotator_id=None,
            claimed_at=None,
            claim_version=Assignment.claim_version + 1,
        )
    )


def set_form_answers(
    s: Session, annotator_id: int, answers: dict | None, now: datetime | None
) -> None:
    """Store (or, with None, clear) an annotator's answers to the pre-task form; the time
    of the first answer is kept when the organiser corrects them later."""
    values: dict = {"form_answers": answers}
    if answers is None:
        values["form_answered_at"] = None
    s.execute(update(Annotator).where(Annotator.id == annotator_id).values(**values))
    if answers is not None and now is not None:
        s.execute(
            update(Annotator)
            .where(Annotator.id == annotator_id, Annotator.form_answered_at.is_(None))
            .values(form_answered_at=now)
        )


def form_answers(
    s: Session, campaign_id: int
) -> list[tuple[int, str, dict | None, datetime | None]]:
    """(id, name, answers, answered at) of every invited annotator of a campaign, by id."""
    rows = s.execute(
        select(Annotator.id, Annotator.name, Annotator.form_answers, Annotator.form_answered_at)
        .where(Annotator.campaign_id == campaign_id, Annotator.role == "annotator")
        .order_by(Annotator.id)
    )
    return [(i, n, a if isinstance(a, dict) else None, t) for i, n, a, t in rows]


def annotator_form(s: Session, annotator_id: int) -> tuple[dict | None, bool]:
    """(the campaign's ``meta["pretask_form"]``, whether the annotator answered it)."""
    row = s.execute(
        select(Campaign.meta, Annotator.form_answers)
        .join(Campaign, Campaign.id == Annotator.campaign_id)
        .where(Annotator.id == annotator_id)
    ).first()
    if row is None:
        return None, False
    form = (row[0] or {}).get("pretask_form")
    return (form if isinstance(form, dict) and form.get("fields") else None), row[1] is not None
