"""Reading and validating campaign files (CSV, TSV, JSONL, Parquet) in long format.

One row per (item, system): required columns ``item_id, source, reference, system, output``;
optional ``doc_id, human_label (0/1), human_score, post_edit, annotator, is_human``; any other
column is kept verbatim as the output's metadata. A file is read and validated completely
before anything is written; every problem names the file, the row, the column, and what to do.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.spreadsheet import is_guarded, restore

REQUIRED = ("item_id", "source", "reference", "system", "output")
OPTIONAL = ("doc_id", "human_label", "human_score", "post_edit", "annotator", "is_human")
FILE_TYPES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
}
DEFAULT_MAX_MB = float(os.environ.get("TANDEM_MAX_IMPORT_MB", "200"))
MAX_PROBLEMS = 50
#: Longest value the database keeps, per column (the String(n) lengths in db/models.py; a
#: test checks they agree). PostgreSQL refuses longer values, SQLite would store them: the
#: same limit is enforced here so both databases accept exactly the same files.
MAX_LENGTH = {"item_id": 300, "doc_id": 300, "system": 300, "annotator": 200}
MAX_CAMPAIGN_NAME = 200
_PARQUET_BATCH_ROWS = 10_000


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
    #: Error spans of the judgment (JSON, annotation.spans); set by the MQM TSV importer.
    spans: list[dict[str, Any]] | None = None

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


#: Column names other tools use for a Tandem column (WMT MQM, MLQE-PE, Appraise, Pearmut,
#: Label Studio exports): the Import page suggests them as mappings.
ALIASES: dict[str, tuple[str, ...]] = {
    "item_id": ("segment_id", "seg_id", "segid", "item", "id"),
    "source": ("src", "source_text", "original"),
    "reference": ("ref", "references", "reference_text"),
    "system": ("system_name", "sys", "model", "sysname"),
    "output": ("hypothesis", "hyp", "mt", "translation", "target", "candidate", "summary"),
    "doc_id": ("doc", "document", "document_id", "docid"),
    "human_label": ("human_label_binary", "label", "adequate", "binary_label"),
    "human_score": ("score_human", "mqm_score", "da_score", "da_mean"),
    "post_edit": ("pe", "postedit", "post_edited"),
    "annotator": ("rater", "rater_id", "annotator_id", "worker_id", "worker", "user"),
}


def suggest_column_map(header: Sequence[str]) -> dict[str, str]:
    """Tandem column → a column of ``header`` that other tools use for it, for every Tandem
    column the file lacks (the first alias found, in :data:`ALIASES` order)."""
    present = set(header)
    lower = {h.lower(): h for h in header}
    out: dict[str, str] = {}
    for target, names in ALIASES.items():
        if target in present:
            continue
        for name in names:
            col = lower.get(name)
            if col is not None and col not in out.values() and col not in (*REQUIRED, *OPTIONAL):
                out[target] = col
                break
    return out


def file_type(filename: str) -> str | None:
    return FILE_TYPES.get(Path(filename).suffix.lower())


# ---------------------------------------------------------------- reading raw records


def _fail(filename: str, message: str, fix: str, **where: Any) -> CampaignFileError:
    return CampaignFileError([Problem(filename, message, fix, **where)])


def check_size(n_bytes: int, filename: str, max_mb: float = DEFAULT_MAX_MB) -> None:
    """Refuse a file of ``n_bytes`` over the limit; call it before reading the file. The
    limit must be a positive finite number of MB (0, negative or NaN is refused)."""
    check_max_mb(max_mb, filename)
    if n_bytes > max_mb * 1024 * 1024:
        raise _fail(
            filename,
            f"is {n_bytes / 1024 / 1024:.1f} MB, over the {max_mb:g} MB import limit",
            "Split the file, or raise the limit with TANDEM_MAX_IMPORT_MB "
            "(or --max-mb on the command line).",
        )


def max_mb_problem(max_mb: Any) -> str:
    """Why ``max_mb`` is not an import size limit ('' when it is one)."""
    ok = isinstance(max_mb, int | float) and not isinstance(max_mb, bool)
    if ok and math.isfinite(max_mb) and max_mb > 0:
        return ""
    return f"the import size limit {max_mb!r} MB is not a positive number"


def check_max_mb(max_mb: Any, filename: str) -> None:
    problem = max_mb_problem(max_mb)
    if problem:
        raise _fail(
            filename,
            problem,
            "Give a positive number of megabytes (e.g. --max-mb 500, or TANDEM_MAX_IMPORT_MB=500).",
        )


def check_campaign_name(name: str, filename: str) -> None:
    """A campaign name the database stores the same way on SQLite and PostgreSQL."""
    if not name or not name.strip():
        raise _fail(filename, "the campaign name is empty", "Give the campaign a name.")
    if "\x00" in name:
        raise _fail(filename, "the campaign name contains a NUL byte", "Remove it from the name.")
    if len(name) > MAX_CAMPAIGN_NAME:
        raise _fail(
            filename,
            f"the campaign name is {len(name)} characters long, over the limit of "
            f"{MAX_CAMPAIGN_NAME}",
            "Choose a shorter name.",
        )


def _duplicates(names: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    dup: list[str] = []
    for n in names:
        if n in seen and n not in dup:
            dup.append(n)
        seen.add(n)
    return dup


def _no_duplicate_columns(header: list[str], filename: str) -> None:
    dup = _duplicates(header)
    if dup:
        raise _fail(
            filename,
            "the header has duplicate column names: " + ", ".join(f"'{d}'" for d in dup),
            "Rename or remove the repeated columns so each name occurs once.",
        )


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
    # A cell can be as long as the file (whose size is limited already); csv's default
    # 128 KiB field limit would reject a legitimately long output. The limit is global and
    # only ever raised here, so concurrent imports cannot lower it under each other.
    if csv.field_size_limit() <= len(text):
        csv.field_size_limit(len(text) + 1)
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
        _no_duplicate_columns(header[:width], filename)
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


class _DuplicateKeys(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _DuplicateKeys(_duplicates(k for k, _ in pairs)[0])
    return obj


def _read_jsonl(text: str, filename: str):  # type: ignore[no-untyped-def]
    header: list[str] = []
    seen: set[str] = set()
    records = []
    # JSON Lines separates records by \n only: str.splitlines() would also split at U+2028,
    # U+2029 or U+0085, which JSON allows raw inside strings.
    for lineno, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw, object_pairs_hook=_pairs)
        except _DuplicateKeys as exc:
            raise _fail(
                filename,
                f"line {lineno} has the key '{exc.args[0]}' more than once",
                "Keep one value per key in each JSON object.",
                row=len(records) + 1,
            ) from None
        except RecursionError:
            raise _fail(
                filename,
                f"line {lineno} nests JSON too deeply to read",
                "Each line must be one flat JSON object.",
                row=len(records) + 1,
            ) from None
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


def _read_parquet(data: bytes, filename: str, max_mb: float):  # type: ignore[no-untyped-def]
    """Decode batch by batch, stopping as soon as the decoded data passes the size limit:
    compressed Parquet can be thousands of times smaller than the text it holds."""
    import pyarrow.parquet as pq

    limit = max_mb * 1024 * 1024

    def too_big(n_bytes: float) -> CampaignFileError:
        return _fail(
            filename,
            f"holds over {n_bytes / 1024 / 1024:.1f} MB of data once decompressed, over the "
            f"{max_mb:g} MB import limit",
            "Split the file, or raise the limit with TANDEM_MAX_IMPORT_MB "
            "(or --max-mb on the command line).",
        )

    records: list[tuple[None, dict[str, Any]]] = []
    decoded = 0
    try:
        pf = pq.ParquetFile(io.BytesIO(data))
        header = list(pf.schema_arrow.names)
        _no_duplicate_columns(header, filename)
        declared = sum(pf.metadata.row_group(i).total_byte_size for i in range(pf.num_row_groups))
        if declared > limit:
            raise too_big(declared)
        for batch in pf.iter_batches(batch_size=_PARQUET_BATCH_ROWS):
            decoded += batch.nbytes
            if decoded > limit:
                raise too_big(decoded)
            records.extend((None, r) for r in batch.to_pylist())
    except CampaignFileError:
        raise
    except Exception as exc:  # pyarrow raises many types for damaged files
        raise _fail(
            filename, f"is not a readable Parquet file ({exc})", "Export it again."
        ) from None
    return header, records


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
    check_size(len(data), filename, max_mb)
    if not data.strip():
        raise _fail(
            filename,
            "is empty (0 bytes)" if not data else "is empty (whitespace only)",
            "Choose the file that holds the data, or export it again.",
        )
    if kind == "parquet":
        return _read_parquet(data, filename, max_mb)
    text = _decode(data, filename)
    if kind == "jsonl":
        return _read_jsonl(text, filename)
    first_line = text.split("\n", 1)[0]
    if kind == "csv" and ";" in first_line and "," not in first_line:
        raise _fail(
            filename,
            f"looks semicolon-separated: its header is one column '{first_line.strip()[:80]}'",
            "Save it with commas as separators (spreadsheets in many languages use ';' for "
            "'CSV'; choose 'CSV UTF-8 (comma delimited)'), or with tabs as a .tsv file.",
        )
    return _read_delimited(text, filename, "," if kind == "csv" else "\t")


# ---------------------------------------------------------------- validation


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, str):
        return value
    extra = _extra(value)
    return extra if isinstance(extra, str) else str(extra)


def _plain(value: Any) -> Any:
    """Nested values as JSON has them: timestamps as ISO 8601, decimals as text."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else str(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)  # Decimal, timedelta, ...


