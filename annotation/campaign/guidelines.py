"""A campaign's guidelines and examples for its annotators, written by its administrators
(kept in ``campaigns.meta``; every change goes to the campaign's setting log)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from db import Engine
from db.campaign.campaigns import campaign_meta, set_campaign_meta_key
from db.clock import utcnow
from db.engine import session_scope
from db.queue import claim as dbq
from db.queue import settings as dbset

#: campaigns.meta key of the guidelines the campaign's administrators write for annotators.
GUIDELINES_KEY = "guidelines"
MAX_GUIDELINES_CHARS = 20_000


@dataclass(frozen=True)
class Guidelines:
    """What the annotators of a campaign are told to do, written by its administrators.
    Markdown; the page renders it without HTML (item texts stay literal elsewhere)."""

    text: str = ""
    examples: str = ""
    updated_at: str | None = None  # ISO time of the last change
    labels_before: int | None = None  # current labels when it was last changed

    @property
    def empty(self) -> bool:
        return not (self.text.strip() or self.examples.strip())


def _guidelines_of(meta: dict[str, Any]) -> Guidelines:
    raw = meta.get(GUIDELINES_KEY)
    if not isinstance(raw, dict):
        return Guidelines()
    return Guidelines(
        text=str(raw.get("text") or ""),
        examples=str(raw.get("examples") or ""),
        updated_at=raw.get("updated_at"),
        labels_before=raw.get("labels_before"),
    )


def guidelines(engine: Engine, campaign_id: int) -> Guidelines:
    """The campaign's guidelines and examples (empty when none were written)."""
    with session_scope(engine) as s:
        return _guidelines_of(campaign_meta(s, campaign_id))


def set_guidelines(
    engine: Engine, campaign_id: int, text: str, examples: str = "", now: datetime | None = None
) -> Guidelines:
    """Store the campaign's guidelines and examples (``campaigns.meta``), with when and
    after how many labels they were changed. Empty texts remove them."""
    text, examples = text.strip(), examples.strip()
    for name, value in (("guidelines", text), ("examples", examples)):
        if len(value) > MAX_GUIDELINES_CHARS:
            raise ValueError(
                f"the {name} have {len(value):,} characters; at most "
                f"{MAX_GUIDELINES_CHARS:,} are kept"
            )
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)  # the meta JSON is rewritten whole
        old = _guidelines_of(campaign_meta(s, campaign_id))
        changes = {
            key: (before or None, after or None)
            for key, before, after in (
                ("guidelines", old.text, text),
                ("guideline_examples", old.examples, examples),
            )
            if before != after
        }
        if changes:  # in the campaign's setting log, like every setting (with the label count)
            dbset.log_setting_changes(s, campaign_id, changes)
        stored = {
            "text": text,
            "examples": examples,
            "updated_at": now.isoformat(),
            "labels_before": dbset.current_label_count(s, campaign_id),
        }
        set_campaign_meta_key(s, campaign_id, GUIDELINES_KEY, stored)
        return _guidelines_of({GUIDELINES_KEY: stored})


#: campaigns.meta key: True when the annotate screens offer an optional comment box.
COMMENT_KEY = "comment_box"


def comment_box(engine: Engine, campaign_id: int) -> bool:
    """Whether the campaign's annotate screens offer the optional free-text comment."""
    with session_scope(engine) as s:
        return campaign_meta(s, campaign_id).get(COMMENT_KEY) is True


def set_comment_box(engine: Engine, campaign_id: int, on: bool) -> None:
    """Offer (or stop offering) the optional comment box on the annotate screens."""
    with session_scope(engine) as s:
        set_campaign_meta_key(s, campaign_id, COMMENT_KEY, bool(on))
