"""One cell of an imported file, as Tandem stores it: text, typed judgment values, and the
extra columns kept as metadata. A typed parser returns the raw text when the cell does not
parse, so the caller can name it in a problem."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from typing import Any


def raw_text(value: Any) -> str:
    """A cell as read: "" when empty (None or NaN), else its text, unconverted."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value if isinstance(value, str) else str(value)


def text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, str):
        return value
    kept = extra(value)
    return kept if isinstance(kept, str) else str(kept)


def plain(value: Any) -> Any:
    """Nested values as JSON has them: timestamps as ISO 8601, decimals as text."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else str(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)  # Decimal, timedelta, ...


def extra(value: Any) -> Any:
    """An extra column's value as the metadata stores it, the same on every database:
    objects and arrays as JSON text (exports write text back, so round trips are exact),
    timestamps as ISO 8601 text; numbers, booleans and text as they are."""
    if isinstance(value, dict | list | tuple):
        return json.dumps(plain(value), ensure_ascii=False)
    return plain(value)


def is_binary(value: Any) -> bool:
    if isinstance(value, bytes | bytearray | memoryview):
        return True
    if isinstance(value, dict):
        return any(is_binary(v) for v in value.values())
    return isinstance(value, list | tuple) and any(is_binary(v) for v in value)


def has_nul(value: Any) -> bool:
    """Whether the value holds text :func:`text_problem` refuses."""
    return text_problem(value) is not None


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
NUL_FIX = "Remove NUL characters; they are often left by a damaged export."
SURROGATE_FIX = (
    "Write the character in full (a JSON escape such as \\ud83d must be followed by its "
    "low half, e.g. \\ude00), or remove it; re-export the file as UTF-8."
)


def text_problem(value: Any) -> tuple[str, str] | None:
    """Why a cell's text cannot be stored, with what to do, or None: the rule for every text
    cell of every import. No NUL character (PostgreSQL's text and JSON columns cannot hold
    one; SQLite would, so both databases refuse it here alike) and no lone surrogate (half
    of a UTF-16 pair, which a JSON escape can produce: it is not Unicode text and no
    database encodes it). Nested values (JSON objects, lists) are walked, keys included,
    without recursion; other control characters (tab, line break, ESC, …) are text and kept."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            found = _UNSTORABLE.search(node)  # one C-speed scan per cell
            if found is None:
                continue
            if found.group() == "\x00":
                return "contains a NUL byte (\\x00)", NUL_FIX
            bad = f"U+{ord(found.group()):04X}"
            return f"contains a lone surrogate ({bad}), not Unicode text", SURROGATE_FIX
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return None


def optional_text(value: Any) -> str | None:
    value_text = text(value)
    return value_text if value_text.strip() else None


def label(value: Any) -> int | str | None:
    """0/1 (or None when empty); the original value as a string when it is neither."""
    if isinstance(value, bool):
        return int(value)
    clean = text(value).strip()
    if clean == "":
        return None
    if clean in {"0", "1", "0.0", "1.0"}:
        return int(float(clean))
    return clean


def score(value: Any) -> float | str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) if math.isfinite(value) else str(value)
    clean = text(value).strip()
    if clean == "":
        return None
    try:
        number = float(clean)
    except ValueError:
        return clean
    return number if math.isfinite(number) else clean


def boolean(value: Any) -> bool | str:
    if isinstance(value, bool):
        return value
    clean = text(value).strip().lower()
    if clean in {"", "0", "false", "no", "0.0"}:
        return False
    if clean in {"1", "true", "yes", "1.0"}:
        return True
    return clean
