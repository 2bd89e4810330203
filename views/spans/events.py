"""The error-span widget's events and keys: each event acted on once and in order, keys
turned into actions, and the same keys on the page outside the widget (views/keys.js)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from annotation.judging import session
from annotation.judging.spans import SpanConfig
from db.schema.vocabulary import Severity
from views.keys import keyboard
from views.spans.actions import SpanActions

WIDGET_KEY = "span_widget"
SEEN_KEY = "span_widget_seen"  # the newest widget event acted on: {"session", "n"}
SEVERITY_KEYS = {"q": Severity.MINOR, "w": Severity.MAJOR, "e": Severity.CRITICAL}
ACTION_KEYS = {
    "Enter": "save",
    "n": "no_errors",
    "Delete": "delete",
    "Backspace": "delete",
    "Escape": "clear",
    "s": "skip",
    "u": "undo",
    "a": "accept_ai",  # ESA^AI (views/spans/ai.py); nothing to accept elsewhere
    "j": "next_span",
}


def severity_keys(config: SpanConfig) -> dict[str, Severity]:
    """The severity keys of a campaign: ESA (the overall score asked) has minor and major
    errors only, so ``e`` marks nothing there; MQM has critical ones too."""
    if config.ask_esa:
        return {k: s for k, s in SEVERITY_KEYS.items() if s is not Severity.CRITICAL}
    return dict(SEVERITY_KEYS)


def apply_widget_events(
    actions: SpanActions,
    config: SpanConfig,
    other: dict[str, Callable],
    widget_key: str = WIDGET_KEY,
    seen_key: str = SEEN_KEY,
) -> None:
    """Act once, in order, on each widget event not handled yet (selection, click on a span,
    key). Events meant for an item that is no longer shown are dropped."""
    value = st.session_state.get(widget_key)
    if not isinstance(value, dict) or not isinstance(value.get("events"), list):
        return
    seen = st.session_state.get(seen_key) or {}
    last = seen.get("n", 0) if seen.get("session") == value.get("session") else 0
    for event in value["events"]:
        n = _whole(event.get("n")) if isinstance(event, dict) else None
        if n is None or n <= last:
            continue
        last = n
        st.session_state[seen_key] = {"session": value.get("session"), "n": last}
        slot = actions._slot()
        if slot is None or event.get("nonce") != nonce(slot):
            continue
        kind = event.get("type")
        start, end, index = (_whole(event.get(k)) for k in ("start", "end", "index"))
        if kind == "select" and start is not None and end is not None:
            actions.select(str(event.get("side")), start, end)
        elif kind == "click_span" and index is not None:
            actions.pick_span(index)
        elif kind == "restore":
            actions.restore(event.get("spans"), config)
        elif kind == "key":
            _on_key(str(event.get("key")), actions, config, other)


def _whole(value: Any) -> int | None:
    """A widget value as a whole number; None for anything else (the browser's values are
    not trusted: text, floats, booleans, huge numbers are dropped, not raised on)."""
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 10**9:
        return None
    return value


def nonce(slot: session.Slot) -> str:
    return f"{slot.assignment_id}:{slot.claim_version}"


def _on_key(key: str, actions: SpanActions, config: SpanConfig, other: dict[str, Callable]) -> None:
    if key in severity_keys(config):
        actions.set_field("severity", SEVERITY_KEYS[key].value)
    elif key.isdigit() and 1 <= int(key) <= len(config.categories):
        actions.set_field("category", config.categories[int(key) - 1])
    elif key in ACTION_KEYS:
        action = ACTION_KEYS[key]
        own = {  # ``other`` may replace them (a comparative screen saves the whole screen)
            "save": actions.save,
            "no_errors": lambda: actions.save(no_errors=True),
            "delete": actions.delete,
            "clear": actions.clear,
            "accept_ai": actions.accept_ai,
            "next_span": actions.next_span,
        }
        (own | other).get(action, lambda: None)()


def page_keys(config: SpanConfig, ai: bool = False, held: str | None = None) -> None:
    """The same keys when the focus is on the page rather than in the widget: views/keys.js
    clicks the button whose key the pressed key names (``held``: the item's nonce when the
    page holds its work, views/spans/held.py: the keys act there instead)."""
    keys = {k: f"span_sev_{s.value}" for k, s in severity_keys(config).items()}
    keys |= {str(n + 1): f"span_cat_{n}" for n in range(min(9, len(config.categories)))}
    keys |= {"enter": "span_save", "n": "span_no_errors", "delete": "span_delete"}
    keys |= {"backspace": "span_delete", "escape": "span_clear", "s": "skip", "u": "undo"}
    if ai:
        keys |= {"a": "span_accept_ai", "j": "span_next"}
    keyboard(None, keys, None if held is None else f"spans:{held}")
