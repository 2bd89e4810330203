"""`cli.py tutorial` reads Pearmut's JSON (and CSV, JSONL) and refuses a bad file naming the
row and column, nothing set; `cli.py export-annotations --tutorial` writes every answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import cli
from accounts.invites import create_annotator
from annotation.judging import tutorial
from db.engine import get_engine
from tests.annotation.queue.test_queue import make_campaign

WALKED = {"start_i": 8, "end_i": 13, "severity": "minor"}
RULE = {"warning": "Mark walked.", "score": [75, 85], "error_spans": [WALKED]}
ITEMS = [{"src": "Der Hund lief.", "tgt": "The dog walked.", "validation": RULE}]


def _run(engine, monkeypatch, *args: str):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(engine.url))
    get_engine.cache_clear()
    try:
        return CliRunner().invoke(cli.app, list(args))
    finally:
        get_engine.cache_clear()


@pytest.mark.slow
def test_tutorial_from_pearmut_json_and_its_answers(  # type: ignore[no-untyped-def]
    sqlite_engine, monkeypatch, tmp_path: Path
) -> None:
    cid = make_campaign(sqlite_engine, 2, 1, name="esa", mode="spans")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{**ITEMS[0], "validation": {"score": [90, 10]}}]), "utf-8")
    out = _run(sqlite_engine, monkeypatch, "tutorial", "--campaign", "esa", "--file", str(bad))
    assert out.exit_code != 0 and "row 1, column 'expected_score'" in out.output, out.output
    assert tutorial.tutorial(sqlite_engine, cid) is None
    good = tmp_path / "esa_deen.json"
    good.write_text(json.dumps(ITEMS), "utf-8")
    out = _run(sqlite_engine, monkeypatch, "tutorial", "--campaign", "esa", "--file", str(good))
    assert out.exit_code == 0, out.output
    assert "esa: 1 tutorial item(s); 1 of 1 right to pass; 2 attempts" in out.output
    who = create_annotator(sqlite_engine, cid, "ana").annotator_id
    tutorial.answer(sqlite_engine, cid, who, 0, score=50, spans=[])
    dest = tmp_path / "answers.csv"
    out = _run(sqlite_engine, monkeypatch, "export-annotations", "--campaign", "esa",
               "--out", str(dest), "--tutorial")  # fmt: skip
    assert out.exit_code == 0, out.output
    lines = dest.read_text("utf-8").splitlines()
    assert len(lines) == 2 and lines[1].startswith("ana,1,1,tutorial,")
    assert "not 50" in lines[1] and "was not marked" in lines[1]
