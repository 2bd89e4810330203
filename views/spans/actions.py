"""The error-span item's unsaved work (spans, the open selection, the selected span) and
what the keys, buttons and the widget do to it (views/spans/item.py draws it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.span_judgments import campaign_config, undone_spans
from annotation.judging.spans import SpanConfig, snap_to_words
from views.common import engine
from views.spans import ai as span_ai
from views.spans import extras

SELECT_FIRST = "Select the wrong words in the output first (or click in the source where "
SELECT_FIRST += "something is missing)."
UNFINISHED = (
    "A selection is still open: give it a severity and a category, or clear it (`Esc`), "
    "before saving."
)
#: The same with one category (ESA: a severity alone marks a span, there is no category).
UNFINISHED_ONE = UNFINISHED.replace(" and a category", "")
SCORE_FIRST = (
    "Set the overall score first (0–100): move the slider, or type it in the box beside it "
    "(e.g. 50). Then press `n` again for “no errors”, or `Enter` to save the spans."
)
HAS_SPANS = (
    "You marked errors on this item: delete them to say “no errors”, or save them with `Enter`."
)


def span_config(campaign_id: int) -> SpanConfig:
    cache = st.session_state.setdefault("span_configs", {})
    if campaign_id not in cache:
        cache[campaign_id] = campaign_config(engine(), campaign_id)
    return cache[campaign_id]


def item_work(slot: session.Slot) -> dict[str, Any]:
    """The item's unsaved work: spans, the open selection and the selected span. An item
    that came back after an undo starts from the spans that were saved (a correction)."""
    key = f"span_work_{slot.assignment_id}_{slot.claim_version}"
    if key not in st.session_state:
        annotator = int(st.session_state["annotator_id"])
        # a slot's first claim (claims count up from 1) has no judgment to have undone: no
        # read for it, a query less per item
        first = slot.claim_version == 1
        undone = [] if first else undone_spans(engine(), annotator, slot.assignment_id)
        work: dict[str, Any] = {"spans": undone, "pending": None, "selected": None}
        campaign = st.session_state["view"].campaign.id
        if span_ai.campaign_prefills(campaign):  # ESA^AI: start from the AI's spans
            work["ai"], work["prefill"] = True, span_ai.start_work(slot, span_config(campaign))
            work["spans"] = undone or [dict(sp) for sp in work["prefill"]]
        work["spans"] = [sp | {"id": new_span_id()} for sp in work["spans"]]
        st.session_state[key] = work
    return st.session_state[key]


def only_category() -> str | None:
    """The campaign's category when it has just one (ESA's: a severity alone marks a span)."""
    cats = span_config(st.session_state["view"].campaign.id).categories
    return cats[0] if len(cats) == 1 else None


def new_span_id() -> int:
    """A span's id on the page (its row widgets' keys stay with it when others are deleted)."""
    st.session_state["span_ids"] = st.session_state.get("span_ids", 0) + 1
    return st.session_state["span_ids"]


def set_hint(slot: session.Slot, text: str | None) -> None:
    if text is None:
        st.session_state.pop("hint", None)
    else:
        st.session_state["hint"] = (slot.assignment_id, text)


class SpanActions:
    """What the keys, buttons and the widget do to the item's unsaved work. ``slot``: the
    output worked on (a comparative screen has one per output); default: the view's."""

    def __init__(
        self,
        annotator: int,
        on_saved: Callable[[session.View], None],
        seconds: Callable[[], float | None],
        slot: session.Slot | None = None,
    ) -> None:
        self.annotator, self.on_saved, self.seconds = annotator, on_saved, seconds
        self.slot = slot

    def _slot(self) -> session.Slot | None:
        return st.session_state["view"].slot if self.slot is None else self.slot

    def select(self, side: str, start: int, end: int) -> None:
        slot = self._slot()
        if slot is None:
            return
        if side not in ("target", "source"):
            return
        work = item_work(slot)
        text = slot.text if side == "target" else slot.source
        if side == "source" and start == end:  # "missing here", inside the source
            snapped: tuple[int, int] | None = (min(max(0, start), len(text)),) * 2
        else:
            snapped = snap_to_words(text, start, end)
        if snapped is None:
            return
        if work.get("ai") and span_ai.resize(work, side, *snapped):
            return  # ESA^AI: the selected span's extent moved
        work["touched"] = True
        work["pending"] = {
            "side": side,
            "start": snapped[0],
            "end": snapped[1],
            "severity": None,
            "category": only_category(),
            "id": new_span_id(),
        }
        work["selected"] = None
        set_hint(slot, None)

    def pick_span(self, index: int) -> None:
        slot = self._slot()
        if slot is not None and 0 <= index < len(item_work(slot)["spans"]):
            work = item_work(slot)
            work["selected"], work["pending"], work["touched"] = index, None, True

    def set_field(self, field: str, value: str) -> None:
        """Severity or category: edits the selected span, or completes the open selection
        (which becomes a span once it has both)."""
        slot = self._slot()
        if slot is None:
            return
        work = item_work(slot)
        work["touched"] = True
        if work["selected"] is not None:
            span = work["spans"][work["selected"]]
            if span[field] != value:
                span[field] = value
                span_ai.mark_edited(span)
            return
        pending = work["pending"]
        if pending is None:
            set_hint(slot, SELECT_FIRST)
            return
        pending[field] = value
        if pending["severity"] and pending["category"]:
            work["spans"].append(pending)
            work["pending"] = None
            set_hint(slot, None)

    def delete(self, index: int | None = None) -> None:
        slot = self._slot()
        if slot is None:
            return
        work = item_work(slot)
        work["touched"] = True
        index = work["selected"] if index is None else index
        if index is not None and 0 <= index < len(work["spans"]):
            del work["spans"][index]
        elif index is None:
            work["pending"] = None
        work["selected"] = None

    def accept_ai(self) -> None:
        slot = self._slot()
        if slot is not None:
            span_ai.accept(item_work(slot))

    def next_span(self) -> None:
        slot = self._slot()
        if slot is not None:
            span_ai.next_span(item_work(slot))

    def clear(self) -> None:
        slot = self._slot()
        if slot is not None:
            item_work(slot).update(pending=None, selected=None)

    def save(self, no_errors: bool = False) -> None:
        slot = self._slot()
        if slot is None:
            return
        work = item_work(slot)
        if work["pending"] is not None:
            set_hint(slot, UNFINISHED_ONE if only_category() else UNFINISHED)
            return
        if no_errors and work["spans"]:
            set_hint(slot, HAS_SPANS)
            return
        esa = extras.esa_value(slot)
        if esa is None and extras.esa_asked(slot):  # ask for it, as the page's own words
            set_hint(slot, SCORE_FIRST)
            return
        edit = {}
        if st.session_state["view"].campaign.mode.asks_post_edit:  # spans and a post-edit
            edit = {
                "post_edit": st.session_state.get(post_edit_key(slot), slot.text),
                "no_edit_needed": bool(st.session_state.get(no_edit_key(slot))),
            }
        try:
            view = judging.submit(
                engine(),
                self.annotator,
                slot.assignment_id,
                slot.claim_version,
                spans=[] if no_errors else [span_json(s) for s in work["spans"]],
                esa_score=esa,
                seconds=self.seconds(),
                comment=st.session_state.get(extras.comment_key(slot)),
                **edit,
            )
        except session.InvalidJudgment as refused:  # nothing saved; say why, keep the item
            set_hint(slot, str(refused))
            return
        set_hint(slot, None)
        extras.forget(self.draft_key(slot))
        self.on_saved(view)

    def draft_key(self, slot: session.Slot) -> str:
        return extras.draft_key(st.session_state["view"].campaign.id, self.annotator, slot)

    def restore(self, raw: Any, config: SpanConfig) -> None:
        """A browser-kept draft offered back after a reload (views/spans/extras.py)."""
        slot = self._slot()
        if slot is None:
            return
        work = item_work(slot)
        if work.get("touched") or (work["spans"] and not work.get("ai")):
            return
        work["touched"] = True
        spans = extras.restored(raw, slot, config, empty_ok=bool(work.get("ai")))
        if spans is not None and work.get("ai"):
            spans = span_ai.retag(spans, raw, work["prefill"])
        if spans or (spans is not None and work.get("ai")):
            work["spans"] = [sp | {"id": new_span_id()} for sp in spans]
            st.toast(f"Restored the unsaved spans of this item ({len(spans)}).")

    def skip_with(self, skip: Callable[[], None]) -> Callable[[], None]:
        """``skip`` that also forgets the skipped item's draft."""

        def run() -> None:
            slot = self._slot()
            if slot is not None:
                extras.forget(self.draft_key(slot))
            skip()

        return run


def span_json(span: dict[str, Any]) -> dict[str, Any]:
    return {k: span[k] for k in ("start", "end", "severity", "category", "side")}


def widget_span(span: dict[str, Any]) -> dict[str, Any]:
    """A span as the widget draws and drafts it (with its AI tag, ESA^AI)."""
    return span_json(span) | {k: span[k] for k in ("ai", "ai_state") if k in span}


def post_edit_key(slot: session.Slot) -> str:
    return f"span_post_edit_{slot.assignment_id}_{slot.claim_version}"


def no_edit_key(slot: session.Slot) -> str:
    return f"span_no_edit_{slot.assignment_id}_{slot.claim_version}"
