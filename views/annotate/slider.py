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
from views.common import engine, literal
from views.spans.extras import comment_field, comment_key

SLIDER_KEYS = {"s": "skip", "u": "undo"}


def likert_keys(view: session.View) -> dict[str, str]:
    """A Likert campaign's keys: each point's key clicks its button, ``s`` / ``u`` as ever."""
    sc = scale(view.campaign.mode, view.campaign.likert)
    return {**SLIDER_KEYS, **{k: f"likert_{i}" for i, k in enumerate(sc.get("keys", []))}}


def instructions(view: session.View) -> str:
    """The page's instructions with the scale's anchors and keys."""
    sc = scale(view.campaign.mode, view.campaign.likert)
    if "labels" in sc:  # a Likert scale: one labelled button per point
        return (
            "Choose the point of the scale that fits the output. Keys: "
            + " · ".join(
                f"`{k}` {literal(label)}" for k, label in zip(sc["keys"], sc["labels"], strict=True)
            )
            + " · `s` skip · `u` undo."
        )
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
    sc = scale(view.campaign.mode, view.campaign.likert)

    @guarded
    def save(value: float | None) -> None:
        st.session_state.pop("hint", None)
        done = judging.submit(
            engine(), annotator, slot.assignment_id, slot.claim_version,
            da_score=value, seconds=seconds(),
            comment=st.session_state.get(comment_key(slot)),
        )  # fmt: skip
        set_view(done)

    hint = st.session_state.pop("da_hint", None)
    if hint:
        st.warning(hint)
    comment_field(view)
    if "labels" in sc:  # a Likert scale: the points as buttons, each with its label and key
        likert_buttons(sc, save)
        return
    # no comment box in the element: the page's own (comment_field above) is this item's
    sliders(ident([slot]), [{"title": f"Your {sc['name']} score"}], sc,
            lambda scores, _comments: save(scores.get(0)))  # fmt: skip
    with st.expander("Type the score instead"):
        left, right = st.columns([2, 1], vertical_alignment="bottom")
        left.number_input(
            f"Score 0–{sc['top']}", min_value=0, max_value=sc["top"], value=None, step=1,
            key=f"da_typed_{slot.assignment_id}_{slot.claim_version}", placeholder="not set",
        )  # fmt: skip
        right.button(
            "Save typed score",
            key="da_save_typed",
            on_click=lambda: save(
                st.session_state.get(f"da_typed_{slot.assignment_id}_{slot.claim_version}")
            ),
        )


def likert_buttons(sc: dict, save: Callable[[float | None], None]) -> None:
    """One button per point, in order, labelled with its point, label and key (keys
    ``likert_<index>``, which views/keys.js clicks); a click saves the point's index."""
    cols = st.columns(len(sc["labels"]))
    for i, (col, label, key) in enumerate(zip(cols, sc["labels"], sc["keys"], strict=True)):
        col.button(f"{literal(label)} `{key}`", key=f"likert_{i}", on_click=save, args=(i,),
                   width="stretch")  # fmt: skip