def _extra(value: Any) -> Any:
    """An extra column's value as the metadata stores it, the same on every database:
    objects and arrays as JSON text (exports write text back, so round trips are exact),
    timestamps as ISO 8601 text; numbers, booleans and text as they are."""
    if isinstance(value, dict | list | tuple):
        return json.dumps(_plain(value), ensure_ascii=False)
    return _plain(value)


def _binary(value: Any) -> bool:
    if isinstance(value, bytes | bytearray | memoryview):
        return True
    if isinstance(value, dict):
        return any(_binary(v) for v in value.values())
    return isinstance(value, list | tuple) and any(_binary(v) for v in value)


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    return isinstance(value, list | tuple) and any(_has_nul(v) for v in value)


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
    *,
    ignore: Iterable[str] = (),
    wording: Wording | None = None,
) -> CampaignFile:
    """Read and validate a whole file; raise :class:`CampaignFileError` listing problems.

    ``ignore``: columns of the file to leave out (e.g. its ``human_label`` when the file is
    to be judged again); ``wording`` words the hints for the app (default: command line).
    """
    header, records = read_records(data, filename, max_mb)
    return _validate(filename, header, records, column_map, ignore, wording or CLI_WORDING)


@dataclass(frozen=True)
class Wording:
    """How hints name the controls: the command line's flags or the Import page's boxes."""

    mapping: str  # "--map {target}={source}"
    map_hint: str  # how to map a column of yours to {target}
    ignore_hint: str  # how to leave out the file's column {target}
    metric: str  # "--metric {name}={column}"

    def map(self, target: str, source: str) -> str:
        return self.mapping.format(target=target, source=source)


