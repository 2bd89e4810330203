"""ESA^AI on the error-span page: an item starts with its AI spans (annotation.judging.ai_prefill),
drawn with a dashed violet outline until the annotator accepts them (``a``: the selected
AI span, or all unchecked ones), and a solid one after (accepted or edited). ``j`` selects
the next span, ``Del`` deletes it, the severity keys change it, and a new selection over
the selected span moves its extent there (severity and category kept). Saving keeps the
spans as they are: an AI span left unchecked is kept like an accepted one.

A reload keeps the edited draft: the widget stores the spans (with their AI tags, and an
empty list when every AI span was deleted) and offers them back; an AI tag is kept only
for a span whose id is one of this output's AI spans (the browser is not trusted)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from annotation.judging import session
from annotation.judging.ai_prefill import is_prefilled, prefill_spans
from annotation.judging.spans import SpanConfig
from db.schema.vocabulary import SlotKind
from views.common import engine

AI_KEYS = ("a", "j")
STATES = ("unchecked", "accepted", "edited")


def campaign_prefills(campaign_id: int) -> bool:
    cache = st.session_state.setdefault("ai_prefill_on", {})
    if campaign_id not in cache:
        cache[campaign_id] = is_prefilled(engine(), campaign_id)
    return cache[campaign_id]


def start_work(slot: session.Slot, config: SpanConfig) -> list[dict[str, Any]]:
    """The AI spans an item starts with ([] for an attention check: its text is not the
    output the model saw)."""
    if slot.kind is not SlotKind.REGULAR:
        return []
    return prefill_spans(engine(), slot.output_id, slot.text, config.categories)


def accept(work: dict[str, Any]) -> None:
    """``a``: accept the selected AI span, or every unchecked one when none is selected."""
    chosen = work["selected"]
    spans = work["spans"] if chosen is None else [work["spans"][chosen]]
    for span in spans:
        if span.get("ai") and span.get("ai_state") == "unchecked":
            span["ai_state"] = "accepted"
    work["touched"] = True


def next_span(work: dict[str, Any]) -> None:
    """``j``: select the next span (the first after the last)."""
    if not work["spans"]:
        return
    chosen = work["selected"]
    work["selected"] = 0 if chosen is None else (chosen + 1) % len(work["spans"])
    work["pending"], work["touched"] = None, True


def mark_edited(span: dict[str, Any]) -> None:
    if span.get("ai"):
        span["ai_state"] = "edited"


def resize(work: dict[str, Any], side: str, start: int, end: int) -> bool:
    """A selection over the selected span moves its extent there; False when it does not
    overlap it (then it is a new selection)."""
    chosen = work["selected"]
    if chosen is None:
        return False
    span = work["spans"][chosen]
    if span["side"] != side or not (start < span["end"] and span["start"] < end):
        return False
    if (span["start"], span["end"]) != (start, end):
        span["start"], span["end"] = start, end
        mark_edited(span)
    work["touched"] = True
    return True


def retag(
    restored: list[dict[str, Any]], raw: list[Any], prefill: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Put the draft's AI tags back on the validated spans (parse_spans drops them and
    sorts): a tag is kept when the draft span at the same place named one of this output's
    AI span ids and a known state."""
    ids = {p["ai"] for p in prefill}
    tags: dict[tuple, tuple[int, str]] = {}
    for r in raw:
        if not isinstance(r, dict) or r.get("ai") not in ids or r.get("ai_state") not in STATES:
            continue
        place = (r.get("start"), r.get("end"), r.get("side", "target"))
        tags[place] = (r["ai"], r["ai_state"])
    out = []
    for sp in restored:
        tag = tags.get((sp["start"], sp["end"], sp["side"]))
        out.append(sp | ({"ai": tag[0], "ai_state": tag[1]} if tag else {}))
    return out


def ai_label(span: dict[str, Any]) -> str:
    """The span list's tag of an AI span ("" for the annotator's own)."""
    if not span.get("ai"):
        return ""
    return {"unchecked": "AI · check it", "accepted": "AI · accepted", "edited": "AI · edited"}[
        span.get("ai_state", "unchecked")
    ]
