"""A comparative screen's labels kept in the browser until Enter.

A server round trip per label key would redraw the screen each time (0.2 CPU-s a key; 13
keys typed at reading speed would take seconds to be drawn). So the page's key queue
(views/keys.js) hands the label, move and save keys, and clicks on the cards' buttons, to
the draft that views/annotate/compare_draft.js keeps in the page (a Streamlit components v2
element, no iframe); the labels are drawn at once and sent with the save, in one round trip.
The draft survives a reload in the tab's sessionStorage, under the screen's identity.

When the campaign offers the comment box, the draft also draws an optional comment box in
each card (in the place views/annotate/compare.py leaves for it) and holds what is typed
with the labels: in the page, in sessionStorage, sent with the save.

Without the browser script (Streamlit's AppTest) the screen's server buttons still label
and save as before: the draft starts from the labels the server holds.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from annotation.judging import comparative
from views.annotate.da_slider import sent_comments
from views.compare_screen import screen_position

KEY = "cmp_draft"
_JS = Path(__file__).with_name("compare_draft.js").read_text(encoding="utf-8")
_DRAFT = st.components.v2.component("tandem_compare_draft", js=_JS, isolate_styles=False)
_COMMENT_CSS = """<style>
.tandem-cmp-comment label { display: block; font-size: 0.85rem; color: #344054;
  margin: 0.4rem 0 0.15rem; }
.tandem-cmp-comment input { width: 100%; box-sizing: border-box; font: inherit;
  padding: 0.35rem 0.6rem; border: 1px solid #d0d5dd; border-radius: 0.4rem; background: #fff; }
</style>"""


def ident(shown: comparative.Screen) -> str:
    """The screen's identity: its assignments and claims, in screen order."""
    return ",".join(f"{o.assignment_id}.{o.claim_version}" for o in shown.outputs)


def sent_labels(shown: comparative.Screen, sent: Any) -> dict[int, int]:
    """The labels a browser sent with its save, by screen position. ValueError when they
    are not this screen's (a stale page) or not labels of its outputs."""
    if not isinstance(sent, dict) or sent.get("ident") != ident(shown):
        raise ValueError("This screen changed since it was drawn: nothing was saved.")
    labels = sent.get("labels")
    if not isinstance(labels, dict):
        raise ValueError("The screen sent no labels: nothing was saved.")
    out = {}
    for k, v in labels.items():
        at = screen_position(k, shown.size)
        if at is None or type(v) is not int or v not in (0, 1):
            raise ValueError(f"Not a label of this screen: {k!r}: {v!r}. Nothing was saved.")
        out[at] = v
    return out


def on_saved(
    shown: comparative.Screen, work: dict[str, Any], save: Callable[[], None],
    comments: bool = False,
) -> None:  # fmt: skip
    """The draft's save: the labels (and, ``comments``: the screen offers the boxes, the
    comments) the browser sent, checked, into ``work``, then ``save``; anything that does not
    fit: a hint, nothing taken, nothing saved."""
    sent = (st.session_state.get(KEY) or {}).get("save")
    try:
        labels = sent_labels(shown, sent)
        typed = sent_comments(ident(shown), shown.size, sent) if comments else {}
    except ValueError as refused:
        st.session_state["cmp_hint"] = str(refused)
        return
    work["labels"], work["comments"] = labels, typed
    save()


def draft(shown: comparative.Screen, work: dict[str, Any], rev: int,
          save: Callable[[], None], comments: dict[str, Any] | None = None) -> None:  # fmt: skip
    """Mount the draft after the screen's cards; ``save`` runs when Enter (or the save
    button) sends the labels, which are then in ``work["labels"]`` (and the comments in
    ``work["comments"]``). ``comments``: a comment box in each card
    (views/spans/extras.py ``output_comment_boxes``); None: none."""
    st.html(('' if comments is None else _COMMENT_CSS)
            + '<p class="tandem-cmp-count" style="margin:0;color:#475467">'
            f'{len(work["labels"])} of {shown.size} judged</p>')  # fmt: skip
    data = {
        "ident": ident(shown),
        "size": shown.size,
        "rev": rev,  # a new value at every draw: the script draws the draft again
        "labels": {str(k): v for k, v in work["labels"].items()},
        "comment": comments,
        "comments": {str(k): v for k, v in work.get("comments", {}).items()},
        "current": work["current"],
    }
    _DRAFT(key=KEY, data=data, height=0,
           on_save_change=lambda: on_saved(shown, work, save, comments is not None))  # fmt: skip
