"""An error-span item held in the browser until it is saved: one round trip per judgment.

A server rerun per selection, severity key, category, click on a span, AI action and score
made an ESA judgment cost the server six times a binary one (each redraws the item). So in
a browser the work of the item — the open selection, the spans, their severities and
categories, the ESA^AI accept / next / edit actions, the ESA score — lives in the page
(views/spans/held.js, a Streamlit components v2 element, no iframe): the span widget hands
it its selections and keys, the page's key queue (views/keys.js) its keys and the clicks on
the item's buttons; it draws the span list and the score itself and keeps the work in
localStorage under the widget's draft key (a reload or a second tab on the same item finds
it again). Enter (or Save) sends spans and score in one trigger; :func:`on_save` validates
them as any judgment's (annotation.judging.spans.parse_spans, the score's range) and saves
through the page's own save (views/spans/actions.py), whose checks stay the server's.

Without a browser (Streamlit's AppTest: no request headers) the page is drawn as before:
each event a rerun, the server's span list and slider. A comparative screen (cESA) holds
one such work per output in the same element (views/spans/cesa_held.py).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import streamlit as st

from annotation.judging import session
from annotation.judging.spans import SpanConfig
from views.spans import extras
from views.spans.actions import (
    SpanActions,
    item_work,
    new_span_id,
    only_category,
    set_hint,
    widget_span,
)
from views.spans.events import nonce, severity_keys

KEY = "span_held"
STALE = "This item changed since it was drawn: nothing was saved. Mark it again."
MALFORMED = "The page sent spans that do not fit this item: nothing was saved. Mark it again."
# One module: the item's held work, and the comparative screen's parts
# (views/spans/cesa_held.py). It goes with every element drawn (six on a cESA screen), and
# the server hashes each: without its indentation and whole-line comments (no string or
# template in them spans lines).
_JS = "\n".join(
    line.strip()
    for name in ("held.js", "cesa_held.js")
    for line in Path(__file__).with_name(name).read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.lstrip().startswith("//")
)
_CSS = """
.tandem-held-hint { background: #fffbe6; border: 1px solid #f5d565; border-radius: 0.5rem;
  padding: 0.5rem 0.75rem; margin: 0.25rem 0; }
.tandem-held-open { background: #e8f0fe; border-radius: 0.5rem; padding: 0.5rem 0.75rem;
  margin: 0.25rem 0; }
