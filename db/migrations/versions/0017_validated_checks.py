"""tutorial_answers: the whole answer (score, spans, what it missed), a label only on binary screens

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02 04:10:00

Tutorial and check items may expect a score range or error spans as well as a label
(annotation.judging.tutorial): ``answer`` keeps what the annotator gave, for the Annotators
page and the export, and ``label`` may be empty (a DA or ESA screen gives none).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"  # 0016_ai_spans
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tutorial_answers") as batch:
        batch.add_column(sa.Column("answer", sa.JSON(), nullable=True))
        batch.alter_column("label", existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM tutorial_answers WHERE label IS NULL")
    with op.batch_alter_table("tutorial_answers") as batch:
        batch.alter_column("label", existing_type=sa.Integer(), nullable=False)
        batch.drop_column("answer")
