"""`cli.py campaign rename | archive | restore | delete | list | log` on SQLite and
PostgreSQL: each change lands (or, refused, changes nothing) with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from db.campaign.campaigns import list_campaigns
from db.engine import get_engine
from tests.life_data import owned_rows, populate, remaining


@pytest.fixture
def run(engine: Engine, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    import cli

    monkeypatch.setenv("DATABASE_URL", engine.url.render_as_string(hide_password=False))
    get_engine.cache_clear()
    runner = CliRunner()
    yield lambda *args: runner.invoke(cli.app, list(args))
    get_engine.cache_clear()


def _names(engine: Engine, archived: bool | None = False) -> set[str]:
    return {c.name for c in list_campaigns(engine, archived=archived)}


def test_cli_archive_restore_rename(engine: Engine, run) -> None:  # type: ignore[no-untyped-def]
    populate(engine, "c")
    populate(engine, "d")
    out = run("campaign", "archive", "c")
    assert out.exit_code == 0 and "Archived 'c'" in out.output, out.output
    assert _names(engine) == {"d"} and _names(engine, True) == {"c"}
    assert "c:" not in run("campaigns").output
    assert run("campaign", "list", "--archived").output.startswith("c: 16 outputs")
    refused = run("score", "--campaign", "c", "--metrics", "bleu")
    assert refused.exit_code == 1 and "archived" in refused.output
    assert "Traceback" not in refused.output
    again = run("campaign", "archive", "c")
    assert again.exit_code == 1 and "archived already" in again.output
    assert run("campaign", "restore", "c").exit_code == 0 and _names(engine) == {"c", "d"}

    taken = run("campaign", "rename", "c", "d")
    assert taken.exit_code == 1 and "A campaign named 'd' already exists" in taken.output
    long = run("campaign", "rename", "c", "x" * 250)
    assert long.exit_code == 1 and "250 characters; the limit is 200" in long.output
    missing = run("campaign", "rename", "zzz", "y")
    assert missing.exit_code == 1 and "no campaign named 'zzz'" in missing.output
    ok = run("campaign", "rename", "c", "c2")
    assert ok.exit_code == 0 and "Renamed 'c' to 'c2'." in ok.output
    assert _names(engine) == {"c2", "d"}
    log = run("campaign", "log").output.splitlines()
    assert [line.split(" ", 2)[2] for line in log] == [
        "archive 'c' via cli", "restore 'c' via cli", "rename 'c2' (was 'c') via cli"
    ]  # fmt: skip


def test_cli_delete_needs_confirm_exports_first_leaves_no_row(
    engine: Engine, run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    cid = populate(engine, "c")
    did = populate(engine, "d")
    owned, other = owned_rows(engine, cid), owned_rows(engine, did)
    kept = tmp_path / "k"
    wrong = run("campaign", "delete", "c", "--confirm", "d", "--export-dir", str(kept))
    assert wrong.exit_code == 1 and "type its name exactly" in wrong.output
    assert not kept.exists() and owned_rows(engine, cid) == owned
    assert run("campaign", "delete", "c").exit_code == 2  # --confirm is required

    out = run("campaign", "delete", "c", "--confirm", "c", "--export-dir", str(kept))
    assert out.exit_code == 0, out.output
    assert sorted(p.name for p in kept.iterdir()) == [
        "c-annotations.csv", "c-results.csv", "c.csv"
    ]  # fmt: skip
    assert "16 outputs" in out.output and "1 campaigns" in out.output
    assert sum(remaining(engine, owned).values()) == 0
    assert _names(engine, None) == {"d"} and owned_rows(engine, did) == other
    assert "delete 'c'" in run("campaign", "log", "c").output
    # the kept campaign file imports again as a new campaign
    back = run("import", str(kept / "c.csv"), "--campaign", "c-again")
    assert back.exit_code == 0, back.output


def test_cli_writers_refuse_an_archived_campaign_in_words(
    engine: Engine, run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from tests.life_data import campaign_csv

    populate(engine, "c")
    assert run("campaign", "archive", "c").exit_code == 0
    more = tmp_path / "more.csv"
    more.write_bytes(campaign_csv("more", 2))
    scores = tmp_path / "s.csv"
    scores.write_text("item_id,system,metric,score\n0,A,comet,0.5\n")
    cal = tmp_path / "cal.json"
    cal.write_text("{}")
    for args in (
        ["import", str(more), "--campaign", "c", "--append"],
        ["import-scores", str(scores), "--campaign", "c"],
        ["score", "--campaign", "c", "--metrics", "chrf"],
        ["sampling", "--campaign", "c", "--active"],
        ["plan", "--campaign", "c", "--labels", "50"],
        ["span-settings", "--campaign", "c", "--esa"],
        ["import-calibration", str(cal), "--campaign", "c"],
    ):
        out = run(*args)
        assert out.exit_code == 1 and "is archived" in out.output, (args, out.output)
        assert out.exception is None or isinstance(out.exception, SystemExit), args


def test_cli_import_refuses_control_characters_in_the_name_as_rename_does(
    engine: Engine, run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    csv = tmp_path / "c.csv"
    csv.write_text("item_id,source,reference,system,output\n1,a,b,A,c\n")
    out = run("import", str(csv), "--campaign", "two\nlines")
    assert out.exit_code != 0 and "control character" in out.output, out.output
    assert "Traceback" not in out.output
    assert _names(engine) == set()  # nothing imported
    populate(engine, "c")
    renamed = run("campaign", "rename", "c", "two\nlines")
    assert renamed.exit_code == 1 and "control character" in renamed.output
