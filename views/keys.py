"""The annotate page's keys: which keys work in a campaign's mode, and the listener
(views/keys.js) that clicks the button a key names."""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from db.schema.vocabulary import CampaignMode

KEYS = {"a": "adequate", "j": "adequate", "i": "inadequate", "k": "inadequate"}
KEYS |= {"s": "skip", "u": "undo"}
#: Post-edit mode has no label buttons: only these keys do anything there.
POST_EDIT_KEYS = {"s": "skip", "u": "undo"}


def keys_hint(mode: CampaignMode) -> str:
    """The page's instructions with only the keys that work in ``mode``."""
    if mode == CampaignMode.POST_EDIT:
        return ("Fix the output in the post-edit box. Keys: `Ctrl+Enter` saves · `Esc` "
                "leaves the box · then `s` skip · `u` undo.")  # fmt: skip
    return ("Is the output an adequate rendering of the source? Keys: `a` adequate · "
            "`i` inadequate · `s` skip · `u` undo.")  # fmt: skip


_KEYS_JS = Path(__file__).with_name("keys.js").read_text(encoding="utf-8")


def keyboard(focus_key: str | None, keys: dict[str, str] = KEYS, draft: str | None = None) -> None:
    """Install the key listener (views/keys.js) once per browser tab; focus the post-edit
    box when given. ``keys``: the keys that work on this page (the listener's map is
    replaced at every draw, so a post-edit campaign's page does not answer `a` / `i`).
    Every draw of the annotate page ends with this call: the listener waits for the draw's
    number to change after each click before it clicks the next key. ``draft``: the
    identity of a comparative screen whose labels the browser keeps
    (views/annotate/compare_draft.py):
    its label, move and save keys go to that draft instead of the server's buttons."""
    st.session_state["keys_rev"] = rev = st.session_state.get("keys_rev", 0) + 1
    script = (
        _KEYS_JS.replace("__KEYS__", json.dumps(keys))
        .replace("__FOCUS__", json.dumps(focus_key))
        .replace("__REV__", str(rev))
        .replace("__DRAFT__", json.dumps(draft))
    )
    # A trusted constant script (key names, an id and a number only), run in the page itself.
    st.html(f"<script>{script}</script>", unsafe_allow_javascript=True)
