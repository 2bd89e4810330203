"""Comparative error spans (cESA) on SQLite and PostgreSQL: every output of a screen saved
with its own spans and ESA score in one transaction, each label and MQM score derived as
on the single-output span page, all or nothing, undo of the screen (the spans come back for
a correction), and the position bias read from the derived labels."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.judging import comparative, session, span_judgments
from annotation.judging.save import MAX_COMMENT
from annotation.judging.spans import SpanConfig
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from db.engine import session_scope
from db.schema.models import Annotation, Campaign
from tests.annotation.queue.test_queue import make_campaign

WORD = (10, 16)  # "system" in "output of system k for item j with eight words"


def setup(engine: Engine, ask_esa: bool = True, n_items: int = 4) -> tuple[int, int]:
    cid = make_campaign(engine, n_items, 3, mode="spans")
    span_judgments.set_campaign_config(engine, cid, SpanConfig(ask_esa=ask_esa))
    comparative.set_comparative(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=3)
    return cid, create_annotator(engine, cid, "ann").annotator_id


def screen(engine: Engine, ann: int) -> comparative.Screen:
    shown = comparative.screen(engine, ann, session.next_view(engine, ann))
    assert shown is not None
    return shown


def span(severity: str, category: str = "accuracy") -> dict:
    return {"start": WORD[0], "end": WORD[1], "severity": severity, "category": category,
            "side": "target"}  # fmt: skip


def labels(engine: Engine, cid: int) -> list[Annotation]:
    with session_scope(engine) as s:
        return list(s.scalars(select(Annotation).order_by(Annotation.id)))


def test_screen_of_spans_saved_whole_with_derived_labels(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = screen(engine, ann)
    assert shown.size == 3
    judged = {
        0: {"spans": [span("major")], "esa_score": 20.0},
        1: {"spans": [span("minor", "fluency")], "esa_score": 80.0},
        2: {"spans": [], "esa_score": 100.0},
    }
    view = comparative.submit(engine, ann, shown, judged, seconds=6.0)
    assert view.notice is None and view.progress.mine_judged == 3
    rows = labels(engine, cid)
    assert [(r.screen_position, r.screen_size, r.label, r.esa_score, r.seconds) for r in rows] == [
        (0, 3, 0, 20.0, 2.0), (1, 3, 1, 80.0, 2.0), (2, 3, 1, 100.0, 2.0)]  # fmt: skip
    assert [r.score for r in rows] == [-5.0, -1.0, 0.0]  # WMT weights: major 5, minor 1
    assert [len(r.spans) for r in rows] == [1, 1, 0]
    assert [r.assignment_id for r in rows] == [o.assignment_id for o in shown.outputs]
    assert rows[1].spans[0]["category"] == "fluency"


def test_one_bad_output_saves_nothing(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = screen(engine, ann)
    good = {k: {"spans": [], "esa_score": 50.0} for k in range(3)}
    for bad, match in (
        ({"spans": [span("major")]}, "asks for an overall score"),
        ({"spans": [span("fatal")], "esa_score": 10.0}, "severity"),
        ({"spans": [], "esa_score": 101.0}, "from 0 to 100"),
        ({"label": 1, "spans": [], "esa_score": 1.0}, "derives the label"),
    ):
        with pytest.raises(session.InvalidJudgment, match=match):
            comparative.submit(engine, ann, shown, good | {2: bad})
    assert labels(engine, cid) == []
    assert screen(engine, ann) == shown  # still held


def test_no_esa_score_when_the_campaign_asks_none(engine: Engine) -> None:
    cid, ann = setup(engine, ask_esa=False)
    shown = screen(engine, ann)
    scored = {k: {"spans": [], "esa_score": 5.0} for k in range(3)}
    with pytest.raises(session.InvalidJudgment, match="takes no overall score"):
        comparative.submit(engine, ann, shown, scored)
    comparative.submit(engine, ann, shown, {k: {"spans": []} for k in range(3)})
    assert [(r.label, r.esa_score) for r in labels(engine, cid)] == [(1, None)] * 3


def test_undo_brings_the_screen_and_its_spans_back(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = screen(engine, ann)
    judged = {k: {"spans": [span("critical")] if k == 1 else [], "esa_score": 40.0}
              for k in range(3)}  # fmt: skip
    comparative.submit(engine, ann, shown, judged)
    view = comparative.undo_screen(engine, ann)
    again = comparative.screen(engine, ann, view)
    assert again is not None and [o.text for o in again.outputs] == [o.text for o in shown.outputs]
    back = [span_judgments.undone_spans(engine, ann, o.assignment_id) for o in again.outputs]
    assert [len(b) for b in back] == [0, 1, 0] and back[1][0]["severity"] == "critical"
    comparative.submit(engine, ann, again, {k: {"spans": [], "esa_score": 90.0} for k in range(3)})
    current = [r for r in labels(engine, cid) if r.kind == "label"][-3:]
    assert [(r.label, r.esa_score) for r in current] == [(1, 90.0)] * 3


def test_position_bias_reads_the_derived_labels(engine: Engine) -> None:
    cid, ann = setup(engine, ask_esa=False, n_items=8)
    for _ in range(8):  # a major error on the first place only: derived labels 0, 1, 1
        shown = screen(engine, ann)
        marked = {k: {"spans": [span("major")] if k == 0 else []} for k in range(3)}
        comparative.submit(engine, ann, shown, marked)
    res = comparative.position_bias(engine, cid)
    assert res is not None and res.n_screens == 8 and res.size == 3
    assert res.mean == (0.0, 1.0, 1.0)
    assert res.detected


def test_each_outputs_comment_is_stored_and_exported_with_its_judgment(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = screen(engine, ann)
    judged = {0: {"spans": [], "esa_score": 90.0, "comment": "  a name left in English "},
              1: {"spans": [span("major")], "esa_score": 30.0, "comment": ""},
              2: {"spans": [], "esa_score": 70.0}}  # fmt: skip
    comparative.submit(engine, ann, shown, judged)
    rows = labels(engine, cid)
    assert [(r.screen_position, r.comment) for r in rows] == [
        (0, "a name left in English"), (1, None), (2, None)]  # fmt: skip
    with session_scope(engine) as s:
        name = s.get(Campaign, cid).name
    exported = [json.loads(line) for line in export_annotations(engine, name, "jsonl").splitlines()]
    assert [(r["screen_position"], r["comment"]) for r in exported] == [
        (0, "a name left in English"), (1, None), (2, None)]  # fmt: skip


def test_a_bad_comment_on_one_output_saves_none_of_the_screen(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = screen(engine, ann)
    good = {k: {"spans": [], "esa_score": 50.0} for k in range(3)}
    for comment, match in (("a\x00b", "output 3: the comment contains a NUL"),
                           ("x" * (MAX_COMMENT + 1), "output 3: the comment is")):  # fmt: skip
        bad = good | {2: {"spans": [], "esa_score": 50.0, "comment": comment}}
        with pytest.raises(session.InvalidJudgment, match=match):
            comparative.submit(engine, ann, shown, bad)
    assert labels(engine, cid) == []
    assert screen(engine, ann) == shown  # still held
