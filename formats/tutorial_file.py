"""Tutorial and check files: the items an annotator answers before (or as checks of) their
real work, each with what is expected of the answer. Parse only; the annotation layer
grades answers (annotation.judging.tutorial).

Three shapes are read, all giving the same plain items:

- **CSV**: ``source, output`` and at least one of ``expected_label`` (1/adequate,
  0/inadequate), ``expected_score`` (``80`` or a range ``75-85``), ``expected_spans`` (a JSON
  list, below); optional ``reference``, ``explanation`` (shown after the answer),
  ``instructions`` (shown with the item), ``warning`` (shown when the answer is wrong),
  ``silent`` (1/true: recorded only, no feedback). A preference item gives a second output
  ``output_b`` and ``expected_winner`` (1 / 2 / 0 tie), optional ``tie_allowed``
  (formats.preference.tutorial_pairs).
- **JSONL**: one object a line with the same keys (``expected_spans`` a list), or Pearmut's
  item shape (below).
- **JSON**: a list of Pearmut items: ``src``, ``tgt`` (a text, or an object with one text),
  ``instructions``, and a ``validation`` block (``warning``, ``score`` ``[lo, hi]``,
  ``error_spans``; a block without ``warning`` is a silent check; a block keyed by the
  output's name is read the same), optional ``error_spans`` beside it: spans shown already
  marked (a tutorial item that teaches deleting one).

An expected span is ``{"start": s, "end": e}`` with ``end`` exclusive, each a whole number
or an inclusive range ``[lo, hi]`` of accepted offsets (code points of the output);
Pearmut's ``start_i`` / ``end_i`` (``end_i`` inclusive, so read as ``end = end_i + 1``); or
``{"text": "walked"}``, the words of the error (its first occurrence, offsets accepted
within ``formats.tutorial_spans.TOLERANCE`` characters); or ``{"missing": true}``
(Pearmut: ``"start_i": "missing"``), an omission: a mark in the source where something is
missing, or a span over the output's ``[missing]`` marker. ``severity`` (minor / major /
critical) is optional: without it any severity is accepted.

Every problem names the file, the row (and line), the column and what to do; nothing is
returned for a file with a problem.
"""

from __future__ import annotations

import csv
import io
import json
import math
import unicodedata
from typing import Any

from formats.preference.tutorial_pairs import pair_fields
from formats.problems import CampaignFileError, Problem, decode_utf8
from formats.tutorial_spans import no_constant, prefill, spans

MAX_ITEMS = 50
MAX_BYTES = 2 * 1024 * 1024
MAX_TEXT = 5000  # characters of one text cell
TRUE, FALSE = ("1", "true", "yes", "y", "silent"), ("", "0", "false", "no", "n", "loud")


class TutorialFileError(CampaignFileError):
    """The tutorial file cannot be read; ``problems`` says where and what to do."""


def parse_tutorial_file(data: bytes, filename: str) -> list[dict[str, Any]]:
    """The items of a tutorial file (CSV, JSONL or Pearmut JSON, by content: a file starting
    with ``[`` is JSON, with ``{`` JSONL, else CSV); TutorialFileError for any problem."""
    if len(data) > MAX_BYTES:
        raise _error(
            filename,
            f"is {len(data):,} bytes, over the {MAX_BYTES:,}-byte limit of a tutorial file",
            f"A tutorial has at most {MAX_ITEMS} items: keep it short.",
        )
    try:
        text = decode_utf8(
            data,
            filename,
            lambda byte, line: (f"byte {byte} (line {line}) is not UTF-8", "Save it as UTF-8."),
        )
    except CampaignFileError as refused:
        raise TutorialFileError(refused.problems) from None
    head = text.lstrip()[:1]
    if head == "[":
        raws = _json_items(text, filename)
    elif head == "{":
        raws = _jsonl_items(text, filename)
    else:
        raws = _csv_items(text, filename)
    if not raws:
        raise _error(filename, "holds no tutorial item", "Add at least one item.")
    if len(raws) > MAX_ITEMS:
        raise _error(
            filename,
            f"holds {len(raws)} items; a tutorial has at most {MAX_ITEMS}",
            "Keep the tutorial short: split it, or drop items.",
        )
    return [item(raw, filename, row, line) for row, (line, raw) in enumerate(raws, start=1)]


def _error(filename: str, message: str, fix: str, **where: Any) -> TutorialFileError:
    return TutorialFileError([Problem(filename, message, fix, **where)])


