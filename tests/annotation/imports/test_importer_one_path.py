"""One validation path for every import: MQM TSVs are held to the campaign-file rules (one
text per output, one source per item, limits, NUL bytes, blank texts), on SQLite and
PostgreSQL alike, with the row named and nothing written; metric options that name nothing
or name a metric twice are errors; --append keeps the campaign's mode; --max-mb is a
positive finite number. Each import command answers each error class with a message (file,
row, what to do), never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select
from typer.testing import CliRunner

from annotation.imports.importer import import_campaign
from annotation.imports.mqm import import_mqm_tsv
from db.engine import get_engine, session_scope
from db.schema.models import Campaign, Output
from formats.mqm.tsv import COLUMNS
from formats.problems import CampaignFileError

HEADER = "\t".join(COLUMNS) + "\n"


def tsv(*rows: tuple[str, ...]) -> bytes:
    return (HEADER + "".join("\t".join(r) + "\n" for r in rows)).encode()


#: The issue's repro: two raters of (A, seg 1) whose targets differ.
TWO_TARGETS = tsv(
    ("A", "d", "1", "1", "r1", "Hello world.", "Hallo <v>Welt</v>.", "Accuracy", "Major"),
    ("A", "d", "1", "1", "r2", "Hello world.", "Hallo schöne neue <v>Welt</v> da draußen.",
     "Accuracy", "Major"),
)  # fmt: skip


def n_campaigns(engine: Engine) -> int:
    with session_scope(engine) as s:
        return s.scalar(select(func.count()).select_from(Campaign)) or 0


@pytest.fixture
def cli(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator:  # type: ignore[type-arg]
    """Run `cli.py` on the test's database (SQLite or PostgreSQL); return the result."""
    import cli as cli_module

    monkeypatch.setenv("DATABASE_URL", engine.url.render_as_string(hide_password=False))
    get_engine.cache_clear()

    def run(*args: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(cli_module.app, list(args))

    yield run
    get_engine.cache_clear()


def assert_clear_failure(result, *expected: str) -> None:  # type: ignore[no-untyped-def]
    """Exit code ≠ 0 by a message (a SystemExit), no traceback, every expected phrase."""
    assert result.exit_code != 0, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    for phrase in expected:
        assert phrase in result.output, result.output


# ------------------------------------------------------------------ 1. MQM like campaign files


def test_issue_repro_two_raters_with_different_targets(engine: Engine, cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "two.tsv"
    path.write_bytes(TWO_TARGETS)
    result = cli("import-mqm", str(path), "--campaign", "two")
    assert_clear_failure(
        result,
        "Nothing was imported.",
        "two.tsv, row 2 (line 3), column 'target'",
        "('1', 'A'); row 1 has it already, with a different target",
        "rater 'r2' here, 'r1' there",
    )
    assert n_campaigns(engine) == 0


def test_one_item_in_two_documents_is_an_error(engine: Engine) -> None:
    data = "item_id,source,reference,system,output,doc_id\n1,a,b,A,x,d1\n1,a,b,B,y,d2\n"
    with pytest.raises(CampaignFileError) as err:
        import_campaign(engine, data.encode(), "docs", filename="docs.csv")
    assert "docs.csv, row 2, column 'doc_id': item '1' has a different doc_id here than in " \
        "row 1 (system 'A')" in str(err.value)  # fmt: skip
    mqm = tsv(
        ("A", "d1", "1", "1", "r1", "Hi.", "Hallo", "No-error", "No-error"),
        ("B", "d2", "1", "1", "r1", "Hi.", "Servus", "No-error", "No-error"),
    )
    with pytest.raises(CampaignFileError, match="seg_id '1' has a different doc here"):
        import_mqm_tsv(engine, mqm, "docs", filename="docs.tsv")
    assert n_campaigns(engine) == 0


def test_one_seg_id_with_two_sources_across_systems(engine: Engine) -> None:
    data = tsv(
        ("A", "d", "1", "1", "r1", "Hello world.", "Hallo <v>Welt</v>.", "Accuracy", "Major"),
        ("B", "d", "1", "1", "r1", "Goodbye world.", "Hallo Welt.", "No-error", "No-error"),
    )
    with pytest.raises(CampaignFileError) as err:
        import_mqm_tsv(engine, data, "src", filename="src.tsv")
    assert "src.tsv, row 2 (line 3), column 'source': seg_id '1' has a different source here " \
        "than in row 1 (system 'A')" in str(err.value)  # fmt: skip
    assert n_campaigns(engine) == 0


LONG = "x" * 1000


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (("A", "d", "1", "1", "r1", "Hi.", "Hal\x00lo", "No-error", "No-error"),
         "column 'target': target contains a NUL byte"),
        (("A", "d", "1", "1", "r1", "H\x00i.", "Hallo", "No-error", "No-error"),
         "column 'source': source contains a NUL byte"),
        (("A", "d", "1", LONG, "r1", "Hi.", "Hallo", "No-error", "No-error"),
         "column 'seg_id': seg_id is 1,000 characters long, over the limit of 300"),
        ((LONG, "d", "1", "1", "r1", "Hi.", "Hallo", "No-error", "No-error"),
         "column 'system': system is 1,000 characters long, over the limit of 300"),
        (("A", LONG, "1", "1", "r1", "Hi.", "Hallo", "No-error", "No-error"),
         "column 'doc': doc is 1,000 characters long, over the limit of 300"),
        (("A", "d", "1", "1", LONG, "Hi.", "Hallo", "No-error", "No-error"),
         "column 'rater': rater is 1,000 characters long, over the limit of 200"),
        (("A", "d", "1", "1", "r1", "Hi.", "   ", "No-error", "No-error"),
         "column 'target': target is empty or whitespace only"),
        (("A", "d", "1\x00", "1", "r1", "Hi.", "Hallo", "No-error", "No-error"),
         "column 'doc_id': doc_id contains a NUL byte"),
    ],
)  # fmt: skip
def test_mqm_rows_obey_the_campaign_limits(engine: Engine, row: tuple, expected: str) -> None:
    """SQLite stored these; PostgreSQL answered with a SQLAlchemy traceback."""
    with pytest.raises(CampaignFileError) as err:
        import_mqm_tsv(engine, tsv(row), "lim", filename="lim.tsv")
    assert f"lim.tsv, row 1 (line 2), {expected}" in str(err.value)
    assert n_campaigns(engine) == 0


