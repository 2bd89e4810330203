"""The text rule every tabular import reads through (formats.readers.checked_text with
formats.cells.text_problem): over hostile text, a cell is refused naming its row and column
exactly when it holds a NUL or a lone surrogate, and is otherwise handed on unchanged."""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.cells import text_problem
from formats.problems import CampaignFileError
from formats.readers import read_records

HOSTILE = st.text(
    alphabet=st.one_of(
        st.sampled_from(["\x00", "\ud800", "\udfff", "\n", "\r", "\t", "\x1b", "\u202e", "\u200b"]),
        st.characters(codec=None),  # any code point, surrogates included
    ),
    max_size=12,
)


def _unstorable(value: str) -> bool:
    return "\x00" in value or any("\ud800" <= ch <= "\udfff" for ch in value)


@settings(max_examples=300, deadline=None)
@given(cells=st.lists(HOSTILE, min_size=1, max_size=4), bad_row=st.integers(1, 3))
def test_jsonl_cells_are_refused_with_row_and_column_or_kept_byte_equal(
    cells: list[str], bad_row: int
) -> None:
    rows = [{"item_id": f"i{k}", "note": "plain"} for k in range(1, 4)]
    rows[bad_row - 1] |= {f"c{j}": v for j, v in enumerate(cells)}
    data = "\n".join(json.dumps(r) for r in rows).encode()  # ensure_ascii: lone halves survive
    refused = [j for j, v in enumerate(cells) if _unstorable(v)]
    if refused:
        with pytest.raises(CampaignFileError) as error:
            read_records(data, "f.jsonl")
        first = error.value.problems[0]
        assert first.row == bad_row and first.column == f"c{refused[0]}"
        assert {p.column for p in error.value.problems} == {f"c{j}" for j in refused}
    else:
        _, records = read_records(data, "f.jsonl")
        assert [rec for _, rec in records] == rows  # every other control character kept


@settings(max_examples=200, deadline=None)
@given(value=HOSTILE.filter(lambda v: not any("\ud800" <= ch <= "\udfff" for ch in v)))
def test_csv_cells_obey_the_same_rule(value: str) -> None:
    out = io.StringIO()
    csv.writer(out).writerows([["item_id", "category"], ["a", "ok"], ["b", value]])
    data = out.getvalue().encode()
    if "\x00" in value:
        with pytest.raises(CampaignFileError, match=r"row 2, column 'category'"):
            read_records(data, "f.csv")
    else:
        _, records = read_records(data, "f.csv")
        assert records[-1][1]["category"] == value


def test_nested_values_and_keys_are_walked() -> None:
    assert text_problem({"k": ["ok", {"deep": "a\x00"}]}) is not None
    assert text_problem({"ke\ud800y": 1}) is not None
    assert text_problem(["tab\tline\nesc\x1b\u202e"]) is None
    data = b'{"item_id": "1", "meta": {"note": "x\\u0000y"}}\n'
    with pytest.raises(CampaignFileError, match="row 1, column 'meta': meta contains a NUL"):
        read_records(data, "f.jsonl")
