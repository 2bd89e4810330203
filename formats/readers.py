"""Raw records from a file's bytes (CSV, TSV, JSONL, Parquet): header and (line, dict) per
row, with the file-level problems (type, size, encoding, duplicate columns) found on the way.
Nothing is validated against Tandem's columns here (see :mod:`formats.campaign_file`)."""

from __future__ import annotations

import codecs
import csv
import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from formats.cells import text_problem
from formats.problems import (
    DEFAULT_MAX_MB,
    CampaignFileError,
    Problem,
    check_size,
    decode_utf8,
    failure,
)
from formats.spreadsheet import is_guarded, restore

FILE_TYPES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
}
_PARQUET_BATCH_ROWS = 10_000


def file_type(filename: str) -> str | None:
    return FILE_TYPES.get(Path(filename).suffix.lower())


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
        raise failure(
            filename,
            "the header has duplicate column names: " + ", ".join(f"'{d}'" for d in dup),
            "Rename or remove the repeated columns so each name occurs once.",
        )


def _decode(data: bytes, filename: str) -> str:
    return decode_utf8(
        data,
        filename,
        lambda byte, line: (
            f"byte {byte} (line {line}) is not valid UTF-8 ({data[byte : byte + 4]!r})",
            "Save the file as UTF-8 (e.g. in a spreadsheet: 'CSV UTF-8') and import again.",
        ),
    )


def _check_utf8(data: bytes, filename: str) -> None:
    """Refuse bytes that are not UTF-8 (the message names the byte and line), in chunks:
    decoding the whole file at once kept a second copy of it alive."""
    chunk = 1 << 20
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(data), chunk):
            decoder.decode(data[start : start + chunk], final=start + chunk >= len(data))
    except UnicodeDecodeError:
        _decode(data, filename)  # the precise message (decode_utf8 raises it)
        raise


def _csv_error(exc: csv.Error, filename: str, delimiter: str, line: int) -> CampaignFileError:
    return CampaignFileError(
        [
            Problem(
                filename,
                f"is not valid {'TSV' if delimiter == chr(9) else 'CSV'} near line {line}: {exc}",
                "Check the quoting around that line.",
            )
        ]
    )


