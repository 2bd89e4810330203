"""Expected error spans of a tutorial file (formats.tutorial_file): offsets or inclusive
ranges of accepted offsets (``end`` exclusive; Pearmut's ``start_i`` / ``end_i`` with
``end_i`` inclusive), the words of the error with a tolerance, or an omission; and the spans
an item shows marked already. Every problem goes to ``bad(column, message, fix)``."""

from __future__ import annotations

import json
from typing import Any

MAX_SPANS = 20
TOLERANCE = 2  # characters either side for a span given by its words
SEVERITIES = ("minor", "major", "critical")
_FIX_SPANS = (
    'Give a JSON list such as [{"start": [7, 9], "end": [13, 15], "severity": "minor"}], '
    '[{"text": "walked"}] or [{"missing": true}]; [] expects no error.'
)


def no_constant(name: str) -> Any:
    """For ``json.loads``: NaN and Infinity are no JSON numbers."""
    raise ValueError(f"{name} is not a JSON number")


def spans(value: Any, output: str, bad: Any) -> list[dict[str, Any]] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value, parse_constant=no_constant)
        except (ValueError, RecursionError):
            raise bad("expected_spans", "is not JSON", _FIX_SPANS) from None
    if not isinstance(value, list):
        raise bad("expected_spans", f"is a {type(value).__name__}, not a list", _FIX_SPANS)
    if len(value) > MAX_SPANS:
        raise bad("expected_spans", f"lists {len(value)} spans, over {MAX_SPANS}", _FIX_SPANS)
    return [_span(sp, n, output, bad) for n, sp in enumerate(value, start=1)]


def _span(raw: Any, n: int, output: str, bad: Any) -> dict[str, Any]:
    where = f"span {n}"
    if not isinstance(raw, dict):
        raise bad("expected_spans", f"{where} is not an object", _FIX_SPANS)
    severity = raw.get("severity")
    if severity is not None and (
        not isinstance(severity, str) or severity.lower() not in SEVERITIES
    ):
        raise bad(
            "expected_spans",
            f"{where}: severity {str(severity)[:20]!r}",
            "Use minor, major or critical, or leave it out (any severity).",
        )
    sev = severity.lower() if isinstance(severity, str) else None
    if raw.get("missing") is True or "missing" in (raw.get("start_i"), raw.get("start")):
        return {"missing": True, "severity": sev}
    if "text" in raw:
        words = raw["text"]
        at = output.find(words) if isinstance(words, str) and words.strip() else -1
        if at < 0:
            raise bad(
                "expected_spans",
                f"{where}: {str(words)[:40]!r} is not in the output",
                "Quote the wrong words exactly as the output has them.",
            )
        end = at + len(words)
        return {
            "start": _around(at, len(output)),
            "end": _around(end, len(output)),
            "severity": sev,
            "text": words,
        }
    inclusive = "start_i" in raw or "end_i" in raw
    start = _range(raw.get("start_i" if inclusive else "start"), where, "start", bad)
    end = _range(raw.get("end_i" if inclusive else "end"), where, "end", bad)
    if inclusive:
        end = [end[0] + 1, end[1] + 1]
    if not (start[0] < end[1] and end[0] <= len(output) and start[0] < len(output)):
        raise bad(
            "expected_spans",
            f"{where}: [{start}, {end}] is not inside the output ({len(output)} characters)",
            "Count offsets from 0 in the output.",
        )
    return {"start": start, "end": [end[0], min(end[1], len(output))], "severity": sev}


def _around(at: int, length: int) -> list[int]:
    return [max(0, at - TOLERANCE), min(length, at + TOLERANCE)]


def _range(value: Any, where: str, name: str, bad: Any) -> list[int]:
    parts = value if isinstance(value, list) else [value, value]
    ok = len(parts) == 2 and all(
        isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 10**6 for p in parts
    )
    if not ok or parts[0] > parts[1]:
        raise bad(
            "expected_spans",
            f"{where}: {name} is {str(value)[:40]!r}",
            f"Give {name} as a whole number or a range [lo, hi] with lo ≤ hi.",
        )
    return [int(parts[0]), int(parts[1])]


def prefill(value: Any, output: str, bad: Any) -> list[dict[str, Any]]:
    """Spans shown already marked (Pearmut's item ``error_spans``: ``end_i`` inclusive)."""
    if value is None or value == "" or value == []:
        return []
    if not isinstance(value, list) or len(value) > MAX_SPANS:
        raise bad("error_spans", "is not a list of at most 20 spans", _FIX_SPANS)
    out = []
    for n, raw in enumerate(value, start=1):
        if isinstance(raw, dict) and isinstance(raw.get("text"), str):  # exactly its words
            at = output.find(raw["text"]) if raw["text"].strip() else -1
            raw = {"start": at, "end": at + len(raw["text"]), "severity": raw.get("severity")}
        span = _span(raw, n, output, bad)
        if span.get("missing"):
            raise bad(
                "error_spans",
                f"span {n}: a missing mark cannot be shown marked already",
                "Mark words of the output.",
            )
        start, end = span["start"][0], span["end"][0]
        if start >= end:
            raise bad("error_spans", f"span {n} is empty", "Mark at least one character.")
        out.append({"start": start, "end": end, "severity": span["severity"] or "minor"})
    return out
