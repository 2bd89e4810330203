"""The annotate page's DA / SQM mode: one output, one 0–100 slider score (SQM: 0–6).

views/pages/annotate.py hands the item to :func:`slider_item`. The slider is a small in-page
element (views/annotate/da_slider.py) that keeps the score in the browser until ``Enter`` or its
save
button; a typed score and "Save typed score" do the same without the browser script. The
score is saved by annotation.judging.save.submit (checked in annotation.judging.da_judgments).

Keys: ``0``–``9`` jump to 0, 10 … 90 (SQM: the point 0–6), ``←`` / ``→`` move by 1 (with
``Shift`` by 10), ``Home`` / ``End`` the ends, ``Enter`` saves, ``s`` skips, ``u`` undoes.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.da_judgments import scale
from views.annotate.da_slider import ident, keys_text, sliders
from views.common import engine

SLIDER_KEYS = {"s": "skip", "u": "undo"}


def instructions(view: session.View) -> str:
    """The page's instructions with the scale's anchors and keys."""
    sc = scale(view.campaign.mode)
    ends = " … ".join(f"{v} “{t}”" for v, t in sc["anchors"])
    return (
        f"Score how well the output conveys the source's meaning in fluent language, "
        f"{ends}. " + keys_text(sc, several=False)
    )


def slider_item(
    view: session.View,
    annotator: int,
    set_view: Callable[[session.View], None],
    seconds: Callable[[], float | None],
    guarded: Callable[..., Callable[..., None]],
) -> None:
    """The held item's slider, its typed-score box and the save that goes with both."""
    slot = view.slot
    assert slot is not None  # views/pages/annotate.py draws the end of the queue
    sc = scale(view.campaign.mode)

    @guarded
    def save(value: float | None) -> None:
        st.session_state.pop("hint", None)
        done = judging.submit(
            engine(), annotator, slot.assignment_id, slot.claim_version,
            da_score=value, seconds=seconds(),
        )  # fmt: skip
        set_view(done)

    hint = st.session_state.pop("da_hint", None)
    if hint:
        st.warning(hint)
    sliders(ident([slot]), [{"title": f"Your {sc['name']} score"}], sc,
            lambda scores: save(scores.get(0)))  # fmt: skip
    with st.expander("Type the score instead"):
        left, right = st.columns([2, 1], vertical_alignment="bottom")
        left.number_input(
            f"Score 0–{sc['top']}", min_value=0, max_value=sc["top"], value=None, step=1,
            key=f"da_typed_{slot.assignment_id}_{slot.claim_version}", placeholder="not set",
        )  # fmt: skip
        right.button("Save typed score", key="da_save_typed", on_click=lambda: save(
            st.session_state.get(f"da_typed_{slot.assignment_id}_{slot.claim_version}")))
