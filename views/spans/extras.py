"""Parts of the error-span page (views/spans/item.py): the ESA overall score as a
slider with its anchors, the span draft that survives a reload, and the optional comment
box (which the label and slider screens of views/annotate draw too).

The draft is kept in the browser (the span widget's localStorage, keyed by campaign,
annotator, slot and claim): the widget mirrors the spans it is given while the annotator
works, and offers the stored ones back once, as a ``restore`` event, when a fresh page shows
the same item with nothing marked yet. The server validates them like any judgment's spans
(annotation.judging.spans.parse_spans) before they are shown; a saved or skipped item's draft is
forgotten (the widget is told to delete its key). No table, no migration."""

from __future__ import annotations

from typing import Any

import streamlit as st

from annotation.campaign import guidelines
from annotation.judging import session
from annotation.judging.save import MAX_COMMENT
from annotation.judging.spans import SpanConfig, SpanError, parse_spans
from views.common import engine

#: ESA's anchors (Kocmi et al. 2024, the DA+SQM scale ESA keeps), as annotators read them.
ESA_ANCHORS = (
    (0, "no meaning preserved"),
    (33, "some meaning preserved"),
    (66, "most meaning preserved, few errors"),
    (100, "perfect meaning and grammar"),
)
# Each anchor under its point of the scale (shifted by its own share; 100 at the right end).
_ANCHORS_HTML = (
    '<div style="position:relative;height:2.8em;margin-top:-0.6rem;font-size:0.85rem;'
    'color:#555">'
    + "".join(
        f'<span style="position:absolute;white-space:nowrap;'
        f'{"right:0" if v == 100 else f"left:{v}%;transform:translateX(-{v}%)"}">'
        f"<b>{v}</b> · {w}</span>"
        for v, w in ESA_ANCHORS
    )
    + "</div>"
)
ESA_START = 50  # where the handle rests until the annotator moves it (not a score)
FORGET_KEY = "span_draft_forget"  # draft keys the widget deletes (saved or skipped items)


def esa_key(slot: session.Slot) -> str:
    return f"span_esa_{slot.assignment_id}_{slot.claim_version}"


def _moved_key(slot: session.Slot) -> str:
    return f"span_esa_moved_{slot.assignment_id}_{slot.claim_version}"


def _box_key(slot: session.Slot) -> str:
    return f"span_esa_box_{slot.assignment_id}_{slot.claim_version}"


def esa_value(slot: session.Slot) -> float | None:
    """The score the annotator set with the slider or typed in the box; None until then (an
    untouched handle is not a judgment: the save is refused, as for an empty number box)."""
    if not st.session_state.get(_moved_key(slot)):
        return None
    return st.session_state.get(esa_key(slot))


def set_esa(slot: session.Slot, score: float | None) -> None:
    """The score a browser sent with its save (views/spans/held.py), as if set here."""
    st.session_state[esa_key(slot)] = score
    st.session_state[_moved_key(slot)] = score is not None


def esa_asked(slot: session.Slot) -> bool:
    """Was the ESA score drawn for ``slot`` (the campaign asks for one)?"""
    return esa_key(slot) in st.session_state


def esa_slider(slot: session.Slot) -> None:
    """The ESA overall score: a 0–100 slider with the four anchors under it, and a box that
    shows the score set (empty until then) and takes a typed one. The box is how a score of
    exactly 50, where the handle starts, is given: a slider left at its value reports no
    change, so moving it there cannot tell a choice from an untouched handle."""
    moved, slider, box = _moved_key(slot), esa_key(slot), _box_key(slot)
    state = st.session_state

    def from_slider() -> None:
        state[moved], state[box] = True, state[slider]

    def from_box() -> None:
        typed = state.get(box)
        state[moved] = typed is not None
        if typed is not None:
            state[slider] = int(typed)

    left, right = st.columns([5, 1], vertical_alignment="bottom")
    left.slider(
        "Overall quality (ESA), 0–100",
        min_value=0,
        max_value=100,
        value=ESA_START,
        step=1,
        key=slider,
        on_change=from_slider,
    )
    right.number_input(
        "Score",
        min_value=0,
        max_value=100,
        value=None,
        step=1,
        key=box,
        placeholder="not set",
        on_change=from_box,
        help="The score you set; or type it here (e.g. 50, where the handle starts).",
    )
    st.html(_ANCHORS_HTML)
    if not state.get(moved):
        st.caption(
            "Not set yet: move the slider to the score, or type it in the box (for 50, where "
            "the handle starts, type 50)."
        )


