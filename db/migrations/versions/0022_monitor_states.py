"""monitor_states: the live monitor's carried states, kept for other server processes

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-02 07:00:00

One row per campaign, dashboard scope (judgment kind, z-scores) and stream (a system or a
pair): the stream's carried betting state as bytes (a JSON header and raw arrays, no
pickle), the digest of the settings it was computed under and of the labels it is after.
Deleted with the campaign.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"  # 0021_campaign_images
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "monitor_states",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.String(length=100), nullable=False),
        sa.Column("stream", sa.String(length=40), nullable=False),
        sa.Column("state_key", sa.LargeBinary(), nullable=False),
        sa.Column("n_labels", sa.Integer(), nullable=False),
        sa.Column("labels_digest", sa.LargeBinary(), nullable=False),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_monitor_states_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("campaign_id", "scope", "stream", name=op.f("pk_monitor_states")),
    )


def downgrade() -> None:
    op.drop_table("monitor_states")
