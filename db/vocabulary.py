"""The queue's kinds and states, named once (stored as their string values).

Plain ``StrEnum``s with no SQLAlchemy, so annotation/ and views/ can import them; a member
equals its string (``SlotState.DONE == "done"``), so rows read back compare as before.
"""

from __future__ import annotations

from enum import StrEnum


class CampaignMode(StrEnum):
    """What an annotator gives per output."""

    BINARY = "binary"  # a label 1/0
    POST_EDIT = "post_edit"  # the corrected text (its HTER is stored)
    BOTH = "both"  # a label, and a post-edit when given

    @property
    def asks_post_edit(self) -> bool:
        return self in (CampaignMode.POST_EDIT, CampaignMode.BOTH)


class SlotState(StrEnum):
    """An assignment slot's life: open → claimed → done | skipped."""

    OPEN = "open"
    CLAIMED = "claimed"
    DONE = "done"
    SKIPPED = "skipped"


class SlotKind(StrEnum):
    """A regular slot of the pool, or an attention check (never counted in estimates)."""

    REGULAR = "regular"
    ATTENTION = "attention"


class AnnotationKind(StrEnum):
    """What a row of the append-only annotation log records."""

    LABEL = "label"  # a judgment of a regular output
    SKIP = "skip"  # the annotator could not judge it (a reason is stored)
    ATTENTION = "attention"  # an answer to an attention check (never counted in estimates)
    UNDO = "undo"  # takes back the row it supersedes