CLI_WORDING = Wording(
    mapping="--map {target}={source}",
    map_hint="map a column of yours to it with --map {target}=YOUR_COLUMN",
    ignore_hint="leave the file's '{target}' column out with --ignore {target}",
    metric="--metric {name}={column}",
)
WEB_WORDING = Wording(
    mapping="mapping '{target}' ← '{source}'",
    map_hint="choose a column of yours for '{target}' under 'Map columns'",
    ignore_hint="tick '{target}' under 'Ignore columns of the file'",
    metric="metric '{name}' ← column '{column}'",
)


def _validate(
    filename: str,
    header: list[str],
    records: list[tuple[int | None, dict[str, Any]]],
    column_map: Mapping[str, str] | None,
    ignore: Iterable[str] = (),
    wording: Wording = CLI_WORDING,
) -> CampaignFile:
    problems: list[Problem] = []

    ignored = set(ignore)
    for col in ignored:
        if col not in header:
            problems.append(
                Problem(
                    filename,
                    f"cannot ignore column '{col}': the file has no such column",
                    f"Columns in the file: {', '.join(header) or '(none)'}.",
                    column=col,
                )
            )
    column_map = dict(column_map or {})
    for target, source in column_map.items():
        if source not in header or source in ignored:
            problems.append(
                Problem(
                    filename,
                    f"{wording.map(target, source)}: the file has no column '{source}'"
                    + (" (it is ignored)" if source in ignored else ""),
                    f"Columns in the file: {', '.join(header) or '(none)'}.",
                    column=source,
                )
            )
        elif target in header and target != source and target not in ignored:
            problems.append(
                Problem(
                    filename,
                    f"{wording.map(target, source)}: the file already has a column '{target}'",
                    f"To use '{source}' instead, "
                    + wording.ignore_hint.format(target=target)
                    + "; or leave out the mapping.",
                    column=target,
                )
            )
    if problems:
        raise CampaignFileError(problems)
    if ignored:
        header = [h for h in header if h not in ignored]
        records = [(line, {k: v for k, v in r.items() if k not in ignored}) for line, r in records]
    rename = {source: target for target, source in column_map.items()}
    columns = [rename.get(h, h) for h in header]

    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"missing required column '{c}'",
                    f"Add it, or {wording.map_hint.format(target=c)}. "
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

    nul_columns = [h for h in header if "\x00" in h]
    if nul_columns:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"the column name {h!r} contains a NUL byte",
                    "Remove the NUL character from the header.",
                )
                for h in nul_columns
            ]
        )
    extra_columns = [c for c in columns if c not in REQUIRED and c not in OPTIONAL]
    rows: list[Row] = []
    rules = RowRules()

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
        for col, value in rec.items():
            if _binary(value):
                add(
                    number,
                    line,
                    col,
                    f"{col} holds binary data (bytes), not text",
                    "Store text in this column (decode it, or base64-encode it), or drop "
                    "the column.",
                )
            elif _has_nul(value):
                add(
                    number,
                    line,
                    col,
                    f"{col} contains a NUL byte (\\x00)",
                    "Remove NUL characters; they are often left by a damaged export or a "
                    "UTF-16 file saved under a .csv name.",
                )
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
            extras={c: _extra(rec.get(c)) for c in extra_columns},
        )
        rules.check(row, add)
        rows.append(row)
    if problems:
        raise CampaignFileError(problems, truncated=len(problems) >= MAX_PROBLEMS)
    return CampaignFile(filename=filename, columns=columns, extra_columns=extra_columns, rows=rows)


