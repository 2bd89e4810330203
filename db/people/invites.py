"""Invite links' storage: add an annotator with a link, re-issue a link, and the append-only
log of what happened to each link (``invite_events``: issued, reissued, revoked)."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from db.engine import session_scope
from db.people import annotators
from db.schema.admin_models import InviteEvent
from db.schema.models import Annotator

ISSUED, REISSUED, REVOKED = "issued", "reissued", "revoked"


class AnnotatorNameTaken(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(
            f"this campaign already has an annotator named {name!r}: choose another name "
            "(names identify annotators in exports and agreement tables), or re-issue that "
            "annotator's link if it was lost"
        )


def record(s: Session, annotator_id: int, event: str, at: datetime) -> None:
    s.execute(insert(InviteEvent).values(annotator_id=annotator_id, event=event, at=at))


def add_annotator(
    engine: Engine, campaign_id: int, name: str, token_hash: str, now: datetime
) -> int:
    """A new invited annotator with its link's hash, logged as issued; a name the campaign
    has already raises :class:`AnnotatorNameTaken` (checked first, and the unique constraint
    turns a concurrent insert of the same name into the same error)."""
    try:
        with session_scope(engine) as s:
            if annotators.annotator_name_taken(s, campaign_id, name):
                raise AnnotatorNameTaken(name)
            annotator_id = annotators.insert_annotator(s, campaign_id, name, token_hash)
            record(s, annotator_id, ISSUED, now)
            return annotator_id
    except IntegrityError as exc:
        raise AnnotatorNameTaken(name) from exc


def replace_token(engine: Engine, annotator_id: int, token_hash: str, now: datetime) -> bool:
    """Give an active invited annotator a new link (the old hash is overwritten, so the old
    link stops working); False when the annotator is revoked, imported or unknown."""
    with session_scope(engine) as s:
        changed = s.execute(
            update(Annotator)
            .where(
                Annotator.id == annotator_id,
                Annotator.revoked_at.is_(None),
                Annotator.role == "annotator",
            )
            .values(token_hash=token_hash)
        ).rowcount
        if changed:
            record(s, annotator_id, REISSUED, now)
        return bool(changed)


def revoke(engine: Engine, annotator_id: int, now: datetime) -> None:
    with session_scope(engine) as s:
        already = s.scalar(select(Annotator.revoked_at).where(Annotator.id == annotator_id))
        annotators.revoke_annotator(s, annotator_id, now)
        if already is None:
            record(s, annotator_id, REVOKED, now)


def token_hash_of_in(s: Session, annotator_id: int) -> str | None:
    return s.scalar(select(Annotator.token_hash).where(Annotator.id == annotator_id))


def token_hash_of(engine: Engine, annotator_id: int) -> str | None:
    with session_scope(engine) as s:
        return s.scalar(select(Annotator.token_hash).where(Annotator.id == annotator_id))


def campaign_events(engine: Engine, campaign_id: int) -> dict[int, list[tuple[str, datetime]]]:
    """Annotator id → its link events, oldest first."""
    out: dict[int, list[tuple[str, datetime]]] = defaultdict(list)
    with session_scope(engine) as s:
        rows = s.execute(
            select(InviteEvent.annotator_id, InviteEvent.event, InviteEvent.at)
            .join(Annotator, Annotator.id == InviteEvent.annotator_id)
            .where(Annotator.campaign_id == campaign_id)
            .order_by(InviteEvent.id)
        )
        for annotator_id, event, at in rows:
            out[annotator_id].append((event, at.replace(tzinfo=UTC) if at.tzinfo is None else at))
    return dict(out)
