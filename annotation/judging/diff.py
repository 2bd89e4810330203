"""Word diff of an output and its post-edit, and literal (never rendered) text as HTML.

Everything user-supplied is escaped here before it reaches the page, so outputs containing
markdown, HTML or ``<script>`` show as the characters they are; ``dir="auto"`` lets the
browser lay out right-to-left (Arabic, Hebrew) and mixed text correctly.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from difflib import SequenceMatcher


@dataclass(frozen=True)
class DiffOp:
    op: str  # "equal" | "delete" | "insert"
    words: tuple[str, ...]


#: Words, and each line break as a token of its own: a summary's paragraphs survive the diff.
_TOKENS = re.compile(r"\n|[^\s]+")


def _tokens(text: str) -> list[str]:
    return _TOKENS.findall(text.replace("\r\n", "\n").replace("\r", "\n"))


def _joined(words: tuple[str, ...]) -> str:
    """Words separated by spaces, line-break tokens as line breaks (no space around them)."""
    out = ""
    for w in words:
        out += w if w == "\n" or not out or out.endswith("\n") else " " + w
    return out


def word_diff(before: str, after: str) -> list[DiffOp]:
    """difflib's opcodes over words and line breaks; a replacement is a delete then an
    insert. A line break is a token, so an added or removed paragraph shows as one."""
    a, b = _tokens(before), _tokens(after)
    out: list[DiffOp] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(DiffOp("equal", tuple(a[i1:i2])))
        if tag in ("delete", "replace"):
            out.append(DiffOp("delete", tuple(a[i1:i2])))
        if tag in ("insert", "replace"):
            out.append(DiffOp("insert", tuple(b[j1:j2])))
    return out


def literal_html(text: str, css_class: str = "tandem-text") -> str:
    """``text`` as an escaped block that keeps line breaks and picks its own direction."""
    return (
        f'<div class="{css_class}" dir="auto" style="white-space: pre-wrap; '
        f'unicode-bidi: plaintext; font-size: 1.1rem; line-height: 1.6">{html.escape(text)}</div>'
    )


def diff_html(before: str, after: str) -> str:
    """The word diff as escaped HTML: deletions struck through in red, insertions in green;
    line breaks kept (no space is put next to one)."""
    out, previous = [], ""
    for d in word_diff(before, after):
        text = _joined(d.words)
        words = html.escape(text)
        if previous and not previous.endswith("\n") and not text.startswith("\n"):
            out.append(" ")
        previous = text
        if d.op == "equal":
            out.append(f"<span>{words}</span>")
        elif d.op == "delete":
            out.append(
                f'<del style="color:#b42318;background:#fee4e2" title="deleted">{words}</del>'
            )
        else:
            out.append(
                f'<ins style="color:#067647;background:#dcfae6;text-decoration:none" '
                f'title="inserted">{words}</ins>'
            )
    return (
        '<div class="tandem-diff" dir="auto" '
        'style="white-space: pre-wrap; unicode-bidi: plaintext; line-height: 1.6">'
        + "".join(out)
        + "</div>"
    )
