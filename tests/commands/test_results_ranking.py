"""`cli.py export-ranking`: the ranking with significance clusters as CSV, LaTeX and Typst,
Tandem's or WMT's; `cli.py wmt-ranking` prints WMT's beside Tandem's."""

from __future__ import annotations

import csv
import io

import numpy as np

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
        assert res.exit_code == 1 and "use a .csv, .tex or .typ" in res.output
        typ = tmp_path / "rank.typ"
        res = runner.invoke(cli.app, ["export-ranking", "--campaign", "rank", "--out", str(typ)])
        assert res.exit_code == 0 and "#figure(" in typ.read_text()
    finally:
        get_engine.cache_clear()


def domain_csv(n_items: int = 36, seed: int = 2) -> bytes:
    """3 systems with ESA-like scores on two domains; in "speech" sys1 is as good as sys0."""
    rng = np.random.default_rng(seed)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(
        ["item_id", "source", "reference", "system", "output", "human_score", "annotator", "domain"]
    )
    for j in range(n_items):
        dom = "news" if j % 2 else "speech"
        base = rng.normal(60, 10)
        for s, eff in enumerate((12.0, 6.0 if dom == "news" else 12.0, 0.0)):
            score = round(base + eff + rng.normal(0, 4), 1)
            w.writerow(
                [f"d{j:03d}", f"src {j}", f"ref {j}", f"sys{s}", f"out {s} {j}", score, "ann", dom]
            )
    return buf.getvalue().encode()


def test_cli_exports_wmt_tables_beside_tandems(sqlite_engine, tmp_path, monkeypatch) -> None:
    from typer.testing import CliRunner

    import cli
    from annotation.imports.importer import import_campaign
    from db.engine import get_engine

    seed_campaign(sqlite_engine, "rank", n_items=40, labelled=40, overlap=6)
    import_campaign(sqlite_engine, domain_csv(), "dom", filename="dom.csv")
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()
    try:
        out, diff = tmp_path / "wmt.csv", tmp_path / "diff.csv"
        res = runner.invoke(
            cli.app,
            [
                "export-ranking",
                "--campaign",
                "rank",
                "--out",
                str(out),
                "--procedure",
                "wmt25",
                "--disagreements-out",
                str(diff),
            ],
        )
        assert res.exit_code == 0, res.output
        rows = list(csv.DictReader(io.StringIO(out.read_text())))
        assert {r["procedure"] for r in rows} == {"wmt25"} and len(rows) == 3
        assert rows[0]["correction"] == "fixed-n, no multiplicity correction"
        assert rows[0]["waves"] == "2"  # the overlap judgments are the second wave
        assert rows[0]["tandem_cluster"] in {"1", "2", "3"}
        assert diff.read_text().startswith("a,b,wmt_test,wmt_p,tandem_verdict")
        for suffix, mark in ((".tex", "\\toprule"), (".typ", "#figure(")):
            f = tmp_path / f"wmt{suffix}"
            res = runner.invoke(
                cli.app,
                ["export-ranking", "--campaign", "rank", "--out", str(f), "--procedure", "wmt24"],
            )
            assert res.exit_code == 0, res.output
            assert mark in f.read_text() and "no multiplicity correction" in f.read_text()
        res = runner.invoke(cli.app, ["wmt-ranking", "--campaign", "dom", "--procedure", "wmt24"])
        assert res.exit_code == 0, res.output
        assert "2 domain(s)" in res.output and "fixed-n, no multiplicity correction" in res.output
        assert "pair(s) where WMT's table and Tandem's disagree" in res.output
        bad = runner.invoke(
            cli.app,
            ["export-ranking", "--campaign", "rank", "--out", str(out), "--procedure", "wmt23"],
        )
        assert bad.exit_code == 1 and "Unknown procedure 'wmt23'" in bad.output
        bad = runner.invoke(
            cli.app,
            [
                "export-ranking",
                "--campaign",
                "rank",
                "--out",
                str(out),
                "--disagreements-out",
                str(diff),
            ],
        )
        assert bad.exit_code == 1 and "needs a WMT procedure" in bad.output
    finally:
        get_engine.cache_clear()
