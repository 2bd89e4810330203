"""The tutorial answers' export: one row an answer, every cell through the formula guard and
back exactly (CSV) or as given (JSONL), over hostile annotator names and output words
(Hypothesis, on SQLite)."""

from __future__ import annotations

import csv
import io
import itertools
import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from accounts.invites import create_annotator
from annotation.judging import tutorial
from annotation.results.exports import export_tutorial_answers
from formats.spreadsheet import TRIGGERS, neutralise, restore
from tests.annotation.queue.test_queue import make_campaign

HOSTILE = ["=1+1", "+33", "-rm", "@SUM(A1)", "'=x", 'say "hi", ok', "שלום\u200f", "a\u2028b"]
word = (
    st.one_of(
        st.sampled_from(HOSTILE),
        st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=8),
    )
    .map(str.strip)
    .filter(bool)
)
_names = itertools.count()


@pytest.mark.slow
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=word, wrong=word)
def test_hostile_answers_export_exactly(sqlite_engine: Engine, name: str, wrong: str) -> None:
    engine = sqlite_engine
    k = next(_names)
    cid = make_campaign(engine, 1, 1, name=f"t{k}", mode="spans")
    output = f"{wrong} rest"
    expected = [{"text": wrong, "severity": "minor"}]
    items = [tutorial.written_item(source="s", output=output, explanation="e",
                                   expected_spans=expected)]  # fmt: skip
    tutorial.set_tutorial(engine, cid, items)
    try:
        who = create_annotator(engine, cid, name).annotator_id
    except ValueError:
        assume(False)  # a name the accounts refuse (tested there)
    tutorial.answer(engine, cid, who, 0, spans=[])  # wrong: the error not marked
    text = export_tutorial_answers(engine, f"t{k}", "csv").decode("utf-8")
    header, row = list(csv.reader(io.StringIO(text, newline="")))
    for cell in row:  # a formula-like cell is quoted (a number is no formula)
        assert not cell.startswith(TRIGGERS) or cell == neutralise(cell), cell
    got = dict(zip(header, (restore(c) for c in row), strict=True))
    assert row[0] == neutralise(name)
    assert got["annotator"] == name and got["right"] == "0"
    assert got["problems"] == f"an error on “{wrong}” (minor) was not marked"
    (line,) = export_tutorial_answers(engine, f"t{k}", "jsonl").decode("utf-8").splitlines()
    assert json.loads(line)["annotator"] == name
