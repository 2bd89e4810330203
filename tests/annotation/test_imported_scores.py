"""Imported metric scores: every validation rule of a scores file and of score columns in a
campaign file gives a specific message (file, row, column, what to do) and leaves the
database unchanged, on SQLite and on PostgreSQL; valid scores are stored like a built-in
metric with a provenance signature and are read back by the estimators' reader."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import Engine

from annotation.imports.importer import import_campaign
from annotation.imports.scores_import import import_scores
from db.reads.campaign import read_campaign
from db.scores.metric_scores import campaign_signatures
from formats.problems import CampaignFileError
from formats.scores_file import MetricSpec, parse_metric_specs
from metrics.imported import content_hash, higher_is_better, parse_signature, same_computation
from tests.annotation.test_import_validation import table_counts
from tests.conftest import stored_scores

CAMPAIGN = (
    "item_id,source,reference,system,output,human_label\n"
    "1,Hello,Hallo,A,Hallo!,1\n1,Hello,Hallo,B,Servus,0\n"
    "2,Bye,Tschüss,A,Ciao,\n2,Bye,Tschüss,B,Tschüss,1\n"
)
HEAD = "item_id,system,metric,score,higher_is_better,version\n"
SCORES = (
    HEAD + "1,A,comet22,0.91,true,wmt22-da\n1,B,comet22,0.42,true,wmt22-da\n2,A,comet22,0.5,,\n"
)


@pytest.fixture
def camp(engine: Engine) -> Engine:
    import_campaign(engine, CAMPAIGN.encode(), "c", filename="camp.csv")
    return engine


def refused(engine: Engine, data: str | bytes, filename: str = "scores.csv", **kw) -> str:
    """The scores import must fail, write nothing, and return the error text."""
    before = table_counts(engine)
    raw = data.encode() if isinstance(data, str) else data
    with pytest.raises(CampaignFileError) as info:
        import_scores(engine, raw, kw.pop("campaign", "c"), filename=filename, **kw)
    assert table_counts(engine) == before, "a refused scores import changed the database"
    return str(info.value)


def refused_campaign(engine: Engine, data: str, **kw) -> str:
    before = table_counts(engine)
    with pytest.raises(CampaignFileError) as info:
        import_campaign(engine, data.encode(), kw.pop("campaign", "c2"), filename="m.csv", **kw)
    assert table_counts(engine) == before, "a refused import changed the database"
    return str(info.value)


# ------------------------------------------------------------------ valid imports


def test_scores_file_is_stored_with_its_provenance(camp: Engine) -> None:
    report = import_scores(camp, SCORES.encode(), "c", filename="scores.csv")
    (cov,) = report.metrics
    assert (cov.name, cov.n_added, cov.n_scored, cov.n_outputs, cov.n_missing) == (
        "comet22",
        3,
        3,
        4,
        1,
    )
    assert "3 of 4 outputs scored, 1 without a score" in report.summary()
    sig = parse_signature(cov.signature)
    assert sig is not None
    assert (sig.name, sig.version, sig.higher_is_better, sig.file) == (
        "comet22",
        "wmt22-da",
        True,
        "scores.csv",
    )
    assert sig.sha256 == content_hash(SCORES.encode())
    assert cov.signature == (
        f"comet22|src:imported|version:wmt22-da|higher:yes|file:scores.csv|sha256:{sig.sha256}"
    )
    data = read_campaign(camp, report.campaign_id)
    assert data.metric(cov.signature).metric == "comet22"
    assert stored_scores(camp, report.campaign_id, cov.signature) == {
        ("1", "A"): 0.91,
        ("1", "B"): 0.42,
        ("2", "A"): 0.5,
    }


def test_same_file_again_adds_nothing(camp: Engine) -> None:
    import_scores(camp, SCORES.encode(), "c", filename="scores.csv")
    before = table_counts(camp)
    again = import_scores(camp, SCORES.encode(), "c", filename="scores.csv")
    assert again.metrics[0].already and again.metrics[0].n_added == 0
    assert table_counts(camp) == before


def test_lower_is_better_and_several_metrics(camp: Engine) -> None:
    data = (
        "item_id,system,metric,score,higher_is_better\n"
        "1,A,metricx,3.5,false\n1,B,metricx,9,no\n1,A,judge,4,\n"
    )
    report = import_scores(camp, data.encode(), "c", filename="s.csv")
    by_name = {m.name: m for m in report.metrics}
    assert not by_name["metricx"].higher_is_better and by_name["judge"].higher_is_better
    assert higher_is_better("metricx", by_name["metricx"].signature) is False
    assert higher_is_better("ter", "ter|nrefs:1") is False  # built-ins: the registry


@pytest.mark.parametrize("fmt", ["tsv", "jsonl", "parquet"])
def test_other_formats(camp: Engine, fmt: str, tmp_path) -> None:
    import pandas as pd

    frame = pd.DataFrame(
        {"item_id": ["1", "2"], "system": ["A", "B"], "metric": ["q", "q"], "score": [0.1, 0.2]}
    )
    path = tmp_path / f"s.{fmt}"
    if fmt == "tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif fmt == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path, index=False)
    report = import_scores(camp, path, "c")
    assert report.metrics[0].n_scored == 2


def test_campaign_file_metric_columns(engine: Engine) -> None:
    data = (
        "item_id,source,reference,system,output,metric:comet22,qe_prob\n"
        "1,Hi,Hallo,A,Hallo,0.9,-0.2\n1,Hi,Hallo,B,Hi,0.3,\n2,Yes,Ja,A,Ja,,-1.5\n"
    )
    report = import_campaign(
        engine,
        data.encode(),
        "m",
        filename="m.csv",
        metrics=parse_metric_specs(["qe=qe_prob"], versions=["comet22=2.2"]),
    )
    cov = {m.name: m for m in report.metrics}
    assert (cov["comet22"].n_scored, cov["qe"].n_scored, cov["qe"].n_outputs) == (2, 2, 3)
    assert parse_signature(cov["comet22"].signature).version == "2.2"
    assert stored_scores(engine, report.campaign_id, cov["qe"].signature) == {
        ("1", "A"): -0.2,
        ("2", "A"): -1.5,
    }
    names = {m for m, _, _ in campaign_signatures(engine, report.campaign_id)}
    assert names == {"comet22", "qe"}


def test_appended_rows_join_the_metric_of_the_same_file(engine: Engine) -> None:
    # A second campaign file for the same metric name is another source: refused below.
    data = "item_id,source,reference,system,output,metric:q\n1,Hi,Hallo,A,Hallo,0.9\n"
    import_campaign(engine, data.encode(), "m", filename="m.csv")
    more = "item_id,source,reference,system,output,metric:q\n2,Yes,Ja,A,Ja,0.5\n"
    before = table_counts(engine)
    with pytest.raises(CampaignFileError) as info:
        import_campaign(engine, more.encode(), "m", filename="m2.csv", append=True)
    assert table_counts(engine) == before
    assert "already has metric 'q' from 'm.csv'" in str(info.value)


def test_estimators_read_imported_scores_as_a_control(camp: Engine) -> None:
    report = import_scores(camp, SCORES.encode(), "c", filename="scores.csv")
    data = read_campaign(camp, report.campaign_id)
    grid = data.scores[report.metrics[0].signature]
    assert grid.shape == (2, 2) and int(np.isfinite(grid).sum()) == 3


def test_same_computation_across_campaigns() -> None:
    a = "comet22|src:imported|version:2.2|higher:yes|file:a.csv|sha256:aa"
    b = "comet22|src:imported|version:2.2|higher:yes|file:b.csv|sha256:bb"
    assert same_computation(a, b)
    assert not same_computation(a, b.replace("version:2.2", "version:2.3"))
    assert not same_computation(a.replace("2.2", "none"), b.replace("2.2", "none"))
    assert not same_computation(a, b.replace("higher:yes", "higher:no"))
    assert not same_computation("chrf|nrefs:1", "chrf|nrefs:1")


# ------------------------------------------------------------------ scores-file rules


def test_missing_required_column(camp: Engine) -> None:
    msg = refused(camp, "item_id,system,score\n1,A,0.5\n")
    assert "scores.csv, column 'metric': missing required column 'metric'" in msg
    assert "item_id, system, metric, score" in msg


def test_unknown_column(camp: Engine) -> None:
    msg = refused(camp, "item_id,system,metric,score,note\n1,A,q,0.5,x\n")
    assert "column 'note': unknown column 'note'" in msg


def test_no_rows(camp: Engine) -> None:
    assert "has a header but no data rows" in refused(camp, "item_id,system,metric,score\n")


def test_empty_file(camp: Engine) -> None:
    assert "scores.csv: is empty (0 bytes)" in refused(camp, b"")


def test_semicolon_separated(camp: Engine) -> None:
    msg = refused(camp, "item_id;system;metric;score\n1;A;q;0,5\n")
    assert "looks semicolon-separated" in msg and "commas as separators" in msg


@pytest.mark.parametrize("value", ["abc", "1,5", "0x12"])
def test_non_numeric_score(camp: Engine, value: str) -> None:
    msg = refused(camp, HEAD + f'1,A,q,"{value}",,\n')
    assert f"row 1, column 'score': score is '{value}', not a finite number" in msg


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1e999"])
def test_nan_or_inf_score(camp: Engine, value: str) -> None:
    msg = refused(camp, HEAD + f"1,A,q,0.5,,\n1,B,q,{value},,\n")
    assert "row 2, column 'score'" in msg and "not a finite number" in msg


def test_empty_score(camp: Engine) -> None:
    msg = refused(camp, HEAD + "1,A,q,,,\n")
    assert "row 1, column 'score': score is empty" in msg and "partial coverage" in msg


def test_duplicate_item_system_metric(camp: Engine) -> None:
    msg = refused(camp, HEAD + "1,A,q,0.5,,\n1,B,q,0.5,,\n1,A,q,0.7,,\n")
    assert "row 3, column 'metric': duplicate (item_id, system, metric) = ('1', 'A', 'q')" in msg
    assert "row 1 has it already" in msg


def test_unknown_item(camp: Engine) -> None:
    msg = refused(camp, HEAD + "1,A,q,0.5,,\n99,A,q,0.5,,\n")
    assert "row 2, column 'item_id': item '99' is not in the campaign" in msg


def test_unknown_system(camp: Engine) -> None:
    msg = refused(camp, HEAD + "1,Z,q,0.5,,\n")
    assert "row 1, column 'system': system 'Z' is not in the campaign" in msg
    assert "A, B" in msg


def test_output_missing_for_known_item_and_system(engine: Engine) -> None:
    data = "item_id,source,reference,system,output\n1,a,b,A,x\n2,c,d,B,y\n"
    import_campaign(engine, data.encode(), "c", filename="c.csv")
    msg = refused(engine, HEAD + "1,B,q,0.5,,\n")
    assert "row 1, column 'system': the campaign has no output of system 'B' for item '1'" in msg


def test_conflicting_direction_within_the_file(camp: Engine) -> None:
    msg = refused(camp, HEAD + "1,A,q,0.5,true,\n1,B,q,0.5,false,\n")
    assert "row 2, column 'higher_is_better'" in msg
    assert "lower-is-better here but higher-is-better in row 1" in msg


def test_conflicting_direction_with_the_campaign(camp: Engine) -> None:
    import_scores(camp, (HEAD + "1,A,q,0.5,true,\n").encode(), "c", filename="a.csv")
    msg = refused(camp, HEAD + "1,B,q,0.5,false,\n", filename="b.csv")
    assert "b.csv, row 1, column 'metric': conflicting direction" in msg
    assert "higher-is-better (imported from 'a.csv')" in msg


def test_same_metric_from_another_file(camp: Engine) -> None:
    import_scores(camp, (HEAD + "1,A,q,0.5,,\n").encode(), "c", filename="a.csv")
    msg = refused(camp, HEAD + "1,B,q,0.5,,\n", filename="b.csv")
    assert "already has metric 'q' from 'a.csv'" in msg and "'q_2'" in msg


def test_unreadable_direction(camp: Engine) -> None:
    msg = refused(camp, HEAD + "1,A,q,0.5,maybe,\n")
    assert "row 1, column 'higher_is_better': higher_is_better is 'maybe'" in msg


def test_conflicting_version(camp: Engine) -> None:
    msg = refused(camp, HEAD + "1,A,q,0.5,,v1\n1,B,q,0.5,,v2\n")
    assert "row 2, column 'version': metric 'q' has version 'v2' here but 'v1' in row 1" in msg


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("bleu", "is the name of a built-in metric"),
        ("bertscore_f", "is the name of a built-in metric"),
        ("my metric", "may use only letters"),
        ("x" * 51, "over the limit of 50"),
        ("a|b", "may use only letters"),
    ],
)
def test_bad_metric_name(camp: Engine, name: str, why: str) -> None:
    msg = refused(camp, HEAD + f'1,A,"{name}",0.5,,\n')
    assert "row 1, column 'metric'" in msg and why in msg


@pytest.mark.parametrize("column", ["item_id", "system", "metric"])
def test_empty_key_cell(camp: Engine, column: str) -> None:
    cells = {"item_id": "1", "system": "A", "metric": "q"} | {column: ""}
    msg = refused(camp, HEAD + f"{cells['item_id']},{cells['system']},{cells['metric']},1,,\n")
    assert f"row 1, column '{column}': {column} is empty" in msg


def test_unknown_campaign(camp: Engine) -> None:
    msg = refused(camp, SCORES, campaign="nope")
    assert "there is no campaign named 'nope'" in msg


def test_all_problems_at_once(camp: Engine) -> None:
    msg = refused(camp, HEAD + "1,A,q,abc,,\n1,B,q,inf,,\n")
    assert "row 1" in msg and "row 2" in msg


# ------------------------------------------------------------------ campaign-file columns


def test_campaign_metric_column_not_a_number(engine: Engine) -> None:
    data = "item_id,source,reference,system,output,metric:q\n1,a,b,A,x,0.5\n2,c,d,A,y,high\n"
    msg = refused_campaign(engine, data)
    assert "m.csv, row 2, column 'metric:q': metric:q is 'high', not a finite number" in msg


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity"])
def test_campaign_metric_column_nan_inf(engine: Engine, value: str) -> None:
    data = f"item_id,source,reference,system,output,metric:q\n1,a,b,A,x,{value}\n"
    assert "row 1, column 'metric:q'" in refused_campaign(engine, data)


def test_campaign_metric_mapping_to_missing_column(engine: Engine) -> None:
    data = "item_id,source,reference,system,output\n1,a,b,A,x\n"
    msg = refused_campaign(engine, data, metrics=[MetricSpec("q", "nope")])
    assert "--metric q=nope: the file has no column 'nope'" in msg


def test_campaign_metric_mapping_of_a_tandem_column(engine: Engine) -> None:
    data = "item_id,source,reference,system,output,human_score\n1,a,b,A,x,3\n"
    msg = refused_campaign(engine, data, metrics=[MetricSpec("q", "human_score")])
    assert "'human_score' is a Tandem column, not a score" in msg


def test_campaign_metric_bad_name(engine: Engine) -> None:
    data = "item_id,source,reference,system,output,metric:chrf\n1,a,b,A,x,3\n"
    assert "is the name of a built-in metric" in refused_campaign(engine, data)


def test_campaign_metric_differs_between_judgment_rows(engine: Engine) -> None:
    data = (
        "item_id,source,reference,system,output,human_label,annotator,metric:q\n"
        "1,a,b,A,x,1,ann1,0.5\n1,a,b,A,x,0,ann2,0.6\n"
    )
    msg = refused_campaign(engine, data)
    assert "row 2, column 'metric:q': metric:q is 0.6 here but 0.5 in row 1" in msg


def test_parse_metric_specs_syntax() -> None:
    with pytest.raises(ValueError, match="expected NAME=COLUMN"):
        parse_metric_specs(["comet22"])
    specs = parse_metric_specs(["a=col"], lower_is_better=["a", "b"], versions=["a=1"])
    assert specs == [MetricSpec("a", "col", "1", False), MetricSpec("b", "", "", False)]


def test_imported_metrics_are_shown_beside_the_item(camp: Engine) -> None:
    from db.engine import session_scope
    from db.queue import slot_display as dbshow

    report = import_scores(camp, SCORES.encode(), "c", filename="scores.csv")
    data = read_campaign(camp, report.campaign_id)
    oid = int(data.output_ids[0, 0])  # item 1, system A
    with session_scope(camp) as s:
        assert dbshow.output_scores(s, oid) == {"comet22": 0.91}


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
def test_exported_scores_import_back_exactly(camp: Engine, fmt: str) -> None:
    from annotation.imports.score_columns import export_scores

    data = HEAD + "1,A,mx,-3.25,false,=v9\n2,B,mx,1e-07,false,=v9\n1,B,judge,0.5,,\n"
    first = import_scores(camp, data.encode(), "c", filename="s.csv")
    import_campaign(camp, CAMPAIGN.encode(), "c2", filename="camp.csv")
    exported = export_scores(camp, "c", fmt)
    if fmt in ("csv", "tsv"):
        assert b"'=v9" in exported  # the spreadsheet formula guard, undone on import
    second = import_scores(camp, exported, "c2", filename=f"back.{fmt}")
    back = {m.name: m for m in second.metrics}
    assert set(back) == {"mx", "judge"}
    for a in first.metrics:
        b = back[a.name]
        pa, pb = parse_signature(a.signature), parse_signature(b.signature)
        assert (pa.name, pa.version, pa.higher_is_better) == (
            pb.name,
            pb.version,
            pb.higher_is_better,
        )
        assert stored_scores(camp, first.campaign_id, a.signature) == stored_scores(
            camp, second.campaign_id, b.signature
        )


def test_two_files_for_one_metric_at_once_store_one_signature(camp: Engine) -> None:
    """Two concurrent imports of different files for one metric name: the campaign row lock
    lets exactly one in, the other is refused (never two signatures for one name)."""
    import threading

    results: list[str] = []
    barrier = threading.Barrier(2)

    def run(name: str, value: float) -> None:
        barrier.wait()
        try:
            import_scores(camp, (HEAD + f"1,A,q,{value},,\n").encode(), "c", filename=name)
            results.append("ok")
        except CampaignFileError as exc:
            results.append(str(exc))

    threads = [threading.Thread(target=run, args=(f"{n}.csv", v)) for n, v in (("a", 1), ("b", 2))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results)[1] == "ok" and "already has metric 'q'" in sorted(results)[0]
    names = [m for m, _, _ in campaign_signatures(camp, 1)]
    assert names.count("q") == 1


def test_longest_name_version_and_file_name_fit_the_schema(camp: Engine) -> None:
    """The signature column is String(500) and PostgreSQL refuses longer values: the longest
    name (50), version (100) and a 300-character file name (kept to 150) still fit."""
    name, version, filename = "m" * 50, "v" * 100, "f" * 296 + ".csv"
    report = import_scores(camp, (HEAD + f"1,A,{name},0.5,,{version}\n").encode(), "c",
                           filename=filename)  # fmt: skip
    sig = report.metrics[0].signature
    assert len(sig) <= 500 and parse_signature(sig).file == filename[:150]
    assert parse_signature(sig).version == version


def test_too_long_version(camp: Engine) -> None:
    msg = refused(camp, HEAD + f"1,A,q,0.5,,{'v' * 101}\n")
    assert "row 1, column 'version': the version is 101 characters long" in msg


def test_assumed_direction_is_said(camp: Engine) -> None:
    report = import_scores(camp, b"item_id,system,metric,score\n1,A,q,0.5\n", "c", filename="s.csv")
    assert report.assumed_direction == ["q"]
    assert "No higher_is_better given for q: higher is better assumed" in report.summary()
