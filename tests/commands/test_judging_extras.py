"""`cli.py import --likert`, `comment-box`, `likert-scale`, `pretask-form` and
`export-annotators`: each sets what the pages set, and a bad value changes nothing."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from sqlalchemy import Engine
from typer.testing import CliRunner

import cli
from accounts.invites import create_annotator
from annotation.campaign import pretask
from annotation.campaign.guidelines import comment_box
from annotation.campaign.likert_scale import likert_scale
from db.engine import get_engine
from db.reads.campaign import campaign_id

CSV = (
    "item_id,source,reference,system,output,human_score\n1,Hi,Hallo,A,Hallo,3\n2,Bye,Ciao,A,Ciao,\n"
)


def _run(engine: Engine, monkeypatch, *args: str):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(engine.url))
    get_engine.cache_clear()
    try:
        return CliRunner().invoke(cli.app, list(args))
    finally:
        get_engine.cache_clear()


def test_the_commands(sqlite_engine: Engine, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "c.csv"
    src.write_text(CSV, encoding="utf-8")
    run = lambda *a: _run(sqlite_engine, monkeypatch, *a)  # noqa: E731
    bad = run("import", str(src), "--campaign", "c", "--likert", "12")
    assert bad.exit_code == 1 and "2–11" in bad.output
    wrong_mode = run("import", str(src), "--campaign", "c", "--likert", "3", "--mode", "sqm")
    assert wrong_mode.exit_code == 1 and campaign_id(sqlite_engine, "c") is None
    ok = run(
        "import", str(src), "--campaign", "c", "--likert", "3:no,maybe,yes", "--likert-keys", "jkl"
    )
    assert ok.exit_code == 0, ok.output
    cid = campaign_id(sqlite_engine, "c")
    assert likert_scale(sqlite_engine, cid) == {
        "labels": ["no", "maybe", "yes"],
        "keys": ["j", "k", "l"],
    }
    refused = run("likert-scale", "--campaign", "c", "5")  # a judgment exists (human_score 3)
    assert refused.exit_code == 1 and "judgments" in refused.output
    shown = run("likert-scale", "--campaign", "c")
    assert "3:no,maybe,yes" in shown.output and "j k l" in shown.output

    assert "comment box: on" in run("comment-box", "--campaign", "c", "--on").output
    assert comment_box(sqlite_engine, cid)
    assert "comment box: off" in run("comment-box", "--campaign", "c", "--off").output

    form = tmp_path / "form.json"
    form.write_text(json.dumps([{"name": "lang", "label": "Language", "type": "text"}]))
    assert run("pretask-form", "--campaign", "c", str(form)).exit_code == 0
    a = create_annotator(sqlite_engine, cid, "ann").annotator_id
    pretask.save_answers(sqlite_engine, a, {"lang": "cs"})
    broken = tmp_path / "broken.json"
    broken.write_text('[{"name": "Lang", "type": "text"}]')
    out = run("pretask-form", "--campaign", "c", str(broken))
    assert out.exit_code == 1 and "nothing was changed" in out.output
    assert pretask.form(sqlite_engine, cid)["fields"][0]["name"] == "lang"
    dest = tmp_path / "annotators.csv"
    assert run("export-annotators", "--campaign", "c", "--out", str(dest)).exit_code == 0
    rows = list(csv.DictReader(io.StringIO(dest.read_text(encoding="utf-8"))))
    assert [(r["annotator"], r["form_lang"]) for r in rows] == [("ann", "cs")]
    assert "no pre-task form" in run("pretask-form", "--campaign", "c", "--remove").output