def draft_key(campaign_id: int, annotator: int, slot: session.Slot) -> str:
    return f"tandem-span-draft:{campaign_id}:{annotator}:{slot.assignment_id}:{slot.claim_version}"


def draft_mode(work: dict[str, Any]) -> str:
    """``offer``: nothing done on this item in this page yet, the widget may offer a stored
    draft back; ``keep``: the widget stores the current spans (and deletes an empty draft)."""
    # ESA^AI items start with spans that are the AI's, not the annotator's work
    return "keep" if work.get("touched") or (work["spans"] and not work.get("ai")) else "offer"


def forget(key: str) -> None:
    keys = [k for k in st.session_state.get(FORGET_KEY, []) if k != key]
    st.session_state[FORGET_KEY] = [*keys, key][-20:]


def forgotten() -> list[str]:
    return list(st.session_state.get(FORGET_KEY, []))


def restored(
    raw: Any, slot: session.Slot, config: SpanConfig, empty_ok: bool = False
) -> list[dict[str, Any]] | None:
    """The draft's spans as the page keeps them, or None when they do not fit this item
    (another text, a category no longer offered, anything malformed: dropped, not raised).
    ``empty_ok``: an empty draft is one (ESA^AI: every AI span was deleted)."""
    if not isinstance(raw, list) or not (raw or empty_ok):
        return None
    try:
        parsed = parse_spans(raw, slot.text, slot.source, config.categories)
    except (SpanError, TypeError, ValueError):
        return None
    return [p.to_json() for p in parsed]


def comment_key(slot: session.Slot) -> str:
    """The comment box's widget key: one per held slot, so a new item starts empty."""
    return f"comment-{slot.assignment_id}-{slot.claim_version}"


def comment_field(view: session.View) -> None:
    """The optional free-text comment saved with the judgment (when the campaign offers
    it: annotation.campaign.guidelines.comment_box)."""
    if view.slot is None or not comment_offered(view.campaign.id):
        return
    comment_input(view.slot, "Comment (optional)")


def comment_offered(campaign_id: int) -> bool:
    """Whether the campaign offers the comment box (annotation.campaign.guidelines)."""
    return guidelines.comment_box(engine(), campaign_id)


#: The comment box's placeholder (a side-by-side screen's boxes name an output: below).
COMMENT_PLACEHOLDER = "Anything the organisers should know about this item"
#: An output's comment box on a side-by-side screen (cESA, binary, DA / SQM).
OUTPUT_COMMENT_PLACEHOLDER = "Anything the organisers should know about this output"


def output_comment_label(k: int) -> str:
    """Output ``k``'s comment box (0-based) on a side-by-side screen, as the annotator reads it."""
    return f"Comment on output {k + 1} (optional)"


def output_comment_boxes(size: int) -> dict[str, Any]:
    """What a page script needs to draw a comment box under each of ``size`` outputs (the
    binary and DA / SQM side-by-side screens hold them in the page with the labels or scores)."""
    return {
        "labels": [output_comment_label(k) for k in range(size)],
        "placeholder": OUTPUT_COMMENT_PLACEHOLDER,
        "max": MAX_COMMENT,
    }


def comment_input(slot: session.Slot, label: str, placeholder: str = COMMENT_PLACEHOLDER) -> None:
    """The comment box of one held slot (a comparative screen draws one per output)."""
    st.text_input(label, key=comment_key(slot), max_chars=MAX_COMMENT, placeholder=placeholder)


def comment_of(slot: session.Slot) -> str | None:
    """What the annotator typed in ``slot``'s comment box (None: nothing, or no box)."""
    return st.session_state.get(comment_key(slot))


def set_comment(slot: session.Slot, comment: str | None) -> None:
    """The comment a browser sent with its save (views/spans/cesa_held.py), as if typed here."""
    st.session_state[comment_key(slot)] = comment
