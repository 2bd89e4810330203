"""annotators.form_answers: an annotator's answers to the campaign's pre-task form

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-02 07:10:00

The form itself (its fields) and a campaign's Likert scale live in ``campaigns.meta``
(``pretask_form``, ``likert``); the answers are per annotator, and an annotator belongs to
one campaign, so they are two nullable columns of ``annotators``: the answers (JSON, field
name → value) and when they were first given.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"  # 0022_monitor_states
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("annotators") as batch:
        batch.add_column(sa.Column("form_answers", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("form_answered_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("annotators") as batch:
        batch.drop_column("form_answered_at")
        batch.drop_column("form_answers")
