"""Export a campaign back to the long campaign-file format (CSV, TSV, JSONL, Parquet).

The columns are those the importer reads, so import → export → import round-trips exactly:
``item_id, source, reference, system, output, doc_id, is_human, human_label, human_score,
post_edit, annotator`` and then the extra columns the file came with. One row per current
judgment; an output with no judgment gets one row with the judgment columns empty.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from sqlalchemy import Engine

from annotation.campaign_file import FILE_TYPES, REQUIRED
from annotation.spreadsheet import neutralise
from db.campaigns import campaign_rows

LEADING = (*REQUIRED, "doc_id", "is_human", "human_label", "human_score", "post_edit", "annotator")


def export_records(engine: Engine, campaign: str) -> tuple[list[str], list[dict[str, Any]]]:
    """Column names and one dict per row, values as stored (None for empty)."""
    rows = campaign_rows(engine, campaign)
    extras: list[str] = []
    seen: set[str] = set()
    for r in rows:
        for k in r["meta"]:
            if k not in seen:
                seen.add(k)
                extras.append(k)
    columns = [*LEADING, *extras]
    records = []
    for r in rows:
        record = {c: r.get(c) for c in LEADING}
        record["is_human"] = int(bool(r["is_human"]))
        record.update({k: r["meta"].get(k) for k in extras})
        records.append(record)
    return columns, records


def export_campaign(engine: Engine, campaign: str, fmt: str) -> bytes:
    """The campaign as a file of type ``fmt`` (``csv``, ``tsv``, ``jsonl`` or ``parquet``)."""
    if fmt not in set(FILE_TYPES.values()):
        raise ValueError(f"unknown export format {fmt!r}; use csv, tsv, jsonl or parquet")
    columns, records = export_records(engine, campaign)
    if fmt in ("csv", "tsv"):
        return _delimited(columns, records, "," if fmt == "csv" else "\t")
    if fmt == "jsonl":
        lines = (json.dumps(r, ensure_ascii=False) for r in records)
        return ("\n".join(lines) + "\n").encode("utf-8")
    return _parquet(columns, records)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return repr(value)
    return str(value)


def _delimited(columns: list[str], records: list[dict[str, Any]], delimiter: str) -> bytes:
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, delimiter=delimiter, lineterminator="\n")
    writer.writerow(columns)
    for r in records:
        writer.writerow([neutralise(_cell(r[c])) for c in columns])
    return buf.getvalue().encode("utf-8")


def _parquet(columns: list[str], records: list[dict[str, Any]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(records, schema=None) if records else pa.table({})
    table = table.select(columns) if records else table
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()
