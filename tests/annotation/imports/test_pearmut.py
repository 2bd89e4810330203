"""Pearmut campaigns in and out on SQLite and PostgreSQL: each shape of Pearmut's examples
imports (or is refused naming the item), is judged through the judging functions, exports
in Pearmut's layouts and re-imports to the same items, systems, spans and scores; a refused
file writes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from accounts.invites import create_annotator
from annotation.campaign import pretask
from annotation.campaign.guidelines import comment_box
from annotation.campaign.likert_scale import likert_scale
from annotation.imports.pearmut import import_pearmut
from annotation.judging import comparative, session, tutorial
from annotation.judging import save as judging
from annotation.judging import tutorial_checks as checks
from annotation.judging.screen_judgments import ScreenJudgment, submit_screen
from annotation.queue import build as queue_build
from annotation.results.pearmut_export import NotPearmutShaped, export_pearmut
from db.engine import session_scope
from db.judging.log_export import annotation_log
from db.schema.models import Campaign, Item, Output, System
from db.scores.ai_spans import campaign_spans
from formats.problems import CampaignFileError
from tests.support import pearmut_shapes as P

IMPORTED = [name for name, (_, ok) in P.SHAPES.items() if ok]
REFUSED = [name for name, (_, ok) in P.SHAPES.items() if not ok]


def _import(engine: Engine, name: str, **kw: Any):  # type: ignore[no-untyped-def]
    campaign = P.SHAPES[name][0]()
    return import_pearmut(engine, P.as_bytes(campaign), kw.pop("campaign", name),
                          filename=f"{name}.json", **kw)  # fmt: skip


def _judgment(config: dict[str, Any] | None, k: int, points: int = 0) -> dict[str, Any]:
    """A deterministic judgment of the k-th output judged (a span on every other one);
    ``config``: the campaign's span settings (None: a DA campaign); ``points``: a Likert
    scale's (its point index is sent)."""
    if config is None:
        return {"da_score": k % points} if points else {"da_score": float(40 + 7 * k % 60)}
    severity = "minor" if k % 3 else "major"
    spans = [{"start": 0, "end": 3, "severity": severity, "category": config["categories"][0]}]
    judged: dict[str, Any] = {"spans": spans if k % 2 else []}
    if config["ask_esa"]:
        judged["esa_score"] = float(50 + 5 * k % 50)
    return judged


def _judge(engine: Engine, cid: int, annotator: str) -> int:
    """Judge every output the annotator is given, with the page's own save functions."""
    with session_scope(engine) as s:
        meta = s.scalar(select(Campaign.meta).where(Campaign.id == cid))
    mode = meta.get("spans")
    points = len(meta["likert"]["labels"]) if "likert" in meta else 0
    queue_build.build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, annotator).annotator_id
    if "pretask_form" in meta:  # Pearmut's welcome questions: answered first
        pretask.save_answers(engine, a, {f["name"]: f.get("choices", ["x"])[0]
                                         for f in meta["pretask_form"]["fields"]})  # fmt: skip
    _pass_tutorial(engine, cid, a)
    n, v = 0, session.next_view(engine, a)
    while True:
        screen = comparative.screen(engine, a, v)
        if screen is not None:
            judged = [
                ScreenJudgment(
                    o.assignment_id, o.claim_version, k, **_judgment(mode, n + k, points)
                )
                for k, o in enumerate(screen.outputs)
                if o.assignment_id is not None
            ]
            n += len(judged)
            v = submit_screen(engine, a, judged, screen.size)
            continue
        if v.slot is None:
            return n
        n += 1
        v = judging.submit(
            engine, a, v.slot.assignment_id, v.slot.claim_version, **_judgment(mode, n, points)
        )


def _right_answer(item: tutorial.TutorialItem) -> dict[str, Any]:
    """An answer meeting every expectation of ``item`` (a score in its range, a span at
    the low end of each expected span's offsets)."""
    out: dict[str, Any] = {}
    if item.score is not None:
        out["score"] = sum(item.score) / 2
    if item.spans is not None:
        out["spans"] = []
        for want in item.spans:
            severity = want.get("severity") or "minor"
            if want.get("missing"):
                n = len(item.source)
                mark = {"start": n, "end": n, "side": "source"}
            else:
                start = want["start"][0]
                mark = {"start": start, "end": max(want["end"][0], start + 1)}
            out["spans"].append({**mark, "severity": severity, "category": "error"})
    return out


def _pass_tutorial(engine: Engine, cid: int, annotator_id: int) -> None:
    while (st := tutorial.status(engine, cid, annotator_id)) is not None and st.item:
        tutorial.answer(engine, cid, annotator_id, st.index, **_right_answer(st.item))


