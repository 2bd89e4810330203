"""The preference export on SQLite and PostgreSQL: one row per current judgment with
model_a / model_b the systems shown left / right and winner model_a / model_b / tie, as the
annotator chose on the screen; undone judgments and attention checks left out; hostile
texts come back through CSV and JSONL unchanged (Hypothesis)."""

from __future__ import annotations

import csv
import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from annotation.judging import preference as pref
from annotation.judging import session, undo
from annotation.results.preference_export import PREFERENCE_COLUMNS, export_preferences
from formats.preference import parse
from formats.spreadsheet import restore
from tests.annotation.judging.test_preference import setup


def judge_all(engine: Engine, ann: int, choices: list[str]) -> list[pref.PairScreen]:
    shown = []
    for choice in choices:
        screen = pref.pair_screen(ann, session.next_view(engine, ann))
        pref.submit_preference(engine, ann, screen.assignment_id, screen.claim_version, choice,
                               strength="slightly", reason="the =1+1 one")  # fmt: skip
        shown.append(screen)
    return shown


def test_export_has_arena_columns_as_shown(engine: Engine) -> None:
    _, ann = setup(engine, n_items=5)
    shown = judge_all(engine, ann, ["left", "right", "tie", "left"])
    undo.undo(engine, ann)  # the fourth is taken back
    rows = list(csv.DictReader(io.StringIO(export_preferences(engine, "prefs", "csv").decode())))
    assert list(rows[0])[: len(PREFERENCE_COLUMNS)] == PREFERENCE_COLUMNS and len(rows) == 3
    for row, screen, winner in zip(rows, shown, ["model_a", "model_b", "tie"], strict=False):
        assert row["winner"] == winner
        assert (restore(row["output_a"]), restore(row["output_b"])) == (screen.left, screen.right)
        assert row["model_a"] in row["output_a"] and row["model_b"] in row["output_b"]
        assert row["model_a"] != row["model_b"] and row["judge"] == "ann"
        assert row["strength"] == ("" if winner == "tie" else "slightly")
        assert restore(row["reason"]) == "the =1+1 one"
    # the file format's reader takes the export back as the judgments given
    read = parse(export_preferences(engine, "prefs", "csv"), "prefs.csv")
    assert [(j.model_a, j.model_b, j.winner, j.shown_left, j.judge) for j in read] == [
        (r["model_a"], r["model_b"], r["winner"], "model_a", "ann") for r in rows
    ]
    assert [(j.output_a, j.output_b) for j in read] == [(s.left, s.right) for s in shown[:3]]
    jsonl = [json.loads(x) for x in export_preferences(engine, "prefs", "jsonl").splitlines()]
    assert [r["winner"] for r in jsonl] == ["model_a", "model_b", "tie"]
    assert jsonl[0]["inclusion_prob"] == 1 / 3


HOSTILE = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\x00\r"),
    min_size=1, max_size=40,
).filter(lambda t: t.strip() and "\n" not in t)  # fmt: skip


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(reason=HOSTILE)
def test_hostile_reasons_round_trip(sqlite_engine: Engine, reason: str) -> None:
    from db.engine import session_scope
    from db.schema.models import Campaign

    with session_scope(sqlite_engine) as s:
        for c in s.query(Campaign).all():
            s.delete(c)
    _, ann = setup(sqlite_engine, n_items=2)
    screen = pref.pair_screen(ann, session.next_view(sqlite_engine, ann))
    pref.submit_preference(sqlite_engine, ann, screen.assignment_id, screen.claim_version,
                           "left", reason=reason)  # fmt: skip
    stored = " ".join(reason.split())
    (row,) = csv.DictReader(io.StringIO(export_preferences(sqlite_engine, "prefs", "csv").decode()))
    assert restore(row["reason"]) == stored
    (line,) = export_preferences(sqlite_engine, "prefs", "jsonl").splitlines()
    assert json.loads(line)["reason"] == stored
