"""drop index made redundant by the queue index

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21 23:16:30.662737
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # (campaign_id, state) is a prefix of 0002's ix_assignments_queue (campaign_id, state,
    # position), which serves the same lookups; keeping both only slows every claim.
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_assignments_campaign_state"))


def downgrade() -> None:
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_assignments_campaign_state"), ["campaign_id", "state"], unique=False
        )