def _state(engine: Engine, cid: int) -> dict[str, Any]:
    """What must survive a round trip: items, systems, outputs, AI spans, judgments."""
    with session_scope(engine) as s:
        items = sorted(
            s.execute(
                select(Item.external_id, Item.source, Item.reference, Item.doc_id).where(
                    Item.campaign_id == cid
                )
            ).all()
        )
        systems = sorted(s.scalars(select(System.name).where(System.campaign_id == cid)))
        outputs = sorted(
            s.execute(
                select(Item.external_id, System.name, Output.text)
                .join(Output, Output.item_id == Item.id)
                .join(System, System.id == Output.system_id)
                .where(Item.campaign_id == cid)
            ).all()
        )
        ai = {
            k: [(x.start, x.end, x.severity, x.category) for x in v]
            for k, v in campaign_spans(s, cid).items()
        }
    judged = sorted(
        (
            r["annotator"],
            r["item_id"],
            r["system"],
            r["label"],
            r["spans"],
            r["esa_score"],
            r["da_score"],
        )
        for r in annotation_log(engine, cid)
        if r["kind"] == "label"
    )
    tut = tutorial.tutorial(engine, cid)
    checks = None if tut is None else (tut.items, tut.pass_needed)
    return {"items": items, "systems": systems, "outputs": outputs, "ai": ai, "judged": judged,
            "checks": checks}  # fmt: skip


@pytest.mark.parametrize("name", IMPORTED)
def test_each_shape_round_trips(sqlite_engine: Engine, name: str) -> None:
    _round_trip(sqlite_engine, name)


@pytest.mark.parametrize("name", ["esaai", "contrastive", "da"])
def test_round_trips_on_postgresql(pg_engine: Engine, name: str) -> None:
    _round_trip(pg_engine, name)


def _round_trip(engine: Engine, name: str) -> None:
    report = _import(engine, name)
    with session_scope(engine) as s:
        mode = s.scalar(select(Campaign.mode).where(Campaign.id == report.campaign_id))
        meta = s.scalar(select(Campaign.meta).where(Campaign.id == report.campaign_id))
    assert (mode == "da") == ("spans" not in meta)
    n = _judge(engine, report.campaign_id, "alice")
    assert n == report.outputs > 0
    out = export_pearmut(engine, name)
    lines = [json.loads(x) for x in out.log.decode().splitlines()]
    assert sum(len(x["annotation"][0]) for x in lines) == n
    again = import_pearmut(
        engine,
        out.campaign,
        f"{name}-again",
        filename="again.json",
        log=out.log,
        log_filename="again.jsonl",
    )
    assert again.judgments == n
    assert _state(engine, again.campaign_id) == _state(engine, report.campaign_id)
    # the campaign file itself comes back the same (layout, info, items, validation)
    assert json.loads(export_pearmut(engine, f"{name}-again").campaign) == json.loads(out.campaign)


def test_the_original_file_comes_back(sqlite_engine: Engine) -> None:
    original = P.tutorials()
    import_pearmut(sqlite_engine, P.as_bytes(original), "t", filename="t.json")
    assert json.loads(export_pearmut(sqlite_engine, "t").campaign) == original


def test_what_maps_where(sqlite_engine: Engine) -> None:
    r = _import(sqlite_engine, "contrastive")
    with session_scope(sqlite_engine) as s:
        camp = s.scalar(select(Campaign).where(Campaign.id == r.campaign_id))
        assert camp.mode == "spans" and camp.meta["spans"]["ask_esa"]
        assert camp.meta["comparative"]["on"] and camp.meta["document_order"]["on"]
        docs = dict(s.execute(select(Item.external_id, Item.doc_id)).all())
    assert docs == {"doc0_#_0": "doc0_#_0", "doc0_#_1": "doc0_#_0", "doc1_#_2": "doc1_#_2"}
    assert any("textfield" in n for n in r.not_imported)
    assert any("show_model_names" in n for n in r.not_imported)

    ai = _import(sqlite_engine, "esaai")
    with session_scope(sqlite_engine) as s:
        spans = campaign_spans(s, ai.campaign_id)
    assert [(x.start, x.end, x.severity) for x in spans[("doc0_#_0", "sysA")]] == [
        (4, 8, "minor"),
        (9, 15, "major"),
    ]  # end_i inclusive → [start, end)
    assert [x.start for x in spans[("doc0_#_1", "sysA")]] == [None]  # called clean

    t = _import(sqlite_engine, "tutorials")
    tut = tutorial.tutorial(sqlite_engine, t.campaign_id)
    assert tut is not None and [(i.score, i.silent) for i in tut.items] == [
        ((95, 100), False),
        ((75, 85), False),
        ((20, 40), False),
        ((70, 90), True),
    ]
    assert tut.pass_needed == 3  # 80 % of the three loud items, rounded up
    assert t.items == 3  # the tutorial items are not campaign items
    assert any("score_greaterthan of 1" in n for n in t.not_imported)
    assert any("tut_#_4" in n and "skippable" in n for n in t.not_imported)

    f = _import(sqlite_engine, "user_info_form")
    assert any("data_welcome: 2 question(s)" in n for n in f.not_imported)
    assert pretask.form(sqlite_engine, f.campaign_id) == {
        "intro": "",
        "fields": [
            {"name": "q1", "label": "Native language?", "type": "text", "required": False},
            {"name": "q2", "label": "Level?", "type": "choice", "required": False,
             "choices": ["A1", "C2"]},
        ],
    }  # fmt: skip

    lik = _import(sqlite_engine, "likert_custom_scales")
    assert likert_scale(sqlite_engine, lik.campaign_id) == {
        "labels": ["0", "1", "2", "3", "4", "5"],
        "keys": ["0", "1", "2", "3", "4", "5"],
    }
    assert any("'Adequacy' not asked" in n for n in lik.not_imported)
    ade = _import(sqlite_engine, "likert_custom_scales", campaign="ade", slider="Adequacy")
    assert likert_scale(sqlite_engine, ade.campaign_id) is None  # the 0–100 DA slider
    with pytest.raises(CampaignFileError, match="no slider 'Clarity'"):
        _import(sqlite_engine, "likert_custom_scales", campaign="x", slider="Clarity")
    assert comment_box(sqlite_engine, r.campaign_id) is False  # textfield "hidden"


