"""campaign plan, live design, estimand, sampling; append-only setting-change log

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 18:30:00

The live verdicts are tuned to a planned label count, a chosen sequential design and an
estimand; the queue may draw uniformly or actively. All four are NULL for existing
campaigns (= the defaults). Changes to analysis- or annotator-facing settings are logged
with the number of labels that existed, so a change after looking at the data is visible.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("campaigns", schema=None) as batch_op:
        batch_op.add_column(sa.Column("planned_labels", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("live_design", sa.String(length=30), nullable=True))
        batch_op.add_column(sa.Column("estimand", sa.String(length=30), nullable=True))
        batch_op.add_column(sa.Column("sampling", sa.String(length=20), nullable=True))
    op.create_table(
        "campaign_setting_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=50), nullable=False),
        sa.Column("old_value", sa.JSON(), nullable=True),
        sa.Column("new_value", sa.JSON(), nullable=True),
        sa.Column("labels_before", sa.Integer(), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_campaign_setting_changes_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaign_setting_changes")),
    )
    op.create_index(
        "ix_campaign_setting_changes_campaign",
        "campaign_setting_changes",
        ["campaign_id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_campaign_setting_changes_campaign", table_name="campaign_setting_changes")
    op.drop_table("campaign_setting_changes")
    with op.batch_alter_table("campaigns", schema=None) as batch_op:
        batch_op.drop_column("sampling")
        batch_op.drop_column("estimand")
        batch_op.drop_column("live_design")
        batch_op.drop_column("planned_labels")
