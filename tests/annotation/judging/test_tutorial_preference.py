"""Preference tutorials and checks on SQLite and PostgreSQL: items with two outputs and an
expected winner (or a tie, or a winner with a tie accepted) read from a file, graded against
the sides the annotator was shown, loud items with their feedback in left/right words,
silent checks recorded only, two attempts; refused where they do not fit the mode."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, func, select

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.judging import tutorial
from db.engine import session_scope
from db.schema.models import Annotation
from formats.tutorial_file import TutorialFileError, parse_tutorial_file
from tests.annotation.judging.test_preference import campaign_file
from tests.annotation.queue.test_queue import make_campaign

CSV = (
    "source,output,output_b,expected_winner,tie_allowed,silent,explanation,warning\n"
    "The cat sleeps.,Die Katze schläft.,Der Hund bellt.,1,,,First keeps the meaning.,Read both.\n"
    "Thanks.,Danke.,Danke schön.,2,1,,Both fine; the second is warmer.,\n"
    "Hello.,Hallo.,Hallo.,tie,,,The same words: a tie.,\n"
    "Yes.,Ja.,Nein.,first,,1,A silent check.,\n"
).encode()


def _campaign(engine: Engine) -> int:
    return import_campaign(engine, campaign_file(3), "prefs", filename="p.csv",
                           settings={"mode": "preference"}).campaign_id  # fmt: skip


def _shown(ann: int, index: int, choice: str) -> str:
    """The side (left / right) on which ``choice`` (first / second) was shown, or tie."""
    if choice == "tie":
        return "tie"
    first_left = tutorial.pair_sides(ann, index)
    return "left" if (choice == "first") == first_left else "right"


def test_file_reads_pair_items_and_refuses_bad_ones() -> None:
    items = parse_tutorial_file(CSV, "t.csv")
    assert [(i["winner"], i["tie_ok"], i["silent"]) for i in items] == [
        ("first", False, False), ("second", True, False), ("tie", False, False),
        ("first", False, True),
    ]  # fmt: skip
    assert items[0]["output_b"] == "Der Hund bellt."
    bad = b"source,output,output_b,expected_winner,explanation\ns,a,b,left,x\n"
    with pytest.raises(TutorialFileError, match=r"expected_winner.*'left'"):
        parse_tutorial_file(bad, "t.csv")
    lone = b"source,output,expected_winner,explanation\ns,a,1,x\n"
    with pytest.raises(TutorialFileError, match=r"output_b.*needs two outputs"):
        parse_tutorial_file(lone, "t.csv")
    no_winner = b"source,output,output_b,expected_label,explanation\ns,a,b,1,x\n"
    with pytest.raises(TutorialFileError, match="missing for a pair"):
        parse_tutorial_file(no_winner, "t.csv")


def test_pair_items_fit_only_preference_campaigns(engine: Engine) -> None:
    cid = _campaign(engine)
    binary = make_campaign(engine, 2, 2)
    items = tutorial.parse_file(CSV, "t.csv")
    with pytest.raises(tutorial.TutorialError, match="a preference campaign checks which"):
        tutorial.set_tutorial(engine, binary, items)
    labels = tutorial.parse_csv(b"source,output,expected_label,explanation\ns,o,1,x\n")
    with pytest.raises(tutorial.TutorialError, match="a preference campaign checks which"):
        tutorial.set_tutorial(engine, cid, labels)
    tut = tutorial.set_tutorial(engine, cid, items)
    assert tut is not None and tut.pass_needed == 3 and tut.loud == (0, 1, 2)


def test_answers_graded_against_the_sides_shown_with_loud_feedback(engine: Engine) -> None:
    cid = _campaign(engine)
    tutorial.set_tutorial(engine, cid, tutorial.parse_file(CSV, "t.csv"))
    ann = create_annotator(engine, cid, "ana").annotator_id
    wrong = tutorial.answer(engine, cid, ann, 0, preference=_shown(ann, 0, "second"))
    assert not wrong.right and wrong.warning == "Read both."
    side = "left" if tutorial.pair_sides(ann, 0) else "right"
    other = "right" if side == "left" else "left"
    assert wrong.problems == (f"expected the {side} output better, not the {other} output better",)
    assert wrong.expects == f"the {side} output better"
    assert wrong.given == f"the {other} output better"
    assert "Die Katze schläft." in wrong.output and "Der Hund bellt." in wrong.output
    tie_ok = tutorial.answer(engine, cid, ann, 1, preference="tie")  # a tie accepted
    assert tie_ok.right and "(a tie accepted)" in tie_ok.expects
    tutorial.answer(engine, cid, ann, 2, preference="tie")
    last = tutorial.answer(engine, cid, ann, 3, preference=_shown(ann, 3, "second"))
    assert last.silent and not last.right and last.outcome == "retry"  # 2 of 3 loud right
    assert tutorial.status(engine, cid, ann).attempt == 2  # type: ignore[union-attr]
    for index, choice in enumerate(("first", "second", "tie", "first")):
        fb = tutorial.answer(engine, cid, ann, index, preference=_shown(ann, index, choice))
        assert fb.right
    assert fb.outcome == "passed"
    assert tutorial.results(engine, cid)[ann] == "passed (attempt 2, 3/3) · silent checks 1/2"
    with pytest.raises(tutorial.TutorialError, match="'left', 'right' or 'tie'"):
        tutorial.answer(engine, cid, ann, 0, preference="first")
    with session_scope(engine) as s:  # never among the annotations the estimators read
        assert s.scalar(select(func.count()).select_from(Annotation)) == 0
    rows = tutorial.answer_rows(engine, cid)
    assert len(rows) == 8 and rows[0]["expects"] == "the first output better"
    assert [r["preference"] for r in rows[:4]] == ["second", "tie", "tie", "second"]


def test_degraded_copy_checks_counted_per_annotator_never_in_the_estimators(
    engine: Engine,
) -> None:
    """A generated check (an output beside its degraded copy) answered right once and by a
    tie once: the Annotators page's counts say 1 of 2 passed; the estimators' read has the
    regular judgments only."""
    from annotation.judging import preference as pref
    from annotation.judging import session
    from db.engine import read_scope
    from db.judging.annotator_stats import annotator_work
    from db.reads.preferences import read_preferences
    from db.schema.models import Assignment, Output
    from tests.annotation.judging.test_preference import setup

    cid, ann = setup(engine, n_items=10, attention_rate=0.3)
    regular = checks = 0
    while (view := session.next_view(engine, ann)).slot is not None:
        shown = pref.pair_screen(ann, view)
        with session_scope(engine) as s:
            slot = s.get(Assignment, shown.assignment_id)
            original = s.get(Output, slot.output_id).text
        if slot.kind == "attention":
            choice = ("left" if shown.left == original else "right") if not checks else "tie"
            checks += 1
        else:
            choice, regular = "left", regular + 1
        pref.submit_preference(engine, ann, shown.assignment_id, shown.claim_version, choice)
    assert checks >= 2
    with read_scope(engine) as s:
        (work,) = [w for w in annotator_work(s, cid) if w.annotator_id == ann]
    assert (work.attention_answered, work.attention_passed) == (checks, 1)
    assert read_preferences(engine, cid).n == regular
