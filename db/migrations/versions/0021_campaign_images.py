"""campaign_images: the images a campaign's items show, stored with the campaign

Revision ID: 0021
Revises: 0018
Create Date: 2026-12-02 04:40:00

One row per image file of a campaign (its name unique within the campaign), deleted with
the campaign; an item names its image in ``meta["image"]``. The app serves the bytes itself.
Also ``annotations.comment``: an annotator's optional free-text comment on a judgment.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0018"  # 0018_preferences
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "campaign_images",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=300), nullable=False),
        sa.Column("media_type", sa.String(length=20), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_campaign_images_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaign_images")),
        sa.UniqueConstraint(
            "campaign_id", "name", name=op.f("uq_campaign_images_campaign_id_name")
        ),
    )


    # the annotator's optional free-text comment on a judgment
    with op.batch_alter_table("annotations") as batch:
        batch.add_column(sa.Column("comment", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("annotations") as batch:
        batch.drop_column("comment")
    op.drop_table("campaign_images")
