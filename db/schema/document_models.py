"""The document-score table (migration 0015), beside db.schema.models on the same ``Base``:
whatever reads ``Base.metadata`` whole (Alembic, table-by-table checks) imports it too, as
it does db.schema.admin_models."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from db.clock import utcnow
from db.schema.models import Base


class DocumentScore(Base):
    """One annotator's 0–100 score of one system's whole document, given after its last
    segment (DA / SQM judged in document order; annotation.judging.document_scores). Its own table,
    not an annotation row: it judges a document, not one output, and its estimand is the
    system mean of document scores with the document as the unit."""

    __tablename__ = "document_scores"
    __table_args__ = (
        UniqueConstraint("annotator_id", "system_id", "doc_id"),
        # deleting a system cascades here: without the index, one scan per system
        Index("ix_document_scores_system", "system_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), index=True
    )
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotators.id", ondelete="CASCADE"))
    system_id: Mapped[int] = mapped_column(ForeignKey("systems.id", ondelete="CASCADE"))
    doc_id: Mapped[str] = mapped_column(String(300))
    score: Mapped[float] = mapped_column(Float)  # 0–100 (SQM's point k as 100·k/6)
    seconds: Mapped[float | None] = mapped_column(Float)  # the document screen's time
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