#: Column names as a file names them, for messages (an MQM TSV says seg_id, target, rater).
CAMPAIGN_NAMES = {c: c for c in (*REQUIRED, *OPTIONAL)} | {"item": "item", "ids": "item ids"}
MQM_NAMES = CAMPAIGN_NAMES | {
    "item": "seg_id",
    "ids": "seg_ids",
    "item_id": "seg_id",
    "output": "target",
    "annotator": "rater",
    "doc_id": "doc",
    "wmt_doc_id": "doc_id",
}


class RowRules:
    """The rules every imported row obeys, whatever file it came from (campaign files, MQM
    TSVs): length limits, one source and reference per item, and one output text per
    (item, system): a second row of a pair is allowed only as another annotator's judgment
    of the same text. ``names``: the file's column names, for messages."""

    def __init__(self, names: Mapping[str, str] | None = None) -> None:
        self.names = dict(CAMPAIGN_NAMES | dict(names or {}))
        self.first_item: dict[str, Row] = {}
        self.first_pair: dict[tuple[str, str], Row] = {}

    def check(self, row: Row, add: Any) -> None:
        """Call ``add(row, line, column, message, fix)`` for each rule ``row`` breaks."""
        n, line, name = row.number, row.line, self.names
        for col, limit in MAX_LENGTH.items():
            value = getattr(row, col)
            if value is not None and len(value) > limit:
                add(
                    n,
                    line,
                    name[col],
                    f"{name[col]} is {len(value):,} characters long, over the limit of {limit}",
                    f"Shorten it to at most {limit} characters (keep long text in another "
                    "column: any extra column is kept as metadata).",
                )
        if row.item_id:
            first = self.first_item.setdefault(row.item_id, row)
            for col in ("source", "reference", "doc_id") if first is not row else ():
                if getattr(first, col) != getattr(row, col):
                    add(
                        n,
                        line,
                        name[col],
                        f"{name['item']} '{row.item_id}' has a different {name[col]} here "
                        f"than in row {first.number}"
                        + (f" (system '{first.system}')" if first.system != row.system else ""),
                        f"Every row of one item must repeat the same {name[col]}; "
                        f"fix the text or give the rows different {name['ids']}.",
                    )
        if row.item_id and row.system:
            self._check_pair(row, add)

    def _check_pair(self, row: Row, add: Any) -> None:
        name = self.names
        pair = self.first_pair.setdefault((row.item_id, row.system), row)
        if pair is row:
            return
        others = bool(pair.annotator and row.annotator and pair.annotator != row.annotator)
        if others and pair.output == row.output:
            return
        differs = (
            f", with a different {name['output']} (by {name['annotator']} "
            f"'{row.annotator}' here, '{pair.annotator}' there)"
            if others
            else ""
        )
        add(
            row.number,
            row.line,
            name["output"] if others else name["system"],
            f"duplicate ({name['item_id']}, {name['system']}) = ('{row.item_id}', "
            f"'{row.system}'); row {pair.number} has it already{differs}",
            f"Keep one row per {name['item_id']} and {name['system']} (several rows are "
            f"allowed only for judgments by different {name['annotator']}s of the same "
            f"{name['output']}, which must hold the same text).",
        )


