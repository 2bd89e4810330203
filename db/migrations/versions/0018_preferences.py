"""preference mode: pairs of outputs in the queue and preference judgments in the log

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02 04:00:00

A preference slot shows two outputs of one source: ``assignments.pair_output_id`` is the
second (NULL in every other mode). A preference judgment is one annotation row of that
slot: ``pair_output_id`` the other output, ``preference`` (1.0 ``output_id`` preferred, 0.0
the pair's output, 0.5 a tie), ``strength`` (slightly / clearly), ``reason`` (one line) and
``inclusion_prob`` (the probability that the queue drew this pair of this source); the side
``output_id`` was shown on is ``screen_position`` (0 left, 1 right) with ``screen_size`` 2.
NULL for every existing row. Both new foreign keys cascade with the output, each indexed so
that a deletion does not scan the table.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"  # 0017_validated_checks
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("pair_output_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            "fk_assignments_pair_output_id_outputs", "outputs", ["pair_output_id"], ["id"],
            ondelete="CASCADE",
        )  # fmt: skip
        batch_op.create_index("ix_assignments_pair_output", ["pair_output_id"], unique=False)
    with op.batch_alter_table("annotations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("pair_output_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("preference", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("strength", sa.String(length=10), nullable=True))
        batch_op.add_column(sa.Column("reason", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("inclusion_prob", sa.Float(), nullable=True))
        batch_op.create_foreign_key(
            "fk_annotations_pair_output_id_outputs", "outputs", ["pair_output_id"], ["id"],
            ondelete="CASCADE",
        )  # fmt: skip
        batch_op.create_index("ix_annotations_pair_output", ["pair_output_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("annotations", schema=None) as batch_op:
        batch_op.drop_index("ix_annotations_pair_output")
        batch_op.drop_constraint("fk_annotations_pair_output_id_outputs", type_="foreignkey")
        for column in ("inclusion_prob", "reason", "strength", "preference", "pair_output_id"):
            batch_op.drop_column(column)
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.drop_index("ix_assignments_pair_output")
        batch_op.drop_constraint("fk_assignments_pair_output_id_outputs", type_="foreignkey")
        batch_op.drop_column("pair_output_id")
