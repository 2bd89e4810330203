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


def test_import_mode_preference_and_the_preference_export(
    sqlite_engine, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """`cli.py import --mode preference` stores an unpaired preference campaign (one pair
    per slot); a source with one output is refused by name; export-preferences writes the
    Arena columns (header only before any judgment)."""
    import cli

    two = tmp_path / "two.csv"
    two.write_text("item_id,source,reference,system,output\n1,a,b,S,x y\n1,a,b,T,x z\n")
    one = tmp_path / "one.csv"
    one.write_text(CSV)
    out = tmp_path / "prefs.csv"
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()
    try:
        ok = runner.invoke(cli.app, ["import", str(two), "--campaign", "p", "--mode", "preference"])
        refused = runner.invoke(
            cli.app, ["import", str(one), "--campaign", "q", "--mode", "preference"]
        )
        export = runner.invoke(
            cli.app, ["export-preferences", "--campaign", "p", "--out", str(out)]
        )
    finally:
        get_engine.cache_clear()
    assert ok.exit_code == 0, ok.output
    assert refused.exit_code != 0 and "have only one output ('1', '2')" in refused.output
    assert export.exit_code == 0, export.output
    assert out.read_text().splitlines()[0].startswith("question_id,model_a,model_b,winner,")
    with session_scope(sqlite_engine) as s:
        got = {c.name: (c.mode, c.paired) for c in s.scalars(select(Campaign))}
    assert got == {"p": ("preference", False)}


def test_import_pair_policy_is_recorded_and_refused_off_preference(
    sqlite_engine, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """`--pair-policy adaptive` records the policy in the campaign's meta; an unknown
    policy, or one for a campaign that is not a preference campaign, is refused with
    nothing written."""
    import cli

    two = tmp_path / "two.csv"
    two.write_text("item_id,source,reference,system,output\n1,a,b,S,x\n1,a,b,T,y\n")
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()
    base = ["import", str(two), "--campaign"]
    try:
        ok = runner.invoke(cli.app, [*base, "a", "--mode", "preference", "--pair-policy",
                                     "adaptive"])  # fmt: skip
        odd = runner.invoke(cli.app, [*base, "b", "--mode", "preference", "--pair-policy",
                                      "greedy"])  # fmt: skip
        off = runner.invoke(cli.app, [*base, "c", "--pair-policy", "adaptive"])
    finally:
        get_engine.cache_clear()
    assert ok.exit_code == 0, ok.output
    assert odd.exit_code != 0 and "use uniform or adaptive" in odd.output
    assert off.exit_code != 0 and "for preference campaigns (--mode preference)" in off.output
    with session_scope(sqlite_engine) as s:
        got = {c.name: c.meta.get("preference") for c in s.scalars(select(Campaign))}
    assert got == {"a": {"policy": "adaptive", "gamma": 0.3}}
