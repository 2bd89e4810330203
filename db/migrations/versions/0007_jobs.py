"""background jobs (scoring outside the page session); invite-link event log

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 18:40:00

``jobs``: a long task (scoring a campaign) runs in a worker process, not in the page's
session; the row carries its state, progress, heartbeat and result, so the page polls it,
a cancel is a state change, and a job whose worker died is resumed. ``invite_events``: when
an annotator's invite link was issued, re-issued (the old one stops working) or revoked.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=30), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("estimate_s", sa.Float(), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("worker", sa.String(length=100), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_jobs_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
    )
    op.create_index("ix_jobs_campaign_state", "jobs", ["campaign_id", "state"], unique=False)
    op.create_table(
        "invite_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("event", sa.String(length=20), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotators.id"],
            name=op.f("fk_invite_events_annotator_id_annotators"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invite_events")),
    )
    op.create_index("ix_invite_events_annotator", "invite_events", ["annotator_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_invite_events_annotator", table_name="invite_events")
    op.drop_table("invite_events")
    op.drop_index("ix_jobs_campaign_state", table_name="jobs")
    op.drop_table("jobs")
