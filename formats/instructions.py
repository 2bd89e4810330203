"""Per-item instructions: short markdown shown above an item on the annotate screen.

A campaign file's ``instructions`` cell is markdown; it is refused when it holds HTML (a tag
or comment: the page never renders HTML from a file) or a markdown image (``![..](url)``:
the browser would fetch it from the internet while the item is judged). Pearmut's
instructions are HTML: :func:`from_html` turns them into plain markdown (paragraphs, line
breaks, list items, bold and italic kept; every other tag dropped, entities decoded), so
nothing of the HTML reaches the page.
"""

from __future__ import annotations

import html
import re

#: Characters of one item's instructions (a screen's worth; longer text belongs in the
#: campaign's guidelines).
MAX_INSTRUCTIONS = 5_000

_TAG = re.compile(r"<\s*/?\s*[A-Za-z][^>]*>|<!--|<!\[?[A-Za-z]", re.S)
_IMAGE = re.compile(r"!\[[^\]]*\]\s*[(\[]")
_HTML_BREAK = re.compile(r"<\s*(br|/p|/div|/li|/h[1-6]|/tr)\b[^>]*>", re.I)
_HTML_ITEM = re.compile(r"<\s*li\b[^>]*>", re.I)
_HTML_BOLD = re.compile(r"<\s*/?\s*(b|strong)\b[^>]*>", re.I)
_HTML_ITALIC = re.compile(r"<\s*/?\s*(i|em)\b[^>]*>", re.I)
_HTML_DROP = re.compile(
    r"<\s*(script|style|iframe|object|svg|math)\b.*?<\s*/\s*\1\s*>", re.I | re.S
)
_HTML_ANY = re.compile(r"<[^>]*>?", re.S)
_BANG = re.compile(r"!+\[")
_BLANKS = re.compile(r"\n{3,}")


def problem(text: str) -> tuple[str, str] | None:
    """``(message, fix)`` when ``text`` may not be an item's instructions; None when it may."""
    if "\x00" in text:
        return "instructions contain a NUL byte (\\x00)", "Remove NUL characters."
    if len(text) > MAX_INSTRUCTIONS:
        return (
            f"instructions are {len(text):,} characters long, over the limit of "
            f"{MAX_INSTRUCTIONS:,}",
            "Shorten them; put general advice in the campaign's guidelines.",
        )
    if _TAG.search(text):
        return (
            "instructions contain HTML (a tag or comment); the annotate page shows markdown only",
            "Write them in markdown (**bold**, *italic*, - lists), without < … > tags.",
        )
    if _IMAGE.search(text):
        return (
            "instructions contain a markdown image, which the browser would fetch while judging",
            "Put the image in the campaign's image column instead, or leave it out.",
        )
    return None


def from_html(value: str) -> str:
    """Pearmut's HTML instructions as safe markdown (see the module's docstring), cut to
    :data:`MAX_INSTRUCTIONS`. The result always passes :func:`problem` (apart from length,
    which the cut ensures, and NUL bytes, which are dropped)."""
    text = value.replace("\x00", "")
    text = _HTML_DROP.sub("", text)
    text = _HTML_ITEM.sub("\n- ", text)
    text = _HTML_BREAK.sub("\n", text)
    text = _HTML_BOLD.sub("**", text)
    text = _HTML_ITALIC.sub("*", text)
    text = _HTML_ANY.sub("", text)
    text = html.unescape(text).replace("\x00", "")
    # decoded entities may spell a tag again (&lt;script&gt;): no angle bracket survives
    text = text.replace("<", "‹").replace(">", "›")
    text = _BANG.sub("[", text)  # "![alt](url)" → "[alt](url)": a link, never fetched
    text = _BLANKS.sub("\n\n", "\n".join(line.rstrip() for line in text.splitlines()))
    return text.strip()[:MAX_INSTRUCTIONS]
