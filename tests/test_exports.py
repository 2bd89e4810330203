"""Exports: annotations, results, calibration sets (round trip, refusal), formula injection."""

from __future__ import annotations

import csv
import io
import json

import pyarrow.parquet as pq
import pytest

from annotation.imports.importer import import_campaign
from annotation.results.calibration import calibration_export, import_calibration
from annotation.results.exports import ANNOTATION_COLUMNS, export_annotations
from annotation.results.result_exports import (
    campaign_results,
    pairs_csv,
    results_csv,
    results_latex,
)
from db.reads.campaign import campaign_id, read_campaign
from db.scores.calibration import applied_sets, remove_set
from estimators.report.campaign_report import campaign_report
from formats import calibration_file as cf
from formats.writers import to_csv
from metrics import calibration_sets as cs
from metrics.calibration import agreement
from tests.test_reads import SIG, seed_campaign


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def test_formula_like_cells_are_neutralised() -> None:
    data = to_csv(["a", "b"], [{"a": "=SUM(A1:A9)", "b": "+1"}, {"a": "-2", "b": "@cmd"},
                               {"a": "plain", "b": 3.5}])  # fmt: skip
    rows = _rows(data)
    # "-2" and "+1" are numbers, not formulas: written as they are (issue 16, defect 2)
    assert [r["a"] for r in rows] == ["'=SUM(A1:A9)", "-2", "plain"]
    assert [r["b"] for r in rows] == ["+1", "'@cmd", "3.5"]


def test_annotation_exports_carry_annotator_time_and_position(engine) -> None:
    body = (
        "item_id,source,reference,system,output,human_label,annotator,post_edit\n"
        "=1+1,s,r,=SYS(),o,1,@mallory,-rm -rf\n"
        "2,s2,r2,=SYS(),o2,0,bob,\n"
    )
    import_campaign(engine, body.encode(), "inj", filename="inj.csv")
    rows = _rows(export_annotations(engine, "inj", "csv"))
    assert list(rows[0]) == ANNOTATION_COLUMNS
    first = next(r for r in rows if r["annotator"] == "'@mallory")
    assert first["item_id"] == "'=1+1" and first["system"] == "'=SYS()"
    assert first["post_edit"] == "'-rm -rf"
    assert first["created_at"] and first["assignment_position"] in ("0", "1")
    assert sorted(int(r["assignment_position"]) for r in rows) == [0, 1]
    assert {r["current"] for r in rows} == {"1"}
    jsonl = [json.loads(line) for line in export_annotations(engine, "inj", "jsonl").splitlines()]
    assert {r["annotator"] for r in jsonl} == {"@mallory", "bob"}  # JSON keeps the raw value
    table = pq.read_table(io.BytesIO(export_annotations(engine, "inj", "parquet")))
    assert table.column_names == ANNOTATION_COLUMNS and table.num_rows == 2
    with pytest.raises(ValueError, match="unknown format"):
        export_annotations(engine, "inj", "xlsx")


def test_results_csv_and_latex_match_the_report(engine) -> None:
    seed_campaign(engine, "res", n_items=60, labelled=50, overlap=0)
    report = campaign_results(engine, "res")
    rows = _rows(results_csv(report))
    human = next(r for r in rows if r["system"] == "sys0" and r["method"] == "Human only")
    expect = report.estimates[("sys0", "human")]
    assert float(human["estimate"]) == pytest.approx(expect.estimate)
    assert float(human["low"]) == pytest.approx(expect.low)
    assert int(human["n_human"]) == 50 and human["n_metric"] == "0"
    ppi = next(r for r in rows if r["system"] == "sys0" and r["method"].startswith("Control"))
    assert ppi["metric"] == "chrf" and int(ppi["n_metric"]) == 10
    assert len(_rows(pairs_csv(report))) == 3
    tex = results_latex(report)
    assert "\\toprule" in tex and "\\bottomrule" in tex and tex.count("\\\\") == 4
    assert "sys0 & " in tex and "PPI++" in tex and "95\\% intervals" in tex


