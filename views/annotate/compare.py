"""The annotate page's comparative mode: every output of one source on one screen.
(An error-span campaign's screen, cESA, is views/spans/compare.py.)

views/pages/annotate.py hands the page here when the campaign's comparative setting is on
(annotation.judging.comparative). The outputs come in the annotator's own shuffled order, without
system names; each gets a label, and one submit saves the screen (every output with its
place on it, in one transaction). Nothing is saved until then.

Keys: ``a`` / ``1`` adequate and ``i`` / ``2`` inadequate for the current output (then the
next one becomes current), ``j`` / ``↓`` next output, ``k`` / ``↑`` previous one, ``Enter``
saves the screen once every output is judged, ``s`` skips the screen, ``u`` undoes the last
screen. Buttons for each output do the same with the mouse. In a browser the labels stay
in the page until the screen is saved (views/annotate/compare_draft.py): one round trip per screen.

When the campaign offers the comment box, each card has its own optional comment, held in the
browser's draft with the labels and saved on that output's judgment; keys typed there are
text, never the screen's (``Enter`` there saves nothing; ``Esc`` leaves the box).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import streamlit as st

from annotation.judging import comparative, session
from annotation.judging import save as judging
from annotation.judging.diff import literal_html
from views.annotate.compare_draft import draft, ident
from views.common import engine
from views.compare_screen import CSS, footer, source_html
from views.spans.extras import comment_offered, output_comment_boxes

KEYS = {"a": "cmp_adequate", "1": "cmp_adequate", "i": "cmp_inadequate", "2": "cmp_inadequate",
        "j": "cmp_next", "arrowdown": "cmp_next", "k": "cmp_prev", "arrowup": "cmp_prev",
        "enter": "cmp_save", "s": "cmp_skip", "u": "cmp_undo"}  # fmt: skip
INSTRUCTIONS = (
    "Judge every output of the source below, then save the screen. Keys: `a` or `1` adequate · "
    "`i` or `2` inadequate (for the highlighted output; the next one is highlighted then) · "
    "`j` / `k` next / previous output · `Enter` saves the screen · `s` skip · `u` undo."
)
LABEL_TEXT = {1: "✓ Adequate", 0: "✗ Inadequate", None: "not judged yet"}


def instructions(view: session.View) -> str:
    """The page's instructions: labels, or error spans per output (cESA)."""
    if view.campaign.mode.asks_spans:
        from views.spans.compare import instructions as span_instructions

        return span_instructions(view)
    if view.campaign.mode.asks_slider:
        from views.annotate.compare_da import instructions as da_instructions

        return da_instructions(view)
    return INSTRUCTIONS


def is_on(view: session.View) -> bool:
    """Whether the annotator's campaign judges on comparative screens (read once per
    session: the setting cannot change once judgments exist)."""
    cached = st.session_state.get("cmp_on")
    if cached is None or cached[0] != view.campaign.id:
        on = comparative.comparative_setting(engine(), view.campaign.id).on
        st.session_state["cmp_on"] = cached = (view.campaign.id, on)
    return bool(cached[1])


def _state(shown: comparative.Screen) -> dict[str, Any]:
    """The screen's unsaved work (labels and comments by position, the current output), per
    screen."""
    ident = tuple((o.assignment_id, o.claim_version, o.text) for o in shown.outputs)
    work = st.session_state.get("cmp_work")
    if work is None or work["ident"] != ident:
        work = {"ident": ident, "labels": {}, "comments": {}, "current": 0}
        st.session_state["cmp_work"] = work
    return work


def _judge(work: dict[str, Any], size: int, label: int, position: int | None = None) -> None:
    k = work["current"] if position is None else position
    work["labels"][k] = label
    undecided = [p for p in range(size) if p not in work["labels"]]
    after = [p for p in undecided if p > k]
    work["current"] = (after or undecided or [k])[0]  # the next output not judged yet


