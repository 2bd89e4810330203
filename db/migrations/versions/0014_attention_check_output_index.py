"""index attention_checks.output_id: deleting a campaign's outputs looks its checks up by it

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28 00:30:00

Deleting an output runs its ON DELETE CASCADE on ``attention_checks.output_id``: without an
index that is one scan of every campaign's attention checks per deleted output (measured:
deleting the 6,877 outputs of WMT21 TED with a queue built took 18 s in the browser;
bench/delete_bench.py measures it).
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_attention_checks_output", "attention_checks", ["output_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_attention_checks_output", table_name="attention_checks")