_ROW_TEXT = (
    "item_id",
    "source",
    "reference",
    "system",
    "output",
    "doc_id",
    "post_edit",
    "annotator",
)


def validate_rows(
    filename: str, rows: Sequence[Row], names: Mapping[str, str] | None = None
) -> None:
    """Apply a campaign file's row checks to rows built elsewhere (an MQM TSV's): NUL
    bytes, empty ids and outputs, length limits and conflicting texts. Raises
    :class:`CampaignFileError` naming each row; returns when every row passes."""
    problems: list[Problem] = []
    rules = RowRules(names)
    name = rules.names

    def add(row: int, line: int | None, column: str | None, message: str, fix: str) -> None:
        problems.append(Problem(filename, message, fix, row=row, line=line, column=column))

    for row in rows:
        if len(problems) >= MAX_PROBLEMS:
            break
        for col in _ROW_TEXT:
            value = getattr(row, col)
            if isinstance(value, str) and "\x00" in value:
                add(row.number, row.line, name[col], f"{name[col]} contains a NUL byte (\\x00)",
                    "Remove NUL characters; they are often left by a damaged export.")  # fmt: skip
        for col in ("item_id", "system"):
            if not getattr(row, col).strip():
                add(row.number, row.line, name[col], f"{name[col]} is empty",
                    f"Give every row its {name[col]}.")  # fmt: skip
        if not row.output.strip():
            add(row.number, row.line, name["output"],
                f"{name['output']} is empty or whitespace only",
                "Supply the system's output text, or remove the row.")  # fmt: skip
        for key, value in row.extras.items():
            if _has_nul(key) or _has_nul(value):
                key = name.get(key, key)
                add(row.number, row.line, key, f"{key} contains a NUL byte (\\x00)",
                    "Remove NUL characters.")  # fmt: skip
        rules.check(row, add)
    if problems:
        raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=len(problems) >= MAX_PROBLEMS)


@dataclass(frozen=True)
class FileCheck:
    """What the import page shows before anything is written."""

    header: list[str]
    preview: list[dict[str, Any]]
    n_rows: int
    problems: list[Problem]
    truncated: bool = False
    parsed: CampaignFile | None = None  # the validated file, when it is valid

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def n_judgments(self) -> int:
        """Rows that carry a judgment (human_label, human_score or post_edit)."""
        return 0 if self.parsed is None else sum(r.has_judgment for r in self.parsed.rows)


def check_campaign_file(
    data: bytes,
    filename: str,
    column_map: Mapping[str, str] | None = None,
    max_mb: float = DEFAULT_MAX_MB,
    preview_rows: int = 10,
    *,
    ignore: Iterable[str] = (),
    wording: Wording | None = None,
) -> FileCheck:
    """Preview the first rows and validate the whole file, without raising."""
    try:
        header, records = read_records(data, filename, max_mb)
    except CampaignFileError as exc:
        return FileCheck([], [], 0, exc.problems, exc.truncated)
    preview = [rec for _, rec in records[:preview_rows]]
    try:  # the file is read once
        parsed = _validate(filename, header, records, column_map, ignore, wording or CLI_WORDING)
    except CampaignFileError as exc:
        return FileCheck(header, preview, len(records), exc.problems, exc.truncated)
    return FileCheck(header, preview, len(parsed.rows), [], parsed=parsed)