def test_segment_with_over_200_error_rows_is_a_row_error(engine: Engine, cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = [("A", "d", "1", "1", "r1", "Hi.", "<v>Hallo</v>", "Accuracy", "Minor")] * 201
    path = tmp_path / "many.tsv"
    path.write_bytes(tsv(*rows))
    result = cli("import-mqm", str(path), "--campaign", "many")
    assert_clear_failure(
        result, "many.tsv, row 201 (line 202)", "more than 200 error rows (from row 1)"
    )
    assert n_campaigns(engine) == 0


# ------------------------------------------------------------------ 4. metric options

METRIC_CSV = "item_id,source,reference,system,output,qe,qe2\n1,a,b,A,x,0.1,0.2\n"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--metric", "x=qe", "--metric", "x=qe2"], "metric 'x' is given twice"),
        (["--metric", "metricx=qe", "--lower-is-better", "metricX"],
         "--lower-is-better metricX: no imported metric is named 'metricX' (did you mean "
         "'metricx'? names are case-sensitive)"),
        (["--metric", "comet=qe", "--metric-version", "coment=2.2"],
         "--metric-version coment=2.2: no imported metric is named 'coment'"),
        (["--lower-is-better", "metricx"], "no imported metric is named 'metricx'"),
        (["--metric", "x=qe", "--metric-version", "x=1", "--metric-version", "x=2"],
         "is given two versions"),
    ],
)  # fmt: skip
def test_metric_options_that_name_nothing_or_twice(
    engine: Engine, cli, tmp_path: Path, args: list[str], expected: str
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "m.csv"
    path.write_text(METRIC_CSV)
    assert_clear_failure(cli("import", str(path), "--campaign", "m", *args), expected)
    assert n_campaigns(engine) == 0


def test_a_direction_for_a_metric_column_still_applies(sqlite_engine: Engine) -> None:
    data = "item_id,source,reference,system,output,metric:mx\n1,a,b,A,x,3.5\n"
    from formats.scores_file import parse_metric_specs

    specs = parse_metric_specs([], ["mx"], ["mx=24"])
    report = import_campaign(sqlite_engine, data.encode(), "c", filename="c.csv", metrics=specs)
    ((metric,),) = [report.metrics]
    assert (metric.name, metric.higher_is_better, metric.n_added) == ("mx", False, 1)


# ------------------------------------------------------------------ 6. append mode, --max-mb


def _mode(engine: Engine, name: str) -> str:
    with session_scope(engine) as s:
        return str(s.scalar(select(Campaign.mode).where(Campaign.name == name)))


def test_append_refuses_another_mode_and_keeps_its_own(engine: Engine, cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text("item_id,source,reference,system,output\n1,a,b,A,x\n")
    second.write_text("item_id,source,reference,system,output\n2,c,d,A,y\n")
    assert cli("import", str(first), "--campaign", "c", "--mode", "spans").exit_code == 0
    result = cli("import", str(second), "--campaign", "c", "--append", "--mode", "binary")
    assert_clear_failure(result, "campaign 'c' is a 'spans' campaign", "Leave out the mode")
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(Output)) == 1
    assert cli("import", str(second), "--campaign", "c", "--append").exit_code == 0
    ok = cli("import", str(second.with_name("b.csv")), "--campaign", "d", "--mode", "both")
    assert ok.exit_code == 0
    assert (_mode(engine, "c"), _mode(engine, "d")) == ("spans", "both")
    same = tmp_path / "e.csv"
    same.write_text("item_id,source,reference,system,output\n3,e,f,A,z\n")
    assert cli("import", str(same), "--campaign", "c", "--append", "--mode", "spans").exit_code == 0


@pytest.mark.parametrize("command", ["import", "import-scores", "import-mqm"])
@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf"])
def test_max_mb_must_be_positive_and_finite(
    sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str,
    value: str,
) -> None:  # fmt: skip
    import cli as cli_module

    path = tmp_path / ("f.tsv" if command == "import-mqm" else "f.csv")
    path.write_text("item_id,source,reference,system,output\n1,a,b,A,x\n")
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    try:
        result = CliRunner().invoke(
            cli_module.app, [command, str(path), "--campaign", "c", "--max-mb", value]
        )
    finally:
        get_engine.cache_clear()
    assert_clear_failure(result, f"--max-mb {value}: give a positive number of megabytes")
    assert n_campaigns(sqlite_engine) == 0


@pytest.mark.parametrize("limit", [0.0, -1.0, float("nan")])
def test_library_refuses_a_size_limit_that_is_no_limit(sqlite_engine: Engine, limit: float) -> None:
    with pytest.raises(CampaignFileError, match="is not a positive number"):
        import_campaign(
            sqlite_engine, b"item_id,source,reference,system,output\n1,a,b,A,x\n", "c",
            filename="c.csv", max_mb=limit,
        )  # fmt: skip