def compare_page(
    view: session.View,
    annotator: int,
    set_view: Callable[[session.View], None],
    seconds: Callable[[], float | None],
    guarded: Callable[..., Any],
    keyboard: Callable[..., None],
) -> None:
    """Draw the screen (inside the page's fragment) or the end message."""
    shown = comparative.screen(engine(), annotator, view) if view.slot is not None else None
    undo = guarded(lambda: set_view(comparative.undo_screen(engine(), annotator)))
    if shown is None:
        st.success("Nothing left for you in this campaign. Thank you!")
        st.button("Undo last screen `u`", key="cmp_undo", on_click=undo)
        keyboard(None, {"u": "cmp_undo"})
        return
    work = _state(shown)
    skip = guarded(partial(_skip, annotator, view, shown, set_view, seconds))
    if view.campaign.mode.asks_spans:  # cESA: error spans per output on the screen
        from views.spans.compare import draft as span_draft
        from views.spans.compare import page_keys, span_screen

        span_screen(view, annotator, shown, work, set_view, seconds, skip, undo, guarded)
        keyboard(None, page_keys(view.campaign.id), span_draft(shown))
        return
    if view.campaign.mode.asks_slider:  # DA / SQM: a slider per output on the screen
        from views.annotate.compare_da import KEYS as DA_KEYS
        from views.annotate.compare_da import da_screen

        da_screen(view, annotator, shown, set_view, seconds, skip, undo, guarded)
        keyboard(None, DA_KEYS)
        return
    offered = comment_offered(view.campaign.id)  # a comment box per output
    save = guarded(partial(_save, annotator, shown, work, set_view, seconds, offered))
    hint = st.session_state.pop("cmp_hint", None)
    if hint:
        st.warning(hint)
    _texts(shown)
    _cards(shown, work, offered)
    # the labels (and comments) stay in the browser until Enter: one round trip per screen;
    # the count of judged outputs is drawn by the browser, not on the save button
    boxes = output_comment_boxes(shown.size) if offered else None
    draft(shown, work, st.session_state.get("keys_rev", 0), save, boxes)
    footer("Save screen `Enter`", save, skip, undo, work, shown.size, judge=_judge)
    keyboard(None, KEYS, ident(shown))


def _save(
    annotator: int,
    shown: comparative.Screen,
    work: dict[str, Any],
    set_view: Callable[[session.View], None],
    seconds: Callable[[], float | None],
    comments: bool = False,
) -> None:
    """Save the screen once every output has its label (``comments``: the campaign offers the
    box, each output's comment with it); else say how many have none."""
    missing = shown.size - len(work["labels"])
    if missing:
        st.session_state["cmp_hint"] = (
            f"{missing} output(s) have no judgment yet: judge every output, then save."
        )
        return
    typed = work.get("comments", {})
    judgments = {
        k: {"label": v} | ({"comment": typed.get(k)} if comments else {})
        for k, v in work["labels"].items()
    }
    try:
        set_view(comparative.submit(engine(), annotator, shown, judgments, seconds=seconds()))
    except session.InvalidJudgment as refused:
        st.session_state["cmp_hint"] = str(refused)


def _skip(
    annotator: int,
    view: session.View,
    shown: comparative.Screen,
    set_view: Callable[[session.View], None],
    seconds: Callable[[], float | None],
) -> None:
    """Skip every output of the screen with the chosen reason."""
    reason = st.session_state.get("cmp_skip_reason") or judging.SKIP_REASONS[0]
    last = view
    for o in shown.outputs:
        if o.assignment_id is not None:
            last = judging.skip(engine(), annotator, o.assignment_id, o.claim_version,
                                reason, seconds())  # fmt: skip
    set_view(last)


def _texts(shown: comparative.Screen) -> None:
    st.html(f"<style>{CSS}</style>" + source_html(shown))


def _cards(shown: comparative.Screen, work: dict[str, Any], comments: bool = False) -> None:
    """One card per output: its text, its label so far, two buttons, and (``comments``) the
    place of its comment box, which the browser's draft draws and holds."""
    size = shown.size
    per_row = 2 if size > 1 else 1
    for k, output in enumerate(shown.outputs):
        if k % per_row == 0:  # rows of two: the page (and a screen reader) reads in order
            columns = st.columns(per_row)
        current = k == work["current"]
        key = f"cmp_card_{'cur_' if current else ''}{k}"
        with columns[k % per_row].container(key=key):
            label = work["labels"].get(k)
            mark = " · current" if current else ""
            st.html(  # the browser's draft (views/annotate/compare_draft.js) redraws mark and label
                f'<p style="font-weight:700;margin:0 0 0.2rem">Output {k + 1} of {size}'
                f'<span class="tandem-cmp-cur">{mark}</span>'
                f' — <span class="tandem-cmp-label">{LABEL_TEXT[label]}</span></p>'
                + literal_html(output.text, "tandem-output")
            )
            b1, b2 = st.columns(2)
            b1.button("Adequate", key=f"cmp_a_{k}", icon=":material/check:",
                      on_click=_judge, args=(work, size, 1, k), width="stretch",
                      type="primary" if label == 1 else "secondary")  # fmt: skip
            b2.button("Inadequate", key=f"cmp_i_{k}", icon=":material/close:",
                      on_click=_judge, args=(work, size, 0, k), width="stretch",
                      type="primary" if label == 0 else "secondary")  # fmt: skip
            if comments:  # views/annotate/compare_draft.js puts the box in
                st.html(f'<div class="tandem-cmp-comment" data-pos="{k}"></div>')
