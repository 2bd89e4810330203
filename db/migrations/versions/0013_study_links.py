"""study links (one shared URL per campaign that enrols crowd participants) and tutorial answers

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28 00:20:00

``study_links`` (a campaign's study URL: token hash, the platform's parameter names, a cap,
revocation) and ``study_participants`` (who enrolled through it: their annotator, platform
id and parameters); ``tutorial_answers`` (annotators' answers to tutorial items, apart from
the annotations). New tables only: existing campaigns have no study link, no tutorial.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "study_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("id_param", sa.String(length=100), nullable=False),
        sa.Column("session_param", sa.String(length=100), nullable=True),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("cap", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_study_links_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_study_links_token_hash")),
    )
    op.create_index("ix_study_links_campaign", "study_links", ["campaign_id"])
    op.create_table(
        "study_participants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("study_link_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.String(length=200), nullable=False),
        sa.Column("session_key", sa.String(length=200), nullable=True),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("enrolled_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_study_participants_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["study_link_id"],
            ["study_links.id"],
            name=op.f("fk_study_participants_study_link_id_study_links"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotators.id"],
            name=op.f("fk_study_participants_annotator_id_annotators"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_participants")),
        sa.UniqueConstraint(
            "campaign_id",
            "participant_id",
            name=op.f("uq_study_participants_campaign_id_participant_id"),
        ),
    )
    op.create_index("ix_study_participants_annotator", "study_participants", ["annotator_id"])
    # deleting a study link cascades to its participants: look them up by the link
    op.create_index("ix_study_participants_link", "study_participants", ["study_link_id"])

    op.create_table(
        "tutorial_answers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("item_index", sa.Integer(), nullable=False),
        sa.Column("label", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_tutorial_answers_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotators.id"],
            name=op.f("fk_tutorial_answers_annotator_id_annotators"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tutorial_answers")),
    )
    op.create_index("ix_tutorial_answers_annotator", "tutorial_answers", ["annotator_id"])


def downgrade() -> None:
    op.drop_index("ix_tutorial_answers_annotator", table_name="tutorial_answers")
    op.drop_table("tutorial_answers")
    op.drop_index("ix_study_participants_link", table_name="study_participants")
    op.drop_index("ix_study_participants_annotator", table_name="study_participants")
    op.drop_table("study_participants")
    op.drop_index("ix_study_links_campaign", table_name="study_links")
    op.drop_table("study_links")
