"""Span-mode judgments through annotation.judging.session: one annotation row per judgment, the
label and MQM score derived, undo/correction appended; the estimators read them."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session, undo
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.judging import log
from db.judging.annotator_stats import annotator_work
from db.reads.campaign import read_campaign
from db.schema.models import Annotation
from estimators.data.campaign import LabelKind
from tests.annotation.test_queue import make_campaign


def span(start: int, end: int, severity: str = "minor", category: str = "accuracy", **kw):
    return {"start": start, "end": end, "severity": severity, "category": category, **kw}


def _rows(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(
            select(
                Annotation.kind,
                Annotation.label,
                Annotation.score,
                Annotation.spans,
                Annotation.esa_score,
                Annotation.supersedes_id,
            ).order_by(Annotation.id)
        ).all()


def test_span_judgments_are_append_only_and_reach_the_estimators(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 1, mode="spans")
    queue_build.build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    text = v.slot.text  # "output of system 0 for item j with eight words"
    two = [span(0, 6, "minor", "fluency"), span(7, 9, "major", "accuracy/mistranslation")]
    v2 = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, spans=two)
    judging.submit(engine, a, v2.slot.assignment_id, v2.slot.claim_version, spans=[])
    # undo the "no errors" and correct it to one punctuation error
    v4 = undo.undo(engine, a)
    assert v4.slot.output_id == v2.slot.output_id
    punct = [span(len(text) - 5, len(text), "minor", "Fluency/Punctuation")]
    judging.submit(engine, a, v4.slot.assignment_id, v4.slot.claim_version, spans=punct)
    rows = _rows(engine)
    assert [(k, lab, sc) for k, lab, sc, *_ in rows] == [
        ("label", 0, -6.0),
        ("label", 1, 0.0),
        ("undo", None, None),
        ("label", 1, -0.1),
    ]
    assert rows[0][3] == [
        {"start": 0, "end": 6, "severity": "minor", "category": "fluency", "side": "target"},
        {
            "start": 7,
            "end": 9,
            "severity": "major",
            "category": "accuracy/mistranslation",
            "side": "target",
        },
    ]
    assert rows[1][3] == [] and rows[2][5] is not None
    data = read_campaign(engine, cid, [])
    first = data.first_judgments(LabelKind.LABEL)
    assert sorted(data.judgments.label[first]) == [0.0, 1.0]
    assert sorted(data.judgments.score[data.first_judgments(LabelKind.SCORE)]) == [-6.0, -0.1]


def test_span_mode_refusals_save_nothing(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1, mode="spans")
    queue_build.build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    held = (v.slot.assignment_id, v.slot.claim_version)
    cases = [
        ({"label": 1}, "derives the label"),
        ({}, "needs the error spans"),
        ({"spans": [span(0, 999)]}, "not inside the target"),
        ({"spans": [span(0, 3, category="vibes")]}, "'vibes' is not one"),
        ({"spans": [], "esa_score": 50}, "takes no overall score"),
    ]
    for kwargs, message in cases:
        with pytest.raises(session.InvalidJudgment, match=message):
            judging.submit(engine, a, *held, **kwargs)
    assert _rows(engine) == []
    # a binary campaign refuses spans
    bid = make_campaign(engine, 1, 1, name="b")
    queue_build.build_queue(engine, bid)
    b = create_annotator(engine, bid, "b").annotator_id
    w = session.next_view(engine, b)
    with pytest.raises(session.InvalidJudgment, match="does not take error spans"):
        judging.submit(engine, b, w.slot.assignment_id, w.slot.claim_version, label=1, spans=[])


def test_esa_score_and_configured_weights(engine: Engine) -> None:
    config = SpanConfig(categories=("adequacy", "fluency"), ask_esa=True)
    meta = {META_KEY: config.to_meta() | {"weights": {"major": 10.0}}}
    cid = make_campaign(engine, 2, 1, mode="spans", meta=meta)
    queue_build.build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    held = (v.slot.assignment_id, v.slot.claim_version)
    with pytest.raises(session.InvalidJudgment, match="asks for an overall score"):
        judging.submit(engine, a, *held, spans=[])
    with pytest.raises(session.InvalidJudgment, match="from 0 to 100"):
        judging.submit(engine, a, *held, spans=[], esa_score=101)
    omission = span(0, 0, "major", "adequacy", side="source")
    judging.submit(engine, a, *held, spans=[omission], esa_score=35.5)
    ((kind, label, score, spans, esa, _),) = _rows(engine)
    assert (kind, label, score, esa) == ("label", 0, -10.0, 35.5)
    assert spans[0]["side"] == "source" and spans[0]["start"] == spans[0]["end"] == 0
    with session_scope(engine) as s:
        assert [c.score for c in log.current_judgments(s, cid)] == [-10.0]


def test_attention_checks_are_judged_at_span_level(engine: Engine) -> None:
    """Marking the injected major edit as major passes; "no errors" fails; a major span
    somewhere else fails too (its derived label 0 would have passed the label rule)."""
    from db.schema.models import Assignment, AttentionCheck

    cid = make_campaign(engine, 30, 1, mode="spans", attention_rate=0.3)
    queue_build.build_queue(engine, cid, seed=4)
    with session_scope(engine) as s:
        checks = {
            a: (c.operations, c.degraded_text)
            for a, c in s.execute(
                select(Assignment.id, AttentionCheck).join(
                    AttentionCheck, AttentionCheck.id == Assignment.attention_check_id
                )
            )
        }
    assert checks
    who = {n: create_annotator(engine, cid, n).annotator_id for n in ("careful", "lazy", "wrong")}
    for name, aid in who.items():
        v = session.next_view(engine, aid)
        for _ in range(15):
            if v.slot is None:
                break
            spans: list[dict] = []
            if v.slot.assignment_id in checks:
                ops, shown = checks[v.slot.assignment_id]
                assert shown == v.slot.text
                major = next(o for o in ops if o.get("severity") == -5)
                s0, e0 = major["regions"][0]
                # "wrong": a major span on a word that no edit touched (if there is one)
                touched = {i for o in ops for a, b in o.get("regions", []) for i in range(a, b)}
                free = [i for i in range(len(shown)) if i not in touched and shown[i] != " "]
                if name == "careful":
                    spans = [span(s0, e0, "major")]
                elif name == "wrong" and free:
                    spans = [span(free[0], free[0] + 1, "major")]
            v = judging.submit(engine, aid, v.slot.assignment_id, v.slot.claim_version, spans=spans)
    with session_scope(engine) as s:
        work = {w.name: w for w in annotator_work(s, cid)}
    assert work["careful"].attention_answered > 0 and work["careful"].attention_pass_rate == 1.0
    assert work["lazy"].attention_answered > 0 and work["lazy"].attention_pass_rate == 0.0
    assert work["wrong"].attention_answered > 0 and work["wrong"].attention_pass_rate < 0.5


def test_span_settings_are_set_before_the_first_label_only(engine: Engine) -> None:
    from annotation.judging.span_judgments import (
        SettingsLocked,
        campaign_config,
        set_campaign_config,
    )

    cid = make_campaign(engine, 2, 1, mode="spans")
    queue_build.build_queue(engine, cid, seed=3)
    assert campaign_config(engine, cid) == SpanConfig()  # MQM core, WMT weights, no ESA
    custom = SpanConfig(categories=("meaning", "form"), ask_esa=True)
    set_campaign_config(engine, cid, custom)
    assert campaign_config(engine, cid) == custom
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    judging.submit(
        engine,
        a,
        v.slot.assignment_id,
        v.slot.claim_version,
        spans=[span(0, 6, "major", "meaning")],
        esa_score=10,
    )
    set_campaign_config(engine, cid, custom)  # unchanged: fine
    with pytest.raises(SettingsLocked, match="1 labels already"):
        set_campaign_config(engine, cid, SpanConfig())
    assert campaign_config(engine, cid) == custom


def test_spans_with_a_post_edit(engine: Engine) -> None:
    """spans_post_edit: the spans decide label and score; a changed post-edit is stored
    with its HTER, an untouched box is no post-edit, "no edit needed" stores HTER 0."""
    cid = make_campaign(engine, 3, 1, mode="spans_post_edit")
    queue_build.build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    edited = v.slot.text.replace("output", "result")
    v = judging.submit(
        engine,
        a,
        v.slot.assignment_id,
        v.slot.claim_version,
        spans=[span(0, 6, "major", "accuracy")],
        post_edit=edited,
    )
    v = judging.submit(
        engine, a, v.slot.assignment_id, v.slot.claim_version, spans=[], post_edit=v.slot.text
    )
    judging.submit(
        engine, a, v.slot.assignment_id, v.slot.claim_version, spans=[], no_edit_needed=True
    )
    with session_scope(engine) as s:
        rows = s.execute(
            select(
                Annotation.label, Annotation.score, Annotation.post_edit, Annotation.hter
            ).order_by(Annotation.id)
        ).all()
    assert rows[0][:3] == (0, -5.0, edited) and rows[0][3] == pytest.approx(1 / 10)
    assert rows[1] == (1, 0.0, None, None)
    assert rows[2][:2] == (1, 0.0) and rows[2][3] == 0.0


def test_annotation_export_carries_the_spans(engine: Engine) -> None:
    import csv
    import io
    import json

    from annotation.results.exports import export_annotations

    cid = make_campaign(engine, 2, 1, mode="spans", name="exp")
    queue_build.build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    marked = [span(0, 6, "major", "accuracy")]
    v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, spans=marked)
    judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, spans=[])
    rows = list(csv.DictReader(io.StringIO(export_annotations(engine, "exp", "csv").decode())))
    assert [json.loads(r["spans"]) for r in rows] == [[{**marked[0], "side": "target"}], []]
    assert [(r["label"], r["score"]) for r in rows] == [("0", "-5.0"), ("1", "0.0")]
