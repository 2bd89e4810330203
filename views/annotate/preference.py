"""The annotate page's preference mode: two outputs of one source side by side; which is
better, or a tie (annotation.judging.preference decides the sides and stores the choice).

Keys: ``1`` the left output is better, ``2`` the right one, ``0`` a tie (each saves at
once), ``s`` skip, ``u`` undo; the buttons under the outputs do the same with the mouse.
Before choosing, the annotator may say how much better (slightly / clearly) and give a
one-line reason (``Esc`` leaves the box, then the keys work again). That draft is kept on
the server per claimed pair (:func:`drafts`): a reload of the page, which starts a new
browser session, shows the same pair on the same sides with the strength and reason as
they were. The outputs carry no system names.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import streamlit as st

from annotation.judging import preference as pref
from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.diff import literal_html
from views.common import engine
from views.compare_screen import source_html

KEYS = {"1": "pref_left", "2": "pref_right", "0": "pref_tie", "s": "skip", "u": "undo"}
INSTRUCTIONS = (
    "Which output is the better response to the source? Keys: `1` left better · `2` right "
    "better · `0` tie (each saves at once) · `s` skip · `u` undo. Optionally say how much "
    "better and why first (`Esc` leaves the reason box)."
)
STRENGTH_OPTIONS = ("not said", *pref.STRENGTHS)
CSS = """
.st-key-pref_left button, .st-key-pref_right button { font-weight: 600; }
[class*="st-key-pref_side_"] { padding: 0.5rem 0.75rem; border: 1px solid #d0d5dd;
  border-radius: 0.5rem; min-height: 6rem; }
"""
MAX_DRAFTS = 10_000


@st.cache_resource
def drafts() -> OrderedDict[tuple[int, int, int], dict[str, Any]]:
    """Unsaved strength and reason by (annotator, slot, claim version), kept by the server
    process across reloads; the oldest dropped past :data:`MAX_DRAFTS`."""
    return OrderedDict()


def _ident(annotator: int, shown: pref.PairScreen) -> tuple[int, int, int]:
    return (annotator, shown.assignment_id, shown.claim_version)


def _keep(annotator: int, shown: pref.PairScreen) -> None:
    """A widget changed: keep its value in the server's draft."""
    ident = _ident(annotator, shown)
    store = drafts()
    store[ident] = {
        "strength": st.session_state.get(_key("strength", shown)),
        "reason": st.session_state.get(_key("reason", shown)),
    }
    store.move_to_end(ident)
    while len(store) > MAX_DRAFTS:
        store.popitem(last=False)


def _key(what: str, shown: pref.PairScreen) -> str:
    return f"pref_{what}_{shown.assignment_id}_{shown.claim_version}"


def preference_page(
    view: session.View,
    annotator: int,
    set_view: Callable[[session.View], None],
    seconds: Callable[[], float | None],
    guarded: Callable[..., Any],
    skip: Callable[[], None],
    undo: Callable[[], None],
    keyboard: Callable[..., None],
) -> None:
    """Draw the pair (inside the page's fragment) or the end message."""
    shown = pref.pair_screen(annotator, view)
    if shown is None:
        st.success("Nothing left for you in this campaign. Thank you!")
        st.button("Undo last `u`", key="undo", on_click=undo)
        keyboard(None, {"u": "undo"})
        return

    @guarded
    def choose(choice: str) -> None:
        strength = st.session_state.get(_key("strength", shown))
        reason = st.session_state.get(_key("reason", shown))
        next_view = pref.submit_preference(
            engine(), annotator, shown.assignment_id, shown.claim_version, choice,
            strength=None if strength in (None, STRENGTH_OPTIONS[0]) else strength,
            reason=reason, seconds=seconds(),
        )  # fmt: skip
        drafts().pop(_ident(annotator, shown), None)
        set_view(next_view)

    st.html(f"<style>{CSS}</style>" + source_html(shown))  # type: ignore[arg-type]
    left, right = st.columns(2)
    for column, title, text, side in ((left, "Output 1 (left)", shown.left, "l"),
                                      (right, "Output 2 (right)", shown.right, "r")):  # fmt: skip
        with column.container(key=f"pref_side_{side}"):
            st.html(
                f'<p style="font-weight:700;margin:0 0 0.2rem">{title}</p>'
                + literal_html(text, "tandem-output")
            )
    b1, b0, b2 = st.columns(3)
    b1.button("Left is better `1`", key="pref_left", icon=":material/arrow_back:",
              on_click=choose, args=(pref.LEFT,), width="stretch")  # fmt: skip
    b0.button("Tie `0`", key="pref_tie", icon=":material/drag_handle:",
              on_click=choose, args=(pref.TIE,), width="stretch")  # fmt: skip
    b2.button("Right is better `2`", key="pref_right", icon=":material/arrow_forward:",
              on_click=choose, args=(pref.RIGHT,), width="stretch")  # fmt: skip
    _draft_widgets(annotator, shown)
    c3, c4, c5 = st.columns([2, 1, 1])
    c3.selectbox(
        "Skip reason", judging.SKIP_REASONS, key="skip_reason", label_visibility="collapsed"
    )
    c4.button("Skip `s`", key="skip", on_click=skip, width="stretch")
    c5.button("Undo `u`", key="undo", on_click=undo, width="stretch")
    keyboard(None, KEYS)


def _draft_widgets(annotator: int, shown: pref.PairScreen) -> None:
    """How much better, and why: optional, kept in the server's draft until the choice."""
    kept = drafts().get(_ident(annotator, shown)) or {}
    strength_key, reason_key = _key("strength", shown), _key("reason", shown)
    if strength_key not in st.session_state and kept.get("strength") in STRENGTH_OPTIONS:
        st.session_state[strength_key] = kept["strength"]
    if reason_key not in st.session_state and kept.get("reason"):
        st.session_state[reason_key] = kept["reason"]
    c1, c2 = st.columns([1, 2])
    c1.radio(
        "How much better? (optional; a tie has none)",
        STRENGTH_OPTIONS,
        key=strength_key,
        horizontal=True,
        on_change=_keep,
        args=(annotator, shown),
    )
    c2.text_input(
        "Why? (optional, one line)",
        key=reason_key,
        max_chars=pref.MAX_REASON,
        placeholder="e.g. the left one keeps the names",
        on_change=_keep,
        args=(annotator, shown),
    )
