"""tasks: the queue cut into batches of N items, each taken by one annotator

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 23:00:00

``tasks``: one batch of a campaign's queue (whole item groups in queue order), with its
annotator (NULL until taken or assigned), state (open | active | paused | done | expired),
when it was made, started and finished, and at the end its outcome (pass | fail by the
attention checks in it) and the completion code shown to the annotator.
``assignments.task_id``: the task a slot belongs to; NULL for a campaign without tasks (the
shared queue) and for slots not cut yet. Existing campaigns keep the shared queue.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tasks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=True),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(length=10), nullable=True),
        sa.Column("completion_code", sa.String(length=100), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_tasks_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotators.id"],
            name=op.f("fk_tasks_annotator_id_annotators"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tasks")),
        sa.UniqueConstraint("campaign_id", "ordinal", name=op.f("uq_tasks_campaign_id_ordinal")),
    )
    op.create_index("ix_tasks_annotator", "tasks", ["annotator_id"], unique=False)
    op.create_index("ix_tasks_campaign_state", "tasks", ["campaign_id", "state"], unique=False)
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("task_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_assignments_task_id_tasks"),
            "tasks",
            ["task_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch_op.create_index("ix_assignments_task", ["task_id", "state", "position"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.drop_index("ix_assignments_task")
        batch_op.drop_constraint(batch_op.f("fk_assignments_task_id_tasks"), type_="foreignkey")
        batch_op.drop_column("task_id")
    op.drop_index("ix_tasks_campaign_state", table_name="tasks")
    op.drop_index("ix_tasks_annotator", table_name="tasks")
    op.drop_table("tasks")