def _json_items(text: str, filename: str) -> list[tuple[int | None, dict[str, Any]]]:
    try:
        raw = json.loads(text, parse_constant=no_constant)
    except (ValueError, RecursionError) as exc:
        raise _error(
            filename,
            f"is not valid JSON ({str(exc)[:120]})",
            "Give a JSON list of items, or one JSON object a line (JSONL).",
        ) from None
    if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
        raise _error(
            filename,
            "is JSON but not a list of item objects",
            "Give a list of objects with src, tgt and validation (Pearmut's shape).",
        )
    return [(None, r) for r in raw[: MAX_ITEMS + 1]]


def _jsonl_items(text: str, filename: str) -> list[tuple[int | None, dict[str, Any]]]:
    out: list[tuple[int | None, dict[str, Any]]] = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line, parse_constant=no_constant)
        except (ValueError, RecursionError) as exc:
            raise _error(
                filename,
                f"is not a JSON object ({str(exc)[:80]})",
                "Write one JSON object per line.",
                row=len(out) + 1,
                line=line_no,
            ) from None
        if not isinstance(raw, dict):
            raise _error(
                filename,
                f"is a JSON {type(raw).__name__}, not an object",
                "Write one JSON object per line.",
                row=len(out) + 1,
                line=line_no,
            )
        out.append((line_no, raw))
        if len(out) > MAX_ITEMS:
            break
    return out


def _csv_items(text: str, filename: str) -> list[tuple[int | None, dict[str, Any]]]:
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise _error(
            filename, f"is not a readable CSV ({exc})", "Save it as a CSV with a header."
        ) from None
    if not rows:
        raise _error(
            filename,
            "has no rows under a header",
            "Give a header (source, output, expected_label / expected_score / "
            "expected_spans, explanation) and one row per item.",
        )
    header = set(rows[0])
    missing = {"source", "output"} - header
    if missing:
        raise _error(
            filename,
            f"needs the column(s) {', '.join(sorted(missing))}",
            "Name the columns in the first row.",
        )
    if not header & {"expected_label", "expected_score", "expected_spans", "expected_winner"}:
        raise _error(
            filename,
            "has no expected answer column",
            "Add expected_label, expected_score, expected_spans or expected_winner.",
        )
    out: list[tuple[int | None, dict[str, Any]]] = []
    for row in rows[: MAX_ITEMS + 1]:
        if None in row:  # more cells than the header has names
            raise _error(
                filename,
                "has more cells than the header has columns",
                "Quote cells that hold commas.",
                row=len(out) + 1,
            )
        out.append((None, {k: v for k, v in row.items() if v not in (None, "")}))
    return out


def item(raw: dict[str, Any], filename: str, row: int, line: int | None = None) -> dict[str, Any]:
    """One item in the stored shape (see the module docstring), from our keys or Pearmut's;
    also used for an item written on the Annotators page."""

    def bad(column: str, message: str, fix: str) -> TutorialFileError:
        return _error(filename, message, fix, row=row, line=line, column=column)

    if "validation" in raw or "src" in raw or "tgt" in raw:
        raw = _from_pearmut(raw, bad)
    source = _text(raw.get("source"), "source", bad, required=True)
    output = _text(raw.get("output"), "output", bad, required=True)
    out: dict[str, Any] = {
        "source": source,
        "output": output,
        "reference": _text(raw.get("reference"), "reference", bad) or None,
        "explanation": _text(raw.get("explanation"), "explanation", bad),
        "instructions": _text(raw.get("instructions"), "instructions", bad) or None,
        "warning": _text(raw.get("warning"), "warning", bad) or None,
        "silent": _flag(raw.get("silent"), bad),
        "label": _label(raw.get("expected_label"), bad),
        "score": _score(raw.get("expected_score"), bad),
        "spans": spans(raw.get("expected_spans"), output, bad),
        "prefill": prefill(raw.get("prefill"), output, bad),
        **pair_fields(raw, _text, _flag, bad),
    }
    if all(out[k] is None for k in ("label", "score", "spans", "winner")):
        raise bad(
            "expected_label",
            "gives no expected answer",
            "Give an expected label, a score range, the expected spans ([] for none) or, "
            "for a pair, the expected winner.",
        )
    return out


