"""ESA^AI: importing AI error spans (CSV/JSONL/MQM TSV) on SQLite and PostgreSQL, all or
nothing, with the error naming file, row and column; the prefill the annotate page gets;
the setting log; the export's AI spans with their fate and each final span's origin."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from sqlalchemy import Engine, func, select
from typer.testing import CliRunner

import cli
from accounts.invites import create_annotator
from annotation.imports.ai_spans import import_ai_spans, prefill_setting, set_prefill
from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.ai_prefill import is_prefilled, prefill_spans, provenance
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import DEFAULT_CATEGORIES, SpanConfig
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from db.engine import get_engine, session_scope
from db.schema.admin_models import AISpan
from db.schema.models import Campaign, CampaignSettingChange, Item, Output, System
from formats.problems import CampaignFileError

# "é" as e + combining acute (2 code points), an emoji (1 code point, 2 UTF-16 units).
TEXTS = {
    ("s1", "A"): "Die Katze sitzt auf der Matte.",
    ("s1", "B"): "Le cafe\u0301 est 👍 bon.",
    ("s2", "A"): "Guten Morgen, alle zusammen.",
    ("s2", "B"): "Bonjour à tous.",
}
GOOD = (
    "item_id,system,start,end,severity,category,confidence,model\n"
    "s1,A,4,9,major,accuracy,0.9,xcomet\n"
    "s1,A,10,15,minor,Fluency/Grammar,,xcomet\n"
    "s1,B,3,8,minor,made-up,0.4,xcomet\n"  # "cafe\u0301" is 5 code points
    "s2,A,,,,,,xcomet\n"  # called clean
)


def _campaign(engine: Engine, name: str = "esa-ai") -> int:
    meta = {META_KEY: SpanConfig(ask_esa=True).to_meta()}
    with session_scope(engine) as s:
        camp = Campaign(name=name, mode="spans", show_metrics=False, meta=meta)
        s.add(camp)
        s.flush()
        systems = {n: System(campaign_id=camp.id, name=n) for n in ("A", "B")}
        items = {
            i: Item(campaign_id=camp.id, external_id=i, source=f"src {i}") for i in ("s1", "s2")
        }
        s.add_all([*systems.values(), *items.values()])
        s.flush()
        for (i, n), text in TEXTS.items():
            s.add(Output(item_id=items[i].id, system_id=systems[n].id, text=text))
        return camp.id


def _ai_rows(engine: Engine) -> int:
    with session_scope(engine) as s:
        return int(s.scalar(select(func.count()).select_from(AISpan)) or 0)


def _refused(engine: Engine, text: str, filename: str = "ai.csv") -> str:
    before, setting = _ai_rows(engine), prefill_setting(engine, 1)
    with pytest.raises(CampaignFileError) as err:
        import_ai_spans(engine, text.encode(), "esa-ai", source="m", filename=filename)
    assert _ai_rows(engine) == before and prefill_setting(engine, 1) == setting
    return str(err.value)


def test_import_stores_spans_and_the_prefill_setting(engine: Engine) -> None:
    cid = _campaign(engine)
    report = import_ai_spans(engine, GOOD.encode(), "esa-ai", source="xcomet-xl", filename="ai.csv")
    assert (report.spans, report.clean, report.outputs, report.campaign_outputs) == (3, 1, 3, 4)
    assert is_prefilled(engine, cid)
    with session_scope(engine) as s:
        oid = {
            (i, n): o
            for i, n, o in s.execute(
                select(Item.external_id, System.name, Output.id)
                .join(Output, Output.item_id == Item.id)
                .join(System, System.id == Output.system_id)
            )
        }
        log = s.scalars(select(CampaignSettingChange.key)).all()
    assert log == ["ai_prefill"]
    spans = prefill_spans(engine, oid[("s1", "A")], TEXTS[("s1", "A")], DEFAULT_CATEGORIES)
    assert [
        (TEXTS[("s1", "A")][p["start"] : p["end"]], p["severity"], p["category"]) for p in spans
    ] == [
        ("Katze", "major", "accuracy"),
        ("sitzt", "minor", "fluency"),
    ]
    assert all(p["ai_state"] == "unchecked" and p["ai"] for p in spans)
    (cafe,) = prefill_spans(engine, oid[("s1", "B")], TEXTS[("s1", "B")], DEFAULT_CATEGORIES)
    assert TEXTS[("s1", "B")][cafe["start"] : cafe["end"]] == "cafe\u0301"
    assert cafe["category"] == "other"  # not in the taxonomy
    assert prefill_spans(engine, oid[("s2", "A")], TEXTS[("s2", "A")], DEFAULT_CATEGORIES) == []
    set_prefill(engine, cid, False)
    assert not is_prefilled(engine, cid)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("s1,A,4,99,major,,,m", "row 2, column 'end': [4, 99) goes beyond the output (30"),
        ("s1,A,9,4,major,,,m", "row 2, column 'end': end 4 is not after start 9"),
        ("s1,A,4,4,major,,,m", "end 4 is not after start 4"),
        ("s1,A,4,9,fatal,,,m", "row 2, column 'severity': severity 'fatal' is not one of"),
        ("s9,A,4,9,major,,,m", "row 2, column 'item_id': the campaign has no output of item 's9'"),
        ("s1,C,4,9,major,,,m", "no output of item 's1' and system 'C'"),
        ("s1,A,6,12,minor,,,m", "row 2, column 'start': span [6, 12) overlaps [4, 9) of row 1"),
        ("s1,A,x,9,minor,,,m", "row 2, column 'start': 'start' is 'x', not a character offset"),
        ("s1,A,-1,9,minor,,,m", "'start' is -1"),
        ("s1,A,4,9,minor,,abc,m", "row 2, column 'confidence'"),
    ],
)
def test_a_bad_row_is_named_and_nothing_is_stored(engine: Engine, row: str, expected: str) -> None:
    _campaign(engine)
    head = "item_id,system,start,end,severity,category,confidence,model\ns1,A,4,9,major,,,m\n"
    message = _refused(engine, head + row + "\n")
    assert message.startswith("ai.csv") and expected in message, message


def test_bad_files_and_campaigns_are_refused(engine: Engine) -> None:
    cid = _campaign(engine)
    assert "has no column 'end'" in _refused(
        engine, "item_id,system,start,severity\ns1,A,1,minor\n"
    )
    assert "unknown column(s) 'score'" in _refused(engine, GOOD.replace("model", "score"))
    assert "header but no data rows" in _refused(engine, GOOD.splitlines()[0] + "\n")
    clean_and_span = GOOD + "s1,A,,,,,,x\n"
    assert "both called clean" in _refused(engine, clean_and_span)
    with pytest.raises(CampaignFileError, match="no campaign named 'nope'"):
        import_ai_spans(engine, GOOD.encode(), "nope", source="m", filename="ai.csv")
    # after the first label the prefill cannot change what annotators were shown
    import_ai_spans(engine, GOOD.encode(), "esa-ai", source="m", filename="ai.csv")
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "ana").annotator_id
    v = session.next_view(engine, a)
    judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, spans=[], esa_score=80.0)
    assert "has 1 labels already" in _refused(engine, GOOD)
    with pytest.raises(ValueError, match="labels already"):
        set_prefill(engine, cid, False)


def test_jsonl_and_mqm_tsv(engine: Engine) -> None:
    _campaign(engine)
    lines = [
        {"item_id": "s2", "system": "B", "start": 0, "end": 7, "severity": "minor"},
        {"item_id": "s1", "system": "B", "start": 11, "end": 12, "severity": "major", "model": "g"},
    ]
    report = import_ai_spans(
        engine, "\n".join(map(json.dumps, lines)).encode(), "esa-ai", source="g", filename="a.jsonl"
    )
    assert report.spans == 2
    head = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
    mqm = head + "A\td\t1\ts1\tr1\tsrc s1\tDie <v>Katze</v> sitzt auf der Matte.\tAccuracy\tMajor\n"
    mqm += "A\td\t1\ts1\tr2\tsrc s1\tDie Katze <v>sitzt</v> auf der Matte.\tFluency\tMinor\n"
    report = import_ai_spans(engine, mqm.encode(), "esa-ai", source="wmt", filename="m.tsv")
    assert (report.spans, report.outputs) == (1, 1)  # the second rater is left out
    assert any("second rater" in n for n in report.notes)
    wrong = mqm.replace("Matte.\t", "Matratze.\t")
    assert "column 'target': the target differs" in _refused(engine, wrong, "m.tsv")


def test_provenance_rule() -> None:
    ai = [
        {"start": 0, "end": 3, "severity": "major"},
        {"start": 5, "end": 9, "severity": "minor"},
        {"start": 12, "end": 15, "severity": "minor"},
        {"start": 20, "end": 22, "severity": "minor"},
    ]
    final = [
        {"start": 0, "end": 3, "severity": "major", "side": "target"},  # kept
        {"start": 5, "end": 9, "severity": "major", "side": "target"},  # severity edited
        {"start": 11, "end": 15, "severity": "minor", "side": "target"},  # extent edited
        {"start": 30, "end": 33, "severity": "minor", "side": "target"},  # new
        {"start": 1, "end": 1, "severity": "minor", "side": "source"},  # omission: new
    ]
    origins, fates = provenance(final, ai)
    assert origins == ["ai", "edited", "edited", "new", "new"]
    assert fates == ["kept", "edited", "edited", "deleted"]


def test_export_keeps_ai_and_final_spans(engine: Engine) -> None:
    cid = _campaign(engine)
    import_ai_spans(engine, GOOD.encode(), "esa-ai", source="xcomet-xl", filename="ai.csv")
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "ana").annotator_id
    v = session.next_view(engine, a)
    while v.slot is not None:
        final = []
        if v.slot.text == TEXTS[("s1", "A")]:  # keep Katze, drop sitzt, add Matte
            final = [
                {"start": 4, "end": 9, "severity": "major", "category": "accuracy"},
                {"start": 24, "end": 29, "severity": "minor", "category": "fluency"},
            ]
        v = judging.submit(
            engine, a, v.slot.assignment_id, v.slot.claim_version, spans=final, esa_score=50.0
        )
    table = pd.read_csv(io.BytesIO(export_annotations(engine, "esa-ai", "csv")))
    by_output = {
        (r.item_id, r.system): r for r in table.itertuples() if isinstance(r.ai_spans, str)
    }
    row = by_output[("s1", "A")]
    assert json.loads(row.span_origins) == ["ai", "new"]
    ai = json.loads(row.ai_spans)
    assert [(x["start"], x["fate"], x["source"]) for x in ai] == [
        (4, "kept", "xcomet-xl"),
        (10, "deleted", "xcomet-xl"),
    ]
    assert json.loads(by_output[("s1", "B")].ai_spans)[0]["fate"] == "deleted"
    assert json.loads(by_output[("s2", "A")].ai_spans) == []  # called clean, judged clean
    assert ("s2", "B") not in by_output  # no AI row at all for that output


def test_cli_import_ai_spans(sqlite_engine: Engine, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _campaign(sqlite_engine)
    monkeypatch.setenv("DATABASE_URL", sqlite_engine.url.render_as_string(hide_password=False))
    get_engine.cache_clear()
    good, bad = tmp_path / "ai.csv", tmp_path / "bad.tsv"
    good.write_text(GOOD)
    bad.write_text(GOOD.replace(",", "\t").replace("4\t9", "4\t90"))
    result = CliRunner().invoke(cli.app, ["import-ai-spans", "esa-ai", str(good), "--source", "x"])
    assert result.exit_code == 0, result.output
    assert "Imported 3 AI span(s)" in result.output and "pre-filled" in result.output
    result = CliRunner().invoke(cli.app, ["import-ai-spans", "esa-ai", str(bad), "--source", "x"])
    assert result.exit_code != 0
    assert "bad.tsv, row 1, column 'end': [4, 90) goes beyond" in result.output
    assert _ai_rows(sqlite_engine) == 4  # 3 spans and the "clean" row, unchanged
    get_engine.cache_clear()


@pytest.mark.parametrize(
    ("cells", "column"),
    [
        ("s1,A,4,9,major,accu\x00racy,0.9,xcomet", "category"),
        ("s1,A,4,9,major,accuracy,0.9,xco\x00met", "model"),
        ("s1\x00,A,4,9,major,accuracy,0.9,xcomet", "item_id"),
    ],
)
def test_a_nul_in_any_text_cell_is_refused_naming_row_and_column(
    engine: Engine, cells: str, column: str
) -> None:
    _campaign(engine)
    data = GOOD.replace("s1,A,10,15,minor,Fluency/Grammar,,xcomet", cells)
    with pytest.raises(CampaignFileError, match=f"row 2, column '{column}'.*NUL byte"):
        import_ai_spans(engine, data.encode(), "esa-ai", source="m", filename="ai.csv")
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(AISpan)) == 0


def test_a_lone_surrogate_in_a_jsonl_cell_is_refused(engine: Engine) -> None:
    _campaign(engine)
    rows = [{"item_id": "s1", "system": "A", "start": 4, "end": 9, "severity": "major",
             "category": "bad\ud800half"}]  # fmt: skip
    data = "\n".join(json.dumps(r) for r in rows).encode()
    with pytest.raises(CampaignFileError, match=r"row 1, column 'category'.*lone surrogate"):
        import_ai_spans(engine, data, "esa-ai", source="m", filename="ai.jsonl")
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(AISpan)) == 0
