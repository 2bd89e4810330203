"""The assignment queue on real SQLite and PostgreSQL: order, inclusion probabilities,
overlap, claiming, expiry, the append-only log, undo, skips and invite links."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import Engine, func, select

from accounts.invites import (
    active_annotator,
    annotator_for_token,
    create_annotator,
    revoke_annotator,
    token_hash,
)
from annotation.imports.importer import import_campaign
from annotation.judging import save as judging
from annotation.judging import session, undo
from annotation.queue import build as queue_build
from annotation.queue import draws as queue_draws
from db.clock import utcnow
from db.engine import session_scope
from db.judging import log
from db.judging.annotator_stats import annotator_work
from db.schema.models import Annotation, Annotator, Assignment, Campaign, Item, Output, System


def make_campaign(engine: Engine, n_items: int, n_systems: int, name: str = "c", **settings) -> int:
    """A campaign of n_items × n_systems outputs (8-word texts), written in bulk."""
    with session_scope(engine) as s:
        camp = Campaign(name=name, **settings)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"sys{k}") for k in range(n_systems)]
        s.add_all(systems)
        items = [
            Item(
                campaign_id=camp.id, external_id=f"i{j}", source=f"source {j}", reference=f"ref {j}"
            )
            for j in range(n_items)
        ]
        s.add_all(items)
        s.flush()
        s.execute(
            Output.__table__.insert(),
            [
                {
                    "item_id": it.id,
                    "system_id": sy.id,
                    "text": f"output of system {k} for item {j} with eight words",
                    "meta": {},
                }
                for j, it in enumerate(items)
                for k, sy in enumerate(systems)
            ],
        )
        return camp.id


def slots(engine: Engine, cid: int) -> list[Assignment]:
    with session_scope(engine) as s:
        return list(
            s.scalars(
                select(Assignment)
                .where(Assignment.campaign_id == cid)
                .order_by(Assignment.position)
            )
        )


def test_build_queue_paired_random_order_and_inclusion(engine: Engine) -> None:
    cid = make_campaign(engine, 30, 4)
    report = queue_build.build_queue(engine, cid, seed=7)
    assert (report.items, report.regular_slots, report.attention_slots) == (30, 120, 0)
    rows = slots(engine, cid)
    assert [r.position for r in rows] == list(range(120))
    assert Counter(r.output_id for r in rows) == Counter({r.output_id: 1 for r in rows})
    assert all(r.inclusion_prob == 1.0 and r.state == "open" and r.slot == 0 for r in rows)
    # Paired: each item's 4 outputs are consecutive.
    items_in_order = [r.item_id for r in rows]
    blocks = [items_in_order[k : k + 4] for k in range(0, 120, 4)]
    assert all(len(set(b)) == 1 for b in blocks)
    order = [b[0] for b in blocks]
    assert order != sorted(order)  # a permutation, not the import order
    with session_scope(engine) as s:
        assert s.get(Campaign, cid).queue_seed == 7
        sys_order = [
            s.scalar(select(Output.system_id).where(Output.id == r.output_id)) for r in rows[:40]
        ]
    # Systems are shuffled within items (not always the same order).
    assert len({tuple(sys_order[k : k + 4]) for k in range(0, 40, 4)}) > 1
    # Same seed → same order on a fresh campaign; another seed → another order.
    cid2 = make_campaign(engine, 30, 4, name="c2")
    queue_build.build_queue(engine, cid2, seed=7)
    cid3 = make_campaign(engine, 30, 4, name="c3")
    queue_build.build_queue(engine, cid3, seed=8)
    ext = {c: _external_order(engine, c) for c in (cid, cid2, cid3)}
    assert ext[cid] == ext[cid2] != ext[cid3]


def _external_order(engine: Engine, cid: int) -> list[str]:
    with session_scope(engine) as s:
        rows = s.execute(
            select(Item.external_id)
            .join(Assignment, Assignment.item_id == Item.id)
            .where(Assignment.campaign_id == cid)
            .order_by(Assignment.position)
        )
        out: list[str] = []
        for (ext,) in rows:
            if not out or out[-1] != ext:
                out.append(ext)
        return out


def test_draw_is_uniform_over_seeds() -> None:
    """Every item is first, and every system first within its item, equally often."""
    by_item = {i: [(10 * i + k, i) for k in range(3)] for i in range(5)}
    first_item, first_sys = Counter(), Counter()
    for seed in range(3000):
        units = queue_draws.draw_units(by_item, True, np.random.default_rng([seed, 0]))
        assert sorted(o for u in units for o in u) == sorted(o for v in by_item.values() for o in v)
        first_item[units[0][0][1]] += 1
        first_sys[units[0][0][0] % 10] += 1
    # Expected 600 per item and 1000 per system; 5 SDs ≈ 110 and 130.
    assert all(abs(n - 600) < 110 for n in first_item.values()), first_item
    assert all(abs(n - 1000) < 130 for n in first_sys.values()), first_sys
    flat = queue_draws.draw_units(by_item, False, np.random.default_rng(1))
    assert all(len(u) == 1 for u in flat) and len(flat) == 15


def test_unpaired_queue_permutes_outputs(engine: Engine) -> None:
    cid = make_campaign(engine, 20, 3, paired=False)
    queue_build.build_queue(engine, cid, seed=1)
    items_in_order = [r.item_id for r in slots(engine, cid)]
    assert any(a != b for a, b in zip(items_in_order[::3], items_in_order[1::3], strict=False))


def test_overlap_slots_are_random_recorded_and_go_to_another_annotator(engine: Engine) -> None:
    cid = make_campaign(engine, 40, 2, overlap=0.25)
    report = queue_build.build_queue(engine, cid, seed=3)
    assert report.overlap_slots == 20  # 10 of 40 items × 2 systems
    rows = slots(engine, cid)
    second = [r for r in rows if r.slot == 1]
    assert len(second) == 20 and all(r.inclusion_prob == pytest.approx(0.25) for r in second)
    first_pos = {r.output_id: r.position for r in rows if r.slot == 0}
    assert all(r.position > first_pos[r.output_id] for r in second)
    # One annotator alone never gets an output twice: they get exactly the 80 first slots.
    a = create_annotator(engine, cid, "alone").annotator_id
    seen = _label_all(engine, a)
    assert len(seen) == len(set(seen)) == 80


def _label_all(engine: Engine, annotator_id: int, limit: int = 10_000) -> list[int]:
    seen = []
    view = session.next_view(engine, annotator_id)
    while view.slot is not None and len(seen) < limit:
        seen.append(view.slot.output_id)
        view = judging.submit(
            engine, annotator_id, view.slot.assignment_id, view.slot.claim_version, label=1
        )
    return seen


def test_imported_judgments_are_not_queued_again_and_build_is_idempotent(engine: Engine) -> None:
    csv = b"item_id,source,reference,system,output,human_label\n" + b"".join(
        f"{j},src {j},ref,{s},out {j} {s},{'1' if j < 3 and s == 'A' else ''}\n".encode()
        for j in range(6)
        for s in "AB"
    )
    rep = import_campaign(engine, csv, "imp", filename="f.csv")
    before = len(slots(engine, rep.campaign_id))
    assert before == 3
    report = queue_build.build_queue(engine, rep.campaign_id)
    assert report.regular_slots == 9
    rows = slots(engine, rep.campaign_id)
    assert len({r.output_id for r in rows}) == 12 == len(rows)
    assert min(r.position for r in rows if r.state == "open") >= 3
    again = queue_build.build_queue(engine, rep.campaign_id)
    assert again.regular_slots == 0 and len(slots(engine, rep.campaign_id)) == 12


def test_paired_claim_takes_the_whole_item_and_resumes(engine: Engine) -> None:
    cid = make_campaign(engine, 5, 3)
    queue_build.build_queue(engine, cid, seed=2)
    a = create_annotator(engine, cid, "a").annotator_id
    b = create_annotator(engine, cid, "b").annotator_id
    va = session.next_view(engine, a)
    held = [r for r in slots(engine, cid) if r.annotator_id == a]
    assert len(held) == 3 and len({r.item_id for r in held}) == 1
    assert all(r.state == "claimed" for r in held)
    assert session.next_view(engine, a).slot.assignment_id == va.slot.assignment_id  # resume
    vb = session.next_view(engine, b)
    assert vb.slot.output_id not in {r.output_id for r in held}
    assert va.progress.queue_total == 15 and va.slot.scores == {}  # shown, none yet


def test_expired_claim_is_reclaimed_and_late_finisher_cannot_double_judge(engine: Engine) -> None:
    cid = make_campaign(engine, 1, 1, claim_timeout_s=60)
    queue_build.build_queue(engine, cid)
    a = create_annotator(engine, cid, "a").annotator_id
    b = create_annotator(engine, cid, "b").annotator_id
    t0 = utcnow()
    va = session.next_view(engine, a, now=t0)
    assert session.next_view(engine, b, now=t0 + timedelta(seconds=30)).slot is None
    vb = session.next_view(engine, b, now=t0 + timedelta(seconds=61))
    assert vb.slot.assignment_id == va.slot.assignment_id
    late = judging.submit(engine, a, va.slot.assignment_id, va.slot.claim_version, label=1)
    assert late.notice == judging.LOST_CLAIM and late.slot is None
    judging.submit(engine, b, vb.slot.assignment_id, vb.slot.claim_version, label=0)
    with session_scope(engine) as s:
        anns = s.execute(select(Annotation.annotator_id, Annotation.label)).all()
    assert anns == [(b, 0)]


def test_second_tab_answering_a_saved_item_is_not_told_its_claim_expired(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1)
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "a").annotator_id
    tab1, tab2 = session.next_view(engine, a), session.next_view(engine, a)
    assert tab1.slot == tab2.slot  # both tabs show the held item
    judging.submit(engine, a, tab1.slot.assignment_id, tab1.slot.claim_version, label=1)
    again = judging.submit(engine, a, tab2.slot.assignment_id, tab2.slot.claim_version, label=0)
    assert again.notice == judging.OTHER_TAB and again.slot is not None
    with session_scope(engine) as s:
        assert s.execute(select(Annotation.label)).scalars().all() == [1]


def test_label_undo_relabel_is_append_only(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 1)
    queue_build.build_queue(engine, cid, seed=5)
    a = create_annotator(engine, cid, "a").annotator_id
    v1 = session.next_view(engine, a)
    v2 = judging.submit(
        engine, a, v1.slot.assignment_id, v1.slot.claim_version, label=1, seconds=2.5
    )
    assert v2.slot.output_id != v1.slot.output_id and v2.progress.mine_judged == 1
    v3 = undo.undo(engine, a)
    assert v3.slot.output_id == v1.slot.output_id  # the undone item comes back first
    assert v3.progress.mine_judged == 0
    v4 = judging.submit(engine, a, v3.slot.assignment_id, v3.slot.claim_version, label=0)
    assert v4.slot.output_id == v2.slot.output_id
    with session_scope(engine) as s:
        rows = s.execute(
            select(Annotation.kind, Annotation.label, Annotation.supersedes_id).order_by(
                Annotation.id
            )
        ).all()
        current = log.current_judgments(s, cid)
    assert [(k, lab) for k, lab, _ in rows] == [("label", 1), ("undo", None), ("label", 0)]
    assert rows[1][2] is not None
    assert [(c.output_id, c.label, c.seconds) for c in current] == [(v1.slot.output_id, 0, None)]
    assert current[0].position is not None and current[0].inclusion_prob == 1.0


def test_undo_with_nothing_to_undo_and_mode_rules(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1, mode="post_edit")
    queue_build.build_queue(engine, cid)
    a = create_annotator(engine, cid, "a").annotator_id
    assert undo.undo(engine, a).notice == "Nothing to undo."
    v = session.next_view(engine, a)
    with pytest.raises(session.InvalidJudgment):
        judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1)
    text = v.slot.text
    edited = text.replace("output", "result")
    judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, post_edit=edited)
    with session_scope(engine) as s:
        ann = s.scalar(select(Annotation))
    assert ann.post_edit == edited and ann.hter == pytest.approx(1 / 10) and ann.label is None


def test_skip_needs_a_reason_and_is_recorded(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1)
    queue_build.build_queue(engine, cid)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    with pytest.raises(session.InvalidJudgment):
        judging.skip(engine, a, v.slot.assignment_id, v.slot.claim_version, "  ")
    v2 = judging.skip(
        engine, a, v.slot.assignment_id, v.slot.claim_version, judging.SKIP_REASONS[1]
    )
    assert v2.progress.mine_skipped == 1 and v2.slot.output_id != v.slot.output_id
    with session_scope(engine) as s:
        skipped = s.scalar(select(Assignment).where(Assignment.id == v.slot.assignment_id))
        assert skipped.state == "skipped"
        assert s.scalar(select(Annotation.skip_reason)) == judging.SKIP_REASONS[1]
        assert log.current_judgments(s, cid) == []


def test_invite_tokens_are_hashed_and_revocable(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 2)
    queue_build.build_queue(engine, cid)
    inv = create_annotator(engine, cid, "Ana")
    assert inv.query == f"?token={inv.token}" and len(inv.token) >= 32
    with session_scope(engine) as s:
        stored = s.scalar(select(Annotator.token_hash).where(Annotator.id == inv.annotator_id))
    assert stored == token_hash(inv.token) and inv.token not in stored
    who = annotator_for_token(engine, inv.token)
    assert who is not None and (who.name, who.campaign_id, who.campaign_name) == ("Ana", cid, "c")
    assert annotator_for_token(engine, inv.token + "x") is None
    assert annotator_for_token(engine, "") is None
    session.next_view(engine, inv.annotator_id)  # holds an item
    revoke_annotator(engine, inv.annotator_id)
    assert annotator_for_token(engine, inv.token) is None
    assert active_annotator(engine, inv.annotator_id) is None
    with pytest.raises(session.AccessDenied):
        session.next_view(engine, inv.annotator_id)
    with session_scope(engine) as s:
        held = s.scalar(
            select(func.count()).where(
                Assignment.annotator_id == inv.annotator_id, Assignment.state == "claimed"
            )
        )
    assert held == 0


def test_attention_checks_mixed_in_excluded_and_scored(engine: Engine) -> None:
    cid = make_campaign(engine, 40, 2, attention_rate=0.2)
    report = queue_build.build_queue(engine, cid, seed=11)
    assert report.attention_slots == 20  # 20 % of 100 positions
    rows = slots(engine, cid)
    att = [r for r in rows if r.kind == "attention"]
    assert len(att) == 20 and all(r.attention_check_id and r.inclusion_prob == 0.0 for r in att)
    assert min(r.position for r in att) < 80 < max(r.position for r in att)  # interleaved
    a = create_annotator(engine, cid, "careful").annotator_id
    b = create_annotator(engine, cid, "careless").annotator_id
    counts = {a: 0, b: 0}
    for who, limit in ((a, 50), (b, 100), (a, 100)):  # a comes back for the item it holds
        v = session.next_view(engine, who)
        while v.slot is not None and counts[who] < limit:
            counts[who] += 1
            label = 0 if (who == a and v.slot.kind == "attention") else 1
            v = judging.submit(engine, who, v.slot.assignment_id, v.slot.claim_version, label=label)
    with session_scope(engine) as s:
        work = {w.name: w for w in annotator_work(s, cid)}
        current = log.current_judgments(s, cid)
        kinds = Counter(s.scalars(select(Annotation.kind)))
    assert (
        kinds["attention"]
        == work["careful"].attention_answered + work["careless"].attention_answered
    )
    assert work["careful"].attention_pass_rate == 1.0
    assert work["careless"].attention_answered > 0 and work["careless"].attention_pass_rate == 0.0
    assert len(current) == kinds["label"] == 100 - kinds["attention"]
    assert work["careful"].n_labels + work["careless"].n_labels == len(current)


def test_fast_progress_counts_equal_a_full_count(engine: Engine) -> None:
    from db.queue import slot_counts as dbcount

    csv = b"item_id,source,reference,system,output,human_label\n" + b"".join(
        f"{j},s{j},r,{s},o {j} {s},{'1' if j < 2 else ''}\n".encode()
        for j in range(8)
        for s in "AB"
    )
    cid = import_campaign(engine, csv, "fast", filename="f.csv").campaign_id
    with session_scope(engine) as s:
        s.get(Campaign, cid).attention_rate = 0.0
        s.get(Campaign, cid).overlap = 0.5
    queue_build.build_queue(engine, cid)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1)
    v = judging.skip(engine, a, v.slot.assignment_id, v.slot.claim_version, "Other")
    session.next_view(engine, create_annotator(engine, cid, "b").annotator_id)
    with session_scope(engine) as s:
        fast = dbcount.queue_counts(s, cid)
        full = dict(
            s.execute(
                select(Assignment.state, func.count())
                .where(Assignment.campaign_id == cid)
                .group_by(Assignment.state)
            ).all()
        )
    assert fast == {k: full.get(k, 0) for k in ("open", "claimed", "done", "skipped", "passed")}
    assert fast["done"] == 5 and fast["skipped"] == 1 and fast["claimed"] > 0


def _judgments(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(
            select(Annotation.label, Annotation.post_edit, Annotation.hter).order_by(Annotation.id)
        ).all()


def test_both_mode_stores_an_untouched_post_edit_only_when_confirmed(engine: Engine) -> None:
    """Issue 17: an a/i click with the box untouched is a label, not a perfect post-edit."""
    cid = make_campaign(engine, 5, 1, mode="both")
    queue_build.build_queue(engine, cid)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)

    def judge(**kw):  # type: ignore[no-untyped-def]
        return judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, **kw)

    shown = [v.slot.text]
    v = judge(label=1, post_edit=v.slot.text)  # untouched, unconfirmed
    shown.append(v.slot.text)
    v = judge(label=0, post_edit=" " + v.slot.text.replace(" ", "\n ") + "\r\n")  # spaces only
    shown.append(v.slot.text)
    v = judge(label=1, post_edit=v.slot.text, no_edit_needed=True)  # confirmed
    shown.append(v.slot.text)
    v = judge(label=1, no_edit_needed=True)  # confirmed without sending the text
    held = v.slot
    with pytest.raises(session.InvalidJudgment, match="No edit needed"):  # contradiction
        judge(label=0, post_edit=v.slot.text + " fixed", no_edit_needed=True)
    with pytest.raises(session.InvalidJudgment):  # "both" still needs a label
        judge(post_edit=v.slot.text, no_edit_needed=True)
    assert session.next_view(engine, a).slot == held  # refused: nothing finished
    judge(label=0, post_edit=v.slot.text + " fixed")
    rows = _judgments(engine)
    assert rows[:4] == [(1, None, None), (0, None, None), (1, shown[2], 0.0), (1, shown[3], 0.0)]
    assert rows[4][:2] == (0, held.text + " fixed") and rows[4][2] > 0 and len(rows) == 5


def test_post_edit_mode_refuses_an_unconfirmed_untouched_save(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1, mode="post_edit")
    queue_build.build_queue(engine, cid)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    with pytest.raises(session.InvalidJudgment, match="unchanged"):
        judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, post_edit=v.slot.text)
    assert _judgments(engine) == [] and session.next_view(engine, a).slot == v.slot
    judging.submit(
        engine,
        a,
        v.slot.assignment_id,
        v.slot.claim_version,
        post_edit=v.slot.text,
        no_edit_needed=True,
    )
    assert _judgments(engine) == [(None, v.slot.text, 0.0)]


def test_binary_mode_takes_no_post_edit(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1)
    queue_build.build_queue(engine, cid)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    for kw in ({"post_edit": v.slot.text}, {"no_edit_needed": True}):
        with pytest.raises(session.InvalidJudgment, match="binary"):
            judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1, **kw)
    assert _judgments(engine) == []
