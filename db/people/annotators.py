"""The annotators of a campaign: their rows, invites' names, and revoking one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from db.schema.models import Annotator, Assignment, Campaign
from db.schema.vocabulary import SlotState


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
