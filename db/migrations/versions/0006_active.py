"""active labelling: the mixing share τ of a campaign, the draw round of a slot

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 18:40:00

An active campaign's queue is drawn in rounds (annotation.queue.draw_round): each round
fixes the inclusion probability of the next visited items from the labels so far and
records it on their slots together with the round (the version of the uncertainty model
that produced it; the round's model inputs are in campaigns.meta["active_rounds"]). Both
columns are NULL for existing rows (τ = the default 0.3; no round: a uniform slot).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("campaigns", schema=None) as batch_op:
        batch_op.add_column(sa.Column("active_tau", sa.Float(), nullable=True))
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("draw_round", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.drop_column("draw_round")
    with op.batch_alter_table("campaigns", schema=None) as batch_op:
        batch_op.drop_column("active_tau")
