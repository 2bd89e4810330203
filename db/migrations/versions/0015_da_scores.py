"""DA / SQM slider scores: annotations.da_score

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28 03:10:00

A DA or SQM campaign's judgment is one annotation row with its 0–100 slider score (SQM's
point k stored as 100·k/6). Its own column rather than ``esa_score``: the ESA score is
given after marking error spans and WMT reports the two protocols as different signals.
NULL for every existing row. Document-level scores are not annotation rows (they judge a
system's whole document, not one output) and live in their own table when added.
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


def downgrade() -> None:
    with op.batch_alter_table("annotations", schema=None) as batch_op:
        batch_op.drop_column("da_score")
