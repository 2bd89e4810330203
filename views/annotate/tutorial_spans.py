"""A tutorial item of an error-span campaign (views/annotate/tutorial_gate.py): the same span
widget, severity keys and ESA score as a real item (views/spans/item.py), so what the
tutorial teaches is what the task asks; the answer goes to annotation.judging.tutorial,
which grades it, never to the annotations.

The item stands in for a held slot: a negative assignment id per attempt and item (no real
slot has one) keeps its unsaved spans apart from every other item's, and the page's
``view`` holds a stand-in view while the tutorial lasts (its flag tells the gate to drop it
when the tutorial is passed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from annotation.judging import session, tutorial
from views.spans import extras
from views.spans.actions import (
    SCORE_FIRST,
    UNFINISHED,
    UNFINISHED_ONE,
    SpanActions,
    new_span_id,
    only_category,
    set_hint,
    span_config,
    span_json,
)
from views.spans.events import apply_widget_events, page_keys
from views.spans.item import (
    _save_buttons,
    _severity_and_category_buttons,
    draw_widget,
    severity_hint,
    span_list,
)


def _stand_in(campaign_id: int, title: str, now: tutorial.Status) -> session.Slot:
    item = now.item
    assert item is not None
    slot = session.Slot(
        assignment_id=-(now.attempt * 1000 + now.index + 1),
        claim_version=0,
        output_id=0,
        text=item.output,
        source=item.source,
        reference=item.reference,
        scores=None,
    )
    view = st.session_state.get("view")
    if view is None or view.slot != slot:
        camp = session.CampaignView(campaign_id, title, now.mode, False, False)
        st.session_state["view"] = session.View(camp, slot, session.ProgressCounts(0, 0, 0, 0, 0))
    return slot


def _work(slot: session.Slot, item: tutorial.TutorialItem, category: str) -> dict[str, Any]:
    """The item's unsaved spans, starting from the ones it shows marked already."""
    key = f"span_work_{slot.assignment_id}_{slot.claim_version}"  # views/spans/actions.py's
    if key not in st.session_state:
        spans = [
            {"side": "target", "category": category, "id": new_span_id(), **sp}
            for sp in item.prefill
        ]
        st.session_state[key] = {"spans": spans, "pending": None, "selected": None, "touched": True}
    return st.session_state[key]


class _TutorialActions(SpanActions):
    """The span item's actions, but saving sends the answer to the tutorial."""

    def __init__(self, annotator: int, send: Callable[..., None], now: tutorial.Status) -> None:
        super().__init__(annotator, lambda view: None, lambda: None)
        self.send, self.now = send, now

    def save(self, no_errors: bool = False) -> None:
        slot = self._slot()
        if slot is None:
            return
        work = st.session_state[f"span_work_{slot.assignment_id}_{slot.claim_version}"]
        if work["pending"] is not None:
            set_hint(slot, UNFINISHED_ONE if only_category() else UNFINISHED)
            return
        esa = extras.esa_value(slot)
        if esa is None and extras.esa_asked(slot):
            set_hint(slot, SCORE_FIRST)
            return
        set_hint(slot, None)
        extras.forget(self.draft_key(slot))  # the widget's kept draft of this item: done
        spans = [] if no_errors else [span_json(sp) for sp in work["spans"]]
        self.send(spans=spans, score=esa)


def span_screen(
    annotator: int,
    campaign_id: int,
    title: str,
    now: tutorial.Status,
    send: Callable[..., None],
    feedback_key: str,
) -> None:
    """Draw the item; ``send(spans=..., score=...)`` answers it and leaves its feedback
    under ``feedback_key``."""
    item = now.item
    assert item is not None
    config = span_config(campaign_id)
    slot = _stand_in(campaign_id, title, now)
    work = _work(slot, item, config.categories[0])
    actions = _TutorialActions(annotator, send, now)
    before = (st.session_state.get(feedback_key), st.session_state.get("hint"))
    apply_widget_events(actions, config, {"skip": lambda: None, "undo": lambda: None})
    if (st.session_state.get(feedback_key), st.session_state.get("hint")) != before:
        st.rerun()  # a key in the widget answered or left a hint: draw afresh
    draw_widget(
        slot,
        work,
        actions,
        hint=(
            "Select wrong words (or click in the source where something is missing), then "
            f"{severity_hint(config)}. Enter checks your answer · n no errors."
        ),
    )
    if work["pending"] is not None:
        st.info("Open selection: choose a severity.")
    _severity_and_category_buttons(config, actions)
    span_list(work, slot, config, actions)
    if config.ask_esa or item.score is not None:
        extras.esa_slider(slot)
    hint = st.session_state.get("hint")
    if hint is not None and hint[0] == slot.assignment_id:
        st.warning(hint[1])
    _save_buttons(actions, None, None, save_label="Check my answer `Enter`")
    page_keys(config)
