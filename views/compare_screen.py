"""What every comparative screen draws, with labels (views/annotate_compare.py) or with error
spans (views/annotate_compare_spans.py): its style and the source shown once above the
outputs."""

from __future__ import annotations

from typing import Any

from annotation import comparative
from annotation.diff import literal_html

CSS = """
.tandem-cmp-current { outline: 3px solid #2563eb; border-radius: 0.5rem; }
[class*="st-key-cmp_card_"] { padding: 0.5rem 0.75rem; border: 1px solid #d0d5dd;
  border-radius: 0.5rem; }
[class*="st-key-cmp_card_cur"] { border: 3px solid #2563eb; }
.st-key-cmp_keys { display: none; }
[class*="st-key-cmp_a_"] button[kind="primary"] { background: #15803d; border-color: #15803d; }
[class*="st-key-cmp_i_"] button[kind="primary"] { background: #b42318; border-color: #b42318; }
"""


def source_html(shown: comparative.Screen) -> str:
    """The screen's source (and reference), once above its outputs."""
    parts = [("Source", shown.source, "tandem-source")]
    if shown.reference is not None:
        parts.append(("Reference", shown.reference, "tandem-reference"))
    return "".join(
        f'<p style="font-weight:600;margin:0.6rem 0 0.2rem">{title}</p>'
        + literal_html(text, css)
        for title, text, css in parts
    )


def move_highlight(state: dict[str, Any], size: int, step: int) -> None:
    """``j`` / ``k``: highlight the next / previous output of the screen (wrapping round)."""
    state["current"] = (state["current"] + step) % size