@pytest.mark.parametrize("name", REFUSED)
def test_refused_shapes_say_why_and_write_nothing(engine: Engine, name: str) -> None:
    with pytest.raises(CampaignFileError) as err:
        _import(engine, name)
    assert {
        "multimodal": "'mock_audio'",
        "tutorial_only": "tutorial or check items",
    }[name] in str(err.value)
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(Campaign)) == 0


def test_a_bad_log_writes_nothing(engine: Engine) -> None:
    log = {
        "user_id": "u",
        "item_i": 0,
        "item": [P.esa()["data"][0][0][0]],
        "annotation": [
            {
                "sysA": {
                    "score": 70,
                    "error_spans": [
                        {"start_i": 3, "end_i": 400, "severity": "minor", "category": None}
                    ],
                }
            }
        ],
    }
    with pytest.raises(CampaignFileError, match=r"line 1.*not inside the output"):
        _import(engine, "esa", log=json.dumps(log).encode(), log_filename="l.jsonl")
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(Campaign)) == 0


def test_reset_markers_mask_earlier_judgments(sqlite_engine: Engine) -> None:
    item = P.da()["data"][0][0][0]
    entry = {"user_id": "u", "item_i": 0, "item": [item], "annotation": [{"sysA": {"score": 10}}]}
    lines = [
        entry,
        {"user_id": "u", "item_i": 0, "annotation": "__RESET__"},
        {**entry, "annotation": [{"sysA": {"score": 90}}]},
        {**entry, "user_id": "v"},
        {"user_id": "v", "annotation": "__RESET__"},
    ]
    log = "\n".join(json.dumps(x) for x in lines).encode()
    r = _import(sqlite_engine, "da", log=log, log_filename="l.jsonl")
    scores = [(x["annotator"], x["da_score"]) for x in annotation_log(sqlite_engine, r.campaign_id)]
    assert scores == [("u", 90.0)]


def test_binary_campaigns_have_no_pearmut_form(sqlite_engine: Engine) -> None:
    from tests.annotation.queue.test_queue import make_campaign

    make_campaign(sqlite_engine, 2, 2)
    with pytest.raises(NotPearmutShaped, match="binary"):
        export_pearmut(sqlite_engine, "c")


@pytest.mark.parametrize("protocol", ["ESA", "MQM"])
def test_a_native_campaign_exports_for_pearmut(sqlite_engine: Engine, protocol: str) -> None:
    """A campaign never seen by Pearmut (ESA; MQM without an overall score): one task of
    its documents, its judgments in the log, and the pair re-imports to the same outputs
    and judgments."""
    from annotation.imports.modes import esa_span_config
    from annotation.judging.spans import SpanConfig
    from tests.annotation.queue.test_queue import make_campaign

    config = esa_span_config() if protocol == "ESA" else SpanConfig()
    cid = make_campaign(sqlite_engine, 4, 2, mode="spans", meta={"spans": config.to_meta()})
    n = _judge(sqlite_engine, cid, "rater")
    out = export_pearmut(sqlite_engine, "c")
    assert json.loads(out.campaign)["info"]["protocol"] == protocol
    again = import_pearmut(
        sqlite_engine, out.campaign, "c2", filename="c.json", log=out.log, log_filename="c.jsonl"
    )
    assert again.judgments == n == 8
    before, after = _state(sqlite_engine, cid), _state(sqlite_engine, again.campaign_id)
    assert after["outputs"] == before["outputs"] and after["judged"] == before["judged"]


