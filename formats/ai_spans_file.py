"""The AI error-span file (ESA^AI prefill): read it, row by row, with no database.

CSV, TSV or JSONL (read like a scores file), one row per span a quality-estimation model
(GEMBA-MQM, xCOMET, an LLM judge) marked in an output::

    item_id,system,start,end,severity,category,confidence,model
    s1,sysA,4,9,major,accuracy,0.91,xcomet-xl
    s1,sysB,,,,,,xcomet-xl

``start``/``end`` are character offsets into the output, ``[start, end)``, counted in
Unicode code points (Python ``str`` indices: "é" written as e + a combining accent is two,
an emoji is one), never bytes or UTF-16 units. ``severity`` is minor, major or critical.
``category``, ``confidence`` (a number) and ``model`` are optional. A row whose start, end
and severity are all empty says "the model found no error in this output" (it still names
the output). Whether the offsets fit the output is checked by the caller, which has the
texts (annotation.imports.ai_spans). Every problem names the file, row and column and says what
to do.

:func:`stream_ai_spans_file` reads the rows as they are consumed (CSV and TSV are never held
as a list of rows) into a problem list the caller shares, and refuses at once when it holds
:data:`formats.problems.MAX_PROBLEMS` (the caller's own problems count too): a file of
millions of bad rows is refused after its first 50, not after reading it all.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from formats.cells import raw_text
from formats.problems import DEFAULT_MAX_MB, MAX_LENGTH, MAX_PROBLEMS, CampaignFileError, Problem
from formats.readers import stream_records

REQUIRED_COLUMNS = ("item_id", "system", "start", "end", "severity")
OPTIONAL_COLUMNS = ("category", "confidence", "model")
ALL_COLUMNS = (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)
SEVERITIES = ("minor", "major", "critical")
MAX_TEXT = 200  # category and model names


@dataclass(frozen=True)
class AiSpanRow:
    """One row of the file: an output (item, system) and its span (None: a clean output)."""

    row: int
    item_id: str
    system: str
    start: int | None
    end: int | None
    severity: str | None
    category: str | None
    confidence: float | None
    model: str | None


def _whole(value: Any) -> int | str | None:
    """A cell as a whole number; None when empty; the raw text when it is not one."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else str(value)
    text = raw_text(value).strip()
    if not text:
        return None
    if text.isascii() and text.lstrip("+-").isdigit() and len(text) < 12:
        return int(text)
    return text


def add_problem(problems: list[Problem], problem: Problem) -> None:
    """Add a problem; at :data:`MAX_PROBLEMS` refuse at once (reading stops there)."""
    problems.append(problem)
    if len(problems) >= MAX_PROBLEMS:
        raise CampaignFileError(problems, truncated=True)


