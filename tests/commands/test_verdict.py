"""`cli.py verdict`: every exit code on a real SQLite campaign of binary labels (0 = the first
system better, 1 = worse, 2 = not yet, 3 = within ε, 4 = the command cannot answer)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import cli
from annotation.imports.importer import import_campaign
from db.engine import get_engine
from tests.db.reads.test_campaign import seed_csv


@pytest.fixture
def campaign(sqlite_engine, monkeypatch):  # type: ignore[no-untyped-def]
    """sys0 and sys1 alike, far above sys2: 250 of 400 items labelled (imported)."""
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    data, _ = seed_csv(n_items=400, labelled=250, overlap=0, deltas=(1.5, 1.45, -1.5))
    # the imported labels arrive in a permutation drawn from the queue seed: pinned, so the
    # close pair's verdict is the same on every run (at another order it may be "within ε")
    import_campaign(sqlite_engine, data, "gate", filename="gate.csv", settings={"queue_seed": 5})
    # the same labels with a margin ε = 0.2, set before any label existed (as a plan must be)
    import_campaign(sqlite_engine, data, "wide", filename="wide.csv",
                    settings={"queue_seed": 5, "meta": {"equivalence_margin": 0.2}})  # fmt: skip
    yield "gate"
    get_engine.cache_clear()


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli.app, ["verdict", *args])


def test_each_exit_code_of_a_pair(campaign: str) -> None:
    better = _run(campaign, "--pair", "sys0", "sys2")
    assert better.exit_code == 0, better.output
    assert "sys0 vs sys2: sys0 better" in better.output
    worse = _run(campaign, "--pair", "sys2", "sys0")
    assert worse.exit_code == 1, worse.output
    assert "sys2 vs sys0: sys0 better" in worse.output
    close = _run(campaign, "--pair", "sys0", "sys1")
    assert close.exit_code == 2, close.output
    assert "sys0 vs sys1: not yet" in close.output
    within = _run("wide", "--pair", "sys1", "sys0", "--json")
    assert within.exit_code == 3, within.output
    out = json.loads(within.output)
    assert out["exit_code"] == 3 and out["margin"] == 0.2
    (row,) = out["pairs"]
    assert (row["a"], row["b"], row["verdict"]) == ("sys1", "sys0", "within ε")
    assert -0.2 <= row["low"] <= row["estimate"] <= row["high"] <= 0.2


def test_all_pairs_and_the_commands_own_errors(campaign: str) -> None:
    every = _run(campaign, "--json")
    out = json.loads(every.output)
    assert len(out["pairs"]) == 3 and out["judgment"] == "label"
    assert every.exit_code == 2  # sys0 vs sys1 is not settled yet
    for args, words in (
        (["nowhere"], "No campaign named 'nowhere'"),
        ([campaign, "--pair", "sys0", "sysX"], "No system 'sysX'"),
        ([campaign, "--pair", "sys0", "sys0"], "one system twice"),
        ([campaign, "--label-kind", "esa"], "No 'esa' judgments"),
    ):
        res = _run(*args)
        assert res.exit_code == 4, res.output
        assert words in res.output
