"""The DA / SQM sliders of one screen, kept in the browser until Enter
(views/annotate/da_slider.js).

One element serves the single-output page (one slider) and the comparative screen (each
output's text with its slider): the scores are drawn at once, kept in the tab's
sessionStorage under the screen's identity (a reload mid-item brings them back), and sent
with the save in one round trip. Streamlit's own slider could not do this: it starts at a
value (an untouched handle is indistinguishable from a chosen 50) and forgets it on reload.

A comparative screen whose campaign offers the comment box (annotation.campaign.guidelines)
also gets an optional comment box under each output's slider, held in the page and in the
same sessionStorage draft as the scores and sent with them. (The single-output pages draw the
campaign's comment box with Streamlit: views/spans/extras.py ``comment_field``.)

Without the browser script (Streamlit's AppTest, a screen reader that prefers a box) the
single-output page also takes a typed score (views/annotate/slider.py).
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from views.compare_screen import screen_position

KEY = "da_draft"
_JS = Path(__file__).with_name("da_slider.js").read_text(encoding="utf-8")
_CSS = """
.tandem-da { font-size: 0.95rem; }
.tandem-da-row { padding: 0.4rem 0.6rem 1.6rem; border-radius: 0.5rem; margin-bottom: 0.4rem;
  border: 1px solid transparent; }