.tandem-held-caption { color: #6b6f7b; font-size: 0.875rem; margin: 0.25rem 0; }
.tandem-held-list { padding-left: 1.5rem; margin: 0.25rem 0; }
.tandem-held-row { margin: 0.2rem 0; }
.tandem-held-row > * { margin-right: 0.5rem; }
.tandem-held-row { list-style: decimal; }
.tandem-held-row.sel .tandem-held-what { font-weight: 600; }
.tandem-held-what { cursor: pointer; }
.tandem-held-badge { background: #ede4fb; color: #5b21b6; border-radius: 0.4rem;
  padding: 0 0.4rem; font-size: 0.85rem; }
.tandem-held-row select, .tandem-held-del { font: inherit; padding: 0.1rem 0.3rem;
  border: 1px solid #d0d5dd; border-radius: 0.4rem; background: #fff; }
.tandem-held-buttons { display: flex; gap: 1rem; margin: 0.5rem 0; }
.tandem-held-btn { flex: 1; font: inherit; min-height: 2.5rem; padding: 0.25rem 0.75rem;
  border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem; background: #fff;
  color: inherit; cursor: pointer; }
.tandem-held-btn:hover { border-color: #1c62d9; color: #1c62d9; }
.tandem-held-btn.primary { background: #1c62d9; border-color: #1c62d9; color: #fff; }
.tandem-held-btn code { font-size: 0.75rem; padding: 0 0.25rem; margin-left: 0.25rem;
  border-radius: 0.25rem; background: rgba(0, 0, 0, 0.06); }
.tandem-held-btn.primary code { background: rgba(255, 255, 255, 0.9); color: #1c62d9; }
.tandem-held-buttons.ai .tandem-held-btn { flex: 0 1 12rem; }
.tandem-esa { margin: 0.75rem 0 0.25rem; }
.tandem-esa-label { font-size: 0.875rem; display: block; margin-bottom: 0.25rem; }
.tandem-esa-row { display: flex; gap: 1rem; align-items: center; }
.tandem-esa-row input[type=range] { flex: 5; accent-color: #ff4b4b; }
.tandem-esa-row input[type=range].unset { accent-color: #98a2b3; opacity: 0.55; }
.tandem-esa-row input[type=number] { flex: 1; font: inherit; padding: 0.3rem 0.5rem;
  border: 1px solid #d0d5dd; border-radius: 0.4rem; min-width: 5rem; }
.tandem-esa-anchors { position: relative; height: 2.8em; font-size: 0.85rem; color: #555;
  margin-right: calc(1rem + 16.6%); }
.tandem-esa-anchors span { position: absolute; white-space: nowrap; }
.tandem-comment { margin: 0.5rem 0 0.25rem; }
.tandem-comment input { width: 100%; box-sizing: border-box; font: inherit; padding: 0.4rem 0.6rem;
  border: 1px solid #d0d5dd; border-radius: 0.4rem; }
"""
_HELD = st.components.v2.component("tandem_span_held", js=_JS, isolate_styles=False)


def in_browser() -> bool:
    """Whether a browser draws this page (AppTest sends no request headers): only a browser
    runs the held work's script."""
    try:
        return bool(st.context.headers.get("User-Agent"))
    except Exception:  # no request context at all: not a browser
        return False


def mount(slot: session.Slot, work: dict[str, Any], config: SpanConfig,
          actions: SpanActions) -> None:  # fmt: skip
    """The held work's element (its span list and, asked, the ESA score), fed with the
    item's starting spans (an undo's correction, ESA^AI's prefill)."""
    data = item_data(slot, work, config, actions)
    mount_held(KEY, data, on_save_change=lambda: on_save(actions, config))


def mount_held(key: str, data: dict[str, Any], **callbacks: Any) -> None:
    """The held work's element under ``key``. Its data goes as a one-element list: Streamlit
    checks every first-level value of a dict for a data frame (about 0.1 ms each, twenty
    keys, and a cESA screen draws six of these elements per run); a list it passes as is."""
    _HELD(key=key, data=[data], **callbacks)


def item_data(slot: session.Slot, work: dict[str, Any], config: SpanConfig,
              actions: SpanActions) -> dict[str, Any]:  # fmt: skip
    """What the page's held work of one item starts from (an output of a comparative
    screen's too: views/spans/cesa_held.py)."""
    keys = severity_keys(config)
    return {
        "nonce": nonce(slot),
        "rev": st.session_state.get("keys_rev", 0),  # a new value at every draw
        "spans": [widget_span(s) for s in work["spans"]],
        "ai": bool(work.get("ai") and work.get("prefill")),  # clean output: nothing to accept
        "target": slot.text,
        "source": slot.source,
        "categories": list(config.categories),
        "only_category": only_category(),
        "severities": [s.value for s in keys.values()],
        "severity_keys": {k: s.value for k, s in keys.items()},
        "ask_esa": config.ask_esa,
        "esa_start": extras.ESA_START,
        "anchors": [list(a) for a in extras.ESA_ANCHORS],
        "draft_key": actions.draft_key(slot),
        "forget": extras.forgotten(),
        "css": _CSS,
    }


def on_save(actions: SpanActions, config: SpanConfig) -> None:
    """The page's save: its spans and score taken as this item's work, then the page's own
    save (its checks: an open selection, spans with "no errors", the score asked)."""
    slot = actions._slot()
    if slot is None:
        return
    sent = (st.session_state.get(KEY) or {}).get("save")
    if not isinstance(sent, dict) or sent.get("nonce") != nonce(slot):
        set_hint(slot, STALE)
        return
    spans = extras.restored(sent.get("spans"), slot, config, empty_ok=True)
    esa = _score(sent.get("esa"))
    if spans is None or esa is False:
        set_hint(slot, MALFORMED)
        return
    work = item_work(slot)
    work.update(spans=[sp | {"id": new_span_id()} for sp in spans], pending=None, selected=None)
    work["touched"] = True
    if config.ask_esa:
        extras.set_esa(slot, esa)
    actions.save(no_errors=sent.get("no_errors") is True)


def _score(raw: Any) -> float | bool | None:
    """The sent ESA score: a number 0–100, None (not set), False (anything else)."""
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        return False
    return float(raw) if 0 <= raw <= 100 else False
