"""Hypothesis over the AI-span file: hostile cell text (quotes, separators, line breaks,
formula starts, combining marks, emoji, right-to-left) round-trips through CSV, TSV and
JSONL; offsets are code points, so a span over a combining sequence or an emoji slices the
same characters in Python as the file meant; an offset past the output is named with its
row and column; arbitrary bytes give rows or a CampaignFileError, never anything else."""

from __future__ import annotations

import csv
import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.imports.ai_spans import _Checked
from formats.ai_spans_file import AiSpanRow, read_ai_spans_file
from formats.problems import CampaignFileError

COLUMNS = ["item_id", "system", "start", "end", "severity", "category", "confidence", "model"]
HOSTILE = st.sampled_from(
    ['"', ",", "\t", ";", "=", "+", "-", "@", "\u0301", "👍🏽", "\u05d0", "\u200f", "é", "ß", "\\"]
)
CELL = (
    st.lists(
        st.one_of(HOSTILE, st.characters(blacklist_categories=("Cs", "Cc"))),
        min_size=1,
        max_size=12,
    )
    .map("".join)
    .filter(lambda s: s.strip() == s and s.strip())
)
TEXT = st.lists(
    st.one_of(HOSTILE, st.characters(blacklist_categories=("Cs", "Cc"))), min_size=1, max_size=40
).map("".join)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def span_rows(draw) -> list[dict]:  # type: ignore[no-untyped-def]
    rows = []
    for _ in range(draw(st.integers(1, 5))):
        start = draw(st.integers(0, 50))
        rows.append(
            {
                "item_id": draw(CELL),
                "system": draw(CELL),
                "start": start,
                "end": start + draw(st.integers(1, 20)),
                "severity": draw(st.sampled_from(["minor", "Major", "CRITICAL"])),
                "category": draw(CELL),
                "confidence": draw(st.floats(-1e6, 1e6, allow_nan=False)),
                "model": draw(CELL),
            }
        )
    return rows


def _write(rows: list[dict], kind: str) -> bytes:
    if kind == "jsonl":
        return "\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode()
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, delimiter="," if kind == "csv" else "\t")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


@FAST
@given(span_rows(), st.sampled_from(["csv", "tsv", "jsonl"]))
def test_hostile_cells_round_trip(rows: list[dict], kind: str) -> None:
    read = read_ai_spans_file(_write(rows, kind), f"ai.{kind}")
    assert [
        (r.item_id, r.system, r.start, r.end, r.severity, r.category, r.model) for r in read
    ] == [
        (
            r["item_id"],
            r["system"],
            r["start"],
            r["end"],
            r["severity"].casefold(),
            r["category"],
            r["model"],
        )
        for r in rows
    ]
    assert [r.confidence for r in read] == [float(r["confidence"]) for r in rows]


@FAST
@given(TEXT, st.data())
def test_offsets_are_code_points(text: str, data: st.DataObject) -> None:
    """Offsets inside the text pass and slice Python's characters; past it, the row and
    the 'end' column are named."""
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    outputs = {("i", "s"): (7, text)}
    ok = AiSpanRow(1, "i", "s", start, end, "minor", None, None, None)
    problems: list = []
    assert _Checked(outputs, "ai.csv", problems).row(ok) == 7 and problems == []
    past = AiSpanRow(2, "i", "s", start, len(text) + 1, "minor", None, None, None)
    assert _Checked(outputs, "ai.csv", problems).row(past) is None
    (p,) = problems
    assert (p.row, p.column) == (2, "end") and f"({len(text)} characters)" in p.message


@FAST
@given(st.binary(max_size=300), st.sampled_from(["csv", "tsv", "jsonl"]))
def test_arbitrary_bytes_give_rows_or_a_named_error(data: bytes, kind: str) -> None:
    header = ",".join(COLUMNS) if kind == "csv" else "\t".join(COLUMNS)
    for blob in (data, header.encode() + b"\n" + data):
        try:
            read_ai_spans_file(blob, f"ai.{kind}")
        except CampaignFileError as exc:
            assert str(exc).startswith(f"ai.{kind}")
