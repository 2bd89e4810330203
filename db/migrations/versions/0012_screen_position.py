"""the comparative screen: where each output sat on the screen it was judged on

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24 23:00:00

``annotations.screen_position`` (0-based place on the screen) and ``annotations.screen_size``
(how many outputs the screen showed): NULL for every existing row and for every judgment
given one output at a time. They let the dashboard measure position bias.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("annotations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("screen_position", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("screen_size", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("annotations", schema=None) as batch_op:
        batch_op.drop_column("screen_size")
        batch_op.drop_column("screen_position")
