"""formats.tutorial_file: tutorial and check items from CSV, JSONL and Pearmut's JSON (its
``validation`` block: score ranges, error spans with tolerant offsets, ``missing``, silent
without a warning), every problem named by file, row and column; hostile text refused with
that error and nothing else (Hypothesis)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats.tutorial_file import MAX_ITEMS, TutorialFileError, parse_tutorial_file

PEARMUT = [
    {
        "src": "Der Hund lief.",
        "tgt": "The dog walked.",
        "instructions": "<b>Lesson 2</b><br>Mark &quot;walked&quot;.",
        "validation": {
            "warning": "Mark walked as minor; score 75-85.",
            "score": [75, 85],
            "error_spans": [{"start_i": [8, 9], "end_i": [13, 15], "severity": "minor"}],
        },
    },
    {
        "src": "Der Hund lief.",
        "tgt": "The walked. [MISSING]",
        "validation": {
            "warning": "Mark the omission.",
            "score": [0, 10],
            "error_spans": [{"start_i": "missing", "end_i": "missing", "severity": "major"}],
        },
    },
    {  # Pearmut's per-output block, no warning: a silent check; spans shown marked already
        "src": "Die Sonne.",
        "tgt": {"Translation": "The sun."},
        "error_spans": [{"start_i": 4, "end_i": 6, "severity": "minor"}],
        "validation": {"Translation": {"score": [50, 50], "error_spans": []}},
    },
]


def test_pearmut_validation_blocks() -> None:
    first, missing, silent = parse_tutorial_file(json.dumps(PEARMUT).encode(), "esa.json")
    assert first["score"] == [75.0, 85.0] and not first["silent"]
    # end_i inclusive: read as end_i + 1, the range clipped at the output's end
    assert first["spans"] == [{"start": [8, 9], "end": [14, 15], "severity": "minor"}]
    assert first["warning"] == first["explanation"] == "Mark walked as minor; score 75-85."
    assert first["instructions"] == 'Lesson 2\nMark "walked".'  # HTML dropped, text kept
    assert missing["spans"] == [{"missing": True, "severity": "major"}]
    assert silent["silent"] and silent["output"] == "The sun." and silent["spans"] == []
    assert silent["prefill"] == [{"start": 4, "end": 7, "severity": "minor"}]


def test_csv_and_jsonl_shapes() -> None:
    csv = (
        b"source,output,expected_score,expected_spans,explanation,silent\n"
        b'a,The dog walked.,75-85,"[{""text"": ""walked""}]",Walked is wrong.,\n'
        b"b,Fine.,90,[],,1\n"
    )
    one, two = parse_tutorial_file(csv, "t.csv")
    assert one["score"] == [75.0, 85.0]
    assert one["spans"] == [{"start": [6, 10], "end": [12, 15], "severity": None, "text": "walked"}]
    assert two["score"] == [90.0, 90.0] and two["spans"] == [] and two["silent"]
    jsonl = "\n".join(json.dumps(r) for r in (
        {"source": "s", "output": "o", "expected_label": "adequate", "explanation": "e"},
        {"source": "s", "output": "The cat.", "expected_spans": [{"start": 4, "end": [7, 8]}]},
    )).encode()  # fmt: skip
    label, span = parse_tutorial_file(jsonl, "t.jsonl")
    assert label["label"] == 1 and label["spans"] is None
    assert span["spans"] == [{"start": [4, 4], "end": [7, 8], "severity": None}]


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b"source,output,expected_score\na,b,90-80\n", "row 1, column 'expected_score'"),
        (b"source,output,expected_score\na,b,nan\n", "column 'expected_score'"),
        (b"source,output\na,b\n", "no expected answer column"),
        (b'source,output,expected_spans\na,b,"[{""start"": 5, ""end"": 9}]"\n', "not inside"),
        (b'source,output,expected_spans\na,b c,"[{""text"": ""x""}]"\n', "not in the output"),
        (b"source,output,expected_label\na\x00,b,1\n", "U+0000"),
        (b"source,output,expected_label\n\xff,b,1\n", "not UTF-8"),
        (b'{"source": "a", "output": "b"}\n', "row 1 (line 1), column 'expected_label'"),
        (b'{"source": "a"}\n[1]\n', "row 2 (line 2)"),
        (b'[{"src": "a", "tgt": {"x": "1", "y": "2"}}]', "column 'tgt'"),
        (b'[{"src": "a", "tgt": "b", "validation": {"score": [1, NaN]}}]', "not valid JSON"),
    ],
)
def test_problems_name_the_place(data: bytes, where: str) -> None:
    with pytest.raises(TutorialFileError, match=None) as refused:
        parse_tutorial_file(data, "t.csv")
    assert where in str(refused.value), str(refused.value)
    assert str(refused.value).startswith("t.csv")


def test_too_many_items() -> None:
    rows = "".join(f"s{k},o{k},1\n" for k in range(MAX_ITEMS + 1))
    with pytest.raises(TutorialFileError, match=f"at most {MAX_ITEMS}"):
        parse_tutorial_file(("source,output,expected_label\n" + rows).encode(), "t.csv")


def _check(items: list[dict]) -> None:  # type: ignore[type-arg]
    """What every parsed item keeps: texts without control characters, a range that goes
    up inside 0–100, spans whose offsets lie in the output."""
    for it in items:
        assert it["source"] and it["output"]
        assert it["label"] is not None or it["score"] is not None or it["spans"] is not None
        if it["score"] is not None:
            lo, hi = it["score"]
            assert 0 <= lo <= hi <= 100
        for sp in it["spans"] or ():
            if not sp.get("missing"):
                assert sp["start"][0] <= sp["start"][1] and sp["end"][0] <= sp["end"][1]
                assert sp["end"][1] <= len(it["output"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_hostile_bytes(data: bytes) -> None:
    try:
        _check(parse_tutorial_file(data, "t.csv"))
    except TutorialFileError as refused:
        assert str(refused).startswith("t.csv")


CELL = st.text(st.characters(codec="utf-8"), max_size=30)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(CELL, CELL, CELL, CELL), min_size=1, max_size=4))
def test_hostile_csv_cells(rows: list[tuple[str, str, str, str]]) -> None:
    import csv
    import io

    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["source", "output", "expected_score", "expected_spans"])
    w.writerows(rows)
    try:
        _check(parse_tutorial_file(out.getvalue().encode(), "t.csv"))
    except TutorialFileError as refused:
        assert str(refused).startswith("t.csv")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 40) | st.floats(allow_nan=False) | CELL,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(CELL, inner, max_size=3),
    max_leaves=12,
)
KEYS = st.sampled_from(["src", "tgt", "validation", "score", "error_spans", "start_i", "end_i",
                        "severity", "warning", "instructions", "text", "missing"])  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"src": CELL, "tgt": JSON},
            optional={"validation": st.dictionaries(KEYS, JSON, max_size=4), "error_spans": JSON},
        ),
        min_size=1,
        max_size=3,
    )
)
def test_hostile_pearmut_items(items: list[dict]) -> None:  # type: ignore[type-arg]
    try:
        _check(parse_tutorial_file(json.dumps(items).encode(), "t.json"))
    except TutorialFileError as refused:
        assert str(refused).startswith("t.json")
