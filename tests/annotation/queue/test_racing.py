"""Racing in the queue, on real SQLite and PostgreSQL: once all pairs of a system are
settled its outputs are no longer handed out, labels given or held are never lost, the
switch is logged, and switching racing off restores the uniform design."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from annotation.queue import racing
from db.engine import session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Annotation, Output, System
from estimators.live.monitor import CampaignMonitor
from estimators.report.campaign_report import campaign_report
from tests.annotation.queue.test_queue import make_campaign, slots

N_ITEMS = 120


@pytest.fixture(autouse=True)
def inline_recompute(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recompute inline: each test then sees the drop at the round that decided it (the
    background mode has its own test below)."""
    monkeypatch.setattr(racing, "BACKGROUND", False)


def systems_of(engine: Engine, cid: int) -> dict[int, str]:
    """Output id → system name."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(Output.id, System.name)
            .join(System, System.id == Output.system_id)
            .where(System.campaign_id == cid)
        )
        return dict(rows.all())


def raced_campaign(engine: Engine) -> tuple[int, dict[int, str]]:
    """4 systems: sys0 is always adequate, the others are coin flips; racing on."""
    cid = make_campaign(engine, N_ITEMS, 4)
    assert racing.set_racing(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=3)
    return cid, systems_of(engine, cid)


def label_of(name: str, rng: np.random.Generator) -> int:
    return 1 if name == "sys0" else int(rng.random() < 0.5)


def label_until(engine, annotator, names, rng, stop) -> list[str]:  # type: ignore[no-untyped-def]
    """Label in queue order until ``stop(systems labelled so far)`` or nothing is left."""
    seen: list[str] = []
    view = session.next_view(engine, annotator)
    while view.slot is not None and not stop(seen):
        name = names[view.slot.output_id]
        seen.append(name)
        view = judging.submit(
            engine, annotator, view.slot.assignment_id, view.slot.claim_version,
            label=label_of(name, rng),
        )  # fmt: skip
    return seen


def dropped(engine: Engine, cid: int) -> set[str]:
    return {d["system"] for d in racing.dropped_systems(engine, cid)}


@pytest.mark.slow
def test_settled_system_is_no_longer_handed_out(engine: Engine) -> None:
    cid, names = raced_campaign(engine)
    assert {r.state for r in slots(engine, cid)} == {"pending"}
    a = create_annotator(engine, cid, "a").annotator_id
    rng = np.random.default_rng(0)
    before = label_until(engine, a, names, rng, lambda seen: "sys0" in dropped(engine, cid))
    assert dropped(engine, cid) == {"sys0"}  # the coin flips are not settled
    n0 = before.count("sys0")
    assert 30 <= n0 < N_ITEMS
    after = label_until(engine, a, names, rng, lambda seen: False)  # to the end
    # sys0 handed out at most for the group claimed before the drop, never after
    assert after.count("sys0") <= 1 and len(after) > 100
    rows = slots(engine, cid)
    states = {(names[r.output_id], r.state) for r in rows}
    assert ("sys0", "open") not in states and ("sys0", "pending") not in states
    assert {r.state for r in rows} == {"done", "passed"}
    assert {names[r.output_id] for r in rows if r.state == "passed"} == {"sys0"}
    assert all(r.inclusion_prob == 1.0 and r.draw_round is None for r in rows)
    # every label given is kept, one per output, and the monitor reads them all
    with session_scope(engine) as s:
        labelled = s.scalars(select(Annotation.output_id)).all()
    assert len(labelled) == len(set(labelled)) == len(before) + len(after)
    report = campaign_report(read_campaign(engine, cid))
    assert report.monitor is not None and report.n_judgments == len(labelled)
    sys0 = next(st for st in report.monitor.systems if st.name == "sys0")
    assert sys0.result.n_human == n0 + after.count("sys0")


@pytest.mark.slow
def test_claimed_slot_of_dropped_system_is_kept(engine: Engine) -> None:
    cid, names = raced_campaign(engine)
    a = create_annotator(engine, cid, "a").annotator_id
    b = create_annotator(engine, cid, "b").annotator_id
    rng = np.random.default_rng(0)
    # b claims a group (sys0's output in it) and holds it while a labels on
    held = session.next_view(engine, b).slot
    assert held is not None
    group = {s.id for s in slots(engine, cid) if s.annotator_id == b and s.state == "claimed"}
    label_until(engine, a, names, rng, lambda seen: "sys0" in dropped(engine, cid))
    rows = {r.id: r for r in slots(engine, cid)}
    assert all(rows[i].state == "claimed" and rows[i].annotator_id == b for i in group)
    # b answers every held slot, sys0's included: all are saved
    view = session.next_view(engine, b)
    answered = 0
    while view.slot is not None and view.slot.assignment_id in group:
        view = judging.submit(engine, b, view.slot.assignment_id, view.slot.claim_version,
                              label=1)  # fmt: skip
        answered += 1
    assert answered == len(group) == 4
    rows = {r.id: r for r in slots(engine, cid)}
    assert all(rows[i].state == "done" for i in group)


@pytest.mark.slow
def test_switch_is_logged_and_off_restores_uniform(engine: Engine) -> None:
    cid, names = raced_campaign(engine)
    a = create_annotator(engine, cid, "a").annotator_id
    rng = np.random.default_rng(0)
    first = label_until(engine, a, names, rng, lambda seen: "sys0" in dropped(engine, cid))
    first += label_until(engine, a, names, rng, lambda seen: len(seen) >= 60)
    passed = [r for r in slots(engine, cid) if r.state == "passed"]
    assert passed and {names[r.output_id] for r in passed} == {"sys0"}

    assert racing.set_racing(engine, cid, False)
    assert not racing.set_racing(engine, cid, False)  # no change, nothing logged
    changes = [c for c in queue_admin.setting_changes(engine, cid) if c.key == "racing"]
    assert [(c.old_value, c.new_value) for c in changes] == [(False, True), (True, False)]
    assert changes[0].labels_before == 0 and changes[1].labels_before == len(first)
    rows = slots(engine, cid)
    assert {r.state for r in rows} <= {"open", "done", "claimed"}  # nothing pending or passed
    # the rest of the campaign: every output gets exactly one label, sys0's passed ones too
    rest = label_until(engine, a, names, rng, lambda seen: False)
    assert rest.count("sys0") == N_ITEMS - first.count("sys0")
    assert len(first) + len(rest) == 4 * N_ITEMS
    assert {r.state for r in slots(engine, cid)} == {"done"}


def test_racing_needs_paired_uniform(engine: Engine) -> None:
    unpaired = make_campaign(engine, 10, 2, name="u", paired=False)
    with pytest.raises(ValueError, match="paired"):
        racing.set_racing(engine, unpaired, True)
    active = make_campaign(engine, 10, 2, name="a", sampling="active")
    with pytest.raises(ValueError, match="uniform"):
        racing.set_racing(engine, active, True)
    raced = make_campaign(engine, 10, 2, name="r")
    racing.set_racing(engine, raced, True)
    for bad in ({"sampling": "active"}, {"paired": False}):
        with pytest.raises(ValueError, match="racing is on"):
            queue_admin.update_queue_settings(engine, raced, **bad)
    assert [c.key for c in queue_admin.setting_changes(engine, raced)] == ["racing"]
    assert [c.key for c in queue_admin.setting_changes(engine, unpaired)] == []


def test_switching_on_mid_campaign_pends_only_the_untouched_tail(engine: Engine) -> None:
    cid = make_campaign(engine, 40, 3)
    queue_build.build_queue(engine, cid, seed=1)
    names = systems_of(engine, cid)
    a = create_annotator(engine, cid, "a").annotator_id
    label_until(engine, a, names, np.random.default_rng(0), lambda seen: len(seen) >= 9)
    racing.set_racing(engine, cid, True)
    rows = slots(engine, cid)
    reached = max(r.position for r in rows if r.state in ("done", "claimed"))
    assert all(r.state == "pending" for r in rows if r.position > reached)
    assert all(r.state != "pending" for r in rows if r.position <= reached)


@pytest.mark.slow
def test_background_recomputation_drops_without_blocking_saves(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(racing, "BACKGROUND", True)
    cid, names = raced_campaign(engine)
    a = create_annotator(engine, cid, "a").annotator_id
    rng = np.random.default_rng(0)
    seen: list[str] = []
    while "sys0" not in dropped(engine, cid) and len(seen) < 4 * N_ITEMS:
        seen += label_until(engine, a, names, rng, lambda s: len(s) >= 40)
        racing.wait()
    assert dropped(engine, cid) == {"sys0"}
    rest = label_until(engine, a, names, rng, lambda s: False)
    assert rest.count("sys0") <= 1
    with session_scope(engine) as s:
        assert len(s.scalars(select(Annotation.output_id)).all()) == len(seen) + len(rest)


@pytest.mark.slow
def test_systems_in_play_recomputed_at_most_once_per_check_interval(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    cid, names = raced_campaign(engine)
    calls: list[int] = []
    real = racing._monitor

    def counting(source, campaign_id):  # type: ignore[no-untyped-def]
        calls.append(campaign_id)
        return real(source, campaign_id)

    monkeypatch.setattr(racing, "_monitor", counting)
    a = create_annotator(engine, cid, "a").annotator_id
    given = label_until(engine, a, names, np.random.default_rng(0), lambda seen: False)
    assert 1 <= len(calls) <= len(given) // racing.CHECK_EVERY_LABELS + 1


def test_systems_in_play_rule() -> None:
    names = ["A", "B", "C"]
    assert racing.systems_in_play(names, []) == {"A", "B", "C"}
    assert racing.systems_in_play(names, [("A", "B"), ("C", "A")]) == {"B", "C"}
    assert racing.systems_in_play(names, [("A", "B"), ("A", "C"), ("B", "C")]) == set()
    assert racing.systems_in_play(["A"], []) == {"A"}


def test_settled_pairs_read_the_three_way_outcome() -> None:
    # S0 and S1 give the same labels on every item, S2 differs: at the census (every item
    # labelled, finite pool) S0–S1 is "exactly equal" — settled, although its words are not
    # "no difference larger than ε" (the old text matching left it unsettled, so racing
    # never dropped S0 or S1); S0–S2 and S1–S2 have a winner.
    rng = np.random.default_rng(3)
    n = 60
    same = (rng.random(n) < 0.5).astype(float)
    y = np.vstack([same, same, np.ones(n)])
    k = y.shape[0]
    items = np.repeat(np.arange(n), k)
    sys = np.tile(np.arange(k), n)
    rep = CampaignMonitor(
        [None] * k, items, sys, y[sys, items], np.arange(items.size, dtype=float),
        np.ones(items.size), names=["S0", "S1", "S2"], present=np.ones((k, n), dtype=bool),
        finite_pool=True, equivalence_margin=0.05,
    ).report()  # fmt: skip
    words = {(p.a, p.b): p.verdict for p in rep.pairs}
    assert words[("S0", "S1")] == "exactly equal"
    assert ("S0", "S1") in racing.settled_pairs(rep)
    assert racing.systems_in_play(["S0", "S1", "S2"], racing.settled_pairs(rep)) == set()
    # an early read settles nothing
    early = CampaignMonitor(
        [None] * k, items[:9], sys[:9], y[sys[:9], items[:9]], np.arange(9.0), np.ones(9),
        names=["S0", "S1", "S2"], present=np.ones((k, n), dtype=bool), finite_pool=True,
        equivalence_margin=0.05,
    ).report()  # fmt: skip
    assert racing.settled_pairs(early) == set()
