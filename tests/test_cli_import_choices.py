"""`cli.py import` states and records whether annotators see metric scores (hidden unless
--show-metrics: issue 17.3) and the quality-control defaults (issue 17.9)."""

from __future__ import annotations

from sqlalchemy import select
from typer.testing import CliRunner

from annotation.campaign.visibility import TRADE_OFF
from db.engine import get_engine, session_scope
from db.schema.models import Campaign

CSV = "item_id,source,reference,system,output\n1,a,b,S,b\n2,c,d,S,d\n"


def test_import_records_the_visibility_choice_and_qc(sqlite_engine, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import cli

    path = tmp_path / "c.csv"
    path.write_text(CSV)
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()
    try:
        blind = runner.invoke(cli.app, ["import", str(path), "--campaign", "blind"])
        shown = runner.invoke(
            cli.app,
            ["import", str(path), "--campaign", "shown", "--show-metrics", "--overlap", "0.2",
             "--attention-rate", "0"],
        )  # fmt: skip
    finally:
        get_engine.cache_clear()
    assert blind.exit_code == 0 and shown.exit_code == 0, (blind.output, shown.output)
    assert "Annotators do not see metric scores (--show-metrics to show them)." in blind.output
    assert TRADE_OFF in blind.output and "10% overlap, 5% attention checks" in blind.output
    assert "Annotators see metric scores." in shown.output
    with session_scope(sqlite_engine) as s:
        got = {
            c.name: (c.show_metrics, c.overlap, c.attention_rate)
            for c in s.scalars(select(Campaign))
        }
    assert got == {"blind": (False, 0.10, 0.05), "shown": (True, 0.2, 0.0)}
