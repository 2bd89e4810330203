"""error spans: the span list and the ESA score of a judgment

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 18:45:00

A span campaign's judgment is one annotation row: its spans (JSON list of {start, end,
severity, category, side}), the binary label and MQM score derived from them (the existing
``label`` and ``score`` columns, so every estimator reads them unchanged) and, when the
campaign asks, an ESA-style 0–100 overall score. Both new columns are NULL for every
existing row (no spans were marked).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("annotations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("spans", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("esa_score", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("annotations", schema=None) as batch_op:
        batch_op.drop_column("esa_score")
        batch_op.drop_column("spans")
