"""Document scores of DA / SQM campaigns judged in document order (``document_scores``):
which of an annotator's documents wait for their score, what such a document shows, and
the rows the estimators read. annotation.judging.document_scores decides and checks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, and_, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from db.engine import session_scope
from db.judging.log import LABEL, campaign_log
from db.schema.document_models import DocumentScore
from db.schema.models import Annotation, Annotator, Campaign, Item, Output, System


@dataclass(frozen=True)
class DocumentKey:
    """One system's document (the system by id only: its name is never shown)."""

    doc_id: str
    system_id: int


def waiting(s: Session, campaign_id: int, annotator_id: int) -> list[DocumentKey]:
    """The annotator's documents whose every segment they scored (current DA judgments of
    that system's outputs) and which have no document score from them yet; the document
    finished first comes first."""
    judged = (
        campaign_log(
            campaign_id,
            Item.doc_id,
            Output.system_id,
            func.count(func.distinct(Output.item_id)).label("n"),
            func.max(Annotation.id).label("last"),
            current_only=True,
        )
        .join(Output, Output.id == Annotation.output_id)
        .join(Item, Item.id == Output.item_id)
        .where(
            Annotation.annotator_id == annotator_id,
            Annotation.kind == LABEL,
            Annotation.da_score.is_not(None),
            Item.doc_id.is_not(None),
        )
        .group_by(Item.doc_id, Output.system_id)
        .subquery()
    )
    total = (
        select(Item.doc_id, Output.system_id, func.count(Output.id).label("n"))
        .join(Output, Output.item_id == Item.id)
        .where(Item.campaign_id == campaign_id, Item.doc_id.is_not(None))
        .group_by(Item.doc_id, Output.system_id)
        .subquery()
    )
    q = (
        select(judged.c.doc_id, judged.c.system_id)
        .join(
            total, and_(total.c.doc_id == judged.c.doc_id, total.c.system_id == judged.c.system_id)
        )
        .outerjoin(
            DocumentScore,
            and_(
                DocumentScore.annotator_id == annotator_id,
                DocumentScore.doc_id == judged.c.doc_id,
                DocumentScore.system_id == judged.c.system_id,
            ),
        )
        .where(judged.c.n >= total.c.n, DocumentScore.id.is_(None))
        .order_by(judged.c.last)
    )
    return [DocumentKey(d, int(sy)) for d, sy in s.execute(q).all()]


def segments(s: Session, campaign_id: int, key: DocumentKey) -> list[tuple[str, str]]:
    """(source, output text) of the document's segments, in the campaign's item order."""
    q = (
        select(Item.source, Output.text)
        .join(Output, Output.item_id == Item.id)
        .where(
            Item.campaign_id == campaign_id,
            Item.doc_id == key.doc_id,
            Output.system_id == key.system_id,
        )
        .order_by(Item.id)
    )
    return [(src, text) for src, text in s.execute(q).all()]


def append(s: Session, **row: Any) -> int | None:
    """Add one document score; its id, or None when the annotator's score of that document
    exists (the unique constraint: a second save is refused, never an IntegrityError, even
    if two transactions passed the "still waiting" check at once)."""
    dialect = s.get_bind().dialect.name
    make = pg_insert if dialect == "postgresql" else sqlite_insert
    stmt = (
        make(DocumentScore)
        .values(**row)
        .on_conflict_do_nothing(index_elements=["annotator_id", "system_id", "doc_id"])
        .returning(DocumentScore.id)
    )
    added = s.execute(stmt).scalar_one_or_none()
    return None if added is None else int(added)


@dataclass(frozen=True)
class ScoreRow:
    doc_id: str
    system: str
    annotator: str
    score: float
    created_at: datetime
    id: int


def campaign_scores(s: Session, campaign_id: int) -> list[ScoreRow]:
    """Every document score of the campaign, in the order given (id)."""
    q = (
        select(
            DocumentScore.doc_id,
            System.name,
            Annotator.name,
            DocumentScore.score,
            DocumentScore.created_at,
            DocumentScore.id,
        )
        .join(System, System.id == DocumentScore.system_id)
        .join(Annotator, Annotator.id == DocumentScore.annotator_id)
        .where(DocumentScore.campaign_id == campaign_id)
        .order_by(DocumentScore.id)
    )
    return [ScoreRow(*r) for r in s.execute(q).all()]


def campaign_name(s: Session, campaign_id: int) -> str:
    return str(s.scalar(select(Campaign.name).where(Campaign.id == campaign_id)) or "")


def campaign_systems(s: Session, campaign_id: int) -> list[str]:
    """The campaign's system names, in id order (the estimators' system axis)."""
    q = select(System.name).where(System.campaign_id == campaign_id).order_by(System.id)
    return list(s.scalars(q))


def campaign_documents(s: Session, campaign_id: int) -> list[str]:
    """The campaign's document ids, in first-item order (the documents' pool)."""
    q = (
        select(Item.doc_id, func.min(Item.id))
        .where(Item.campaign_id == campaign_id, Item.doc_id.is_not(None))
        .group_by(Item.doc_id)
        .order_by(func.min(Item.id))
    )
    return [d for d, _ in s.execute(q).all()]


def stamp(engine: Engine, campaign_id: int) -> tuple[int, int]:
    """(count, last id) of the campaign's document scores: a new one changes it, so it
    keys the dashboard's cached document-score report (one small query per refresh)."""
    with session_scope(engine) as s:
        row = s.execute(
            select(func.count(DocumentScore.id), func.coalesce(func.max(DocumentScore.id), 0))
            .join(System, System.id == DocumentScore.system_id)
            .where(System.campaign_id == campaign_id)
        ).one()
    return int(row[0]), int(row[1])
