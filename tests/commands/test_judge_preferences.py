"""`cli.py import-judge-preferences` and `cli.py verdict` with a judge as the control, on a
real SQLite preference campaign judged through the annotator's own path."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import cli
from db.engine import get_engine
from db.reads.campaign import campaign_id
from db.reads.preferences import read_preferences
from db.scores.judge_preferences import JudgeRow, read_judge_preferences, store_judge_preferences
from tests.commands.test_verdict_preference import _judged

N_ITEMS = 100


def _judge_file(tmp_path, bad: bool = False):  # type: ignore[no-untyped-def]
    """The judge's preferences for every item and pair: A beats B and C but for a tie on
    every fifth item (a constant judge could not be a control); B vs C by parity (the
    humans alternate too); given as model_a / model_b in either order."""
    lines = ["question_id,model_a,model_b,winner,judge"]
    for j in range(N_ITEMS):
        lines.append(f"i{j},A,B,{'tie' if j % 5 == 0 else 'model_a'},gpt-x")
        lines.append(f"i{j},C,A,model_b,gpt-x")
        lines.append(f"i{j},B,C,{'model_a' if j % 2 else 'model_b'},gpt-x")
    if bad:
        lines.append("i999,A,B,tie,gpt-x")
    path = tmp_path / ("bad.csv" if bad else "judge.csv")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def campaign(sqlite_engine, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    _judged(sqlite_engine, "split", 0.05, "alternate")
    yield sqlite_engine
    get_engine.cache_clear()


def test_stored_preferences_read_back_canonically_and_bad_rows_change_nothing(sqlite_engine):  # type: ignore[no-untyped-def]
    from annotation.imports.importer import import_campaign
    from tests.commands.test_verdict_preference import _campaign_file

    report = import_campaign(sqlite_engine, _campaign_file(3), "tiny", filename="tiny.csv",
                             settings={"mode": "preference"})  # fmt: skip
    cid = report.campaign_id
    rows = [JudgeRow("i0", "B", "A", 0.8), JudgeRow("i1", "A", "C", 0.5)]
    assert store_judge_preferences(sqlite_engine, cid, "gpt-x", rows) == 2
    name, judged = read_judge_preferences(sqlite_engine, cid, ("A", "B", "C"))
    assert name == "gpt-x"
    (i0, i1) = sorted({key[0] for key in judged})
    assert judged == {(i0, 0, 1): pytest.approx(0.2), (i1, 0, 2): 0.5}
    for bad, words in (
        (JudgeRow("i9", "A", "B", 1.0), "no item 'i9'"),
        (JudgeRow("i0", "A", "Z", 1.0), "no system 'Z'"),
        (JudgeRow("i0", "A", "A", 1.0), "itself"),
        (JudgeRow("i0", "A", "B", 1.5), "not in \\[0, 1\\]"),
        (JudgeRow("i0", "A", "B", 0.1), "twice"),
    ):
        with pytest.raises(ValueError, match=words):
            store_judge_preferences(sqlite_engine, cid, "other", [JudgeRow("i0", "A", "B", 1.0),
                                                                  bad])  # fmt: skip
        assert read_judge_preferences(sqlite_engine, cid, ("A", "B", "C")) == (name, judged)


@pytest.mark.slow  # 300 judgments through the annotator path
def test_the_verdict_uses_an_imported_judge_as_the_control(campaign, tmp_path) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    before = runner.invoke(cli.app, ["verdict", "split", "--pair", "A", "B", "--json"])
    plain = json.loads(before.output)["pairs"][0]
    assert plain["control"] is None
    bad = runner.invoke(cli.app, ["import-judge-preferences", str(_judge_file(tmp_path, True)),
                                  "split"])  # fmt: skip
    assert bad.exit_code == 4 and "no item 'i999'" in bad.output and "Nothing" in bad.output
    cid = campaign_id(campaign, "split")
    rows = read_preferences(campaign, cid)
    assert read_judge_preferences(campaign, cid, rows.systems) == ("", {})
    ok = runner.invoke(cli.app, ["import-judge-preferences", str(_judge_file(tmp_path)), "split"])
    assert ok.exit_code == 0 and "Imported 300 preferences of 'gpt-x'" in ok.output, ok.output
    after = runner.invoke(cli.app, ["verdict", "split", "--pair", "A", "B", "--json"])
    assert after.exit_code == 0, after.output
    row = json.loads(after.output)["pairs"][0]
    assert row["control"] == "gpt-x" and row["verdict"] == "A better"
    assert row["p_value"] != plain["p_value"]  # the controlled capital
    text = runner.invoke(cli.app, ["verdict", "split", "--pair", "B", "C"])
    assert "gpt-x's preferences as a control" in text.output
    bc = json.loads(runner.invoke(cli.app, ["verdict", "split", "--pair", "B", "C",
                                            "--json"]).output)["pairs"][0]  # fmt: skip
    assert bc["control"] == "gpt-x" and bc["verdict"] == "not yet"
