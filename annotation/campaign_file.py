"""Reading and validating campaign files (CSV, TSV, JSONL, Parquet) in long format.

One row per (item, system): required columns ``item_id, source, reference, system, output``;
optional ``doc_id, human_label (0/1), human_score, post_edit, annotator, is_human``; any other
column is kept verbatim as the output's metadata. A file is read and validated completely
before anything is written; every problem names the file, the row, the column, and what to do.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.spreadsheet import is_guarded, restore

REQUIRED = ("item_id", "source", "reference", "system", "output")
OPTIONAL = ("doc_id", "human_label", "human_score", "post_edit", "annotator", "is_human")
JUDGMENT_COLUMNS = ("human_label", "human_score", "post_edit")
FILE_TYPES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
}
DEFAULT_MAX_MB = float(os.environ.get("TANDEM_MAX_IMPORT_MB", "200"))
MAX_PROBLEMS = 50


@dataclass(frozen=True)
class Problem:
    """One validation problem: where it is and what to do about it."""

    file: str
    message: str
    fix: str
    row: int | None = None  # 1-based data row (the header is not counted)
    line: int | None = None  # physical line in text files, when it differs from row
    column: str | None = None

    def __str__(self) -> str:
        where = [self.file]
        if self.row is not None:
            where.append(f"row {self.row}" + (f" (line {self.line})" if self.line else ""))
        if self.column is not None:
            where.append(f"column '{self.column}'")
        return f"{', '.join(where)}: {self.message}. {self.fix}"


class CampaignFileError(ValueError):
    """The file cannot be imported; ``problems`` lists every reason (up to a cap)."""

    def __init__(self, problems: list[Problem], truncated: bool = False) -> None:
        self.problems = problems
        self.truncated = truncated
        lines = [str(p) for p in problems]
        if truncated:
            lines.append(f"(stopped after {len(problems)} problems; fix these and try again)")
        super().__init__("\n".join(lines))


@dataclass
class Row:
    """A validated row, with values normalised (None for absent optional values)."""

    number: int
    line: int | None
    item_id: str
    source: str
    reference: str | None
    system: str
    output: str
    doc_id: str | None = None
    human_label: int | None = None
    human_score: float | None = None
    post_edit: str | None = None
    annotator: str | None = None
    is_human: bool = False
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def has_judgment(self) -> bool:
        return (
            self.human_label is not None
            or self.human_score is not None
            or self.post_edit is not None
        )


@dataclass
class CampaignFile:
    """A parsed, validated campaign file."""

    filename: str
    columns: list[str]
    extra_columns: list[str]
    rows: list[Row]

    @property
    def has_judgments(self) -> bool:
        return any(r.has_judgment for r in self.rows)


def parse_column_map(pairs: Iterable[str]) -> dict[str, str]:
    """``["human_label=human_label_binary"]`` → ``{"human_label": "human_label_binary"}``."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        target, sep, source = pair.partition("=")
        if not sep or not target.strip() or not source.strip():
            raise ValueError(
                f"--map {pair!r}: expected TANDEM_COLUMN=FILE_COLUMN, "
                "e.g. --map human_label=human_label_binary"
            )
        mapping[target.strip()] = source.strip()
    return mapping


def file_type(filename: str) -> str | None:
    return FILE_TYPES.get(Path(filename).suffix.lower())


# ---------------------------------------------------------------- reading raw records


def _decode(data: bytes, filename: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"byte {exc.start} (line {line}) is not valid UTF-8 "
                    f"({data[exc.start : exc.start + 4]!r})",
                    "Save the file as UTF-8 (e.g. in a spreadsheet: 'CSV UTF-8') and import again.",
                )
            ]
        ) from None


def _read_delimited(text: str, filename: str, delimiter: str):  # type: ignore[no-untyped-def]
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
        if header is None:
            return [], []
        header = [h.strip() for h in header]
        guarded = is_guarded(header)  # only a file Tandem wrote gets its formula guard undone
        width = len(header) - guarded  # without the guard's mark column
        if guarded:
            header = [restore(h) for h in header]
        records = []
        prev_end = reader.line_num
        for values in reader:
            start = prev_end + 1
            prev_end = reader.line_num
            if not any(v.strip() for v in values):
                continue  # blank line
            if len(values) != len(header):
                raise CampaignFileError(
                    [
                        Problem(
                            filename,
                            f"has {len(values)} fields but the header has {len(header)}",
                            "Check quoting: fields containing the delimiter, quotes or line "
                            "breaks must be enclosed in double quotes.",
                            row=len(records) + 1,
                            line=start,
                        )
                    ]
                )
            if guarded:
                values = [restore(v) for v in values]
            records.append((start, dict(zip(header[:width], values[:width], strict=True))))
    except csv.Error as exc:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"is not valid {'TSV' if delimiter == chr(9) else 'CSV'} near line "
                    f"{reader.line_num}: {exc}",
                    "Check the quoting around that line.",
                )
            ]
        ) from None
    return header[:width], records


