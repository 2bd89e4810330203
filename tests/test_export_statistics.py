"""Every export carries the campaign's statistics settings (issue 29.4): the results
CSV and LaTeX, the pairs CSV and the ranking CSV and LaTeX, written by the CLI on SQLite and
PostgreSQL — a column (or a LaTeX comment and caption) per setting; and the annotations
export, in every row."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from sqlalchemy import Engine
from typer.testing import CliRunner

from annotation.campaign.statistics_settings import EXPORT_COLUMNS, set_statistics
from annotation.queue import build as queue_build
from tests.annotation.test_queue import make_campaign
from tests.test_live_plan import label_everything


def _rows(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def test_every_export_carries_the_settings(engine: Engine, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import cli
    import commands.base

    cid = make_campaign(engine, 40, 2, name="exp", paired=True)
    queue_build.build_queue(engine, cid, seed=2)
    stats = set_statistics(engine, cid, alpha=0.01, equivalence_margin=0.02, racing_on=True,
                           measurable_difference=0.3, power=0.9)  # fmt: skip
    label_everything(engine, cid, 2 * 30)
    monkeypatch.setattr(commands.base, "open_engine", lambda: engine)
    run = CliRunner().invoke
    f = {n: tmp_path / n for n in ("r.csv", "p.csv", "r.tex", "k.csv", "k.tex")}
    for args in (["export-results", "--out", str(f["r.csv"]), "--pairs-out", str(f["p.csv"])],
                 ["export-results", "--out", str(f["r.tex"])],
                 ["export-ranking", "--out", str(f["k.csv"])],
                 ["export-ranking", "--out", str(f["k.tex"])]):  # fmt: skip
        out = run(cli.app, [*args, "--campaign", "exp"])
        assert out.exit_code == 0, out.output
    want = {"alpha": "0.01", "error_rate": "holm", "equivalence_margin": "0.02",
            "racing": "on", "planned_labels": str(stats.planned_labels),
            "measurable_difference": "0.3", "power": "0.9", "design": "betting",
            "estimand": "test_set"}  # fmt: skip
    for name in ("r.csv", "p.csv", "k.csv"):
        rows = _rows(f[name])
        assert rows and all({k: r[k] for k in EXPORT_COLUMNS} == want for r in rows), name
    assert "margin" not in _rows(f["p.csv"])[0]  # ε is named the equivalence margin
    line = "% Statistics settings: " + "; ".join(f"{k}={want[k]}" for k in EXPORT_COLUMNS)
    for name in ("r.tex", "k.tex"):
        tex = f[name].read_text()
        assert line in tex and r"\alpha = 0.01" in tex, tex
    # an export read at its own α says so in the alpha column; the rest stays the campaign's
    out = run(cli.app, ["export-results", "--campaign", "exp", "--out", str(f["r.csv"]),
                        "--pairs-out", str(f["p.csv"]), "--alpha", "0.1"])  # fmt: skip
    assert out.exit_code == 0, out.output
    row = _rows(f["p.csv"])[0]
    assert (row["alpha"], row["racing"], row["power"]) == ("0.1", "on", "0.9")


def test_the_annotations_export_carries_them_too(engine: Engine) -> None:
    """The judgments export (CSV, JSONL, Parquet) names the settings the campaign's verdicts
    are read at in every row, typed in Parquet (α a double, the plan an integer)."""
    import json

    import pyarrow.parquet as pq

    from annotation.results.exports import export_annotations

    cid = make_campaign(engine, 20, 2, name="ann", paired=True)
    queue_build.build_queue(engine, cid, seed=3)
    set_statistics(engine, cid, alpha=0.02, planned_labels=30, design="asympcs")
    label_everything(engine, cid, 6)
    rows = list(csv.DictReader(io.StringIO(export_annotations(engine, "ann", "csv").decode())))
    assert len(rows) == 6
    assert {(r["alpha"], r["planned_labels"], r["design"], r["measurable_difference"])
            for r in rows} == {("0.02", "30", "asympcs", "")}  # fmt: skip
    lines = export_annotations(engine, "ann", "jsonl").decode().splitlines()
    assert {json.loads(x)["estimand"] for x in lines} == {"test_set"}
    table = pq.read_table(io.BytesIO(export_annotations(engine, "ann", "parquet")))
    assert str(table.schema.field("alpha").type) == "double"
    assert table.column("planned_labels").to_pylist() == [30] * 6
