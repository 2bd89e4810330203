"""The queue's frontier on real SQLite and PostgreSQL, through the real queue: a label
submitted ahead of an earlier slot that is still being annotated waits outside the live
monitor (db.reads.campaign.read_campaign → CampaignData.open_from →
estimators.report.campaign_report)."""

from __future__ import annotations

import math

from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Assignment
from db.schema.vocabulary import SlotKind
from estimators.report.campaign_report import campaign_report
from tests.annotation.test_queue import make_campaign


def _waiting(report) -> list[str]:  # type: ignore[no-untyped-def]
    return [n for n in report.notes if "wait for earlier queue positions" in n]


def _position(engine: Engine, view) -> int:  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        return s.get(Assignment, view.slot.assignment_id).position


def test_a_label_ahead_of_a_claimed_slot_waits_until_it_is_answered_or_skipped(engine):
    cid = make_campaign(engine, 6, 2)  # paired: each item's 2 outputs at consecutive positions
    queue_build.build_queue(engine, cid, seed=4)
    a = create_annotator(engine, cid, "a").annotator_id
    b = create_annotator(engine, cid, "b").annotator_id
    va = session.next_view(engine, a)  # a claims item 1: positions 0 and 1
    vb = session.next_view(engine, b)  # b claims item 2: positions 2 and 3
    assert (_position(engine, va), _position(engine, vb)) == (0, 2)
    assert read_campaign(engine, cid).open_from == 0

    # b (the later slots) answers first: both labels wait for a's positions 0 and 1
    vb = judging.submit(engine, b, vb.slot.assignment_id, vb.slot.claim_version, label=1)
    assert _position(engine, vb) == 3  # the rest of b's paired group
    judging.submit(engine, b, vb.slot.assignment_id, vb.slot.claim_version, label=0)
    data = read_campaign(engine, cid)
    assert data.open_from == 0 and sorted(data.judgments.position) == [2.0, 3.0]
    notes = _waiting(campaign_report(data))
    assert notes and notes[0].startswith("2 label(s) wait for earlier queue positions")

    # a answers position 0: it enters; position 1 (still claimed) holds b's two back
    va = judging.submit(engine, a, va.slot.assignment_id, va.slot.claim_version, label=1)
    assert _position(engine, va) == 1
    data = read_campaign(engine, cid)
    assert data.open_from == 1
    assert _waiting(campaign_report(data))[0].startswith("2 label(s) wait")

    # a skips position 1: settled (no label will come there), so the frontier moves past
    # b's slots to the first open one and nothing waits
    judging.skip(engine, a, va.slot.assignment_id, va.slot.claim_version, reason="unclear")
    data = read_campaign(engine, cid)
    with session_scope(engine) as s:  # a's skip took the next open slot (position 4)
        states = dict(s.execute(select(Assignment.position, Assignment.state)).all())
    assert [states[p] for p in range(5)] == ["done", "skipped", "done", "done", "claimed"]
    assert data.open_from == 4
    assert sorted(data.judgments.position) == [0.0, 2.0, 3.0]
    assert _waiting(campaign_report(data)) == []


def test_attention_slots_and_repeat_slots_of_judged_outputs_do_not_block(engine):
    """One annotator alone: the overlap slots of outputs they judged can never be theirs,
    and attention checks carry no estimator label; neither holds the frontier."""
    cid = make_campaign(engine, 8, 2, overlap=0.5, attention_rate=0.2)
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "alone").annotator_id
    view = session.next_view(engine, a)
    while view.slot is not None:
        view = judging.submit(engine, a, view.slot.assignment_id, view.slot.claim_version, label=1)
    with session_scope(engine) as s:
        rows = s.execute(select(Assignment.kind, Assignment.slot, Assignment.state)).all()
    assert {(k, slot, st) for k, slot, st in rows} == {
        ("regular", 0, "done"), ("regular", 1, "open"), ("attention", 0, "done")
    }  # fmt: skip
    data = read_campaign(engine, cid)
    assert data.open_from == math.inf and len(data.judgments) == 16
    assert _waiting(campaign_report(data)) == []


def test_an_unanswered_attention_check_does_not_hold_back_later_labels(engine):
    """a stops at an attention check (claimed, never answered); b labels everything else."""
    cid = make_campaign(engine, 8, 2, overlap=0.5, attention_rate=0.2)
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "a").annotator_id
    b = create_annotator(engine, cid, "b").annotator_id
    view = session.next_view(engine, a)
    while view.slot.kind != SlotKind.ATTENTION:
        view = judging.submit(engine, a, view.slot.assignment_id, view.slot.claim_version, label=1)
    held = _position(engine, view)
    view = session.next_view(engine, b)
    while view.slot is not None:
        view = judging.submit(engine, b, view.slot.assignment_id, view.slot.claim_version, label=0)
    with session_scope(engine) as s:
        pending = s.execute(
            select(Assignment.position, Assignment.kind, Assignment.state).where(
                Assignment.state.in_(["open", "claimed"])
            )
        ).all()
    assert (held, "attention", "claimed") in pending
    data = read_campaign(engine, cid)
    assert data.open_from == math.inf
    assert data.judgments.position.max() > held
    assert _waiting(campaign_report(data)) == []