def _delimited_stream(data: bytes, filename: str, delimiter: str):  # type: ignore[no-untyped-def]
    """The header, and a generator of (line, record): rows are read as they are consumed,
    so an import holds one chunk of them at a time (bounded memory)."""
    # A cell can be as long as the file (whose size is limited already); csv's default
    # 128 KiB field limit would reject a legitimately long output. The limit is global and
    # only ever raised here, so concurrent imports cannot lower it under each other.
    if csv.field_size_limit() <= len(data):
        csv.field_size_limit(len(data) + 1)
    # Decoded as it is read (the bytes were checked as UTF-8 already): the whole text as a
    # str, and a StringIO's copy of it (4 bytes a character), were 5× the file.
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
    reader = csv.reader(stream, delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise _csv_error(exc, filename, delimiter, reader.line_num) from None
    if header is None:
        return [], iter(())
    header = [h.strip() for h in header]
    guarded = is_guarded(header)  # only a file Tandem wrote gets its formula guard undone
    width = len(header) - guarded  # without the guard's mark column
    if guarded:
        header = [restore(h) for h in header]
    _no_duplicate_columns(header[:width], filename)
    return header[:width], _delimited_rows(reader, header, width, guarded, filename, delimiter)


def _delimited_rows(reader, header, width, guarded, filename, delimiter):  # type: ignore[no-untyped-def]
    n_records = 0
    prev_end = reader.line_num
    previous: list[str] = []
    try:
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
                            row=n_records + 1,
                            line=start,
                        )
                    ]
                )
            if guarded:
                values = [restore(v) for v in values]
            # A cell equal to the one above it is the same str object: a campaign file
            # repeats each item's source and reference on every system's row.
            if previous:  # (the same length: checked above)
                values = [p if v == p else v for v, p in zip(values, previous, strict=True)]
            previous = values
            n_records += 1
            yield start, dict(zip(header[:width], values[:width], strict=True))
    except csv.Error as exc:
        raise _csv_error(exc, filename, delimiter, reader.line_num) from None


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
            raise failure(
                filename,
                f"line {lineno} has the key '{exc.args[0]}' more than once",
                "Keep one value per key in each JSON object.",
                row=len(records) + 1,
            ) from None
        except RecursionError:
            raise failure(
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
        return failure(
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
        raise failure(
            filename, f"is not a readable Parquet file ({exc})", "Export it again."
        ) from None
    return header, records


def read_records(
    data: bytes, filename: str, max_mb: float = DEFAULT_MAX_MB
) -> tuple[list[str], list[tuple[int | None, dict[str, Any]]]]:
    """Header and raw records (physical line, dict) of a campaign file's bytes."""
    header, records = stream_records(data, filename, max_mb)
    return header, list(records)


def stream_records(
    data: bytes, filename: str, max_mb: float = DEFAULT_MAX_MB
) -> tuple[list[str], Iterator[tuple[int | None, dict[str, Any]]]]:
    """Header and raw records (physical line, dict) of a campaign file's bytes; CSV and TSV
    records are read as the iterator is consumed (JSONL and Parquet are read whole: a JSONL
    file's header is the union of every line's keys). Problems of a later row are raised
    when the iterator reaches it."""
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
        raise failure(
            filename,
            "is empty (0 bytes)" if not data else "is empty (whitespace only)",
            "Choose the file that holds the data, or export it again.",
        )
    if kind == "parquet":
        header, records = _read_parquet(data, filename, max_mb)
        return header, checked_text(drop_as_read(records), filename)
    if kind == "jsonl":
        header, records = _read_jsonl(_decode(data, filename), filename)
        return header, checked_text(drop_as_read(records), filename)
    _check_utf8(data, filename)
    first_line = data.split(b"\n", 1)[0].decode("utf-8-sig")
    if kind == "csv" and ";" in first_line and "," not in first_line:
        raise failure(
            filename,
            f"looks semicolon-separated: its header is one column '{first_line.strip()[:80]}'",
            "Save it with commas as separators (spreadsheets in many languages use ';' for "
            "'CSV'; choose 'CSV UTF-8 (comma delimited)'), or with tabs as a .tsv file.",
        )
    header, records = _delimited_stream(data, filename, "," if kind == "csv" else "\t")
    return header, checked_text(records, filename)


def checked_text(
    records: Iterable[tuple[int | None, dict[str, Any]]], filename: str
) -> Iterator[tuple[int | None, dict[str, Any]]]:
    """The records, each cell first held to the text rule of every import
    (:func:`formats.cells.text_problem`: no NUL, no lone surrogate, nested values and keys
    included). Every parser of a tabular file reads through here; the first record that
    breaks it raises :class:`CampaignFileError` naming its row (data rows counted from 1)
    and each offending column, so nothing of the file is written."""
    for number, (line, rec) in enumerate(records, start=1):
        problems = []
        for column, value in rec.items():
            found = text_problem(value) or text_problem(column)
            if found is not None:
                shown = column if text_problem(column) is None else repr(column)
                message = f"{shown} {found[0]}"
                problems.append(Problem(filename, message, found[1], row=number, column=shown))
        if problems:
            raise CampaignFileError(problems)
        yield line, rec


def drop_as_read(records: list[Any]) -> Iterator[Any]:
    """The records of a list, each dropped from it once handed out (the list keeps its
    length for a caller's count; the records and the rows made of them were both alive)."""
    for k in range(len(records)):
        record, records[k] = records[k], None
        yield record


def read_path(path: Path, filename: str, max_mb: float) -> bytes:
    """The file's bytes, after checking it is a regular file within the size limit."""
    if not path.is_file():
        what = "a directory" if path.is_dir() else "not a regular file"
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"{path} is {what}" if path.exists() else f"{path}: no such file",
                    "Give the path of one CSV, TSV, JSONL or Parquet file.",
                )
            ]
        )
    check_size(path.stat().st_size, filename, max_mb)  # before reading it into memory
    return path.read_bytes()


def source_bytes(source: bytes | Path, filename: str | None, max_mb: float) -> tuple[bytes, str]:
    """An import's bytes and the file name that tells their type: a path is read (under its
    own name unless ``filename`` is given); raw bytes need ``filename``."""
    if isinstance(source, Path):
        filename = filename or source.name
        data = read_path(source, filename, max_mb)
    else:
        data = source
    if not filename:
        raise ValueError("filename is needed to tell the file type of raw bytes")
    return data, filename
