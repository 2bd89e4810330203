"""Writers every export shares: CSV/TSV (with the formula guard), JSONL and Parquet.

Every CSV/TSV cell goes through :func:`formats.spreadsheet.cell_text` (formula injection;
the design is in that module's docstring). JSONL and Parquet keep values as they are:
spreadsheet programs do not open them as formulas.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from formats.spreadsheet import GUARD_COLUMN, cell_text, neutralise

MIME = {
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
    "jsonl": "application/jsonl",
    "parquet": "application/octet-stream",
    "tex": "application/x-tex",
    "typ": "text/plain",
    "json": "application/json",
}


def to_delimited(
    columns: Sequence[str],
    records: Sequence[dict[str, Any]],
    delimiter: str = ",",
    *,
    reversible: bool = False,
) -> bytes:
    """RFC 4180 CSV (or TSV) with the formula guard of :mod:`formats.spreadsheet`.

    CRLF line ends make the csv module quote every field that holds ``\r`` or ``\n``
    (it quotes the characters of its line terminator; with ``\n`` alone a lone ``\r``
    went out unquoted and split the row). ``reversible`` appends the
    :data:`~formats.spreadsheet.GUARD_COLUMN` mark so that the importer undoes the guard.
    """
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, delimiter=delimiter, lineterminator="\r\n")
    mark = [GUARD_COLUMN] if reversible else []
    writer.writerow([neutralise(c) for c in columns] + mark)
    for r in records:
        writer.writerow([cell_text(r.get(c)) for c in columns] + [""] * len(mark))
    return buf.getvalue().encode("utf-8")


def to_csv(columns: Sequence[str], records: Sequence[dict[str, Any]]) -> bytes:
    return to_delimited(columns, records, ",")


#: Line breaks that JSON leaves raw inside strings but str.splitlines() splits on.
_JSON_LINE_BREAKS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


def to_jsonl(records: Sequence[dict[str, Any]]) -> bytes:
    """One JSON object per line; U+2028, U+2029 and U+0085 escaped so a line stays a line."""
    lines = (json.dumps(r, ensure_ascii=False, default=str) for r in records)
    return "".join(line.translate(_JSON_LINE_BREAKS) + "\n" for line in lines).encode("utf-8")


class ExportError(ValueError):
    """The data cannot be written in the chosen format; the message says what to use."""


def to_parquet(
    columns: Sequence[str],
    records: Sequence[dict[str, Any]],
    types: dict[str, str] | None = None,
) -> bytes:
    """A Parquet file, one column per name; ``types`` (``"int64"``, ``"double"``,
    ``"string"``, ``"bool"``) fixes a column's type, so that a column empty in every row
    keeps it (otherwise Parquet stores it as null, read back as text). Raises
    :class:`ExportError` for a column whose values no one Parquet type holds (numbers and
    text mixed, integers over 64 bits)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {}
    for c in columns:
        kind = (types or {}).get(c)
        try:
            arrays[c] = pa.array(
                [r.get(c) for r in records], type=None if kind is None else pa.type_for_alias(kind)
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as exc:
            raise ExportError(
                f"column {c!r} holds values that one Parquet column cannot ({exc}); export "
                "as JSONL, which keeps each value as it is, or as CSV"
            ) from None
    buf = io.BytesIO()
    pq.write_table(pa.table(arrays), buf)
    return buf.getvalue()
