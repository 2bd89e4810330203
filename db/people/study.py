"""Study links' storage: a campaign's shared study URL (token hash, the platform's
parameter names, a cap) and the participants it enrolled (accounts.study decides)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from db.people import annotators
from db.people.invites import ISSUED, record
from db.schema.admin_models import StudyLink, StudyParticipant
from db.schema.models import Annotator, Campaign


@dataclass(frozen=True)
class LinkRow:
    id: int
    campaign_id: int
    campaign_name: str
    id_param: str
    session_param: str | None
    params: list[str]
    cap: int | None
    created_at: datetime
    revoked_at: datetime | None
    archived: bool


@dataclass(frozen=True)
class ParticipantRow:
    annotator_id: int
    participant_id: str
    session_key: str | None
    params: dict[str, Any]
    enrolled_at: datetime
    revoked: bool


_LINK = select(
    StudyLink.id, StudyLink.campaign_id, Campaign.name, StudyLink.id_param,
    StudyLink.session_param, StudyLink.params, StudyLink.cap, StudyLink.created_at,
    StudyLink.revoked_at, Campaign.archived_at.is_not(None),
).join(Campaign, Campaign.id == StudyLink.campaign_id)  # fmt: skip


def has_study_link(s: Session, campaign_id: int) -> bool:
    """Has the campaign ever had a study link (a revoked one's participants still work)?"""
    found = s.scalar(select(StudyLink.id).where(StudyLink.campaign_id == campaign_id).limit(1))
    return found is not None


def link_by_hash(s: Session, token_hash: str) -> LinkRow | None:
    row = s.execute(_LINK.where(StudyLink.token_hash == token_hash)).one_or_none()
    return None if row is None else LinkRow(*row)


def current_link(s: Session, campaign_id: int) -> LinkRow | None:
    """The campaign's study link that is not revoked (at most one), or None."""
    row = s.execute(
        _LINK.where(StudyLink.campaign_id == campaign_id, StudyLink.revoked_at.is_(None))
        .order_by(StudyLink.id.desc()).limit(1)
    ).one_or_none()  # fmt: skip
    return None if row is None else LinkRow(*row)


def add_link(
    s: Session, campaign_id: int, token_hash: str, id_param: str, session_param: str | None,
    params: list[str], cap: int | None, now: datetime,
) -> int:  # fmt: skip
    return s.execute(
        insert(StudyLink)
        .values(campaign_id=campaign_id, token_hash=token_hash, id_param=id_param,
                session_param=session_param, params=params, cap=cap, created_at=now)
        .returning(StudyLink.id)
    ).scalar_one()  # fmt: skip


def revoke_links(s: Session, campaign_id: int, now: datetime) -> int:
    """Revoke the campaign's live study links; how many."""
    return int(
        s.execute(
            update(StudyLink)
            .where(StudyLink.campaign_id == campaign_id, StudyLink.revoked_at.is_(None))
            .values(revoked_at=now)
        ).rowcount
        or 0
    )


def set_cap(s: Session, link_id: int, cap: int | None) -> None:
    s.execute(update(StudyLink).where(StudyLink.id == link_id).values(cap=cap))


def participant(s: Session, campaign_id: int, participant_id: str) -> ParticipantRow | None:
    row = s.execute(
        select(StudyParticipant.annotator_id, StudyParticipant.participant_id,
               StudyParticipant.session_key, StudyParticipant.params,
               StudyParticipant.enrolled_at, Annotator.revoked_at.is_not(None))
        .join(Annotator, Annotator.id == StudyParticipant.annotator_id)
        .where(StudyParticipant.campaign_id == campaign_id,
               StudyParticipant.participant_id == participant_id)
    ).one_or_none()  # fmt: skip
    return None if row is None else ParticipantRow(*row)


def participant_count(s: Session, campaign_id: int) -> int:
    return int(
        s.scalar(
            select(func.count()).where(StudyParticipant.campaign_id == campaign_id)
        ) or 0
    )  # fmt: skip


def enrol(
    s: Session, link: LinkRow, participant_id: str, session_key: str | None,
    params: dict[str, Any], token_hash: str, now: datetime,
) -> int:  # fmt: skip
    """A new annotator named by the participant id, with its link hash and the participant's
    row; logged as an issued invite. The caller holds the campaign's lock (cap, uniqueness)."""
    annotator_id = annotators.insert_annotator(s, link.campaign_id, participant_id, token_hash)
    s.execute(
        insert(StudyParticipant).values(
            campaign_id=link.campaign_id, study_link_id=link.id, annotator_id=annotator_id,
            participant_id=participant_id, session_key=session_key, params=params,
            enrolled_at=now,
        )
    )  # fmt: skip
    record(s, annotator_id, ISSUED, now)
    return annotator_id


def participants(s: Session, campaign_id: int) -> dict[int, ParticipantRow]:
    """Annotator id → participant, for the campaign's study participants."""
    rows = s.execute(
        select(StudyParticipant.annotator_id, StudyParticipant.participant_id,
               StudyParticipant.session_key, StudyParticipant.params,
               StudyParticipant.enrolled_at, Annotator.revoked_at.is_not(None))
        .join(Annotator, Annotator.id == StudyParticipant.annotator_id)
        .where(StudyParticipant.campaign_id == campaign_id)
        .order_by(StudyParticipant.id)
    )  # fmt: skip
    return {r[0]: ParticipantRow(*r) for r in rows}


def token_hash_of(s: Session, annotator_id: int) -> str | None:
    return s.scalar(select(Annotator.token_hash).where(Annotator.id == annotator_id))
