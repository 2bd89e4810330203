"""ai_spans: error spans a quality-estimation model marked in outputs (ESA^AI prefill)

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 03:10:00

One row per span (or one row with NULL start/end/severity for an output the model called
clean), keyed to the output; deleted with it. annotation.ai_spans imports them and the
annotate page of an ESA^AI campaign shows them pre-filled.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"  # 0015_da_scores
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ai_spans",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("output_id", sa.Integer(), nullable=False),
        sa.Column("start", sa.Integer(), nullable=True),
        sa.Column("end", sa.Integer(), nullable=True),
        sa.Column("severity", sa.String(length=20), nullable=True),
        sa.Column("category", sa.String(length=200), nullable=True),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("source", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(
            ["output_id"],
            ["outputs.id"],
            name=op.f("fk_ai_spans_output_id_outputs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ai_spans")),
    )
    op.create_index("ix_ai_spans_output", "ai_spans", ["output_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_ai_spans_output", table_name="ai_spans")
    op.drop_table("ai_spans")