def test_the_tutorial_is_one_tandem_accepts(sqlite_engine: Engine) -> None:
    """The imported tutorial passes the rules of `cli.py tutorial` (a source, an output and
    what is expected per item, a pass mark in range): a block without a warning is a silent
    check."""
    c = P.tutorials()
    del c["data"][0][0][0]["validation"]["model-tutorial"]["warning"]
    r = import_pearmut(sqlite_engine, P.as_bytes(c), "t", filename="t.json")
    tut = tutorial.tutorial(sqlite_engine, r.campaign_id)
    assert tut is not None and tut.items[0].silent and tut.items[0].score == (95, 100)
    assert tutorial.set_tutorial(sqlite_engine, r.campaign_id, list(tut.items)) is not None


def _as_tutorial_file(raw: dict[str, Any], system: str) -> tutorial.TutorialItem:
    """The same Pearmut item, one output, read as a tutorial file (`cli.py tutorial`)."""
    one = {**raw, "tgt": {system: raw["tgt"][system]},
           "validation": {system: raw["validation"][system]}}  # fmt: skip
    (item,) = tutorial.parse_file(json.dumps([one]).encode(), "t.json")
    return item


def test_a_validation_item_grades_as_a_tutorial_file_would(engine: Engine) -> None:
    """An ESA campaign's validation item (a score range and an expected span with tolerant
    offsets) is the tutorial file's item, and an answer is graded the same: right inside
    the tolerances, wrong (with the file's reasons and the warning) outside them."""
    c = P.tutorials()
    raw = c["data"][0][0][1]  # tut_#_2: "walked" minor, score 75–85
    r = import_pearmut(engine, P.as_bytes(c), "t", filename="t.json")
    tut = tutorial.tutorial(engine, r.campaign_id)
    assert tut is not None
    filed = _as_tutorial_file(raw, "model-tutorial")
    assert tut.items[1] == filed
    assert filed.spans == ({"start": [7, 9], "end": [13, 15], "severity": "minor"},)

    def walked(start: int, end: int, severity: str = "minor") -> list[dict[str, Any]]:
        return [{"start": start, "end": end, "severity": severity, "category": "error"}]

    cases = [  # (score, spans, right?)
        (80, walked(9, 15), True),  # "walked" with 2 characters' tolerance either side
        (70, walked(8, 14), False),  # the score outside 75–85
        (80, walked(4, 15), False),  # the start outside 7–9
        (80, walked(8, 14, "major"), False),  # the wrong severity
        (80, [], False),  # the error not marked
    ]
    for k, (score, spans, ok) in enumerate(cases):
        a = create_annotator(engine, r.campaign_id, f"rater{k}").annotator_id
        assert tutorial.answer(engine, r.campaign_id, a, 0, **_right_answer(tut.items[0])).right
        given = tutorial.answer(engine, r.campaign_id, a, 1, score=score, spans=spans)
        assert given.right is ok, k
        assert list(given.problems) == checks.grade(filed, None, score, spans), k
        assert given.warning == "Mark 'walked' as minor." and not given.silent


HOSTILE = {  # a validation rule → what the refusal names
    "score backwards": ({"score": [90, 10]}, "validation score is [90, 10]"),
    "span outside": (
        {"score": [0, 10], "error_spans": [{"start_i": 90, "end_i": 95}]},
        "not inside the output",
    ),
    "severity": (
        {"error_spans": [{"start_i": 0, "end_i": 2, "severity": "fatal"}]},
        "severity 'fatal'",
    ),
    "span not an object": ({"error_spans": ["x"]}, "span 1 is not an object"),
    "spans not a list": ({"error_spans": {"start_i": 1}}, "not a list"),
    "score text": ({"score": "high"}, "not a score or a range"),
    "two rules": ([{"score": [1, 2]}, {"score": [3, 4]}], "2 rules"),
    "warning not text": ({"score": [1, 2], "warning": 5}, "warning is a int"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_validation_blocks_name_the_item(name: str) -> None:
    from formats.pearmut.campaign import read_pearmut_campaign

    rule, message = HOSTILE[name]
    c = P.tutorials()
    c["data"][0][0][1]["validation"] = {"model-tutorial": rule}
    with pytest.raises(CampaignFileError) as err:
        read_pearmut_campaign(P.as_bytes(c), "t.json")
    text = str(err.value)
    assert "task 1, document 1, item 2 ('tut_#_2'), system 'model-tutorial'" in text, text
    assert message in text, text
