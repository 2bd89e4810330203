"""MQM TSV (WMT's public MQM layout): import as a span campaign, export, round trip; the
real WMT21 TED en-de ratings are reproduced row for row."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, select

from annotation.imports.mqm import export_mqm_tsv, import_mqm_tsv
from db.engine import session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Annotation, Campaign, Item, Output, System
from estimators.data.campaign import LabelKind
from formats.mqm.tsv import COLUMNS, mark, unmark
from formats.problems import CampaignFileError
from tests.conftest import shared_file

HEADER = "\t".join(COLUMNS) + "\n"


def tsv(*rows: tuple[str, ...]) -> bytes:
    return (HEADER + "".join("\t".join(r) + "\n" for r in rows)).encode()


A, B = ("sysA", "talk.1", "1", "7"), ("sysB", "talk.1", "1", "7")
SRC, OUT = "Hello world.", "Hallo Welt."
SMALL = tsv(
    (*A, "r1", SRC, "Hallo <v>Welt</v>.", "Accuracy/Mistranslation", "Major"),
    (*A, "r1", SRC, "Hallo Welt<v>.</v>", "Fluency/Punctuation", "Minor"),
    (*A, "r1", "Hello <v>world</v>.", OUT, "Accuracy/Omission", "Minor"),
    (*A, "r2", SRC, OUT, "No-error", "No-error"),
    (*B, "r1", SRC, "Servus.", "Non-translation!", "Major"),
    ("sysB", "talk.1", "2", "8", "r1", "Bye.", "<v>Tschüss</v>.", "Style/Awkward", "Neutral"),
)


def _judgments(engine: Engine, cid: int) -> dict[tuple[str, str, str], tuple]:
    with session_scope(engine) as s:
        from db.schema.models import Annotator

        rows = s.execute(
            select(System.name, Item.external_id, Annotator.name, Annotation.label,
                   Annotation.score, Annotation.spans)
            .join(Output, Output.id == Annotation.output_id)
            .join(Item, Item.id == Output.item_id)
            .join(System, System.id == Output.system_id)
            .join(Annotator, Annotator.id == Annotation.annotator_id)
            .where(Item.campaign_id == cid)
        ).all()  # fmt: skip
    return {(a, b, c): (lab, sc, sp) for a, b, c, lab, sc, sp in rows}


def test_import_small_file(engine: Engine) -> None:
    report = import_mqm_tsv(engine, SMALL, "mqm", filename="small.tsv")
    assert (report.judgments_added, report.annotators, report.systems_added) == (4, 2, 2)
    got = _judgments(engine, report.campaign_id)
    assert got[("sysA", "7", "r1")][:2] == (0, -6.1)
    assert got[("sysA", "7", "r1")][2] == [
        {"start": 6, "end": 10, "severity": "major", "category": "Accuracy/Mistranslation",
         "side": "target"},
        {"start": 6, "end": 11, "severity": "minor", "category": "Accuracy/Omission",
         "side": "source"},
        {"start": 10, "end": 11, "severity": "minor", "category": "Fluency/Punctuation",
         "side": "target"},
    ]  # fmt: skip
    assert got[("sysA", "7", "r2")] == (1, 0.0, [])
    assert got[("sysB", "7", "r1")][:2] == (0, -25.0)
    assert got[("sysB", "8", "r1")] == (1, 0.0, [])  # Neutral: weight 0, not kept
    with session_scope(engine) as s:
        camp = s.get(Campaign, report.campaign_id)
        assert camp.mode == "spans"
        assert camp.meta["spans"]["categories"] == ["Accuracy", "Fluency", "Non-translation!"]
    again = export_mqm_tsv(engine, report.campaign_id)
    second = import_mqm_tsv(engine, again, "mqm2", filename="again.tsv")
    assert _judgments(engine, second.campaign_id) == got
    assert export_mqm_tsv(engine, second.campaign_id) == again


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ((("a", "d", "1", "1", "r", "s", "t <v>x", "Other", "Minor"),), "not closed"),
        ((("a", "d", "1", "1", "r", "s", "t x</v>", "Other", "Minor"),), "without an opening"),
        ((("a", "d", "1", "1", "r", "<v>s</v>", "<v>t</v>", "Other", "Minor"),), "both target"),
        ((("a", "d", "1", "1", "r", "s", "<v>t</v>", "Other", "Huge"),), "severity 'huge'"),
        ((("a", "d", "1", "1", "r", "s", "t", "Other"),), "has 8 fields"),
        ((("a", "d", "1", "1", "", "s", "t", "Other", "Minor"),), "'rater' is empty"),
        (
            (
                ("a", "d", "1", "1", "r", "s", "<v>t</v>", "Other", "Minor"),
                ("a", "d", "1", "1", "r", "s", "u", "Other", "Minor"),
            ),
            "target differs from row 1",
        ),
    ],
)
def test_bad_files_name_the_row_and_write_nothing(
    engine: Engine, rows: tuple, message: str
) -> None:
    with pytest.raises(CampaignFileError, match=message) as err:
        import_mqm_tsv(engine, tsv(*rows), "bad", filename="bad.tsv", strict=True)
    assert "bad.tsv, row" in str(err.value)
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(Campaign)) == 0


def test_comment_column_may_be_left_out_of_a_row(engine: Engine) -> None:
    rows = (
        "\t".join([*COLUMNS, "comment"]) + "\n"
        "a\td\t1\t1\tr\ts\t<v>t</v> u\tOther\tMajor\tnot a word\n"
        "a\td\t1\t1\tr\ts\tt <v>u</v>\tOther\tMinor\n"
    )
    cid = import_mqm_tsv(engine, rows.encode(), "c", filename="c.tsv").campaign_id
    ((_, (label, score, spans)),) = _judgments(engine, cid).items()
    assert (label, score, len(spans)) == (0, -6.0, 2)


def test_header_and_name_checks(engine: Engine) -> None:
    with pytest.raises(CampaignFileError, match="lacks column"):
        import_mqm_tsv(engine, b"system\tdoc\n", "x", filename="h.tsv")
    import_mqm_tsv(engine, SMALL, "x", filename="s.tsv")
    with pytest.raises(CampaignFileError, match="already exists"):
        import_mqm_tsv(engine, SMALL, "x", filename="s.tsv")


text_st = st.text(
    alphabet=st.characters(
        codec="utf-8", exclude_categories=("Cs",), exclude_characters="\t\r\n\x00"
    ),
    min_size=1,
    max_size=30,
).filter(lambda t: t.strip() and "<v>" not in t.lower() and "</v>" not in t.lower())


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(target=text_st, source=text_st, data=st.data())
def test_mark_unmark_and_export_round_trip(
    sqlite_engine: Engine, target: str, source: str, data: st.DataObject
) -> None:
    """Any text without tabs/line breaks (formula-like, RTL, U+2028, quotes) survives
    marking, export and re-import with its span offsets."""
    a = data.draw(st.integers(0, len(target) - 1))
    b = data.draw(st.integers(a + 1, len(target)))
    assert unmark(mark(target, a, b)) == (target, (a, b))
    name = f"h{time.perf_counter_ns()}"
    rows = tsv(("=sys", "d", "1", "-1", "+r", source, mark(target, a, b), "@cat", "Major"))
    cid = import_mqm_tsv(sqlite_engine, rows, name, filename="h.tsv").campaign_id
    out = export_mqm_tsv(sqlite_engine, cid)
    cid2 = import_mqm_tsv(sqlite_engine, out, name + "b", filename="o.tsv").campaign_id
    assert _judgments(sqlite_engine, cid2) == _judgments(sqlite_engine, cid)
    ((key, (label, score, spans)),) = _judgments(sqlite_engine, cid2).items()
    assert key == ("=sys", "-1", "+r") and (label, score) == (0, -5.0)
    assert (spans[0]["start"], spans[0]["end"]) == (a, b)
    for line in out.decode().split("\n")[1:]:
        assert not line.startswith(("=", "+", "-", "@"))


def wmt_csv_as_mqm_tsv(rows: list[dict[str, str]]) -> bytes:
    """The shared WMT21 TED CSV (one row per segment, errors in ``errors_json``) back in the
    MQM TSV layout it was built from: one row per error, the span marked at its first
    occurrence in the output; an empty span (omissions) marked as an empty <v></v> at the
    start of the source (its position was not kept); an error-free segment as No-error."""
    out = io.StringIO()
    out.write(HEADER)
    for r in rows:
        head = [r["system"], r["doc"], r["seg_id"], r["seg_id"], r["rater"]]
        errors = json.loads(r["errors_json"])
        if not errors:
            out.write("\t".join([*head, r["source"], r["output"], "No-error", "No-error"]) + "\n")
        for e in errors:
            source, target = r["source"], r["output"]
            if e["span"]:
                i = target.index(e["span"])
                target = mark(target, i, i + len(e["span"]))
            else:
                source = mark(source, 0, 0)
            out.write("\t".join([*head, source, target, e["category"], e["severity"]]) + "\n")
    return out.getvalue().encode()


@pytest.mark.slow
def test_wmt21_ted_ende_reproduced(engine: Engine) -> None:
    path = shared_file("wmt21-ted-mqm/wmt21_ted_ende.csv")
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6877
    started = time.perf_counter()
    report = import_mqm_tsv(engine, wmt_csv_as_mqm_tsv(rows), "wmt21", filename="mqm.tsv")
    seconds = time.perf_counter() - started
    assert report.judgments_added == 6877 and report.census
    data = read_campaign(engine, report.campaign_id, [])
    j = data.judgments
    pairs = zip(j.system, j.item, strict=True)
    key = {(data.systems[s], data.item_ids[i]): n for n, (s, i) in enumerate(pairs)}
    for r in rows:
        n = key[(r["system"], r["seg_id"])]
        assert j.score[n] == float(r["human_score"]), r
        assert j.label[n] == int(r["human_label_binary"]), r
    assert len(data.first_judgments(LabelKind.LABEL)) == 6877
    with session_scope(engine) as s:
        n_spans = sum(len(sp) for sp in s.scalars(select(Annotation.spans)))
    assert n_spans == sum(len(json.loads(r["errors_json"])) for r in rows) == 3824
    # the per-system figures the estimators start from equal the published statistics
    stats = shared_file("wmt21-ted-mqm/stats_ende.csv")
    with stats.open(newline="", encoding="utf-8") as f:
        published = {r["system"]: r for r in csv.DictReader(f)}
    first = data.first_judgments(LabelKind.LABEL)
    for k, system in enumerate(data.systems):
        mine = first[j.system[first] == k]
        assert len(mine) == 529
        # (published to 4 decimals)
        rate, penalty = (
            float(published[system][c]) for c in ("binary_rate_no_major", "mean_mqm_penalty")
        )
        assert float(j.label[mine].mean()) == pytest.approx(rate, abs=5e-5)
        assert -float(j.score[mine].mean()) == pytest.approx(penalty, abs=5e-5)
    print(f"WMT21 TED en-de MQM TSV import ({engine.dialect.name}): {seconds:.2f} s")


def test_cli_import_and_export(sqlite_engine: Engine, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    import cli
    import commands.base

    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    monkeypatch.setattr(commands.base, "open_engine", lambda: sqlite_engine)
    (tmp_path / "in.tsv").write_bytes(SMALL)
    runner = CliRunner()
    done = runner.invoke(cli.app, ["import-mqm", str(tmp_path / "in.tsv"), "--campaign", "c"])
    assert done.exit_code == 0 and "4 judgments by 2 annotator(s)" in done.output
    again = runner.invoke(cli.app, ["import-mqm", str(tmp_path / "in.tsv"), "--campaign", "c"])
    assert again.exit_code == 1 and "already exists" in again.output
    out = tmp_path / "out.tsv"
    done = runner.invoke(cli.app, ["export-mqm", "--campaign", "c", "--out", str(out)])
    assert done.exit_code == 0 and "Span F1 between annotators on 1 outputs" in done.output
    assert out.read_bytes().count(b"\n") == 1 + 4 + 2  # header, 4 spans, 2 error-free


def test_calibration_uses_the_derived_label(engine: Engine) -> None:
    """ρ/η of a metric in a span campaign are counted against the label derived from the
    spans (adequate = no major span)."""
    from annotation.results.calibration import campaign_calibration
    from db.schema.models import MetricScore

    cid = import_mqm_tsv(engine, SMALL, "cal", filename="s.tsv").campaign_id
    # derived labels: sysA seg 7 → r1 0 (first judgment in arrival order may be r2: 1);
    # sysB seg 7 → 0 (non-translation); sysB seg 8 → 1 (Neutral only)
    data = read_campaign(engine, cid, [])
    first = data.first_judgments(LabelKind.LABEL)
    truth = {
        (data.systems[data.judgments.system[n]], data.item_ids[data.judgments.item[n]]): int(
            data.judgments.label[n]
        )
        for n in first
    }
    score = {("sysA", "7"): 80.0, ("sysB", "7"): 20.0, ("sysB", "8"): 70.0}
    with session_scope(engine) as s:
        for (system, item), value in score.items():
            oid = s.scalar(
                select(Output.id)
                .join(Item, Item.id == Output.item_id)
                .join(System, System.id == Output.system_id)
                .where(Item.campaign_id == cid, Item.external_id == item, System.name == system)
            )
            s.add(MetricScore(output_id=oid, metric="chrf", signature="chrf|t", value=value))
    data = read_campaign(engine, cid, ["chrf|t"])
    cal, _ = campaign_calibration(data, "chrf|t", threshold=50.0)
    o = cal.overall
    positive = {k for k, v in score.items() if v >= 50.0}
    assert (o.tp, o.fn, o.tn, o.fp) == (
        sum(truth[k] == 1 and k in positive for k in truth),
        sum(truth[k] == 1 and k not in positive for k in truth),
        sum(truth[k] == 0 and k not in positive for k in truth),
        sum(truth[k] == 0 and k in positive for k in truth),
    )
    assert truth[("sysB", "7")] == 0 and truth[("sysB", "8")] == 1
    assert o.tn == 1 and o.tp >= 1  # sysB 7: non-translation, low chrF → a true negative
