"""Fuzzing the importer: 500 seeded malformed files (CSV, TSV, JSONL, Parquet) on SQLite and
a slice of them on PostgreSQL. Each file either imports or raises CampaignFileError with a
message; nothing else escapes, and a rejection leaves every table's row count unchanged."""

from __future__ import annotations

import datetime as dt
import io
import json
import random
import time
from collections import Counter
from typing import Any

import pytest
from sqlalchemy import Engine

from annotation.imports.importer import import_campaign
from formats.problems import CampaignFileError
from tests.annotation.imports.test_importer_validation import table_counts

pytestmark = pytest.mark.slow  # Hypothesis over whole imports on both databases

COLUMNS = ["item_id", "source", "reference", "system", "output", "human_label", "note"]
FORMATS = ("csv", "tsv", "jsonl", "parquet")
N_SQLITE = 500
N_POSTGRES = 200


def _records(rng: random.Random) -> list[dict[str, Any]]:
    rows = []
    for i in range(rng.randint(1, 6)):
        for system in rng.sample(["A", "B", "C"], rng.randint(1, 3)):
            rows.append(
                {
                    "item_id": str(i),
                    "source": f"source {i} ü",
                    "reference": f"ref {i}",
                    "system": system,
                    "output": f"output {i} {system}",
                    "human_label": rng.choice(["", "0", "1"]),
                    "note": rng.choice(["", "x", "-3", "=1+1"]),
                }
            )
    return rows


def _mutate_records(rng: random.Random, columns: list[str], rows: list[dict[str, Any]]) -> str:
    """Damage the content (format-independent); return what was done."""
    kind = rng.choice(
        [
            "none",
            "nul",
            "long_id",
            "long_system",
            "long_annotator",
            "huge_cell",
            "missing_column",
            "duplicate_column",
            "bad_label",
            "bad_score",
            "empty_output",
            "duplicate_pair",
            "other_source",
            "no_rows",
            "odd_values",
        ]
    )
    r = rng.choice(rows)
    if kind == "nul":
        col = rng.choice(columns)
        r[col] = f"{r[col]}\x00tail"
    elif kind == "long_id":
        r["item_id"] = "i" * rng.choice([299, 300, 301, 5000])
    elif kind == "long_system":
        r["system"] = "s" * rng.choice([300, 301])
    elif kind == "long_annotator":
        columns.append("annotator")
        for row in rows:
            row["annotator"] = "a" * rng.choice([200, 201])
    elif kind == "huge_cell":
        r["output"] = "w" * rng.choice([140_000, 300_000])
    elif kind == "missing_column":
        col = rng.choice(columns)
        columns.remove(col)
    elif kind == "duplicate_column":
        columns.append(rng.choice(columns))
    elif kind == "bad_label":
        r["human_label"] = rng.choice(["yes", "2", "-1", "1.5", "NaN", " "])
    elif kind == "bad_score":
        columns.append("human_score")
        r["human_score"] = rng.choice(["inf", "abc", "1e999", "0.5"])
    elif kind == "empty_output":
        r["output"] = rng.choice(["", "   "])
    elif kind == "duplicate_pair":
        rows.append(dict(r))
    elif kind == "other_source":
        rows.append(dict(r, system="Z", source="different"))
    elif kind == "no_rows":
        rows.clear()
    elif kind == "odd_values":
        r["note"] = rng.choice(
            [{"a": [1, 2]}, [1, "x"], float("inf"), 10**30, True, None, dt.datetime(2024, 1, 2)]
        )
    return kind


def _delimited(columns: list[str], rows: list[dict[str, Any]], sep: str) -> str:
    def cell(v: Any) -> str:
        v = "" if v is None else str(v)
        if any(c in v for c in (sep, '"', "\n", "\r")):
            v = '"' + v.replace('"', '""') + '"'
        return v

    lines = [sep.join(columns)] + [sep.join(cell(r.get(c)) for c in columns) for r in rows]
    return "\n".join(lines) + "\n"


