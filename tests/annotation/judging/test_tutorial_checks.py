"""annotation.judging.tutorial_checks and the tutorial's gate: answers graded against a score
range, spans with tolerant offsets and severities (one to one), an omission (a mark in the
source or a span over ``[missing]``), a label; and no action of an annotator gets around an
unpassed tutorial, whatever page or call makes it."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Engine, func, select

from accounts.invites import create_annotator
from annotation.judging import save, session, tutorial
from annotation.judging.tutorial_checks import grade, match
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation
from tests.annotation.queue.test_queue import make_campaign

OUT = "The dog walked outside."
WALKED = {"start": [8, 9], "end": [14, 15], "severity": "minor"}


def _item(**kw) -> tutorial.TutorialItem:  # type: ignore[no-untyped-def]
    return tutorial.TutorialItem("Der Hund lief raus.", kw.pop("output", OUT), None, "e", **kw)


def _span(start: int, end: int, severity: str = "minor", side: str = "target") -> dict:  # type: ignore[type-arg]
    return {"start": start, "end": end, "severity": severity, "category": "x", "side": side}


def test_score_range_and_tolerant_spans() -> None:
    it = _item(score=(75.0, 85.0), spans=(WALKED,))
    assert grade(it, score=80, spans=[_span(8, 14)]) == []
    assert grade(it, score=80, spans=[_span(9, 15)]) == []  # within the tolerances
    assert grade(it, score=85, spans=[_span(8, 14)]) == []  # the range is inclusive
    wrong = "the score should be from 75 to 85, not 40"
    assert grade(it, score=40, spans=[_span(8, 14)]) == [wrong]
    assert grade(it, score=None, spans=[_span(8, 14)])[0].endswith("none was given")
    assert grade(it, score=80, spans=[_span(4, 14)]) == [
        "an error on “walked” (minor) was not marked",
        "1 error span(s) marked beyond the expected ones",
    ]
    assert grade(it, score=80, spans=[_span(8, 14, "major")])[0].startswith("an error on")
    assert grade(it, score=80, spans=[_span(8, 14), _span(15, 22)]) == [
        "1 error span(s) marked beyond the expected ones"
    ]
    no_errors = _item(score=(100.0, 100.0), spans=())
    assert grade(no_errors, score=100, spans=[]) == []
    assert grade(no_errors, score=100, spans=[_span(0, 3)]) == [
        "1 error span(s) marked where none was expected"
    ]


def test_matching_is_one_to_one_and_maximal() -> None:
    wide = {"start": [0, 8], "end": [3, 14], "severity": None}
    narrow = {"start": [8, 8], "end": [14, 14], "severity": None}
    # greedy would give the wide expectation the only span fitting the narrow one
    assert match([_span(8, 14), _span(0, 3)], [wide, narrow], OUT) == [1, 0]
    assert match([_span(8, 14)], [narrow, narrow], OUT) in ([0, None], [None, 0])


def test_omissions_and_severity() -> None:
    it = _item(output="The walked. [MISSING]", spans=({"missing": True, "severity": "major"},))
    assert grade(it, spans=[_span(3, 3, "major", "source")]) == []  # a mark in the source
    assert grade(it, spans=[_span(12, 21, "major")]) == []  # the [missing] marker
    assert grade(it, spans=[_span(12, 21, "critical")]) == []  # critical is scored as major
    assert grade(it, spans=[_span(12, 21, "minor")])[0] == "an omission (major) was not marked"
    assert grade(it, spans=[_span(4, 10, "major")])[0] == "an omission (major) was not marked"
    label = tutorial.TutorialItem("s", "o", 0, "e")
    assert grade(label, label=0) == [] and grade(label, label=1) == ["the output is inadequate"]


ESA = [
    {"src": "Der Hund lief raus.", "tgt": OUT,
     "validation": {"warning": "Mark walked; 75-85.", "score": [75, 85],
                    "error_spans": [{"start_i": [8, 9], "end_i": [13, 14], "severity": "minor"}]}},
    {"src": "Die Sonne.", "tgt": "The sun.", "validation": {"score": [90, 100], "error_spans": []}},
]  # fmt: skip


def test_an_esa_tutorial_with_a_silent_check(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1, mode="spans")
    items = tutorial.parse_file(json.dumps(ESA).encode(), "esa.json")
    tut = tutorial.set_tutorial(engine, cid, items)
    assert tut is not None and tut.loud == (0,) and tut.pass_needed == 1
    assert "1 silent check(s)" in tut.rule_text
    ann = create_annotator(engine, cid, "ana").annotator_id
    fb = tutorial.answer(engine, cid, ann, 0, score=40, spans=[_span(8, 14)])
    assert not fb.right and fb.warning == "Mark walked; 75-85." and fb.problems
    assert fb.given == "score 40 · errors: “walked” (minor)"
    fb = tutorial.answer(engine, cid, ann, 1, score=20, spans=[])  # the silent check, wrong
    assert fb.silent and fb.outcome == "retry" and fb.score == 0 and fb.total == 1
    fb = tutorial.answer(engine, cid, ann, 0, score=80, spans=[_span(8, 14)])
    assert fb.right and fb.outcome is None
    fb = tutorial.answer(engine, cid, ann, 1, score=95, spans=[])
    assert fb.outcome == "passed"
    assert tutorial.results(engine, cid) == {ann: "passed (attempt 2, 1/1) · silent checks 1/2"}
    rows = tutorial.answer_rows(engine, cid)
    assert [(r["attempt"], r["item"], r["kind"], r["right"]) for r in rows] == [
        (1, 1, "tutorial", False), (1, 2, "silent check", False),
        (2, 1, "tutorial", True), (2, 2, "silent check", True),
    ]  # fmt: skip
    assert rows[0]["problems"] == "the score should be from 75 to 85, not 40"
    assert json.loads(rows[2]["spans"])[0]["start"] == 8
    with pytest.raises(tutorial.TutorialError, match="not inside"):  # checked like a judgment's
        tutorial.answer(engine, cid, create_annotator(engine, cid, "bo").annotator_id, 0,
                        score=80, spans=[_span(8, 99)])  # fmt: skip


def test_items_must_fit_the_screen(engine: Engine) -> None:
    da = make_campaign(engine, 2, 1, name="da", mode="da")
    with pytest.raises(tutorial.TutorialError, match="checks a score"):
        tutorial.set_tutorial(engine, da, [tutorial.TutorialItem("s", "o", 1, "e")])
    tutorial.set_tutorial(engine, da, [_item(score=(10.0, 30.0))])
    binary = make_campaign(engine, 2, 1, name="bin")
    with pytest.raises(tutorial.TutorialError, match="checks a label"):
        tutorial.set_tutorial(engine, binary, [_item(score=(10.0, 30.0))])
    spans = make_campaign(engine, 2, 1, name="sp", mode="spans")
    with pytest.raises(tutorial.TutorialError, match="not a label"):
        tutorial.set_tutorial(engine, spans, [tutorial.TutorialItem("s", "o", 1, "e")])


def test_no_action_gets_around_the_tutorial(engine: Engine) -> None:
    """A page opened before the tutorial was set holds a claimed item: its save, skip and a
    fresh view are refused (nothing written) until the tutorial is passed; after two failed
    attempts they stay refused, with the study's words."""
    cid = make_campaign(engine, 3, 1)
    queue_build.build_queue(engine, cid, seed=1)
    ana, bo = (create_annotator(engine, cid, n).annotator_id for n in ("ana", "bo"))
    view = session.next_view(engine, ana)  # the page is open, an item held
    held = view.slot
    assert held is not None
    items = [tutorial.TutorialItem("s", "o", 1, "Right.")]
    tutorial.set_tutorial(engine, cid, items)
    with pytest.raises(session.TutorialPending, match="Finish the tutorial"):
        save.submit(engine, ana, held.assignment_id, held.claim_version, label=1)
    with pytest.raises(session.TutorialPending):
        save.skip(engine, ana, held.assignment_id, held.claim_version, "Other")
    with pytest.raises(session.TutorialPending):
        session.next_view(engine, ana)
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(Annotation)) == 0
    assert tutorial.answer(engine, cid, ana, 0, 1).outcome == "passed"
    after = save.submit(engine, ana, held.assignment_id, held.claim_version, label=1)
    assert after.notice is None
    for _ in range(2):  # bo fails both attempts
        tutorial.answer(engine, cid, bo, 0, 0)
    with pytest.raises(session.TutorialPending, match="did not pass"):
        session.next_view(engine, bo)
    with pytest.raises(tutorial.TutorialError, match="a third attempt is not allowed"):
        tutorial.answer(engine, cid, bo, 0, 1)
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(Annotation)) == 1
