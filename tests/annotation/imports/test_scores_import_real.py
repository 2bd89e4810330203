"""Imported metrics end to end: the command line, and a real reference-free score (the NMT
model's own sentence score in MLQE-PE test20) imported, stored and read back exactly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import Engine

from annotation.imports.importer import import_campaign
from annotation.imports.scores_import import import_scores
from annotation.results.calibration import calibration_export, import_calibration
from db.reads.campaign import read_campaign
from db.scores.metric_scores import campaign_signatures
from formats.scores_file import MetricSpec
from metrics.calibration_sets import SignatureMismatch
from metrics.imported import content_hash, parse_signature
from tests.conftest import shared_file

MLQE = "mlqe-pe-test20/mlqe_pe_test20.csv"


@pytest.mark.slow
def test_mlqe_nmt_model_score_round_trip(sqlite_engine: Engine) -> None:
    import pandas as pd

    path = shared_file(MLQE)
    report = import_campaign(
        sqlite_engine,
        path,
        "mlqe",
        metrics=[MetricSpec("nmt_model_score", "nmt_model_score")],
        ignore=["post_edit"],  # HTER of 6,000 post-edits is not what this test is about
    )
    (cov,) = report.metrics
    frame = pd.read_csv(path)
    assert (cov.n_scored, cov.n_outputs, cov.n_missing) == (len(frame), len(frame), 0)
    sig = parse_signature(cov.signature)
    assert sig is not None
    assert (sig.name, sig.file, sig.higher_is_better) == (
        "nmt_model_score",
        "mlqe_pe_test20.csv",
        True,
    )
    assert sig.sha256 == content_hash(path.read_bytes())

    data = read_campaign(sqlite_engine, report.campaign_id)
    grid = data.scores[cov.signature]
    j = data.judgments
    stored_metric = grid[j.system, j.item]
    stored_human = j.score
    assert len(j) == len(frame) and np.isfinite(stored_metric).all()
    ours = np.corrcoef(stored_metric, stored_human)[0, 1]
    theirs = frame["nmt_model_score"].corr(frame["human_score"])
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert 0.1 < theirs < 0.9  # a real, informative score (not a constant or a copy)
    # Per language pair (= per system) too: the grid rows line up with the systems.
    for s, system in enumerate(data.systems):
        sub = frame[frame["system"] == system]
        rows = j.system == s
        assert np.corrcoef(stored_metric[rows], stored_human[rows])[0, 1] == pytest.approx(
            sub["nmt_model_score"].corr(sub["human_score"]), abs=1e-12
        )


CAMPAIGN = "item_id,source,reference,system,output,human_label\n" + "".join(
    f"{i},src {i},ref {i},{s},out {i} {s},{(i + (s == 'B')) % 2}\n" for i in range(30) for s in "AB"
)


def _scores(shift: float, name: str = "judge", version: str = "v1") -> bytes:
    rows = "".join(
        f"{i},{s},{name},{((i + (s == 'B')) % 2) + shift + 0.01 * i},true,{version}\n"
        for i in range(30)
        for s in "AB"
    )
    return ("item_id,system,metric,score,higher_is_better,version\n" + rows).encode()


def test_calibration_set_of_an_imported_metric_moves_between_campaigns(engine: Engine) -> None:
    for name in ("source", "target", "other"):
        import_campaign(engine, CAMPAIGN.encode(), name, filename=f"{name}.csv")
    import_scores(engine, _scores(0.0), "source", filename="a.csv")
    import_scores(engine, _scores(0.1), "target", filename="b.csv")
    import_scores(engine, _scores(0.1, version="v2"), "other", filename="c.csv")
    sig_a = next(s for m, s, _ in campaign_signatures(engine, 1) if m == "judge")
    exported = calibration_export(engine, "source", sig_a)
    assert exported.calibration.higher_is_better and exported.calibration.overall.tp == 30
    set_id = import_calibration(engine, "target", exported.json)
    data = read_campaign(engine, 2)
    (provided,) = data.provided_calibration
    assert provided["id"] == set_id
    assert provided["signature"] in data.scores  # re-keyed to this campaign's own file
    assert parse_signature(provided["signature"]).file == "b.csv"
    with pytest.raises(SignatureMismatch, match=r"imported metric .judge. \(version v1"):
        import_calibration(engine, "other", exported.json)


def test_lower_is_better_metric_calibrates_with_its_direction(engine: Engine) -> None:
    import_campaign(engine, CAMPAIGN.encode(), "c", filename="c.csv")
    data = _scores(0.0).decode().replace(",true,", ",false,")
    # Flip the scores so that small means adequate, as for MetricX.
    lines = data.splitlines()
    flipped = [lines[0]] + [
        ",".join([*p[:3], str(-float(p[3])), *p[4:]]) for p in (ln.split(",") for ln in lines[1:])
    ]
    report = import_scores(engine, ("\n".join(flipped) + "\n").encode(), "c", filename="x.csv")
    exported = calibration_export(engine, "c", report.metrics[0].signature)
    cal = exported.calibration
    assert not cal.higher_is_better and cal.overall.tp == 30 and cal.overall.tn == 30


def test_cli_import_with_metrics_and_import_scores(sqlite_engine: Engine, tmp_path: Path,
                                                   monkeypatch) -> None:  # fmt: skip
    from typer.testing import CliRunner

    import cli
    from db.engine import get_engine

    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()

    def run(*args: str):  # type: ignore[no-untyped-def]
        result = runner.invoke(cli.app, list(args))
        return result.exit_code, result.output

    camp = tmp_path / "camp.csv"
    camp.write_text(
        "item_id,source,reference,system,output,human_label,qe,metric:comet22\n"
        + "".join(
            f"{i},s{i},r{i},{s},o{i}{s},{i % 2},{-i * 0.1},{0.5 + 0.01 * i}\n"
            for i in range(40)
            for s in "AB"
        )
    )
    scores = tmp_path / "mx.csv"
    scores.write_bytes(_scores(0.0, name="metricx").replace(b",true,", b",false,"))
    try:
        code, out = run("import", str(camp), "--campaign", "c", "--metric", "qe_model=qe",
                        "--lower-is-better", "qe_model", "--metric-version", "comet22=2.2",
                        "--ignore", "human_label")  # fmt: skip
        assert code == 0, out
        assert "comet22 (higher is better): 80 of 80 outputs scored" in out
        assert "qe_model (lower is better): 80 of 80 outputs scored" in out
        assert "0 judgments" in out  # the file's labels were ignored: it is judged again
        code, out = run("import-scores", str(scores), "--campaign", "c")
        assert code == 0, out
        assert "metricx (lower is better): 60 of 80 outputs scored, 20 without a score" in out
        code, out = run("import-scores", str(scores), "--campaign", "nope")
        assert code == 1 and "Nothing was imported" in out and "no campaign named 'nope'" in out
        code, out = run("score", "--campaign", "c", "--metrics", "comet22,metricx")
        assert code == 0, out
        assert "comet22: imported (version 2.2, higher is better, from camp.csv" in out
        assert "60 of 80 outputs scored, 20 without a score; nothing to compute" in out
        code, out = run("score", "--campaign", "c", "--metrics", "comet23")
        assert code == 1 and "unknown metric 'comet23'" in out and "comet22" in out
        out_csv = tmp_path / "r.csv"
        code, out = run("export-results", "--campaign", "c", "--out", str(out_csv),
                        "--metric", "comet22")  # fmt: skip
        assert code == 0, out
        code, out = run("export-results", "--campaign", "c", "--out", str(out_csv),
                        "--metric", "bleurt")  # fmt: skip
        assert code == 1 and "metric 'bleurt' matches no stored signature" in out
        code, out = run("import", str(camp), "--campaign", "d", "--metric", "bleu=qe")
        assert code == 1 and "is the name of a built-in metric" in out
        assert json.dumps("d") not in out  # nothing about a created campaign
    finally:
        get_engine.cache_clear()


def test_imported_metric_is_a_control_in_every_estimator(sqlite_engine: Engine) -> None:
    from estimators.report.campaign_report import campaign_report
    from metrics.registry import resolve_signatures

    rng = np.random.default_rng(7)
    n = 600  # 150 labelled, 450 with the metric only
    quality = {s: rng.normal(size=n) + (0.4 if s == "A" else 0.0) for s in "AB"}
    rows = []
    for i in range(n):
        for s in "AB":
            label = int(quality[s][i] + 0.5 * rng.normal() > 0) if i < 150 else ""
            rows.append(f"{i},src {i},ref {i},{s},out {i} {s},{label},{quality[s][i]:.5f}\n")
    data_csv = "item_id,source,reference,system,output,human_label,metric:judge\n" + "".join(rows)
    report = import_campaign(sqlite_engine, data_csv.encode(), "ctl", filename="ctl.csv")
    stored = [(m, s) for m, s, _ in campaign_signatures(sqlite_engine, report.campaign_id)]
    (sig,) = resolve_signatures(stored, ["judge"])  # a name resolves to its signature
    data = read_campaign(sqlite_engine, report.campaign_id)
    result = campaign_report(data, signatures=[sig])
    assert result.signatures == [sig]
    human, ppi = result.estimates[("A", "human")], result.estimates[("A", "ppi")]
    assert ppi.se < 0.9 * human.se  # a strong imported control narrows the interval
    assert result.monitor is not None and result.monitor.pairs
    (eff,) = [e for e in result.efficiency if e.signature == sig]
    assert eff.rho_y > 0.5 and eff.de_measured > 1.2