def _read_jsonl(text: str, filename: str):  # type: ignore[no-untyped-def]
    header: list[str] = []
    seen: set[str] = set()
    records = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CampaignFileError(
                [
                    Problem(
                        filename,
                        f"line {lineno} is not valid JSON ({exc.msg} at column {exc.colno})",
                        "Each line must be one JSON object.",
                        row=len(records) + 1,
                    )
                ]
            ) from None
        if not isinstance(obj, dict):
            raise CampaignFileError(
                [
                    Problem(
                        filename,
                        f"line {lineno} is a JSON {type(obj).__name__}, not an object",
                        'Each line must be one JSON object, e.g. {"item_id": "1", ...}.',
                        row=len(records) + 1,
                    )
                ]
            )
        for key in obj:
            if key not in seen:
                seen.add(key)
                header.append(key)
        records.append((lineno, obj))
    return header, records


def _read_parquet(data: bytes, filename: str):  # type: ignore[no-untyped-def]
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(data))
    except Exception as exc:
        raise CampaignFileError(
            [Problem(filename, f"is not a readable Parquet file ({exc})", "Export it again.")]
        ) from None
    return list(table.column_names), [(None, r) for r in table.to_pylist()]


def read_records(
    data: bytes, filename: str, max_mb: float = DEFAULT_MAX_MB
) -> tuple[list[str], list[tuple[int | None, dict[str, Any]]]]:
    """Header and raw records (physical line, dict) of a campaign file's bytes."""
    kind = file_type(filename)
    if kind is None:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"unknown file type '{Path(filename).suffix or '(none)'}'",
                    "Use .csv, .tsv, .jsonl (or .ndjson) or .parquet.",
                )
            ]
        )
    if len(data) > max_mb * 1024 * 1024:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"is {len(data) / 1024 / 1024:.1f} MB, over the {max_mb:g} MB import limit",
                    "Split the file, or raise the limit with TANDEM_MAX_IMPORT_MB "
                    "(or --max-mb on the command line).",
                )
            ]
        )
    if kind == "parquet":
        return _read_parquet(data, filename)
    text = _decode(data, filename)
    if kind == "jsonl":
        return _read_jsonl(text, filename)
    return _read_delimited(text, filename, "," if kind == "csv" else "\t")


# ---------------------------------------------------------------- validation


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value if isinstance(value, str) else str(value)


def _optional_text(value: Any) -> str | None:
    text = _text(value)
    return text if text.strip() else None


def _label(value: Any) -> int | str | None:
    """0/1 (or None when empty); the original value as a string when it is neither."""
    if isinstance(value, bool):
        return int(value)
    text = _text(value).strip()
    if text == "":
        return None
    if text in {"0", "1", "0.0", "1.0"}:
        return int(float(text))
    return text


def _score(value: Any) -> float | str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) if math.isfinite(value) else str(value)
    text = _text(value).strip()
    if text == "":
        return None
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def _bool(value: Any) -> bool | str:
    if isinstance(value, bool):
        return value
    text = _text(value).strip().lower()
    if text in {"", "0", "false", "no", "0.0"}:
        return False
    if text in {"1", "true", "yes", "1.0"}:
        return True
    return text


def parse_campaign_file(
    data: bytes,
    filename: str,
    column_map: Mapping[str, str] | None = None,
    max_mb: float = DEFAULT_MAX_MB,
) -> CampaignFile:
    """Read and validate a whole file; raise :class:`CampaignFileError` listing problems."""
    header, records = read_records(data, filename, max_mb)
    return _validate(filename, header, records, column_map)


