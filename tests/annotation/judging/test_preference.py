"""Preference mode on SQLite and PostgreSQL: the import (two outputs per source, no
per-output judgments), the queue's pairs with their recorded probability, sides per
judgment stable across reloads, each judgment one log row with both outputs, the side, the
winner or tie, strength, reason and π; undo, skip, attention checks graded, and the read
into arrays for the estimators."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.judging import preference as pref
from annotation.judging import save, session, undo
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.reads.preferences import read_preferences
from db.schema.models import Annotation, Assignment, Campaign, Output, System
from formats.problems import CampaignFileError

HEADER = "item_id,source,reference,system,output\n"


def campaign_file(n_items: int = 6, systems: tuple[str, ...] = ("A", "B", "C")) -> bytes:
    rows = [
        f"i{j},source {j},ref {j},{name},output of {name} for source {j} in words\n"
        for j in range(n_items)
        for name in systems
    ]
    return (HEADER + "".join(rows)).encode()


def setup(engine: Engine, n_items: int = 6, **settings) -> tuple[int, int]:
    report = import_campaign(
        engine, campaign_file(n_items), "prefs", filename="p.csv",
        settings={"mode": "preference", **settings},
    )  # fmt: skip
    queue_build.build_queue(engine, report.campaign_id, seed=3)
    return report.campaign_id, create_annotator(engine, report.campaign_id, "ann").annotator_id


def rows(engine: Engine) -> list[Annotation]:
    with session_scope(engine) as s:
        return list(s.scalars(select(Annotation).order_by(Annotation.id)))


def test_import_needs_two_outputs_per_source_and_no_per_output_judgments(engine: Engine) -> None:
    lone = campaign_file(3) + b"solo,only one,ref,A,a lone output\n"
    with pytest.raises(CampaignFileError, match=r"1 source\(s\) have only one output \('solo'\)"):
        import_campaign(engine, lone, "lone", filename="p.csv", settings={"mode": "preference"})
    judged = (HEADER[:-1] + ",human_label\n" + "1,s,r,A,x y,1\n1,s,r,B,x z,0\n").encode()
    with pytest.raises(CampaignFileError, match="per-output judgment"):
        import_campaign(engine, judged, "judged", filename="p.csv", settings={"mode": "preference"})
    with session_scope(engine) as s:  # nothing written
        assert s.scalars(select(Campaign)).all() == []
    cid, _ = setup(engine)
    with session_scope(engine) as s:
        camp = s.get(Campaign, cid)
        assert (camp.mode, camp.paired) == ("preference", False)


def test_queue_draws_one_pair_per_source_with_its_probability(engine: Engine) -> None:
    cid, _ = setup(engine, n_items=30)
    with session_scope(engine) as s:
        slots = s.execute(
            select(Assignment.item_id, Assignment.output_id, Assignment.pair_output_id,
                   Assignment.inclusion_prob)
            .where(Assignment.campaign_id == cid).order_by(Assignment.position)
        ).all()  # fmt: skip
        item_of = dict(s.execute(select(Output.id, Output.item_id)).all())
    assert len(slots) == 30 and len({r[0] for r in slots}) == 30
    for item, a, b, pi in slots:
        assert a < b and item_of[a] == item_of[b] == item
        assert pi == pytest.approx(1 / 3)
    assert len({b - a for _, a, b, _ in slots}) > 1  # not always the same pair of a source
    assert queue_build.build_queue(engine, cid).regular_slots == 0  # idempotent


def test_all_pairs_per_source_have_probability_one(engine: Engine) -> None:
    cid, _ = setup(engine, n_items=4, meta={"preference": {"pairs_per_source": 5}})
    with session_scope(engine) as s:
        slots = s.execute(
            select(Assignment.item_id, Assignment.output_id, Assignment.pair_output_id,
                   Assignment.inclusion_prob).where(Assignment.campaign_id == cid)
        ).all()  # fmt: skip
    assert len(slots) == 12 and {r[3] for r in slots} == {1.0}  # 3 pairs of 3, capped


def test_a_judgment_is_one_row_with_both_outputs_side_and_probability(engine: Engine) -> None:
    _, ann = setup(engine)
    view = session.next_view(engine, ann)
    shown = pref.pair_screen(ann, view)
    assert shown is not None and {shown.left, shown.right} == {view.slot.text, view.slot.pair_text}
    again = pref.pair_screen(ann, session.next_view(engine, ann))  # a reload: the same screen
    assert again == shown
    view = pref.submit_preference(
        engine, ann, shown.assignment_id, shown.claim_version, "left",
        strength="clearly", reason="  keeps   the\nnames ", seconds=2.5,
    )  # fmt: skip
    (row,) = rows(engine)
    with session_scope(engine) as s:
        slot = s.get(Assignment, shown.assignment_id)
        texts = dict(s.execute(select(Output.id, Output.text)).all())
    assert (row.output_id, row.pair_output_id) == (slot.output_id, slot.pair_output_id)
    left_is_output = texts[row.output_id] == shown.left
    assert row.screen_position == (0 if left_is_output else 1) and row.screen_size == 2
    assert row.preference == (1.0 if left_is_output else 0.0)
    assert (row.strength, row.reason, row.kind, row.label) == (
        "clearly", "keeps the names", "label", None,
    )  # fmt: skip
    assert row.inclusion_prob == pytest.approx(1 / 3) and row.seconds == 2.5

    tie = pref.pair_screen(ann, view)
    view = pref.submit_preference(engine, ann, tie.assignment_id, tie.claim_version, "tie",
                                  strength="slightly")  # fmt: skip
    assert rows(engine)[-1].preference == 0.5 and rows(engine)[-1].strength is None


def test_sides_are_randomised_across_judgments() -> None:
    ann = 7
    lefts = [pref.first_on_left(ann, k) for k in range(400)]
    assert 150 < sum(lefts) < 250  # a fair coin per slot (fixed hash: deterministic)
    others = [pref.first_on_left(ann + 1, k) for k in range(400)]
    assert lefts != others  # another annotator sees other sides


def test_undo_skip_and_refusals(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = pref.pair_screen(ann, session.next_view(engine, ann))
    with pytest.raises(session.InvalidJudgment, match="'left' \\(key 1\\)"):
        pref.submit_preference(engine, ann, shown.assignment_id, shown.claim_version, "A")
    with pytest.raises(session.InvalidJudgment, match="at most 300"):
        pref.submit_preference(engine, ann, shown.assignment_id, shown.claim_version, "tie",
                               reason="x" * 301)  # fmt: skip
    with pytest.raises(session.InvalidJudgment, match="not a label"):
        save.submit(engine, ann, shown.assignment_id, shown.claim_version, label=1)
    assert rows(engine) == []
    pref.submit_preference(engine, ann, shown.assignment_id, shown.claim_version, "right")
    view = undo.undo(engine, ann)
    assert view.undone is not None and "your preference" in view.undone.message
    assert pref.pair_screen(ann, view).left == shown.left  # back, the same sides
    assert [r.kind for r in rows(engine)] == ["label", "undo"]
    assert read_preferences(engine, cid).n == 0
    view = session.next_view(engine, ann)
    view = save.skip(engine, ann, view.slot.assignment_id, view.slot.claim_version, "Other")
    assert rows(engine)[-1].kind == "skip" and view.slot.assignment_id != shown.assignment_id


def test_attention_check_is_the_original_beside_its_degraded_copy(engine: Engine) -> None:
    cid, ann = setup(engine, n_items=10, attention_rate=0.3)
    answers = []
    for _ in range(20):
        view = session.next_view(engine, ann)
        if view.slot is None:
            break
        shown = pref.pair_screen(ann, view)
        with session_scope(engine) as s:
            slot = s.get(Assignment, shown.assignment_id)
            original = s.get(Output, slot.output_id).text
        if slot.kind == "attention":
            assert slot.pair_output_id == slot.output_id and original in (shown.left, shown.right)
            choice = "left" if shown.left == original else "right"
            if answers:
                choice = "tie"
            answers.append(choice)
        else:
            choice = "left"
        pref.submit_preference(engine, ann, shown.assignment_id, shown.claim_version, choice)
    checks = [r for r in rows(engine) if r.kind == "attention"]
    assert len(checks) >= 2
    assert (checks[0].preference, checks[0].label) == (1.0, 0)  # original won: passes
    assert (checks[1].preference, checks[1].label) == (0.5, 1)  # a tie: fails
    assert read_preferences(engine, cid).n == len(rows(engine)) - len(checks)


def test_read_gives_canonical_pairs_outcomes_sides_and_weights(engine: Engine) -> None:
    cid, ann = setup(engine, n_items=12)
    given = []
    while (view := session.next_view(engine, ann)).slot is not None:
        shown = pref.pair_screen(ann, view)
        choice = ("left", "right", "tie")[len(given) % 3]
        pref.submit_preference(engine, ann, shown.assignment_id, shown.claim_version, choice)
        given.append(choice)
    data = read_preferences(engine, cid)
    assert data.systems == ("A", "B", "C") and data.n == 12
    assert np.all(data.a < data.b) and np.allclose(data.weight, 3.0)
    with session_scope(engine) as s:
        name = dict(s.execute(select(Output.id, System.name).join(System)).all())
        stored = s.execute(
            select(Annotation.output_id, Annotation.pair_output_id, Annotation.preference,
                   Annotation.screen_position).order_by(Annotation.id)
        ).all()  # fmt: skip
    for k, (o1, o2, p, side) in enumerate(stored):
        first, second = data.systems.index(name[o1]), data.systems.index(name[o2])
        assert {first, second} == {data.a[k], data.b[k]}
        a_is_first = data.a[k] == first
        assert data.outcome[k] == (p if a_is_first else 1 - p)
        assert data.a_on_left[k] == ((side == 0) == a_is_first)
        # the read's outcome agrees with the choice on the screen
        won_left = {"left": 1.0, "right": 0.0, "tie": 0.5}[given[k]]
        assert data.outcome[k] == (won_left if data.a_on_left[k] else 1 - won_left)
    assert {tuple(sorted(p)) for p in combinations(range(3), 2)} >= set(
        zip(data.a.tolist(), data.b.tolist(), strict=True)
    )


def test_tasks_cut_pairs_and_end_with_a_code(engine: Engine) -> None:
    """A preference queue cut into tasks: one pair per slot, an annotator judges only their
    task's pairs and gets its completion code."""
    from annotation.tasks import batches as tasks

    cid, ann = setup(engine, n_items=6)
    assert tasks.cut(engine, cid, 4).sizes == [4, 2]
    view = session.next_view(engine, ann)
    assert view.task is not None
    n = 0
    while view.slot is not None:
        shown = pref.pair_screen(ann, view)
        view = pref.submit_preference(engine, ann, shown.assignment_id, shown.claim_version, "tie")
        n += 1
    assert n == 4 and view.task is not None and view.task.code
    with session_scope(engine) as s:
        tasks_of = {
            a.task_id for a in s.scalars(select(Assignment).where(Assignment.state == "done"))
        }
    assert len(tasks_of) == 1


