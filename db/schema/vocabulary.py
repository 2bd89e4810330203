"""The queue's kinds and states, named once (stored as their string values).

Plain ``StrEnum``s with no SQLAlchemy, so annotation/ and views/ can import them; a member
equals its string (``SlotState.DONE == "done"``), so rows read back compare as before.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class CampaignMode(StrEnum):
    """What an annotator gives per output."""

    BINARY = "binary"  # a label 1/0
    POST_EDIT = "post_edit"  # the corrected text (its HTER is stored)
    BOTH = "both"  # a label, and a post-edit when given
    SPANS = "spans"  # error spans (MQM / ESA); label and MQM score derived from them
    SPANS_POST_EDIT = "spans_post_edit"  # error spans, and a post-edit when given
    DA = "da"  # a 0–100 direct-assessment slider score (da_score)
    SQM = "sqm"  # the same slider with SQM's seven points 0–6 (stored as 100·k/6)
    PREFERENCE = "preference"  # which of two outputs of one source is better, or a tie

    @property
    def asks_post_edit(self) -> bool:
        return self in (CampaignMode.POST_EDIT, CampaignMode.BOTH, CampaignMode.SPANS_POST_EDIT)

    @property
    def asks_slider(self) -> bool:
        """A slider score per output (DA or SQM), nothing else."""
        return self in (CampaignMode.DA, CampaignMode.SQM)

    @property
    def asks_spans(self) -> bool:
        return self in (CampaignMode.SPANS, CampaignMode.SPANS_POST_EDIT)

    @property
    def asks_preference(self) -> bool:
        """Two outputs of one source side by side: the better one, or a tie."""
        return self is CampaignMode.PREFERENCE


class Severity(StrEnum):
    """An error span's severity (MQM). Critical is scored as major (WMT's weights)."""

    MINOR = "minor"
    MAJOR = "major"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        """Order for "at least this severe": minor 1 < major 2 < critical 3."""
        return (Severity.MINOR, Severity.MAJOR, Severity.CRITICAL).index(self) + 1


class SlotState(StrEnum):
    """An assignment slot's life: open → claimed → done | skipped.

    Active sampling adds two states before "open": a slot is ``pending`` until a draw round
    visits it, then ``open`` (drawn) or ``passed`` (not drawn; never shown). A control-block
    slot starts ``reserved`` (its annotator's alone), then claimed → done | skipped.
    """

    OPEN = "open"
    CLAIMED = "claimed"
    DONE = "done"
    SKIPPED = "skipped"
    PENDING = "pending"
    PASSED = "passed"
    #: A control-block slot waiting for its own annotator: never in the shared queue's
    #: statements, claimed only by db.queue.claim's own-block candidate.
    RESERVED = "reserved"


class SlotKind(StrEnum):
    """A regular slot of the pool, an attention check (never counted in estimates), or a
    slot of the shared control block: one per annotator and block output, judged once by
    every annotator. Whether the block's judgments enter the estimates is the organiser's
    logged choice, carried by the kind itself so both read paths (db.reads.parts,
    db.reads.delta_judgments) decide alike: ``control`` (not counted; agreement, z-scores
    and drift only) or ``control_counted``."""

    REGULAR = "regular"
    ATTENTION = "attention"
    CONTROL = "control"
    CONTROL_COUNTED = "control_counted"


#: The control block's slot kinds (annotation.queue.control_block).
CONTROL_KINDS = (SlotKind.CONTROL, SlotKind.CONTROL_COUNTED)


class AnnotationKind(StrEnum):
    """What a row of the append-only annotation log records."""

    LABEL = "label"  # a judgment of a regular output
    SKIP = "skip"  # the annotator could not judge it (a reason is stored)
    ATTENTION = "attention"  # an answer to an attention check (never counted in estimates)
    UNDO = "undo"  # takes back the row it supersedes


class Estimand(StrEnum):
    """What the dashboard's system means and differences refer to."""

    TEST_SET = "test_set"  # the campaign's own items, one judgment each (finite pool; WMT's)
    SUPERPOPULATION = "superpopulation"  # the expected judgment over annotators


class Sampling(StrEnum):
    """How the queue draws the items that get human labels."""

    UNIFORM = "uniform"  # every open item equally likely (recorded inclusion probability)
    ACTIVE = "active"  # probabilities favour uncertain items, recorded and weighted back


#: campaigns.meta key of the judging unit: {"on": true} = documents judged in order.
DOCUMENT_ORDER = "document_order"


def documents_in_order(meta: dict[str, Any] | None) -> bool:
    """Whether the campaign's queue draws whole documents (segments judged in order); the
    one reading of the setting, for the queue, the session and the estimators' input."""
    raw = (meta or {}).get(DOCUMENT_ORDER) or {}
    return bool(raw.get("on")) if isinstance(raw, dict) else False