def _parquet(columns: list[str], rows: list[dict[str, Any]], rng: random.Random) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = list(dict.fromkeys(columns))
    data: dict[str, Any] = {}
    for c in names:
        values = [r.get(c) for r in rows]
        if any(isinstance(v, dict | list | float | int | dt.datetime) for v in values):
            values = [None if v is None else json.dumps(v, default=str) for v in values]
        data[c] = pa.array(values, type=pa.string())
    extra = rng.choice(["none", "bytes", "timestamp", "struct", "ints"])
    if rows and extra == "bytes":
        data["blob"] = pa.array([b"\x00\x01"] * len(rows), type=pa.binary())
    elif rows and extra == "timestamp":
        data["when"] = pa.array([dt.datetime(2024, 5, 1, 12, 30)] * len(rows))
    elif rows and extra == "struct":
        data["meta"] = pa.array([{"k": 1, "v": "x"}] * len(rows))
    elif rows and extra == "ints" and "item_id" in data:
        data["item_id"] = pa.array(range(len(rows)))
    table = pa.table(data) if data else pa.table({"x": pa.array([], pa.string())})
    if len(columns) != len(names):  # a duplicate column: pyarrow allows it in a table
        dup = pa.table([*table.columns, table.column(0)], names=[*table.column_names, names[0]])
        table = dup
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def _damage_bytes(rng: random.Random, data: bytes, fmt: str) -> tuple[bytes, str]:
    kind = rng.choice(
        ["none"] * 6
        + ["truncate", "random", "empty", "flip", "latin1", "utf16", "quote", "semicolon"]
    )
    if kind == "truncate" and data:
        return data[: rng.randrange(len(data))], kind
    if kind == "random":
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 400))), kind
    if kind == "empty":
        return b"", kind
    if kind == "flip" and data:
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b), kind
    if fmt == "parquet":
        return data, "none"
    text = data.decode("utf-8", errors="replace")
    if kind == "latin1":
        return text.encode("latin-1", errors="replace"), kind
    if kind == "utf16":
        return text.encode("utf-16"), kind
    if kind == "quote":
        at = rng.randrange(len(text) + 1)
        return (text[:at] + '"' + text[at:]).encode(), kind
    if kind == "semicolon" and fmt in ("csv", "tsv"):
        return text.replace("," if fmt == "csv" else "\t", ";").encode(), kind
    return data, "none"


def _jsonl(columns: list[str], rows: list[dict[str, Any]], rng: random.Random) -> str:
    lines = []
    for r in rows:
        if len(columns) != len(set(columns)):  # a repeated key in the object
            body = ", ".join(
                f"{json.dumps(c)}: {json.dumps(r.get(c), default=str)}" for c in columns
            )
            lines.append("{" + body + "}")
        else:
            lines.append(json.dumps({c: r.get(c) for c in columns}, default=str))
    broken = rng.choice(["none"] * 5 + ["bad_line", "array", "deep", "trailing"])
    if broken == "bad_line":
        lines.insert(rng.randint(0, len(lines)), '{"item_id": "1", "source": ')
    elif broken == "array":
        lines.append("[1, 2, 3]")
    elif broken == "deep":
        lines.append('{"item_id": "9", "note": ' + "[" * 100_000 + "]" * 100_000 + "}")
    elif broken == "trailing":
        lines.append("{} extra")
    return "\n".join(lines) + "\n"


def make_file(seed: int) -> tuple[bytes, str, str]:
    """A (possibly) malformed campaign file: bytes, file name, what was done to it."""
    rng = random.Random(seed)
    fmt = FORMATS[seed % len(FORMATS)]
    columns = list(COLUMNS)
    rows = _records(rng)
    content = _mutate_records(rng, columns, rows)
    if fmt == "parquet":
        data = _parquet(columns, rows, rng)
    elif fmt == "jsonl":
        data = _jsonl(columns, rows, rng).encode()
    else:
        data = _delimited(columns, rows, "," if fmt == "csv" else "\t").encode()
    data, damage = _damage_bytes(rng, data, fmt)
    return data, f"fuzz{seed}.{fmt}", f"{fmt}/{content}/{damage}"


def run_fuzz(engine: Engine, seeds: range) -> Counter[str]:
    outcome: Counter[str] = Counter()
    for seed in seeds:
        data, filename, what = make_file(seed)
        before = table_counts(engine)
        try:
            import_campaign(engine, data, f"fuzz-{seed}", filename=filename, max_mb=5)
        except CampaignFileError as exc:
            assert str(exc).strip(), f"seed {seed} ({what}): empty error message"
            assert filename in str(exc), f"seed {seed} ({what}): message does not name the file"
            assert table_counts(engine) == before, f"seed {seed} ({what}) changed the database"
            outcome["rejected"] += 1
        except Exception as exc:
            pytest.fail(f"seed {seed} ({what}): {type(exc).__name__} escaped: {exc}")
        else:
            outcome["imported"] += 1
    return outcome


def test_fuzz_sqlite(sqlite_engine: Engine) -> None:
    started = time.perf_counter()
    outcome = run_fuzz(sqlite_engine, range(N_SQLITE))
    print(f"\nfuzz sqlite: {dict(outcome)} in {time.perf_counter() - started:.1f} s")
    assert sum(outcome.values()) == N_SQLITE
    assert outcome["imported"] >= 50 and outcome["rejected"] >= 200  # both paths exercised


def test_fuzz_postgres(pg_engine: Engine) -> None:
    started = time.perf_counter()
    outcome = run_fuzz(pg_engine, range(N_POSTGRES))
    print(f"\nfuzz postgresql: {dict(outcome)} in {time.perf_counter() - started:.1f} s")
    assert sum(outcome.values()) == N_POSTGRES
    assert outcome["imported"] >= 20 and outcome["rejected"] >= 100
