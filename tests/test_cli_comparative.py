"""`cli.py comparative on|off [--outputs K]`: switches, logs, and refuses with a reason."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from annotation.judging import comparative
from db.engine import get_engine
from tests.annotation.test_queue import make_campaign


@pytest.fixture
def run(sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    import cli

    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()
    yield lambda *args: runner.invoke(cli.app, list(args))
    get_engine.cache_clear()


def test_cli_comparative(sqlite_engine: Engine, run) -> None:  # type: ignore[no-untyped-def]
    cid = make_campaign(sqlite_engine, 3, 4, name="c")
    out = run("comparative", "--campaign", "c", "on", "--outputs", "3")
    assert out.exit_code == 0 and "comparative mode on, 3 outputs per screen" in out.output
    assert comparative.comparative_setting(sqlite_engine, cid) == (
        comparative.ComparativeSetting(True, 3)
    )
    assert "already on" in run("comparative", "--campaign", "c", "on", "--outputs", "3").output
    bad = run("comparative", "--campaign", "c", "on", "--outputs", "1")
    assert bad.exit_code != 0 and "outputs per screen" in bad.output
    assert run("comparative", "--campaign", "c", "maybe").exit_code != 0
    out = run("comparative", "--campaign", "c", "off")
    assert out.exit_code == 0 and "comparative mode off" in out.output
    assert comparative.comparative_setting(sqlite_engine, cid).on is False
