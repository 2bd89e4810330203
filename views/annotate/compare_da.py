"""The comparative DA / SQM screen: every output of one source side by side, each with its
slider (views/annotate/da_slider.py keeps the scores in the browser until ``Enter``), saved together
by annotation.judging.comparative.submit with each output's place on the screen.

Keys: ``0``–``9`` / ``←`` / ``→`` (``Shift``: by 10) / ``Home`` / ``End`` set the highlighted
output's score, ``↓`` / ``↑`` (or ``j`` / ``k``) move between outputs, ``Enter`` saves the
screen once every output has a score, ``s`` skips the screen, ``u`` undoes the last one.

When the campaign offers the comment box, each output has its own optional comment under its
slider, held in the page with the scores and saved on that output's judgment. Keys typed in
a comment box are text, never the screen's (``Enter`` there saves nothing; ``Esc`` leaves
the box).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from annotation.judging import comparative, session
from annotation.judging import save as judging
from annotation.judging.da_judgments import scale
from views.annotate.da_slider import ident, keys_text, sliders
from views.common import engine
from views.compare_screen import CSS, source_html
from views.spans.extras import comment_offered, output_comment_boxes

KEYS = {"s": "cmp_skip", "u": "cmp_undo"}


def instructions(view: session.View) -> str:
    sc = scale(view.campaign.mode, view.campaign.likert)
    ends = " … ".join(f"{v} “{t}”" for v, t in sc["anchors"])
    return f"Score every output of the source below, {ends}, then save the screen. " + keys_text(
        sc, several=True
    )


def da_screen(
    view: session.View,
    annotator: int,
    shown: comparative.Screen,
    set_view: Callable[[session.View], None],
    seconds: Callable[[], float | None],
    skip: Callable[[], None],
    undo: Callable[[], None],
    guarded: Callable[..., Callable[..., None]],
) -> None:
    """Draw the screen: the source once, each output with its slider (and, when the campaign
    offers it, its comment box), skip and undo."""
    sc = scale(view.campaign.mode, view.campaign.likert)
    offered = comment_offered(view.campaign.id)

    @guarded
    def save(scores: dict[int, float], comments: dict[int, str]) -> None:
        save_screen(annotator, shown, set_view, seconds(), scores, comments if offered else None)

    for key in ("da_hint", "cmp_hint", "hint"):
        hint = st.session_state.pop(key, None)
        if hint:
            st.warning(hint if isinstance(hint, str) else hint[1])
    st.html(f"<style>{CSS}</style>" + source_html(shown))
    rows = [{"title": f"Output {k + 1} of {shown.size}", "text": o.text}
            for k, o in enumerate(shown.outputs)]  # fmt: skip
    boxes = output_comment_boxes(shown.size) if offered else None
    sliders(ident(shown.outputs), rows, sc, save, comments=boxes)
    c2, c3, c4 = st.columns([2, 1, 1])
    c2.selectbox(
        "Skip reason", judging.SKIP_REASONS, key="cmp_skip_reason", label_visibility="collapsed"
    )
    c3.button("Skip screen `s`", key="cmp_skip", on_click=skip, width="stretch")
    c4.button("Undo `u`", key="cmp_undo", on_click=undo, width="stretch")


def save_screen(
    annotator: int,
    shown: comparative.Screen,
    set_view: Callable[[session.View], None],
    seconds: float | None,
    scores: dict[int, float],
    comments: dict[int, str] | None,
) -> None:
    """Save the screen: each output's score and, ``comments`` given (the campaign offers the
    box), its comment on its own judgment (annotation.judging.comparative.submit checks
    both; a refusal raises InvalidJudgment and saves nothing)."""
    judgments = {
        k: {"da_score": v} | ({} if comments is None else {"comment": comments.get(k)})
        for k, v in scores.items()
    }
    set_view(comparative.submit(engine(), annotator, shown, judgments, seconds=seconds))
