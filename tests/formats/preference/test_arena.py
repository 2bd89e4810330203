"""Preference judgments files: Chatbot Arena's columns in, the same judgments back out, and
every bad cell refused naming its row and column."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.preference.arena import (
    COLUMNS,
    PreferenceJudgment,
    parse,
    to_csv_bytes,
    to_jsonl_bytes,
)
from formats.problems import CampaignFileError

# Any storable text: every code point but NUL and the surrogates, with the characters that
# break naive CSV, JSONL and spreadsheets over-represented.
TRICKY = ["\n", "\r", '"', ",", "\t", "=", "+", "-", "@", "'", "\u2028", "\x85", "\ufeff",
          "\u202e", " "]  # fmt: skip
STORABLE = st.one_of(
    st.text(
        alphabet=st.one_of(
            st.sampled_from(TRICKY),
            st.characters(codec="utf-8", exclude_characters="\x00"),
        ),
        max_size=20,
    ),
    st.sampled_from(["\r\n", "=1+1", "'=x", "-0.5", "1e5", "tie", "model_a", "null", "NaN"]),
)
NAME = STORABLE.filter(lambda s: s.strip() != "")
JUDGMENT = st.builds(
    PreferenceJudgment,
    model_a=NAME,
    model_b=NAME,
    winner=st.sampled_from(["model_a", "model_b", "tie", "tie (bothbad)"]),
    question_id=STORABLE,
    judge=STORABLE,
    probability=st.one_of(st.none(), st.floats(0.0, 1.0)),
    shown_left=st.sampled_from(["model_a", "model_b"]),
    source=STORABLE,
    output_a=STORABLE,
    output_b=STORABLE,
    output_a_id=STORABLE,
    output_b_id=STORABLE,
).filter(lambda j: j.model_a != j.model_b)


@settings(max_examples=100, deadline=None)
@given(judgments=st.lists(JUDGMENT, min_size=1, max_size=5))
def test_csv_and_jsonl_round_trip_hostile_text_exactly(judgments) -> None:  # type: ignore[no-untyped-def]
    assert parse(to_csv_bytes(judgments), "back.csv") == judgments
    assert parse(to_jsonl_bytes(judgments), "back.jsonl") == judgments


@settings(max_examples=60, deadline=None)
@given(
    judgments=st.lists(JUDGMENT, min_size=2, max_size=4),
    bad=st.sampled_from(["\x00", "\ud800"]),
    column=st.sampled_from(["model_a", "source", "output_b", "judge"]),
    data=st.data(),
)
def test_unstorable_text_is_refused_naming_row_and_column(judgments, bad, column, data) -> None:  # type: ignore[no-untyped-def]
    row = data.draw(st.integers(1, len(judgments)))
    records = [json.loads(line) for line in to_jsonl_bytes(judgments).decode().splitlines()]
    records[row - 1][column] = "x" + bad
    raw = "\n".join(json.dumps(r) for r in records).encode()  # ascii escapes keep the half
    with pytest.raises(CampaignFileError) as err:
        parse(raw, "bad.jsonl")
    (problem,) = err.value.problems
    assert (problem.row, problem.column) == (row, column)


@settings(max_examples=200, deadline=None)
@given(blob=st.binary(max_size=200))
def test_any_bytes_give_judgments_or_a_clear_refusal(blob: bytes) -> None:
    for name in ("fuzz.csv", "fuzz.jsonl"):
        data = b"model_a,model_b,winner\n" + blob if name.endswith(".csv") else blob
        try:
            parse(data, name)
        except CampaignFileError as exc:
            assert str(exc).startswith(name)


def test_arena_rows_are_read_with_their_conversations_and_ties() -> None:
    conversation = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hallo"}]
    rows = [
        {"question_id": 17, "model_a": "gpt-4", "model_b": "vicuna-13b", "winner": "tie (bothbad)",
         "judge": "arena_user_1", "conversation_a": conversation, "conversation_b": [],
         "turn": 1, "anony": True},
        {"question_id": "q2", "model_a": "vicuna-13b", "model_b": "gpt-4", "winner": "model_b"},
    ]  # fmt: skip
    data = "\n".join(json.dumps(r) for r in rows).encode()
    first, second = parse(data, "arena.jsonl")
    assert first.question_id == "17" and first.is_tie and first.outcome == 0.5
    assert first.winner == "tie (bothbad)"
    assert json.loads(first.output_a) == conversation
    assert second.outcome == 0.0 and second.shown_left == "model_a"
    again = parse(to_csv_bytes([first, second]), "again.csv")
    assert again == [first, second]


def test_every_problem_is_listed_with_row_and_column() -> None:
    data = (
        b"model_a,model_b,winner,probability,shown_left\n"
        b"A,B,model_a,0.3,\n"
        b"A,A,tie,,\n"
        b",B,left,1.5,right\n"
    )
    with pytest.raises(CampaignFileError) as err:
        parse(data, "judged.csv")
    found = [(p.row, p.column) for p in err.value.problems]
    assert found == [(2, "model_b"), (3, "model_a"), (3, "winner"), (3, "shown_left"),
                     (3, "probability")]  # fmt: skip
    text = str(err.value)
    assert "judged.csv, row 3, column 'winner': is 'left'. Use model_a, model_b, tie" in text
    assert "a number from 0 to 1" in text


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"model_a,model_b\nA,B\n", "has no column 'winner'"),
        (b"model_a,model_b,winner\n", "no judgment"),
        (b"", "is empty"),
    ],
)
def test_file_level_problems_say_what_to_do(data: bytes, words: str) -> None:
    with pytest.raises(CampaignFileError, match=words):
        parse(data, "f.csv")


def test_the_winner_is_read_case_blind_and_written_in_its_canonical_form() -> None:
    (j,) = parse(b"model_a,model_b,winner\nA,B, Model_B \n", "f.csv")
    assert j.winner == "model_b"
    assert to_csv_bytes([j]).decode().splitlines()[0].split(",")[: len(COLUMNS)] == list(COLUMNS)
