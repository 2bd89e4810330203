"""`cli.py import-pearmut` and `cli.py export-pearmut`: a Pearmut campaign and its log in,
the two files out in Pearmut's layouts, a refused file said why with nothing imported."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import Engine
from typer.testing import CliRunner

import cli
from db.engine import get_engine
from tests.support import pearmut_shapes as P


def _run(engine: Engine, monkeypatch, *args: str):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(engine.url))
    get_engine.cache_clear()
    try:
        return CliRunner().invoke(cli.app, list(args))
    finally:
        get_engine.cache_clear()


def test_import_then_export(sqlite_engine: Engine, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "esaai.json"
    src.write_bytes(P.as_bytes(P.esaai()))
    item = P.esaai()["data"][0][0][0]
    log = tmp_path / "esaai.jsonl"
    log.write_text(
        json.dumps(
            {
                "user_id": "r1",
                "item_i": 0,
                "item": [item],
                "annotation": [
                    {
                        "sysA": {
                            "score": 64,
                            "error_spans": [{"start_i": 4, "end_i": 7, "severity": "major"}],
                        }
                    }
                ],
            }
        )
        + "\n"
    )
    out = _run(sqlite_engine, monkeypatch, "import-pearmut", str(src), "--log", str(log))
    assert out.exit_code == 0, out.output
    assert "2 AI span(s)" in out.output and "1 judgment(s)" in out.output
    done = _run(
        sqlite_engine,
        monkeypatch,
        "export-pearmut",
        "--campaign",
        "example_esa",
        "--out",
        str(tmp_path / "out"),
    )
    assert done.exit_code == 0, done.output
    assert json.loads((tmp_path / "out" / "example_esa.json").read_text()) == P.esaai()
    (line,) = (tmp_path / "out" / "example_esa.jsonl").read_text().splitlines()
    assert json.loads(line)["annotation"] == [
        {
            "sysA": {
                "score": 64.0,
                "error_spans": [{"start_i": 4, "end_i": 7, "severity": "major", "category": None}],
            }
        }
    ]


def test_a_refused_file_says_why(sqlite_engine: Engine, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "likert.json"
    src.write_bytes(P.as_bytes(P.likert_custom_scales()))
    out = _run(sqlite_engine, monkeypatch, "import-pearmut", str(src), "--slider", "Clarity")
    assert out.exit_code == 1 and "Nothing was imported" in out.output and "Clarity" in out.output
    ok = _run(sqlite_engine, monkeypatch, "import-pearmut", str(src), "--slider", "Fluency")
    assert ok.exit_code == 0 and "6-point Likert" in ok.output, ok.output
    missing = _run(
        sqlite_engine, monkeypatch, "export-pearmut", "--campaign", "nope", "--out", str(tmp_path)
    )
    assert missing.exit_code == 1 and "no campaign named 'nope'" in missing.output
