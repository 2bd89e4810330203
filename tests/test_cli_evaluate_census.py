"""`cli.py evaluate` with its defaults on every shipped data set imported as a census.

Every output of these files carries a human label, so no metric control can be used: the
command must still exit 0, print the human-only result of every system, say why the
learned control and PPI++ cannot run, and never conclude "No control helps" when no data
efficiency was measured. MLQE-PE (6,000 rows, with the NMT model's own score as a metric,
the case reported) is imported whole; the two larger files are cut to their first items to
keep the test fast.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import cli
from annotation.imports.importer import import_campaign
from db.engine import get_engine
from formats.scores_file import MetricSpec
from tests.conftest import shared_file

CASES = {
    # file, metric column imported as scores (None: no metric), items kept (None: all)
    "mlqe": ("mlqe-pe-test20/mlqe_pe_test20.csv", "nmt_model_score", None),
    "wmt": ("wmt21-ted-mqm/wmt21_ted_ende.csv", None, 60),
    "cnndm": ("chaganty2018-cnndm-summaries/items.csv", None, 80),
}


def _subset(path: Path, items: int | None, tmp_path: Path) -> Path:
    if items is None:
        return path
    frame = pd.read_csv(path)
    keep = frame["item_id"].drop_duplicates().iloc[:items]
    out = tmp_path / path.name
    frame[frame["item_id"].isin(keep)].to_csv(out, index=False)
    return out


@pytest.fixture
def cli_engine(sqlite_engine, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    yield sqlite_engine
    get_engine.cache_clear()


def _import(engine, name: str, tmp_path: Path) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    rel, metric, items = CASES[name]
    path = _subset(shared_file(rel), items, tmp_path)
    metrics = [MetricSpec("nmt" if name == "mlqe" else metric, metric)] if metric else []
    # post-edits left out: HTER of thousands of post-edits is not what this test is about
    import_campaign(engine, path, name, metrics=metrics, ignore=["post_edit"])
    return pd.read_csv(path)


@pytest.mark.parametrize("name", list(CASES))
def test_evaluate_defaults_on_a_census(cli_engine, tmp_path, name) -> None:  # type: ignore[no-untyped-def]
    frame = _import(cli_engine, name, tmp_path)
    res = CliRunner().invoke(cli.app, ["evaluate", "--campaign", name])
    out = res.output
    assert res.exit_code == 0, out
    for system in frame["system"].unique():  # the human-only result of every system
        line = next(
            x for x in out.splitlines() if x.startswith(f"{str(system)[:24]} ") and " human " in x
        )
        n = int((frame["system"] == system).sum())
        assert f" {n} " in line and "[" in line, line
    if CASES[name][1] is not None:
        assert "The learned control cannot run: every output is labelled (a census)" in out
        assert "No data efficiency was measured: every output is labelled" in out
    else:
        assert "learned control cannot run: it needs stored metric scores" in out
        assert "No control efficiency: the campaign has no metric scores" in out
    assert "No control helps" not in out
    assert "[  0.0000,   0.0000]" not in out  # no zero-width interval


def test_evaluate_with_a_metric_control_on_a_census_says_why(cli_engine, tmp_path) -> None:  # type: ignore[no-untyped-def]
    frame = _import(cli_engine, "mlqe", tmp_path)
    res = CliRunner().invoke(cli.app, ["evaluate", "--campaign", "mlqe", "--controls", "nmt"])
    out = res.output
    assert res.exit_code == 0, out
    k = frame["system"].nunique()
    ppi = [x for x in out.splitlines() if " ppi " in x]
    assert len(ppi) == k + k * (k - 1) // 2  # every system and every pair has its row
    census = "every output is labelled (a census)"
    assert sum(census in x for x in ppi) == k  # the system rows say why there is no number
    # the language pairs share no items: every pair row says why it has no interval
    pairs = [x for x in out.splitlines() if x.startswith("mlqe-") and " – " in x]
    assert len(pairs) == 2 * k * (k - 1) // 2
    assert all("no interval: too few labels" in x for x in pairs), pairs
    assert "No data efficiency was measured: every output is labelled" in out
    assert "No control helps" not in out
