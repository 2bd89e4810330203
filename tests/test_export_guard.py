"""CSV/TSV formula guard and exact round trips of the campaign export (every format).

Property-based over arbitrary text (Hypothesis, on SQLite) and one fixed hostile example on
PostgreSQL. NUL (U+0000) is left out of the generated text: PostgreSQL cannot store it in a
text column, so no campaign can hold it.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from annotation.imports.importer import import_campaign
from annotation.results.exports import export_annotations, export_campaign, export_records
from annotation.results.result_exports import RESULT_COLUMNS
from formats.readers import read_records
from formats.rows import OPTIONAL, REQUIRED
from formats.spreadsheet import GUARD_COLUMN, NUMBER, TRIGGERS
from formats.writers import to_csv

FORMATS = ("csv", "tsv", "jsonl", "parquet")
HOSTILE = [
    "=1+1", "=HYPERLINK(\"http://x\")", "+33 1 23", "-rm -rf", "@SUM(A1)", "\tx", "\r=cmd()",
    "a\rb", "a\r\nb", "a\nb", "\n", "\r", 'say "hi", ok', "'", "''", "'=x", "'-1", "-2",
    "-0.5", "+7", "1e-07", "-inf", "nan", "x\t=y", "مرحبا بالعالم", "שלום\u200f", "👩‍🔬🚀",
    "\u2028", "a\u2029b", "\x85", "\ufeffbom", " lead", "trail ", "tandem_formula_guard",
]  # fmt: skip
KNOWN = {*REQUIRED, *OPTIONAL, GUARD_COLUMN}

text = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=8)
value = st.one_of(
    st.sampled_from(HOSTILE),
    text,
    st.builds(lambda a, b: a + b, st.sampled_from(HOSTILE), text),
)
name = value.map(str.strip).filter(bool)  # item ids, systems, column names are stripped


@st.composite
def campaigns(draw: st.DrawFn) -> list[dict]:
    extras = draw(st.lists(name.filter(lambda c: c not in KNOWN), max_size=2, unique=True))
    n = draw(st.integers(1, 3))
    items = draw(st.lists(name, min_size=n, max_size=n, unique=True))
    rows = []
    for item in items:
        row = {
            "item_id": item,
            "source": draw(value),
            "reference": draw(value),
            "system": draw(name),
            "output": draw(value.filter(str.strip)),
            "post_edit": draw(value),
            "annotator": draw(value),
            "human_label": draw(st.sampled_from([0, 1, None])),
            "human_score": draw(
                st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False), st.integers(-9, 9))
            ),
        }
        row.update({c: draw(value) for c in extras})
        rows.append(row)
    return rows


def _jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _is_number(cell: str) -> bool:
    return bool(NUMBER.fullmatch(cell)) or cell in ("inf", "-inf")


def _check_guard(data: bytes, fmt: str) -> None:
    """No cell or header of a CSV/TSV starts with a formula trigger unless it is a number."""
    dialect = "excel-tab" if fmt == "tsv" else "excel"
    rows = list(csv.reader(io.StringIO(data.decode(), newline=""), dialect))
    assert len({len(r) for r in rows}) == 1  # no row split by a stray line break
    for cell in itertools.chain.from_iterable(rows):
        assert not cell.startswith(TRIGGERS) or _is_number(cell), cell


def _round_trip(engine: Engine, rows: list[dict], fmt: str, tag: str) -> None:
    import_campaign(engine, _jsonl(rows), f"orig-{tag}", filename="orig.jsonl")
    columns, original = export_records(engine, f"orig-{tag}")
    # the generated text reached the database as it is (else the test would prove little)
    assert sorted(r["output"] for r in original) == sorted(r["output"] for r in rows)
    assert sorted(r["source"] for r in original) == sorted(r["source"] for r in rows)
    exported = export_campaign(engine, f"orig-{tag}", fmt)
    import_campaign(engine, exported, f"copy-{tag}", filename=f"copy.{fmt}")
    assert export_records(engine, f"copy-{tag}") == (columns, original)
    if fmt in ("csv", "tsv"):
        _check_guard(exported, fmt)
        frame = pd.read_csv(io.BytesIO(exported), sep="," if fmt == "csv" else "\t")
        assert len(frame) == len(original)
        assert frame["human_score"].dtype.kind in "fi"  # numbers stay numeric


_counter = itertools.count()


@pytest.mark.parametrize("fmt", FORMATS)
@settings(
    max_examples=50,  # × 4 formats: 200 examples, ≈ 15 s
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # names are unique per example
)
@given(rows=campaigns())
def test_campaign_export_round_trips_arbitrary_text(sqlite_engine: Engine, fmt: str, rows) -> None:  # type: ignore[no-untyped-def]
    _round_trip(sqlite_engine, rows, fmt, str(next(_counter)))


HOSTILE_ROWS = [
    {"item_id": "=1+1", "source": "a\rb", "reference": "'=x", "system": "-sys",
     "output": "\r=cmd()|' /C calc'!A0", "post_edit": "a\r\nb\nc", "annotator": "@mallory",
     "human_label": 1, "human_score": -0.5, "=note": "'-1", "'quoted": "-2"},
    {"item_id": "'", "source": "שלום\u200f 👩‍🔬", "reference": "\u2028", "system": "+B",
     "output": '\t"tab"', "post_edit": "''", "annotator": "x\ty", "human_label": 0,
     "human_score": -1e-07, "=note": "مرحبا", "'quoted": "\x85"},
]  # fmt: skip


@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_campaign_round_trips_on_postgresql(pg_engine: Engine, fmt: str) -> None:
    _round_trip(pg_engine, HOSTILE_ROWS, fmt, fmt)


def test_a_lone_carriage_return_does_not_split_the_row() -> None:
    data = to_csv(["a", "b"], [{"a": "x\r=cmd()", "b": 1}])
    rows = list(csv.reader(io.StringIO(data.decode(), newline="")))
    assert rows == [["a", "b"], ["x\r=cmd()", "1"]]


def test_header_cells_are_neutralised_and_restored(sqlite_engine: Engine) -> None:
    assert to_csv(["=evil", "ok"], []).decode().splitlines()[0] == "'=evil,ok"
    body = 'item_id,source,reference,system,output,=evil,"\'q"\n1,s,r,A,o,v,w\n'
    import_campaign(sqlite_engine, body.encode(), "head", filename="head.csv")
    exported = export_campaign(sqlite_engine, "head", "csv")
    header = exported.decode().splitlines()[0]
    assert header.endswith(",'=evil,''q," + GUARD_COLUMN)
    import_campaign(sqlite_engine, exported, "head-copy", filename="copy.csv")
    assert export_records(sqlite_engine, "head-copy")[0][-2:] == ["=evil", "'q"]


def test_a_foreign_quote_is_read_literally() -> None:
    body = "item_id,source,reference,system,output,note\n1,'=x,'@y,A,'+z,'-w\n"
    _, records = read_records(body.encode(), "foreign.csv")
    rec = records[0][1]
    assert (rec["source"], rec["reference"], rec["output"], rec["note"]) == (
        "'=x", "'@y", "'+z", "'-w",
    )  # fmt: skip


def test_numbers_stay_numeric_in_results_and_score_exports(sqlite_engine: Engine) -> None:
    records = [
        {"system": "-A", "rank": "1–2", "method": "Human only", "estimate": -0.25,
         "low": -math.inf, "high": math.inf, "level": 0.95, "se": math.nan, "n_human": 3,
         "n_metric": 0, "metric": "", "valid_for_verdict": True},
        {"system": "B", "rank": "1–2", "method": "PPI++", "estimate": 0.5, "low": -1.5,
         "high": 2.0, "level": 0.95, "se": 0.1, "n_human": -1, "n_metric": 4,
         "metric": "chrf", "valid_for_verdict": False},
    ]  # fmt: skip
    frame = pd.read_csv(io.BytesIO(to_csv(RESULT_COLUMNS, records)))
    for col in ("estimate", "low", "high", "level", "se"):
        assert frame[col].dtype.kind == "f", col
    assert list(frame["low"]) == [-math.inf, -1.5] and list(frame["high"]) == [math.inf, 2.0]
    assert frame["n_human"].dtype.kind == "i" and frame["system"][0] == "'-A"

    body = "item_id,source,reference,system,output,human_score,annotator\n1,s,r,A,o,-0.5,ann\n"
    import_campaign(sqlite_engine, body.encode(), "neg", filename="neg.csv")
    scores = pd.read_csv(io.BytesIO(export_annotations(sqlite_engine, "neg", "csv")))
    assert scores["score"].dtype.kind == "f" and scores["score"][0] == -0.5


def test_foreign_jsonl_with_raw_unicode_line_separators_imports(sqlite_engine: Engine) -> None:
    """JSON allows U+2028/U+2029/U+0085 raw inside strings; only \\n ends a JSON Lines record."""
    text = "a\u2028b\u2029c\x85d"
    line = json.dumps(
        {"item_id": "1", "source": "s", "reference": "r", "system": "A", "output": text},
        ensure_ascii=False,
    )
    import_campaign(sqlite_engine, (line + "\r\n").encode(), "u", filename="u.jsonl")
    records = [json.loads(x) for x in export_campaign(sqlite_engine, "u", "jsonl").splitlines()]
    assert records[0]["output"] == text