class _Reader:
    def __init__(self, filename: str, problems: list[Problem]) -> None:
        self.filename = filename
        self.problems = problems
        self.last: AiSpanRow | None = None  # the row just read (None: it had a problem)

    def bad(self, row: int, column: str | None, message: str, fix: str) -> None:
        add_problem(self.problems, Problem(self.filename, message, fix, row=row, column=column))

    def row(self, n: int, rec: Mapping[str, Any]) -> None:
        self.last = None
        keys = ("item_id", "system", "category", "model")
        cells = {c: raw_text(rec.get(c)).strip() for c in keys}
        before = len(self.problems)
        for column in ("item_id", "system"):
            if not cells[column]:
                self.bad(n, column, f"'{column}' is empty", "Every row names its output.")
            elif len(cells[column]) > MAX_LENGTH[column]:
                self.bad(
                    n, column, f"is longer than {MAX_LENGTH[column]} characters", "Shorten it."
                )
        for column in ("category", "model"):
            if len(cells[column]) > MAX_TEXT:
                self.bad(n, column, f"is longer than {MAX_TEXT} characters", "Shorten it.")
        bad_cells = len(self.problems) > before
        start, end = _whole(rec.get("start")), _whole(rec.get("end"))
        severity = raw_text(rec.get("severity")).strip().casefold() or None
        span = self.span(n, start, end, severity)
        confidence = self.confidence(n, rec.get("confidence"))
        if span is None or bad_cells:
            return
        self.last = AiSpanRow(
            n,
            cells["item_id"],
            cells["system"],
            *span,
            cells["category"] or None,
            confidence,
            cells["model"] or None,
        )

    def span(
        self, n: int, start: Any, end: Any, severity: str | None
    ) -> tuple[int | None, int | None, str | None] | None:
        if start is None and end is None and severity is None:
            return None, None, None  # the model found this output clean
        ok = True
        for column, value in (("start", start), ("end", end)):
            if value is None or isinstance(value, str) or value < 0:
                shown = "empty" if value is None else f"{value!r}"
                self.bad(
                    n,
                    column,
                    f"'{column}' is {shown}, not a character offset (a whole number ≥ 0)",
                    "Give offsets into the output in Unicode code points (Python str indices).",
                )
                ok = False
        if ok and end <= start:
            self.bad(
                n,
                "end",
                f"end {end} is not after start {start}",
                "A span is [start, end), end > start.",
            )
            ok = False
        if severity not in SEVERITIES:
            self.bad(
                n,
                "severity",
                f"severity {severity or '(empty)'!r} is not one of {list(SEVERITIES)}",
                "Write minor, major or critical.",
            )
            ok = False
        return (start, end, severity) if ok else None

    def confidence(self, n: int, value: Any) -> float | None:
        if isinstance(value, bool):
            value = str(value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = float(value)
        else:
            text = raw_text(value).strip()
            if not text:
                return None
            try:
                number = float(text)
            except ValueError:
                number = math.nan
        if not math.isfinite(number):
            self.bad(
                n,
                "confidence",
                f"{value!r} is not a finite number",
                "Leave it empty or give a number.",
            )
            return None
        return number


def _check_header(header: Sequence[str], filename: str) -> None:
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    unknown = [c for c in header if c not in ALL_COLUMNS]
    problems = []
    if missing:
        problems.append(
            Problem(
                filename,
                f"has no column {', '.join(repr(c) for c in missing)}",
                f"An AI-span file has the columns {', '.join(REQUIRED_COLUMNS)} "
                f"[, {', '.join(OPTIONAL_COLUMNS)}].",
            )
        )
    if unknown:
        problems.append(
            Problem(
                filename,
                f"has unknown column(s) {', '.join(repr(c) for c in unknown)}",
                "Rename or drop them; allowed: " + ", ".join(ALL_COLUMNS) + ".",
            )
        )
    if problems:
        raise CampaignFileError(problems)


def stream_ai_spans_file(
    data: bytes, filename: str, problems: list[Problem], max_mb: float = DEFAULT_MAX_MB
) -> Iterator[AiSpanRow]:
    """The valid rows of an AI-span file, read as they are consumed; each bad row's problems
    go to ``problems`` (shared with the caller), and :class:`CampaignFileError` is raised as
    soon as it holds :data:`MAX_PROBLEMS`. The caller raises for fewer once it has read
    them all (nothing may be kept of a file with a problem). The file's type, size and
    header are checked now, before any row is read."""
    header, records = stream_records(data, filename, max_mb)
    _check_header(header, filename)
    return _valid_rows(records, filename, problems)


def _valid_rows(
    records: Iterator[tuple[int | None, dict[str, Any]]], filename: str, problems: list[Problem]
) -> Iterator[AiSpanRow]:
    reader = _Reader(filename, problems)
    number = 0
    for number, (_, rec) in enumerate(records, start=1):
        reader.row(number, rec)
        if reader.last is not None:
            yield reader.last
    if not number:
        raise CampaignFileError(
            [Problem(filename, "has a header but no data rows", "Add at least one span row.")]
        )


def read_ai_spans_file(
    data: bytes, filename: str, max_mb: float = DEFAULT_MAX_MB
) -> list[AiSpanRow]:
    """Every row of an AI-span file, validated; :class:`CampaignFileError` lists every
    problem (file, row, column, what to do)."""
    problems: list[Problem] = []
    rows = list(stream_ai_spans_file(data, filename, problems, max_mb))
    if problems:
        raise CampaignFileError(problems)
    return rows
