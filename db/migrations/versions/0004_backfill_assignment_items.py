"""backfill assignments.item_id and slot for slots queued before 0002

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 10:30:00

0002 added ``assignments.item_id`` (NULL) and ``slot`` (0) without filling them, so slots
made at 0001 could not be claimed as a paired group (db.queue.claim_next groups by item and
slot), and a second judgment slot of an output looked like its first. This fills both for
every row still lacking its item — also in databases that reached 0003 with such rows.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The slot first (it selects rows by the still-NULL item_id): the number of earlier
    # regular slots of the same output in queue order, so the first judgment slot is 0, its
    # overlap copy 1, and no two slots of one output share (item, slot), which would let
    # one annotator claim the same output twice.
    op.execute(
        """
        UPDATE assignments SET slot = (
            SELECT COUNT(*) FROM assignments AS earlier
            WHERE earlier.output_id = assignments.output_id
              AND earlier.campaign_id = assignments.campaign_id
              AND earlier.kind = 'regular'
              AND (earlier.position < assignments.position
                   OR (earlier.position = assignments.position AND earlier.id < assignments.id))
        )
        WHERE item_id IS NULL AND kind = 'regular'
        """
    )
    op.execute(
        """
        UPDATE assignments SET item_id = (
            SELECT outputs.item_id FROM outputs WHERE outputs.id = assignments.output_id
        )
        WHERE item_id IS NULL
        """
    )


def downgrade() -> None:
    # Nothing to undo: the filled values are what the queue builder writes, and 0002's
    # downgrade drops both columns.
    pass