def test_latex_escapes_system_names() -> None:
    from annotation.results.result_exports import latex_escape

    assert latex_escape("a_b & 100% {x}") == r"a\_b \& 100\% \{x\}"


def test_calibration_set_export_import_round_trip(engine) -> None:
    seed_campaign(engine, "source", n_items=80, labelled=70, overlap=0)
    exported = calibration_export(engine, "source", SIG)
    payload = json.loads(exported.json)
    assert payload["schema"] == cf.SCHEMA and payload["schema_version"] == cf.SCHEMA_VERSION
    assert payload["signature"] == SIG and payload["threshold"] == 50.0
    c = payload["counts"]
    # counts are those of the campaign's labelled outputs at the stored threshold
    data = read_campaign(engine, campaign_id(engine, "source"))
    arrays = cs.calibration_arrays(data, SIG)
    direct = agreement(arrays.scores, arrays.labels, 50.0, True)
    assert (c["tp"], c["fn"], c["tn"], c["fp"]) == (direct.tp, direct.fn, direct.tn, direct.fp)
    assert sum(c.values()) == 3 * 70
    assert payload["posteriors"]["rho"]["a"] == c["tp"] + 1
    assert payload["posteriors"]["eta"]["b"] == c["fp"] + 1
    assert set(payload["per_system"]) == {"sys0", "sys1", "sys2"}
    assert 0 <= payload["drift_test"]["p_value"] <= 1
    items = _rows(exported.items_csv)
    assert len(items) == 210
    for cell in ("tp", "fn", "tn", "fp"):
        assert sum(r["cell"] == cell.upper() for r in items) == c[cell]

    seed_campaign(engine, "target", n_items=60, labelled=20, overlap=0, threshold=False)
    set_id = import_calibration(engine, "target", exported.json)
    target = campaign_id(engine, "target")
    stored = applied_sets(engine, target)
    assert [s.id for s in stored] == [set_id]
    assert stored[0].counts == (c["tp"], c["fn"], c["tn"], c["fp"])
    assert stored[0].signature == SIG and stored[0].threshold == 50.0
    data_t = read_campaign(engine, target)
    assert data_t.provided_calibration[0]["counts"] == stored[0].counts
    report = campaign_report(data_t, signatures=[SIG])
    assert ("sys0", "vd_provided") in report.estimates
    assert report.estimates[("sys0", "vd_provided")].diagnostics["tp"] == c["tp"]
    # re-export of what was imported parses to the same counts
    again = cf.parse(json.dumps(stored[0].payload))
    assert again.counts == stored[0].counts
    assert remove_set(engine, set_id, target) and applied_sets(engine, target) == []


def test_import_with_a_different_signature_is_refused(engine) -> None:
    seed_campaign(engine, "source", n_items=40, labelled=40, overlap=0)
    exported = calibration_export(engine, "source", SIG, record=False)
    other = SIG.replace("version:test", "version:2.4.0")
    seed_campaign(engine, "other", n_items=20, labelled=10, overlap=0, chrf_signature=other)
    with pytest.raises(cs.SignatureMismatch) as err:
        import_calibration(engine, "other", exported.json)
    message = str(err.value)
    assert SIG in message and other in message and "Refused" in message
    assert applied_sets(engine, campaign_id(engine, "other")) == []
    seed_campaign(engine, "unscored", n_items=10, labelled=10, overlap=0, scores=False)
    with pytest.raises(cs.SignatureMismatch, match="no metric scores yet"):
        import_calibration(engine, "unscored", exported.json)