.tandem-da-row.current { border-color: #1d4ed8; background: #eff6ff; }
.tandem-da-title { font-weight: 600; margin: 0.2rem 0; }
.tandem-da-text { white-space: pre-wrap; margin: 0 0 0.4rem; padding: 0.4rem 0.6rem;
  background: #f8fafc; border-radius: 0.4rem; }
.tandem-da-line { display: flex; align-items: center; gap: 0.8rem; }
.tandem-da-input { flex: 1; accent-color: #1d4ed8; height: 1.6rem; }
.tandem-da-input.unset { accent-color: #98a2b3; opacity: 0.55; }
.tandem-da-value { min-width: 4.5rem; font-weight: 700; font-variant-numeric: tabular-nums; }
.tandem-da-anchors { position: relative; height: 1.2rem; margin-right: 5.3rem;
  color: #475467; font-size: 0.8rem; }
.tandem-da-anchor { position: absolute; transform: translateX(-50%); white-space: nowrap; }
.tandem-da-anchor.first { transform: none; }
.tandem-da-anchor.last { transform: translateX(-100%); }
.tandem-da-foot { display: flex; gap: 1rem; align-items: center; margin-top: 0.3rem; }
.tandem-da-save { background: #1d4ed8; color: #fff; border: 0; border-radius: 0.5rem;
  padding: 0.45rem 1.2rem; font-weight: 600; cursor: pointer; }
.tandem-da-msg { color: #475467; }
.tandem-da-msg.note { color: #b42318; }
.tandem-da-comment { margin: 0.5rem 5.3rem 0 0; }
.tandem-da-comment label { display: block; font-size: 0.85rem; color: #344054;
  margin-bottom: 0.15rem; }
.tandem-da-comment input { width: 100%; box-sizing: border-box; font: inherit;
  padding: 0.35rem 0.6rem; border: 1px solid #d0d5dd; border-radius: 0.4rem; background: #fff; }
"""
_SLIDER = st.components.v2.component("tandem_da_slider", js=_JS, isolate_styles=False)


def ident(slots: Sequence[Any]) -> str:
    """The screen's identity: its assignments and claims, in screen order."""
    return ",".join(f"{s.assignment_id}.{s.claim_version}" for s in slots)


def sent_scores(screen: str, size: int, sent: Any) -> dict[int, float]:
    """The scores a browser sent with its save, by screen position, in the slider's units.
    ValueError when they are not this screen's (a stale page) or not numbers."""
    if not isinstance(sent, dict) or sent.get("ident") != screen:
        raise ValueError("This screen changed since it was drawn: nothing was saved.")
    scores = sent.get("scores")
    if not isinstance(scores, dict):
        raise ValueError("The screen sent no scores: nothing was saved.")
    out = {}
    for k, v in scores.items():
        at = screen_position(k, size)
        if at is None or type(v) not in (int, float):
            raise ValueError(f"Not a score of this screen: {k!r}: {v!r}. Nothing was saved.")
        out[at] = v
    return out


def sent_comments(screen: str, size: int, sent: Any) -> dict[int, str]:
    """The comments a browser sent with its save, by screen position ({}: none sent, as from
    a page without comment boxes). ValueError when they are not this screen's (a stale
    page), not at its positions, or not text. Their length and content (a NUL byte, the
    limit) are the save's to check (annotation.judging.save.checked_comment), which names
    the output."""
    if not isinstance(sent, dict) or sent.get("ident") != screen:
        raise ValueError("This screen changed since it was drawn: nothing was saved.")
    comments = sent.get("comments", {})
    if not isinstance(comments, dict):
        raise ValueError("The screen's comments are not one per output: nothing was saved.")
    out = {}
    for k, v in comments.items():
        at = screen_position(k, size)
        if at is None or type(v) is not str:
            raise ValueError(
                f"Not a comment on this screen: {reprlib.repr(k)}: {reprlib.repr(v)}. "
                "Nothing was saved."
            )
        out[at] = v
    return out


def on_saved(
    screen: str,
    size: int,
    on_save: Callable[[dict[int, float], dict[int, str]], None],
    comments: bool = False,
) -> None:
    """The element's save: the scores (and, ``comments``: the screen offers the boxes, the
    comments) the browser sent, checked, to ``on_save``; anything that does not fit: a
    hint, nothing saved."""
    sent = (st.session_state.get(KEY) or {}).get("save")
    try:
        scores = sent_scores(screen, size, sent)
        typed = sent_comments(screen, size, sent) if comments else {}
    except ValueError as refused:
        st.session_state["da_hint"] = str(refused)
        return
    on_save(scores, typed)


def sliders(
    screen: str,
    rows: list[dict[str, Any]],
    scale: dict[str, Any],
    on_save: Callable[[dict[int, float], dict[int, str]], None],
    held: dict[int, float] | None = None,
    comments: dict[str, Any] | None = None,
) -> None:
    """Mount the sliders; ``rows``: per output a ``title`` and optionally its ``text``;
    ``on_save`` gets the scores and the comments by position when Enter (or the save
    button) sends them. ``held``: scores the server already has for this screen (they start
    the draft). ``comments``: a comment box under each slider
    (views/spans/extras.py ``output_comment_boxes``); None: none (the comments are {})."""
    st.session_state["da_rev"] = rev = st.session_state.get("da_rev", 0) + 1
    data = {
        "ident": screen,
        "rows": rows,
        "top": scale["top"],
        "anchors": scale["anchors"],
        "scores": {str(k): v for k, v in (held or {}).items()},
        "comment": comments,
        "rev": rev,  # a new value at every draw: the script draws again
    }
    st.html(f"<style>{_CSS}</style>")  # a style element only: it takes no room
    boxes = comments is not None
    _SLIDER(key=KEY, data=data, on_save_change=lambda: on_saved(screen, len(rows), on_save, boxes))


def keys_text(scale: dict[str, Any], several: bool) -> str:
    """The keys, as the page states them."""
    digits = "`0`–`6` set the point" if scale["top"] != 100 else "`0`–`9` jump to 0, 10 … 90"
    move = " · `↓` / `↑` (or `j` / `k`) next / previous output" if several else ""
    return (
        f"Keys: {digits} · `←` / `→` move by 1, with `Shift` by 10 · `Home` / `End` the "
        f"ends{move} · `Enter` saves · `s` skip · `u` undo. Or drag the slider with the mouse."
    )
