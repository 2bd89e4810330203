"""The import gaps of issue 16 (defect 7), each on SQLite and PostgreSQL: database column
limits and NUL bytes, the size limit (before reading; decoded Parquet), duplicate columns,
extra-column values, long CSV cells, directories, campaign names, and the CLI's exit code."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sqlalchemy import Engine

from annotation.imports.importer import import_campaign
from annotation.results.exports import export_campaign, export_records
from db.schema.models import Annotator, Campaign, Item, System
from formats.problems import MAX_CAMPAIGN_NAME, MAX_LENGTH, CampaignFileError, check_size
from tests.annotation.imports.test_importer_validation import HEADER, rejected, table_counts

ROOT = Path(__file__).resolve().parents[3]


def _parquet(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def _row(**values: str) -> dict[str, str]:
    row = {"item_id": "1", "source": "s", "reference": "r", "system": "A", "output": "o"}
    return row | values


def _csv(*rows: dict[str, str]) -> bytes:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().encode()


# ---------------------------------------------------------------- column limits, NUL bytes


def test_limits_are_the_database_column_lengths() -> None:
    assert {
        "item_id": Item.__table__.c.external_id.type.length,
        "doc_id": Item.__table__.c.doc_id.type.length,
        "system": System.__table__.c.name.type.length,
        "annotator": Annotator.__table__.c.name.type.length,
    } == MAX_LENGTH
    assert Campaign.__table__.c.name.type.length == MAX_CAMPAIGN_NAME


@pytest.mark.parametrize("column", sorted(MAX_LENGTH))
def test_overlong_value_is_rejected_on_both_databases(engine: Engine, column: str) -> None:
    limit = MAX_LENGTH[column]
    data = _csv(_row(human_label="1", annotator="ann", doc_id="d") | {column: "x" * (limit + 1)})
    msg = rejected(engine, data)
    assert f"camp.csv, row 1, column '{column}'" in msg
    assert f"{limit + 1:,} characters long, over the limit of {limit}" in msg
    assert f"Shorten it to at most {limit} characters" in msg


def test_value_at_the_limit_imports_on_both_databases(engine: Engine) -> None:
    row = _row(human_label="1", doc_id="d" * 300, annotator="a" * 200)
    data = _csv(row | {"item_id": "i" * 300, "system": "s" * 300})
    report = import_campaign(engine, data, "c" * MAX_CAMPAIGN_NAME, filename="camp.csv")
    assert report.outputs_added == 1 and report.judgments_added == 1


@pytest.mark.parametrize("column", ["output", "source", "system", "note"])
def test_nul_byte_is_rejected_on_both_databases(engine: Engine, column: str) -> None:
    data = _csv(_row(note="n") | {column: "a\x00b"})
    msg = rejected(engine, data)
    assert f"row 1, column '{column}': {column} contains a NUL byte" in msg
    assert "Remove NUL characters" in msg


def test_nul_byte_in_a_jsonl_key_or_nested_value(engine: Engine) -> None:
    nested = json.dumps(_row() | {"note": {"k": "a\x00"}})
    assert "column 'note': note contains a NUL byte" in rejected(engine, nested, "c.jsonl")
    key = json.dumps(_row() | {"bad\x00key": "v"})
    assert "contains a NUL byte" in rejected(engine, key, "c.jsonl")


@pytest.mark.parametrize(
    "name", ["", "   ", "x" * (MAX_CAMPAIGN_NAME + 1), "a\x00b", "a\nb", "a\tb", "a\x1bb", "a\x7fb"]
)
def test_bad_campaign_name_is_rejected(engine: Engine, name: str) -> None:
    msg = rejected(engine, _csv(_row()), campaign=name)
    assert msg.startswith("camp.csv: the campaign name")


# ---------------------------------------------------------------- size limit


def test_size_is_checked_before_the_file_is_read(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.csv"
    with path.open("wb") as f:  # sparse: 3 MB on paper, nothing on disk
        f.write(HEADER.encode())
        f.truncate(3 * 1024 * 1024)

    def no_reading(self: Path) -> bytes:
        raise AssertionError(f"{self} was read into memory before its size was checked")

    monkeypatch.setattr(Path, "read_bytes", no_reading)
    before = table_counts(engine)
    with pytest.raises(CampaignFileError, match=r"big\.csv: is 3\.0 MB, over the 1 MB import"):
        import_campaign(engine, path, "c", max_mb=1)
    assert table_counts(engine) == before


def test_check_size_for_uploads() -> None:
    check_size(1024 * 1024, "u.csv", max_mb=1)
    with pytest.raises(CampaignFileError, match=r"u\.csv: is 1\.0 MB, over the 0\.5 MB"):
        check_size(1024 * 1024, "u.csv", max_mb=0.5)


def test_parquet_is_limited_by_its_decoded_size(engine: Engine) -> None:
    n = 400  # 400 outputs of 10 KB: 4 MB of text, a few KB compressed
    table = pa.table(
        {
            "item_id": [str(i) for i in range(n)],
            "source": ["s"] * n,
            "reference": ["r"] * n,
            "system": ["A"] * n,
            "output": ["x" * 10_000] * n,
        }
    )
    data = _parquet(table)
    assert len(data) < 100 * 1024
    msg = rejected(engine, data, "big.parquet", max_mb=1)
    assert "big.parquet: holds over" in msg and "once decompressed, over the 1 MB" in msg
    report = import_campaign(engine, data, "ok", filename="big.parquet", max_mb=10)
    assert report.outputs_added == n


# ---------------------------------------------------------------- duplicate columns


@pytest.mark.parametrize("sep,suffix", [(",", "csv"), ("\t", "tsv")])
def test_duplicate_column_in_delimited_file(engine: Engine, sep: str, suffix: str) -> None:
    text = sep.join(["item_id", "source", "reference", "system", "output", "system"]) + "\n"
    text += sep.join(["1", "s", "r", "A", "o", "B"]) + "\n"
    msg = rejected(engine, text, f"camp.{suffix}")
    assert f"camp.{suffix}: the header has duplicate column names: 'system'" in msg


def test_duplicate_key_in_jsonl(engine: Engine) -> None:
    line = '{"item_id": "1", "source": "s", "reference": "r", "system": "A", "system": "B", '
    msg = rejected(engine, line + '"output": "o"}\n', "c.jsonl")
    assert "c.jsonl, row 1: line 1 has the key 'system' more than once" in msg


def test_duplicate_column_in_parquet(engine: Engine) -> None:
    cols = [pa.array(["1"]), pa.array(["s"]), pa.array(["r"]), pa.array(["A"]), pa.array(["o"])]
    names = ["item_id", "source", "reference", "system", "output"]
    data = _parquet(pa.table([*cols, pa.array(["B"])], names=[*names, "system"]))
    assert "duplicate column names: 'system'" in rejected(engine, data, "c.parquet")


# ---------------------------------------------------------------- extra columns


def test_jsonl_objects_in_extra_columns_are_json_text(engine: Engine) -> None:
    lines = [
        _row(item_id="1") | {"note": {"b": [1, 2], "a": "ü"}, "tags": ["x", 2], "big": 1e999},
        _row(item_id="2") | {"note": None, "tags": [], "big": 3},
    ]
    data = "\n".join(json.dumps(r, ensure_ascii=False) for r in lines)
    import_campaign(engine, data.encode(), "c", filename="c.jsonl")
    _, records = export_records(engine, "c")
    assert records[0]["note"] == '{"b": [1, 2], "a": "ü"}' and records[0]["tags"] == '["x", 2]'
    assert records[0]["big"] == "inf" and records[1]["big"] == 3
    first = export_campaign(engine, "c", "jsonl")  # the JSON text round-trips exactly
    import_campaign(engine, first, "copy", filename="copy.jsonl")
    assert export_campaign(engine, "copy", "jsonl") == first
    exported = export_campaign(engine, "c", "csv").decode()
    assert "{'b'" not in exported and '"{""b"": [1, 2], ""a"": ""ü""}"' in exported


def test_parquet_timestamps_become_iso_8601(engine: Engine) -> None:
    when = dt.datetime(2024, 5, 1, 12, 30, 15)
    table = pa.table(
        {
            **{k: [v] for k, v in _row().items()},
            "when": pa.array([when]),
            "day": pa.array([dt.date(2024, 5, 1)]),
            "zoned": pa.array([when], pa.timestamp("us", tz="UTC")),
            "meta": pa.array([{"k": 1}]),
        }
    )
    import_campaign(engine, _parquet(table), "c", filename="c.parquet")
    _, records = export_records(engine, "c")
    assert records[0]["when"] == "2024-05-01T12:30:15" and records[0]["day"] == "2024-05-01"
    assert records[0]["zoned"] == "2024-05-01T12:30:15+00:00"
    assert records[0]["meta"] == '{"k": 1}'
    first = export_campaign(engine, "c", "parquet")
    import_campaign(engine, first, "copy", filename="copy.parquet")
    assert export_campaign(engine, "copy", "parquet") == first


def test_parquet_bytes_are_rejected(engine: Engine) -> None:
    table = pa.table({**{k: [v] for k, v in _row().items()}, "blob": pa.array([b"\x00\xff"])})
    msg = rejected(engine, _parquet(table), "c.parquet")
    assert "c.parquet, row 1, column 'blob': blob holds binary data (bytes), not text" in msg
    assert "base64" in msg


# ---------------------------------------------------------------- long cells, paths


@pytest.mark.parametrize("sep,suffix", [(",", "csv"), ("\t", "tsv")])
def test_long_cell_imports(engine: Engine, sep: str, suffix: str) -> None:
    long = "word " * 60_000  # 300,000 characters: over csv's default 131,072 field limit
    text = sep.join(["item_id", "source", "reference", "system", "output"]) + "\n"
    text += sep.join(["1", "s", "r", "A", f'"{long}"']) + "\n"
    import_campaign(engine, text.encode(), "c", filename=f"c.{suffix}")
    _, records = export_records(engine, "c")
    assert records[0]["output"] == long


def test_unclosed_quote_still_gets_quoting_advice(engine: Engine) -> None:
    msg = rejected(engine, HEADER + '1,s,r,A,"never closed,1\n')
    assert "is not valid CSV" in msg and "Check the quoting" in msg


def test_directory_is_rejected(engine: Engine, tmp_path: Path) -> None:
    folder = tmp_path / "camp.csv"
    folder.mkdir()
    before = table_counts(engine)
    with pytest.raises(CampaignFileError, match=r"camp\.csv is a directory"):
        import_campaign(engine, folder, "c")
    assert table_counts(engine) == before


# ---------------------------------------------------------------- the CLI


def test_cli_progress_bar_leaves_no_monitor_thread() -> None:
    from commands.base import ProgressBar as _Bar

    with _Bar("import") as bar:
        bar(1, 2)
    names = [type(t).__name__ for t in threading.enumerate()]
    assert "TMonitor" not in names


@pytest.mark.slow
def test_cli_rejected_parquet_exits_1_not_134(tmp_path: Path) -> None:
    table = pa.table({**{k: [v] for k, v in _row().items()}, "human_label": ["x"]})
    path = tmp_path / "bad.parquet"
    path.write_bytes(_parquet(table))
    env = os.environ | {"DATABASE_URL": f"sqlite:///{tmp_path / 't.db'}"}
    cli = [sys.executable, str(ROOT / "cli.py")]
    subprocess.run([*cli, "migrate"], env=env, check=True, capture_output=True, cwd=ROOT)
    codes = []
    for _ in range(6):  # before the fix about half of these runs aborted with 134
        run = subprocess.run(
            [*cli, "import", str(path), "--campaign", "c"],
            env=env,
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        codes.append(run.returncode)
        assert "human_label is 'x', not 0 or 1" in run.stderr
    assert codes == [1] * 6
    folder = tmp_path / "dir.csv"
    folder.mkdir()
    run = subprocess.run(
        [*cli, "import", str(folder), "--campaign", "c"], env=env, capture_output=True, text=True
    )
    assert run.returncode == 1 and "is a directory" in run.stderr
    assert "Traceback" not in run.stderr
