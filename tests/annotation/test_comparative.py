"""Comparative mode on SQLite and PostgreSQL: the setting and its refusals and log, the
screen (all outputs of a source, shuffled per annotator, stable across reloads, K at a
time), a screen saved in one transaction with each output's place (all or nothing), undo
of a whole screen, attention checks among their source's outputs, and the export."""

from __future__ import annotations

import csv
import io

import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.judging import comparative, screen_judgments, session
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from db.engine import session_scope
from db.queue import settings as dbset
from db.schema.models import Annotation, Assignment, Campaign
from tests.annotation.test_queue import make_campaign


def setup(engine: Engine, n_items: int = 6, n_systems: int = 4, outputs: int | None = None,
          **settings) -> tuple[int, int]:  # fmt: skip
    cid = make_campaign(engine, n_items, n_systems, **settings)
    comparative.set_comparative(engine, cid, True, outputs)
    queue_build.build_queue(engine, cid, seed=7)
    return cid, create_annotator(engine, cid, "ann").annotator_id


def current_screen(engine: Engine, annotator: int) -> comparative.Screen:
    shown = comparative.screen(engine, annotator, session.next_view(engine, annotator))
    assert shown is not None
    return shown


def rows(engine: Engine, cid: int) -> list[Annotation]:
    with session_scope(engine) as s:
        return list(s.scalars(select(Annotation).order_by(Annotation.id)))


def test_setting_is_logged_and_refused_when_it_cannot_apply(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 2)
    assert comparative.set_comparative(engine, cid, True, 2)
    assert comparative.comparative_setting(engine, cid) == comparative.ComparativeSetting(True, 2)
    assert not comparative.set_comparative(engine, cid, True, 2)  # unchanged: no log entry
    with session_scope(engine) as s:
        log = dbset.setting_changes(s, cid)
    assert [(c.key, c.old_value, c.new_value, c.labels_before) for c in log] == [
        ("comparative", {"on": False, "outputs": None}, {"on": True, "outputs": 2}, 0)
    ]
    for bad in (1, 21, True):
        with pytest.raises(ValueError, match="outputs per screen"):
            comparative.set_comparative(engine, cid, True, bad)
    unpaired = make_campaign(engine, 3, 2, name="u", paired=False)
    with pytest.raises(ValueError, match="paired design"):
        comparative.set_comparative(engine, unpaired, True)
    post_edit = make_campaign(engine, 3, 2, name="pe", mode="post_edit")
    with pytest.raises(ValueError, match="asks for post-edits: a post-edit is typed"):
        comparative.set_comparative(engine, post_edit, True)
    spans_post_edit = make_campaign(engine, 3, 2, name="spe", mode="spans_post_edit")
    with pytest.raises(ValueError, match="judged one output at a time"):
        comparative.set_comparative(engine, spans_post_edit, True)
    spans = make_campaign(engine, 3, 2, name="sp", mode="spans")
    assert comparative.set_comparative(engine, spans, True)  # cESA
    assert comparative.comparative_setting(engine, unpaired).on is False