def test_settings_that_do_not_fit_pairs_are_refused(engine: Engine) -> None:
    from annotation.campaign.document_order import document_order_status, set_documents_in_order
    from annotation.judging.comparative import set_comparative
    from annotation.queue.admin import update_queue_settings

    cid, _ = setup(engine, n_items=2)
    with pytest.raises(ValueError, match="already shows two outputs"):
        set_comparative(engine, cid, True)
    with pytest.raises(ValueError, match="not judged in document order"):
        set_documents_in_order(engine, cid, True)
    assert "not judged in document order" in document_order_status(engine, cid).locked
    with pytest.raises(ValueError, match="only by a new import"):
        update_queue_settings(engine, cid, mode="binary")
    with pytest.raises(ValueError, match="stays unpaired"):
        update_queue_settings(engine, cid, paired=True)
    with pytest.raises(ValueError, match="paired design"):
        update_queue_settings(engine, cid, sampling="active")
    from annotation.judging.tutorial import TutorialError, TutorialItem, set_tutorial

    with pytest.raises(TutorialError, match="a preference campaign checks which"):
        set_tutorial(engine, cid, [TutorialItem("s", "o", 1, "why")])


def test_a_study_link_participant_judges_pairs(sqlite_engine: Engine) -> None:
    """A crowd participant enrolled by the study link gets pairs like an invited annotator,
    and their judgments are read under their participant id (SQLite: the link's storage is
    tested on both databases in tests/accounts/test_study.py)."""
    from accounts import study

    cid, _ = setup(sqlite_engine, n_items=3)
    link = study.create_study_link(sqlite_engine, cid, "prolific")
    query = {"PROLIFIC_PID": "P01", "STUDY_ID": "st-1", "SESSION_ID": "s1"}
    who = study.enrol(sqlite_engine, link.query.removeprefix("?study="), query).identity
    shown = pref.pair_screen(who.annotator_id, session.next_view(sqlite_engine, who.annotator_id))
    assert shown is not None
    pref.submit_preference(sqlite_engine, who.annotator_id, shown.assignment_id,
                           shown.claim_version, "right")  # fmt: skip
    assert read_preferences(sqlite_engine, cid).annotator.tolist() == [who.annotator_id]
