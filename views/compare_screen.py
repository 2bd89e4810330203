"""What every comparative screen draws, with labels (views/annotate/compare.py) or with error
spans (views/spans/compare.py): its style, the source shown once above the
outputs, and the row of save, skip and undo under them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import streamlit as st

from annotation.judging import comparative
from annotation.judging import save as judging
from annotation.judging.diff import literal_html

#: A screen position as a page sends it: ASCII digits, at most 6 (a screen has at most 20
#: outputs; str.isdigit() also takes '²', which int() refuses, and int() refuses a string of
#: more than 4,300 digits with a message that names no screen).
_POSITION = re.compile(r"[0-9]{1,6}")


def screen_position(key: Any, size: int) -> int | None:
    """``key`` (as a browser sent it) as a position on a screen of ``size`` outputs; None
    when it is not one."""
    text = str(key)
    if _POSITION.fullmatch(text) is None or int(text) >= size:
        return None
    return int(text)


CSS = """
.tandem-cmp-current { outline: 3px solid #2563eb; border-radius: 0.5rem; }
[class*="st-key-cmp_card_"] { padding: 0.5rem 0.75rem; border: 1px solid #d0d5dd;
  border-radius: 0.5rem; }
[class*="st-key-cmp_card_cur"] { border: 3px solid #2563eb; }
.st-key-cmp_keys { display: none; }
[class*="st-key-cmp_a_"] button[kind="primary"] { background: #15803d; border-color: #15803d; }
[class*="st-key-cmp_i_"] button[kind="primary"] { background: #b42318; border-color: #b42318; }
[data-mark="1"] [class*="st-key-cmp_a_"] button { background: #15803d; border-color: #15803d;
  color: #fff; }
[data-mark="0"] [class*="st-key-cmp_i_"] button { background: #b42318; border-color: #b42318;
  color: #fff; }
"""


def source_html(shown: comparative.Screen) -> str:
    """The screen's source (and reference), once above its outputs."""
    parts = [("Source", shown.source, "tandem-source")]
    if shown.reference is not None:
        parts.append(("Reference", shown.reference, "tandem-reference"))
    return "".join(
        f'<p style="font-weight:600;margin:0.6rem 0 0.2rem">{title}</p>' + literal_html(text, css)
        for title, text, css in parts
    )


def move_highlight(state: dict[str, Any], size: int, step: int) -> None:
    """``j`` / ``k``: highlight the next / previous output of the screen (wrapping round)."""
    state["current"] = (state["current"] + step) % size


def footer(
    save_label: str | None,
    save: Callable[[], None],
    skip: Callable[[], None],
    undo: Callable[[], None],
    state: dict[str, Any],
    size: int,
    judge: Callable[[dict[str, Any], int, int], None] | None = None,
) -> None:
    """Save (``save_label`` None: the page draws its own), skip (with its reason) and
    undo; then the invisible buttons the key listener clicks: ``j`` / ``k`` move the
    highlight, and with ``judge``, ``a`` / ``i`` label the highlighted output
    (``judge(state, size, label)``)."""
    if save_label is None:  # the page draws its own save (views/spans/cesa_held.py)
        c2, c3, c4 = st.columns([2, 1, 1])
    else:
        c1, c2, c3, c4 = st.columns([2, 2, 1, 1])
        c1.button(save_label, key="cmp_save", type="primary", on_click=save, width="stretch")
    c2.selectbox(
        "Skip reason", judging.SKIP_REASONS, key="cmp_skip_reason", label_visibility="collapsed"
    )
    c3.button("Skip `s`", key="cmp_skip", on_click=skip, width="stretch")
    c4.button("Undo `u`", key="cmp_undo", on_click=undo, width="stretch")
    with st.container(key="cmp_keys"):
        if judge is not None:
            st.button("a", key="cmp_adequate", on_click=judge, args=(state, size, 1))
            st.button("i", key="cmp_inadequate", on_click=judge, args=(state, size, 0))
        st.button("j", key="cmp_next", on_click=move_highlight, args=(state, size, 1))
        st.button("k", key="cmp_prev", on_click=move_highlight, args=(state, size, -1))