def _payload() -> dict:
    return {
        "schema": cf.SCHEMA, "schema_version": 1, "metric": "chrf", "signature": SIG,
        "threshold": 50.0, "higher_is_better": True,
        "counts": {"tp": 8, "fn": 2, "tn": 5, "fp": 1},
        "posteriors": {"rho": {"a": 9, "b": 3}, "eta": {"a": 6, "b": 2}},
        "per_system": {"A": {"tp": 8, "fn": 2, "tn": 0, "fp": 0},
                       "B": {"tp": 0, "fn": 0, "tn": 5, "fp": 1}},
    }  # fmt: skip


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"schema": "other"}, "not a Tandem calibration set"),
        ({"schema_version": 2}, "newer Tandem"),
        ({"threshold": "high"}, "threshold must be a finite number"),
        ({"counts": {"tp": 9, "fn": 2, "tn": 5, "fp": 1}}, "per-system counts add up"),
        ({"counts": {"tp": 8, "fn": -2, "tn": 5, "fp": 1}}, "non-negative whole number"),
        ({"posteriors": {"rho": {"a": 10, "b": 3}, "eta": {"a": 6, "b": 2}}}, "Beta\\(9, 3\\)"),
        ({"higher_is_better": "yes"}, "true or false"),
    ],
)
def test_invalid_calibration_sets_are_refused_with_the_reason(change, message) -> None:
    assert cf.parse(_payload()).counts == (8, 2, 5, 1)
    with pytest.raises(cf.CalibrationSetError, match=message):
        cf.parse({**_payload(), **change})


def test_not_json_is_refused() -> None:
    with pytest.raises(cf.CalibrationSetError, match="not a JSON file"):
        cf.parse(b"\xff\xfe nope")


def test_dumps_writes_strict_json() -> None:
    text = cf.dumps({"x": float("nan"), "y": [1.0, float("inf")]}).decode()
    assert json.loads(text) == {"x": None, "y": [1.0, None]}


def test_cli_exports_and_calibration_round_trip(sqlite_engine, tmp_path, monkeypatch) -> None:
    from typer.testing import CliRunner

    import cli
    from db.engine import get_engine

    seed_campaign(sqlite_engine, "source", n_items=30, labelled=30, overlap=0)
    seed_campaign(sqlite_engine, "target", n_items=20, labelled=10, overlap=0)
    seed_campaign(sqlite_engine, "foreign", n_items=20, labelled=10, overlap=0,
                  chrf_signature=SIG.replace("test", "other"))  # fmt: skip
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()

    def run(*args: str):  # type: ignore[no-untyped-def]
        result = runner.invoke(cli.app, list(args))
        return result.exit_code, result.output

    try:
        code, _ = run(
            "export-annotations", "--campaign", "source", "--out", str(tmp_path / "a.jsonl")
        )
        assert code == 0 and len((tmp_path / "a.jsonl").read_text().splitlines()) == 90
        code, _ = run("export-results", "--campaign", "source", "--out", str(tmp_path / "r.tex"),
                      "--pairs-out", str(tmp_path / "p.csv"))  # fmt: skip
        assert code == 0 and "\\toprule" in (tmp_path / "r.tex").read_text()
        assert len(_rows((tmp_path / "p.csv").read_bytes())) == 3
        json_out, csv_out = str(tmp_path / "c.json"), str(tmp_path / "c.csv")
        code, out = run("export-calibration", "--campaign", "source", "--metric", "chrf",
                        "--out", json_out, "--items-out", csv_out)  # fmt: skip
        assert code == 0, out
        assert cf.parse((tmp_path / "c.json").read_bytes()).signature == SIG
        assert len(_rows((tmp_path / "c.csv").read_bytes())) == 90
        code, out = run("import-calibration", str(tmp_path / "c.json"), "--campaign", "target")
        assert code == 0, out
        code, out = run("import-calibration", str(tmp_path / "c.json"), "--campaign", "foreign")
        assert code == 1 and "Refused" in out and SIG in out
        code, out = run(
            "export-annotations", "--campaign", "nope", "--out", str(tmp_path / "x.csv")
        )
        assert code == 1 and "no campaign named 'nope'" in out
    finally:
        get_engine.cache_clear()


def test_drifted_reads_the_combined_p_value() -> None:
    from metrics.calibration_sets import drifted

    assert drifted({"p_rho": 0.2, "p_eta": 0.001, "p_value": 0.002})
    assert not drifted({"p_rho": 0.2, "p_eta": 0.3, "p_value": 0.25})
    assert not drifted({})  # one system: no test, no drift claimed
    assert drifted({"p_value": 0.07}, level=0.1)
