"""a campaign's life: archiving, and the log of renames, archives, restores and deletions

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 19:45:00

``campaigns.archived_at``: NULL for every existing campaign (all stay active). An archived
campaign is hidden from the lists and read-only until restored. ``campaign_events``: an
append-only record of a campaign's renames, archives, restores and deletion, with no
foreign key so that it outlives the campaign it describes. Two indexes turn a deletion's
foreign-key actions into lookups instead of one scan per deleted row
(``annotations.assignment_id``, ``assignments.attention_check_id``).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("campaigns", schema=None) as batch_op:
        batch_op.add_column(sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "campaign_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("action", sa.String(length=20), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.Column("via", sa.String(length=10), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaign_events")),
    )
    op.create_index("ix_campaign_events_campaign", "campaign_events", ["campaign_id"], unique=False)
    # A deletion's foreign-key actions look rows up by these columns (one scan per row else).
    op.create_index("ix_annotations_assignment", "annotations", ["assignment_id"], unique=False)
    op.create_index(
        "ix_assignments_attention_check", "assignments", ["attention_check_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_assignments_attention_check", table_name="assignments")
    op.drop_index("ix_annotations_assignment", table_name="annotations")
    op.drop_index("ix_campaign_events_campaign", table_name="campaign_events")
    op.drop_table("campaign_events")
    with op.batch_alter_table("campaigns", schema=None) as batch_op:
        batch_op.drop_column("archived_at")
