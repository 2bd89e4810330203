"""A comparative error-span screen (cESA) held in the browser until it is saved: one round
trip per screen.

A server rerun per selection, severity key, category, click on a span, AI action and score
made a cESA screen of four outputs cost the server 14–22 binary judgments. So in a browser
the screen's work lives in the page, as a single-output ESA item's does
(views/spans/held.py): the same components v2 element, whose script
(views/spans/held.js + views/spans/cesa_held.js) holds one item's work per output — its
spans, its open selection, its ESA^AI accept / next / edit actions, its score — drawn in
that output's card, kept in localStorage under that output's draft key (a reload finds
them again), plus the screen: which output is current (``j`` / ``k``, or the output worked
in), the buttons for it, and the save. Enter (or Save screen) sends every output's spans
and score in one trigger; :func:`on_save` checks that they are this screen's (each
output's nonce), validates each as any judgment's (annotation.judging.spans.parse_spans,
the score's range), and then saves through the screen's own save
(views/spans/compare.py ``_Screen.save``: its checks, then
annotation.judging.comparative.submit, every output in one transaction). Anything that
does not fit: a hint, nothing saved.

Without a browser (AppTest) the screen is drawn by the server, each event a rerun.
"""

from __future__ import annotations

from typing import Any, Protocol

import streamlit as st

from annotation.judging import session
from annotation.judging.save import MAX_COMMENT
from annotation.judging.spans import SpanConfig
from views.spans import extras
from views.spans.actions import SpanActions, item_work, new_span_id
from views.spans.events import nonce
from views.spans.held import MALFORMED, STALE, _score, item_data, mount_held


class _Screen(Protocol):
    """What this module needs of a cESA screen (views/spans/compare.py ``_Screen``)."""

    slots: list[session.Slot]
    config: SpanConfig
    comment: bool  # the campaign's comment box: one per output

    def actions(self, k: int) -> SpanActions:
        """Output ``k``'s span actions."""

    def save(self) -> None:
        """Save the screen."""


KEY = "cesa_held"  # the screen's element: its "save" trigger carries every output's work
# The outputs' and the save button's elements: the module (views/spans/held.js, 22 kB, sent
# with every element and hashed by the server each run) comes once, with the screen's
# element, which draws first; these call its mount once it has loaded (the newest call for
# an element wins: a later draw's data replaces one still waiting).
_PART_JS = """export default function (c) {
  const box = c.parentElement; box.__tandemCall = c;
  const go = () => { if (box.__tandemCall !== c) return;
    if (window.__tandemHeldMount) window.__tandemHeldMount(c); else setTimeout(go, 20); };
  go();
}"""
_PART = st.components.v2.component("tandem_cesa_part", js=_PART_JS, isolate_styles=False)
SCORE_FIRST = (
    "Set the overall score (move the slider, or type it in the box) of output(s) {} before "
    "saving the screen."
)
OPEN_SELECTION = (
    "Output(s) {}: a selection is still open: give it a severity and a category, or clear it "
    "(Esc), before saving."
)
#: The same with one category (ESA: a severity alone marks a span).
OPEN_SELECTION_ONE = OPEN_SELECTION.replace(" and a category", "")


def open_selection(config: SpanConfig) -> str:
    """What a save with a selection still open says (``{}``: the outputs)."""
    return OPEN_SELECTION_ONE if len(config.categories) == 1 else OPEN_SELECTION


def ident(slots: list[session.Slot]) -> str:
    """The screen's identity: its outputs' nonces in their places (a save of another screen,
    or of the same outputs in another order, is not this one's)."""
    return "|".join(nonce(slot) for slot in slots)


def draft_ident(slots: list[session.Slot]) -> str:
    """What views/keys.js is told: the page's keys go to this held screen."""
    return "cesa:" + ident(slots)


def _common(screen: _Screen) -> dict[str, Any]:
    return {
        "screen": ident(screen.slots),
        "size": len(screen.slots),
        "rev": st.session_state.get("keys_rev", 0),  # a new value at every draw
        "forget": extras.forgotten(),
        "texts": {"open": open_selection(screen.config), "score": SCORE_FIRST},
    }


def mount_screen(screen: _Screen, ai: bool) -> None:
    """The hints and the current output's buttons (severity, category, AI, delete, clear,
    previous / next), above the cards; its trigger is the screen's save."""
    data = item_data(screen.slots[0], item_work(screen.slots[0]), screen.config,
                     screen.actions(0))  # fmt: skip
    data = {k: data[k] for k in ("categories", "only_category", "severity_keys", "css")}
    data |= _common(screen) | {"role": "screen", "ai": ai}
    mount_held(KEY, data, on_save_change=lambda: on_save(screen))


def mount_output(screen: _Screen, k: int) -> None:
    """Output ``k``'s held work (its span list, and when asked its ESA score and its
    comment), in its card."""
    slot = screen.slots[k]
    work = item_work(slot)
    data = item_data(slot, work, screen.config, screen.actions(k))
    data |= _common(screen) | {
        "role": "output",
        "index": k,
        "ai_clean": bool(work.get("ai") and not work.get("prefill")),
        "skip_button": "cmp_skip",
        "undo_button": "cmp_undo",
        "comment": _comment_box(k) if screen.comment else None,
        "css": "",  # the screen's element draws the style once
    }
    _PART(key=f"{KEY}_{k}", data=[data])  # a list: see views/spans/held.py mount_held


def _comment_box(k: int) -> dict[str, Any]:
    """Output ``k``'s comment box, held with its spans and score (views/spans/cesa_held.js)."""
    return {
        "label": extras.output_comment_label(k),
        "placeholder": extras.OUTPUT_COMMENT_PLACEHOLDER,
        "max": MAX_COMMENT,
    }


def mount_save(screen: _Screen) -> None:
    """The Save screen button (``Enter``), under the cards."""
    _PART(key=f"{KEY}_save", data=[_common(screen) | {"role": "save"}])


def on_save(screen: _Screen) -> None:
    """The page's save: each output's spans, score and comment taken as its work, then the screen's
    own save. A save meant for another screen, or whose outputs do not fit theirs: a hint,
    nothing taken, nothing saved."""
    sent = (st.session_state.get(KEY) or {}).get("save")
    slots = screen.slots
    if not isinstance(sent, dict) or sent.get("screen") != ident(slots):
        st.session_state["cmp_hint"] = STALE
        return
    outputs = sent.get("outputs")
    if not isinstance(outputs, list) or len(outputs) != len(slots):
        st.session_state["cmp_hint"] = MALFORMED
        return
    taken = []
    for slot, out in zip(slots, outputs, strict=True):
        if not isinstance(out, dict) or out.get("nonce") != nonce(slot):
            st.session_state["cmp_hint"] = STALE
            return
        spans = extras.restored(out.get("spans"), slot, screen.config, empty_ok=True)
        esa = _score(out.get("esa"))
        comment = out.get("comment")
        if spans is None or esa is False or not isinstance(comment, str | None):
            st.session_state["cmp_hint"] = MALFORMED
            return
        taken.append((slot, spans, esa, comment))
    for slot, spans, esa, comment in taken:  # every output fits: the screen's work is the page's
        work = item_work(slot)
        work.update(spans=[sp | {"id": new_span_id()} for sp in spans], pending=None,
                    selected=None, touched=True)  # fmt: skip
        if screen.config.ask_esa:
            extras.set_esa(slot, esa)
        if screen.comment:  # its length and content are the save's to check
            extras.set_comment(slot, comment)
    screen.save()
