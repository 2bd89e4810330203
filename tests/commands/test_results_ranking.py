"""`cli.py export-ranking`: the ranking with significance clusters as CSV and LaTeX."""

from __future__ import annotations

import csv
import io

from tests.db.reads.test_campaign import seed_campaign


def test_cli_exports_the_ranking(sqlite_engine, tmp_path, monkeypatch) -> None:
    from typer.testing import CliRunner

    import cli
    from db.engine import get_engine

    seed_campaign(sqlite_engine, "rank", n_items=40, labelled=40, overlap=0)
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()
    try:
        out = tmp_path / "rank.csv"
        res = runner.invoke(cli.app, ["export-ranking", "--campaign", "rank", "--out", str(out)])
        assert res.exit_code == 0, res.output
        rows = list(csv.DictReader(io.StringIO(out.read_text())))
        assert [r["position"] for r in rows] == [str(i + 1) for i in range(len(rows))]
        assert len(rows) >= 2 and {"cluster", "alpha", "error_rate"} <= rows[0].keys()
        est = [float(r["estimate"]) for r in rows]
        assert est == sorted(est, reverse=True)
        tex = tmp_path / "rank.tex"
        res = runner.invoke(cli.app, ["export-ranking", "--campaign", "rank", "--out", str(tex)])
        assert res.exit_code == 0 and "\\toprule" in tex.read_text()
        res = runner.invoke(cli.app, ["export-ranking", "--campaign", "rank", "--out", "x.txt"])
        assert res.exit_code == 1 and "use a .csv or .tex" in res.output
    finally:
        get_engine.cache_clear()
