"""Imported judgments of a DA or SQM campaign: the human_score column is the slider score,
held to the slider's range (DA 0–100, SQM a whole point 0–6) and stored where the DA
estimators read it; a score out of range refuses the file and changes nothing. SQLite and
PostgreSQL, through ``cli.py import`` and ``cli.py evaluate``."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select
from typer.testing import CliRunner

from db.campaign.campaigns import list_campaigns
from db.engine import get_engine, session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Annotation


@pytest.fixture
def run(engine: Engine, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    import cli

    monkeypatch.setenv("DATABASE_URL", engine.url.render_as_string(hide_password=False))
    get_engine.cache_clear()
    runner = CliRunner()
    yield lambda *args: runner.invoke(cli.app, list(args))
    get_engine.cache_clear()


def _file(tmp_path: Path, scores: list[float | str]) -> Path:
    lines = ["item_id,source,reference,system,output,human_score,annotator"]
    for k, score in enumerate(scores):
        item, system = divmod(k, 2)
        lines.append(f"i{item},src {item},ref {item},{'AB'[system]},out {k},{score},r1")
    path = tmp_path / "judged.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("mode", "bad", "allowed"),
    [("da", "150", "0–100"), ("da", "-5", "0–100"), ("sqm", "7", "0–6"), ("sqm", "2.5", "0–6")],
)
def test_out_of_range_scores_are_refused_with_file_row_column_and_range(
    engine: Engine,
    run,
    tmp_path: Path,
    mode: str,
    bad: str,
    allowed: str,  # type: ignore[no-untyped-def]
) -> None:
    path = _file(tmp_path, [50 if mode == "da" else 3, bad, 20 if mode == "da" else 1, 4])
    out = run("import", str(path), "--campaign", "c", "--mode", mode)
    assert out.exit_code != 0, out.output
    assert "judged.csv, row 2, column 'human_score'" in out.output, out.output
    assert allowed in out.output and "Traceback" not in out.output
    assert list_campaigns(engine) == []  # nothing written
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(Annotation)) == 0


@pytest.mark.parametrize("mode", ["da", "sqm"])
def test_imported_slider_scores_are_what_the_estimators_read(
    engine: Engine,
    run,
    tmp_path: Path,
    mode: str,  # type: ignore[no-untyped-def]
) -> None:
    # A alternates 80 / 100 (SQM 5 / 6), B 20 / 40 (SQM 1 / 3)
    a, b = ((80, 100), (20, 40)) if mode == "da" else ((5, 6), (1, 3))
    path = _file(tmp_path, [a[0], b[0], a[1], b[1]] * 6)
    out = run("import", str(path), "--campaign", "c", "--mode", mode)
    assert out.exit_code == 0, out.output
    camp = list_campaigns(engine)[0]
    da = read_campaign(engine, camp.id).judgments.da_score
    stored = {80.0, 100.0, 20.0, 40.0} if mode == "da" else {100 * k / 6 for k in (5, 6, 1, 3)}
    assert da is not None and set(da[~_nan(da)].tolist()) == stored
    shown = run("evaluate", "--campaign", "c", "--label-kind", "da")
    assert shown.exit_code == 0, shown.output
    means = ("90.0000", "30.0000") if mode == "da" else ("91.6667", "33.3333")
    assert all(m in shown.output for m in means), shown.output


def _nan(values):  # type: ignore[no-untyped-def]
    import numpy as np

    return np.isnan(values)
