"""Storage of AI error spans (ESA^AI prefill): delete a campaign's and insert an import's
(in the import's transaction), read an output's, read a campaign's for the export.
annotation.imports.ai_spans validates every row before it comes here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from db.schema.admin_models import AISpan
from db.schema.models import Item, Output, System


@dataclass(frozen=True)
class StoredAiSpan:
    id: int
    output_id: int
    start: int | None
    end: int | None
    severity: str | None
    category: str | None
    confidence: float | None
    model: str | None
    source: str


def _stored(row: AISpan) -> StoredAiSpan:
    return StoredAiSpan(
        row.id,
        row.output_id,
        row.start,
        row.end,
        row.severity,
        row.category,
        row.confidence,
        row.model,
        row.source,
    )


def _campaign_outputs(campaign_id: int):  # type: ignore[no-untyped-def]
    return (
        select(Output.id)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == campaign_id)
        .scalar_subquery()
    )


def delete_campaign_spans(s: Session, campaign_id: int) -> None:
    """Delete the campaign's AI spans (caller's transaction: an import then inserts the
    file's with :func:`insert_spans`, or rolls back)."""
    s.execute(
        delete(AISpan)
        .where(AISpan.output_id.in_(_campaign_outputs(campaign_id)))
        .execution_options(synchronize_session=False)
    )


def insert_spans(s: Session, rows: Sequence[dict]) -> None:
    """Insert AI span rows (one batch of an import)."""
    if rows:
        s.execute(AISpan.__table__.insert(), list(rows))


def count_campaign_spans(s: Session, campaign_id: int) -> int:
    return int(
        s.scalar(select(func.count()).where(AISpan.output_id.in_(_campaign_outputs(campaign_id))))
        or 0
    )


def output_spans(s: Session, output_id: int) -> list[StoredAiSpan]:
    """An output's AI spans (and its "clean" row), in position order."""
    rows = s.scalars(
        select(AISpan).where(AISpan.output_id == output_id).order_by(AISpan.start, AISpan.id)
    )
    return [_stored(r) for r in rows]


def campaign_spans(s: Session, campaign_id: int) -> dict[tuple[str, str], Sequence[StoredAiSpan]]:
    """(item external id, system name) → the output's AI spans, for every output that has
    any row (the export joins them to the judgments)."""
    rows = s.execute(
        select(Item.external_id, System.name, AISpan)
        .join(Output, Output.id == AISpan.output_id)
        .join(Item, Item.id == Output.item_id)
        .join(System, System.id == Output.system_id)
        .where(Item.campaign_id == campaign_id)
        .order_by(AISpan.output_id, AISpan.start, AISpan.id)
    )
    out: dict[tuple[str, str], list[StoredAiSpan]] = {}
    for ext, system, span in rows:
        out.setdefault((ext, system), []).append(_stored(span))
    return out


def output_texts(s: Session, campaign_id: int) -> dict[tuple[str, str], tuple[int, str]]:
    """(item external id, system name) → (output id, output text)."""
    rows = s.execute(
        select(Item.external_id, System.name, Output.id, Output.text)
        .join(Output, Output.item_id == Item.id)
        .join(System, System.id == Output.system_id)
        .where(Item.campaign_id == campaign_id)
    )
    return {(ext, name): (oid, text) for ext, name, oid, text in rows}
