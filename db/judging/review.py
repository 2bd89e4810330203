"""The admin's review of labelled items: every current human label of a campaign with the
texts the annotator saw and every stored metric score beside it (admins always see the
scores, whatever the annotators were shown)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Engine, select

from db.engine import session_scope
from db.judging.log import LABEL, campaign_log
from db.schema.models import Annotation, Annotator, Item, MetricScore, Output, System


@dataclass(frozen=True)
class ReviewRow:
    output_id: int
    item_id: str
    system: str
    source: str
    reference: str | None
    output: str
    annotator: str
    label: int | None
    post_edit: str | None
    hter: float | None
    seconds: float | None
    created_at: datetime | None
    #: metric column name → value (see :func:`labelled_outputs`)
    scores: dict[str, float | None] = field(default_factory=dict)


def labelled_outputs(engine: Engine, campaign_id: int, limit: int = 5000) -> list[ReviewRow]:
    """The campaign's current labels (newest first, at most ``limit``), each with all stored
    scores of its output. A metric stored under several signatures (e.g. BERTScore with and
    without idf) gets one column per signature: ``bertscore_f``, ``bertscore_f #2``, …"""
    q = (
        campaign_log(
            campaign_id,
            Annotation.output_id,
            Item.external_id,
            System.name,
            Item.source,
            Item.reference,
            Output.text,
            Annotator.name,
            Annotation.label,
            Annotation.post_edit,
            Annotation.hter,
            Annotation.seconds,
            Annotation.created_at,
            current_only=True,
        )
        .join(Output, Output.id == Annotation.output_id)
        .join(Item, Item.id == Output.item_id)
        .join(System, System.id == Output.system_id)
        .where(Annotation.kind == LABEL)
        .order_by(Annotation.id.desc())
        .limit(limit)
    )
    with session_scope(engine) as s:
        rows = [ReviewRow(*r) for r in s.execute(q)]
        ids = sorted({r.output_id for r in rows})
        scores = (
            s.execute(
                select(
                    MetricScore.output_id,
                    MetricScore.metric,
                    MetricScore.signature,
                    MetricScore.value,
                )
                .where(MetricScore.output_id.in_(ids))
                .order_by(MetricScore.metric, MetricScore.signature)
            ).all()
            if ids
            else []
        )
    columns: dict[tuple[str, str], str] = {}
    for _, metric, signature, _ in scores:
        if (metric, signature) not in columns:
            n = sum(1 for m, _ in columns if m == metric)
            columns[(metric, signature)] = metric if n == 0 else f"{metric} #{n + 1}"
    by_output: dict[int, dict[str, float | None]] = {}
    for output_id, metric, signature, value in scores:
        by_output.setdefault(output_id, {})[columns[(metric, signature)]] = value
    return [ReviewRow(**{**r.__dict__, "scores": by_output.get(r.output_id, {})}) for r in rows]