def _from_pearmut(raw: dict[str, Any], bad: Any) -> dict[str, Any]:
    """Pearmut's item (``src``, ``tgt``, ``instructions``, ``validation``) in our keys."""
    tgt = raw.get("tgt", raw.get("output"))
    validation = raw.get("validation")
    if isinstance(tgt, dict):
        if len(tgt) != 1:
            raise bad(
                "tgt",
                f"holds {len(tgt)} outputs; a tutorial item has one",
                "Give one output per item (one item per output).",
            )
        ((name, tgt),) = tgt.items()
        if isinstance(validation, dict) and isinstance(validation.get(name), dict):
            validation = validation[name]
    if validation is None:
        validation = {}
    if not isinstance(validation, dict):
        raise bad(
            "validation",
            f"is a {type(validation).__name__}, not an object",
            "Give validation as an object with warning, score and error_spans.",
        )
    warning = validation.get("warning")
    out = {
        "source": raw.get("src", raw.get("source")),
        "output": tgt,
        "reference": raw.get("ref", raw.get("reference")),
        "instructions": _plain(raw.get("instructions")),
        "warning": warning,
        "explanation": raw.get("explanation", warning),
        "silent": raw.get("silent", warning is None),
        "expected_label": raw.get("expected_label"),
        "expected_score": validation.get("score", raw.get("expected_score")),
        "expected_spans": validation.get("error_spans", raw.get("expected_spans")),
        "prefill": raw.get("error_spans", raw.get("prefill")),
    }
    return out


def _plain(html: Any) -> Any:
    """Pearmut's HTML instructions as plain text: tags dropped, ``<br>`` a line break (the
    page shows text literally, never as HTML)."""
    if not isinstance(html, str):
        return html
    import html as html_lib
    import re

    text = re.sub(r"<br\s*/?>", "\n", html, flags=re.IGNORECASE)
    return html_lib.unescape(re.sub(r"<[^>]{0,200}>", "", text))


def _text(value: Any, column: str, bad: Any, required: bool = False) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise bad(column, f"is a {type(value).__name__}, not text", "Give text.")
    value = value.strip()
    if required and not value:
        raise bad(column, "is empty", f"Give the {column} text.")
    if len(value) > MAX_TEXT:
        raise bad(
            column,
            f"is {len(value):,} characters, over {MAX_TEXT:,}",
            "Tutorial items are short: cut the text.",
        )
    odd = next(
        (c for c in value if c not in "\t\n\r" and unicodedata.category(c) in ("Cc", "Cs")), None
    )
    if odd is not None:
        raise bad(
            column,
            f"holds the control character U+{ord(odd):04X}",
            "Remove it (only tabs and line breaks are kept).",
        )
    return value


def _flag(value: Any, bad: Any, column: str = "silent") -> bool:
    if isinstance(value, bool):
        return value
    word = str(value if value is not None else "").strip().lower()
    if word in TRUE:
        return True
    if word in FALSE:
        return False
    fix = "Write 1 or 0."
    if column == "silent":
        fix = "Write 1 (recorded only) or 0 (feedback shown)."
    raise bad(column, f"is {str(value)[:40]!r}", fix)


def _label(value: Any, bad: Any) -> int | None:
    if value is None or value == "":
        return None
    word = str(value).strip().lower()
    if isinstance(value, bool) or word not in ("0", "1", "adequate", "inadequate"):
        raise bad("expected_label", f"is {word[:40]!r}", "Write 1 / adequate or 0 / inadequate.")
    return 1 if word in ("1", "adequate") else 0


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip().rstrip("%"))
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _score(value: Any, bad: Any) -> list[float] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str) and "-" in value.strip()[1:]:  # "75-85" (not "-5")
        lo_text, _, hi_text = value.strip().partition("-")
        parts: Any = [lo_text, hi_text]
    elif isinstance(value, list):
        parts = value
    else:
        parts = [value, value]
    numbers = [_number(p) for p in parts] if len(parts) == 2 else [None]
    fix = "Write a score from 0 to 100, or a range such as 75-85 (JSON: [75, 85])."
    if any(n is None for n in numbers):
        raise bad("expected_score", f"is {str(value)[:40]!r}, not a score or a range", fix)
    lo, hi = numbers
    assert lo is not None and hi is not None
    if not 0 <= lo <= hi <= 100:
        raise bad("expected_score", f"is [{lo:g}, {hi:g}]; a range goes up, within 0–100", fix)
    return [lo, hi]
