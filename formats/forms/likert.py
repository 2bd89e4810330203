"""A Likert (custom labelled) scale: n points (2–11), one label per point, one key per point.

Stored with the campaign (``campaigns.meta["likert"]``) as ``{"labels": [...], "keys":
[...]}``; n is the number of labels. An annotator's point p (1 … n) is stored as the slider
score ``100·(p − 1)/(n − 1)`` (``annotations.da_score``, as SQM's point k is 100·k/6), so the
estimators read ``(p − 1)/(n − 1)`` on [0, 1] through the DA score's kind.

Written on the command line and the Import page as ``N`` (labels 1 … N) or ``N:label,label,…``
(one label per point, commas inside a label escaped as ``\\,``); keys default to the keyboard's
top row ``1 2 … 9 0 -`` in order.
"""

from __future__ import annotations

import re
from typing import Any

MIN_POINTS, MAX_POINTS = 2, 11
MAX_LABEL = 80
#: The default key of point p: the top row of the keyboard, left to right.
DEFAULT_KEYS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "-")
#: Keys the annotate page already uses for something else.
TAKEN_KEYS = frozenset({"s", "u"})
_KEY = re.compile(r"^[0-9a-z\-=\[\];',./]$")


def checked_scale(labels: Any, keys: Any = None) -> dict[str, list[str]]:
    """``{"labels": [...], "keys": [...]}`` as stored; ValueError naming what is wrong.

    2–11 labels, each a non-empty line of at most :data:`MAX_LABEL` characters, no two the
    same; keys one printable character each (lower-case letters, digits, punctuation of the
    main block), not ``s`` or ``u`` (skip, undo), no two the same; None: the default keys."""
    if not isinstance(labels, list | tuple):
        raise ValueError(f"a Likert scale's labels are a list, not {type(labels).__name__}")
    n = len(labels)
    if not MIN_POINTS <= n <= MAX_POINTS:
        raise ValueError(
            f"a Likert scale has {MIN_POINTS}–{MAX_POINTS} points, not {n}; "
            "give one label per point"
        )
    out: list[str] = []
    for p, label in enumerate(labels, 1):
        if not isinstance(label, str) or not label.strip():
            raise ValueError(f"point {p}'s label is empty; give every point a label")
        text = " ".join(label.split())
        if len(text) > MAX_LABEL or any(ord(c) < 32 for c in label if c not in "\t\n"):
            raise ValueError(
                f"point {p}'s label is over {MAX_LABEL} characters or holds control "
                "characters; shorten it"
            )
        if text in out:
            raise ValueError(f"point {p}'s label {text!r} is also point {out.index(text) + 1}'s")
        out.append(text)
    if keys is None:
        keys = list(DEFAULT_KEYS[:n])
    if not isinstance(keys, list | tuple) or len(keys) != n:
        raise ValueError(f"give one key per point: {n} keys, not {keys!r}"[:200])
    seen: list[str] = []
    for p, key in enumerate(keys, 1):
        if not isinstance(key, str) or not _KEY.match(key):
            raise ValueError(
                f"point {p}'s key {key!r} is not one character a-z, 0-9 or punctuation"[:200]
            )
        if key in TAKEN_KEYS:
            raise ValueError(f"point {p}'s key {key!r} is taken (s skips, u undoes)")
        if key in seen:
            raise ValueError(f"point {p}'s key {key!r} is also point {seen.index(key) + 1}'s")
        seen.append(key)
    return {"labels": out, "keys": seen}


def parse_scale(text: str, keys: str | None = None) -> dict[str, list[str]]:
    """The command line's and Import page's spelling → :func:`checked_scale`'s dict.

    ``"5"`` → labels 1 … 5; ``"3:bad,fine,good"`` → those labels (``\\,`` is a comma in a
    label); ``keys``: the keys without separators (``"qwert"``) or comma-separated."""
    text = text.strip()
    head, _, rest = text.partition(":")
    try:
        n = int(head)
    except ValueError:
        raise ValueError(
            f"a Likert scale is written N or N:label,label,… (e.g. 5:bad,poor,fair,good,"
            f"excellent), not {text[:60]!r}"
        ) from None
    if not MIN_POINTS <= n <= MAX_POINTS:
        raise ValueError(f"a Likert scale has {MIN_POINTS}–{MAX_POINTS} points, not {n}")
    if rest.strip():
        labels = [p.replace("\x00", ",") for p in rest.replace("\\,", "\x00").split(",")]
        if len(labels) != n:
            raise ValueError(f"the scale has {n} points but {len(labels)} labels; give {n}")
    else:
        labels = [str(p) for p in range(1, n + 1)]
    key_list = None
    if keys is not None and keys.strip():
        k = keys.strip()
        key_list = [x.strip() for x in k.split(",")] if "," in k and len(k) > 1 else list(k)
    return checked_scale(labels, key_list)


def scale_text(scale: dict[str, list[str]]) -> str:
    """A stored scale back in :func:`parse_scale`'s spelling (its labels; keys apart)."""
    labels = scale["labels"]
    return f"{len(labels)}:" + ",".join(label.replace(",", "\\,") for label in labels)


def point_to_score(point: int, n: int) -> float:
    """Point p of n (1 … n) → the stored 0–100 score, 100·(p − 1)/(n − 1)."""
    return 100.0 * (point - 1) / (n - 1)


def score_to_point(score: float, n: int) -> int:
    """A stored 0–100 score → the nearest point 1 … n (the inverse of :func:`point_to_score`)."""
    return round(score * (n - 1) / 100.0) + 1