def _validate(
    filename: str,
    header: list[str],
    records: list[tuple[int | None, dict[str, Any]]],
    column_map: Mapping[str, str] | None,
) -> CampaignFile:
    problems: list[Problem] = []

    column_map = dict(column_map or {})
    for target, source in column_map.items():
        if source not in header:
            problems.append(
                Problem(
                    filename,
                    f"--map {target}={source}: the file has no column '{source}'",
                    f"Columns in the file: {', '.join(header) or '(none)'}.",
                    column=source,
                )
            )
        elif target in header and target != source:
            problems.append(
                Problem(
                    filename,
                    f"--map {target}={source}: the file already has a column '{target}'",
                    f"Rename or drop the file's '{target}' column, or leave out the mapping.",
                    column=target,
                )
            )
    if problems:
        raise CampaignFileError(problems)
    rename = {source: target for target, source in column_map.items()}
    columns = [rename.get(h, h) for h in header]

    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"missing required column '{c}'",
                    f"Add it, or map a column of yours to it with --map {c}=YOUR_COLUMN. "
                    f"Required: {', '.join(REQUIRED)}; found: {', '.join(header) or '(none)'}.",
                    column=c,
                )
                for c in missing
            ]
        )
    if not records:
        raise CampaignFileError(
            [Problem(filename, "has a header but no data rows", "Add at least one row.")]
        )

    extra_columns = [c for c in columns if c not in REQUIRED and c not in OPTIONAL]
    rows: list[Row] = []
    first_item: dict[str, Row] = {}
    first_pair: dict[tuple[str, str], Row] = {}

    def add(row: int, line: int | None, column: str | None, message: str, fix: str) -> None:
        problems.append(Problem(filename, message, fix, row=row, line=line, column=column))

    def checked(
        row: int, line: int | None, column: str, value: Any, expected: str, fix: str
    ) -> Any:
        """A parsed value; None (and a problem) when the parser gave back the raw text."""
        if isinstance(value, str):
            add(row, line, column, f"{column} is {value!r}{expected}", fix)
            return None
        return value

    for number, (line, raw) in enumerate(records, start=1):
        if len(problems) >= MAX_PROBLEMS:
            raise CampaignFileError(problems, truncated=True)
        rec = {rename.get(k, k): v for k, v in raw.items()}
        line = line if line != number + 1 else None  # only say "line" when it adds something
        item_id = _text(rec.get("item_id")).strip()
        system = _text(rec.get("system")).strip()
        output = _text(rec.get("output"))
        if not item_id:
            add(number, line, "item_id", "item_id is empty", "Give every row an item id.")
        if not system:
            add(number, line, "system", "system is empty", "Give every row a system name.")
        if not output.strip():
            add(
                number,
                line,
                "output",
                "output is empty or whitespace only",
                "Supply the system's output text, or remove the row.",
            )
        label = checked(
            number,
            line,
            "human_label",
            _label(rec.get("human_label")),
            ", not 0 or 1",
            "Use 1 for adequate, 0 for inadequate, or leave it empty.",
        )
        score = checked(
            number,
            line,
            "human_score",
            _score(rec.get("human_score")),
            ", not a finite number",
            "Use a number (e.g. 0.75), or leave it empty.",
        )
        is_human = checked(
            number, line, "is_human", _bool(rec.get("is_human")), "", "Use 1/0 or true/false."
        )
        row = Row(
            number=number,
            line=line,
            item_id=item_id,
            source=_text(rec.get("source")),
            reference=_optional_text(rec.get("reference")),
            system=system,
            output=output,
            doc_id=_optional_text(rec.get("doc_id")),
            human_label=label,
            human_score=score,
            post_edit=_optional_text(rec.get("post_edit")),
            annotator=_optional_text(rec.get("annotator")),
            is_human=bool(is_human),
            extras={c: rec.get(c) for c in extra_columns},
        )
        if item_id:
            first = first_item.setdefault(item_id, row)
            if first is not row:
                for col in ("source", "reference"):
                    if getattr(first, col) != getattr(row, col):
                        add(
                            number,
                            line,
                            col,
                            f"item '{item_id}' has a different {col} here than in row "
                            f"{first.number}",
                            f"Every row of one item must repeat the same {col}; "
                            "fix the text or give the rows different item ids.",
                        )
        if item_id and system:
            pair = first_pair.setdefault((item_id, system), row)
            if pair is not row and not (
                pair.annotator
                and row.annotator
                and pair.annotator != row.annotator
                and pair.output == row.output
            ):
                add(
                    number,
                    line,
                    "system",
                    f"duplicate (item_id, system) = ('{item_id}', '{system}'); "
                    f"row {pair.number} has it already",
                    "Keep one row per item and system (several rows are allowed only for "
                    "judgments by different annotators of the same output).",
                )
        rows.append(row)
    if problems:
        raise CampaignFileError(problems, truncated=len(problems) >= MAX_PROBLEMS)
    return CampaignFile(filename=filename, columns=columns, extra_columns=extra_columns, rows=rows)


@dataclass(frozen=True)
class FileCheck:
    """What the import page shows before anything is written."""

    header: list[str]
    preview: list[dict[str, Any]]
    n_rows: int
    problems: list[Problem]
    truncated: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems


def check_campaign_file(
    data: bytes,
    filename: str,
    column_map: Mapping[str, str] | None = None,
    max_mb: float = DEFAULT_MAX_MB,
    preview_rows: int = 10,
) -> FileCheck:
    """Preview the first rows and validate the whole file, without raising."""
    try:
        header, records = read_records(data, filename, max_mb)
    except CampaignFileError as exc:
        return FileCheck([], [], 0, exc.problems, exc.truncated)
    preview = [rec for _, rec in records[:preview_rows]]
    try:
        parsed = _validate(filename, header, records, column_map)  # the file is read once
    except CampaignFileError as exc:
        return FileCheck(header, preview, len(records), exc.problems, exc.truncated)
    return FileCheck(header, preview, len(parsed.rows), [])
