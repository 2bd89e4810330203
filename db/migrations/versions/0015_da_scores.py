"""DA / SQM slider scores: annotations.da_score

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28 03:10:00

A DA or SQM campaign's judgment is one annotation row with its 0–100 slider score (SQM's
point k stored as 100·k/6). Its own column rather than ``esa_score``: the ESA score is
given after marking error spans and WMT reports the two protocols as different signals.
NULL for every existing row. Document-level scores are not annotation rows (they judge a
system's whole document, not one output): table ``document_scores``, one row per
annotator, system and document (unique), 0–100.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("annotations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("da_score", sa.Float(), nullable=True))
    op.create_table(
        "document_scores",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("system_id", sa.Integer(), nullable=False),
        sa.Column("doc_id", sa.String(length=300), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["annotator_id"], ["annotators.id"], ondelete="CASCADE",
                                name="fk_document_scores_annotator_id_annotators"),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], ondelete="CASCADE",
                                name="fk_document_scores_campaign_id_campaigns"),
        sa.ForeignKeyConstraint(["system_id"], ["systems.id"], ondelete="CASCADE",
                                name="fk_document_scores_system_id_systems"),
        sa.PrimaryKeyConstraint("id", name="pk_document_scores"),
        sa.UniqueConstraint("annotator_id", "system_id", "doc_id",
                            name="uq_document_scores_annotator_id_system_id_doc_id"),
    )  # fmt: skip
    op.create_index("ix_document_scores_campaign_id", "document_scores", ["campaign_id"])
    op.create_index("ix_document_scores_system", "document_scores", ["system_id"])


def downgrade() -> None:
    op.drop_index("ix_document_scores_system", table_name="document_scores")
    op.drop_index("ix_document_scores_campaign_id", table_name="document_scores")
    op.drop_table("document_scores")
    with op.batch_alter_table("annotations", schema=None) as batch_op:
        batch_op.drop_column("da_score")