def test_setting_locked_after_the_first_label(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = current_screen(engine, ann)
    comparative.submit(engine, ann, shown, {k: {"label": 1} for k in range(shown.size)})
    with pytest.raises(ValueError, match="before the first"):
        comparative.set_comparative(engine, cid, False)
    assert comparative.comparative_setting(engine, cid).on is True


def test_screen_shows_all_outputs_shuffled_per_annotator_and_stable(engine: Engine) -> None:
    cid, ann = setup(engine, n_items=30)
    other = create_annotator(engine, cid, "other").annotator_id
    first = current_screen(engine, ann)
    assert first.size == 4 and len({o.assignment_id for o in first.outputs}) == 4
    assert current_screen(engine, ann) == first  # a reload shows the same order
    item_text = first.outputs[0].text.split(" for ")[1]
    assert all(o.text.endswith(item_text) for o in first.outputs)  # one source
    # the order is the annotator's own: over many items two annotators' orders differ
    orders = {}
    for who in (ann, other):
        seq = []
        for _ in range(10):
            shown = current_screen(engine, who)
            seq.append(tuple(o.text.split()[3] for o in shown.outputs))
            comparative.submit(engine, who, shown, {k: {"label": 1} for k in range(4)})
        orders[who] = seq
    assert len(set(orders[ann])) > 1  # not one fixed system order
    assert orders[ann] != orders[other]


def test_screen_is_saved_whole_with_positions(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = current_screen(engine, ann)
    labels = {0: {"label": 1}, 1: {"label": 0}, 2: {"label": 1}, 3: {"label": 0}}
    view = comparative.submit(engine, ann, shown, labels, seconds=8.0)
    assert view.notice is None and view.progress.mine_judged == 4
    saved = rows(engine, cid)
    assert [(r.screen_position, r.screen_size, r.label, r.seconds) for r in saved] == [
        (k, 4, labels[k]["label"], 2.0) for k in range(4)
    ]
    assert {r.assignment_id for r in saved} == {o.assignment_id for o in shown.outputs}


def test_invalid_or_incomplete_screen_saves_nothing(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = current_screen(engine, ann)
    with pytest.raises(session.InvalidJudgment, match="output\\(s\\) 4"):
        comparative.submit(engine, ann, shown, {k: {"label": 1} for k in range(3)})
    bad = {0: {"label": 1}, 1: {"label": 1}, 2: {"label": 1}, 3: {"label": 7}}
    with pytest.raises(session.InvalidJudgment, match="label must be"):
        comparative.submit(engine, ann, shown, bad)
    spans = {k: {"label": 1, "spans": []} for k in range(4)}
    with pytest.raises(session.InvalidJudgment, match="does not take error spans"):
        comparative.submit(engine, ann, shown, spans)
    with pytest.raises(session.InvalidJudgment, match="distinct places"):
        screen_judgments.submit_screen(engine, ann, [
            screen_judgments.ScreenJudgment(o.assignment_id, o.claim_version, 0, label=1)
            for o in shown.outputs], 4)  # fmt: skip
    assert rows(engine, cid) == []
    assert current_screen(engine, ann) == shown  # still held, same order


def test_lost_claim_rolls_the_whole_screen_back(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = current_screen(engine, ann)
    with session_scope(engine) as s:  # the third output's claim was taken over meanwhile
        s.get(Assignment, shown.outputs[2].assignment_id).claim_version += 1
    view = comparative.submit(engine, ann, shown, {k: {"label": 1} for k in range(4)})
    assert view.notice is not None
    assert rows(engine, cid) == []


def test_subset_shows_k_outputs_per_screen(engine: Engine) -> None:
    cid, ann = setup(engine, n_items=2, n_systems=5, outputs=3)
    first = current_screen(engine, ann)
    assert first.size == 3
    comparative.submit(engine, ann, first, {k: {"label": 1} for k in range(3)})
    rest = current_screen(engine, ann)
    assert rest.size == 2  # the same source's two others
    assert rest.source == first.source
    comparative.submit(engine, ann, rest, {k: {"label": 0} for k in range(2)})
    assert [(r.screen_position, r.screen_size) for r in rows(engine, cid)] == [
        (0, 3), (1, 3), (2, 3), (0, 2), (1, 2)]  # fmt: skip


def test_undo_takes_back_the_whole_screen(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = current_screen(engine, ann)
    comparative.submit(engine, ann, shown, {k: {"label": 1} for k in range(4)})
    view = comparative.undo_screen(engine, ann)
    assert view.undone is not None and "4 outputs" in view.undone.message
    again = comparative.screen(engine, ann, view)
    assert again is not None
    assert [o.text for o in again.outputs] == [o.text for o in shown.outputs]
    assert view.progress.mine_judged == 0
    comparative.submit(engine, ann, again, {k: {"label": 0} for k in range(4)})
    current = [r for r in rows(engine, cid) if r.kind == "label"][-4:]
    assert [r.label for r in current] == [0, 0, 0, 0]


def test_attention_check_is_shown_among_its_source(engine: Engine) -> None:
    cid, ann = setup(engine, n_items=10, attention_rate=0.5)
    for _ in range(30):
        view = session.next_view(engine, ann)
        if view.slot is None:
            break
        shown = comparative.screen(engine, ann, view)
        assert shown is not None and shown.size == 4
        mine = [k for k, o in enumerate(shown.outputs) if o.assignment_id is not None]
        if view.slot.kind == "attention":
            assert len(mine) == 1
        comparative.submit(engine, ann, shown, {k: {"label": 0} for k in mine})
    kinds = {r.kind for r in rows(engine, cid)}
    assert kinds == {"label", "attention"}


def test_export_carries_screen_position(engine: Engine) -> None:
    cid, ann = setup(engine)
    shown = current_screen(engine, ann)
    comparative.submit(engine, ann, shown, {k: {"label": k % 2} for k in range(4)})
    with session_scope(engine) as s:
        name = s.get(Campaign, cid).name
    table = list(csv.DictReader(io.StringIO(export_annotations(engine, name, "csv").decode())))
    assert sorted((r["screen_position"], r["screen_size"]) for r in table) == [
        (str(k), "4") for k in range(4)
    ]


def test_position_bias_reads_complete_screens(engine: Engine) -> None:
    cid, ann = setup(engine, n_items=8)
    for _ in range(8):  # the first place always adequate, the others inadequate
        shown = current_screen(engine, ann)
        comparative.submit(engine, ann, shown, {k: {"label": int(k == 0)} for k in range(4)})
    res = comparative.position_bias(engine, cid)
    assert res is not None and res.n_screens == 8 and res.size == 4
    assert res.mean == (1.0, 0.0, 0.0, 0.0)
    assert res.detected and res.p_cochran < 0.001
    assert comparative.position_bias(engine, make_campaign(engine, 2, 2, name="none")) is None


def test_screen_undo_stops_at_a_finished_task(engine: Engine) -> None:
    """A screen that finished a task (its completion code given) is not taken back, as a
    single judgment is not (annotation.judging.undo)."""
    from annotation.judging import undo
    from annotation.tasks import batches as tasks

    cid, ann = setup(engine, n_items=1)
    tasks.cut(engine, cid, 4)  # one task: the one screen of 4 outputs
    shown = current_screen(engine, ann)
    view = comparative.submit(engine, ann, shown, {k: {"label": 1} for k in range(4)})
    assert view.task is not None and view.task.code
    assert comparative.undo_screen(engine, ann).notice == undo.FINISHED_TASK
    assert [r.kind for r in rows(engine, cid)].count("undo") == 0
