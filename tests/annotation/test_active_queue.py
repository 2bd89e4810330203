"""Active sampling in the queue (issue 12), on real SQLite and PostgreSQL: draw rounds fix π
before each draw and record it with the round on the slots; the claim path, overlap,
attention checks, no double work and concurrency keep working; a uniform campaign can switch
to active (a mixed history) and back."""

from __future__ import annotations

import threading
from collections import Counter

import numpy as np
import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import active_sampling
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.engine import make_engine, session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Annotation, Assignment, Campaign, MetricScore, Output
from estimators.report.campaign_report import campaign_report, default_signatures
from estimators.sampling.active import DEFAULT_TAU
from tests.annotation.test_queue import make_campaign, slots


def add_metric(engine: Engine, cid: int, seed: int = 0) -> dict[int, float]:
    """A chrF-like score in [0, 100] for every output; output id → score."""
    rng = np.random.default_rng(seed)
    with session_scope(engine) as s:
        oids = s.scalars(select(Output.id).order_by(Output.id)).all()
        scores = {o: float(rng.uniform(0, 100)) for o in oids}
        s.execute(
            MetricScore.__table__.insert(),
            [{"output_id": o, "metric": "chrf", "signature": "chrF2|test", "value": v}
             for o, v in scores.items()],
        )  # fmt: skip
    return scores


def label_for(score: float, rng: np.random.Generator) -> int:
    """Humans agree with the metric at the extremes and are a coin flip in the middle."""
    if score < 30:
        return 0
    if score > 70:
        return 1
    return int(rng.random() < 0.5)


def label_everything(engine: Engine, annotator: int, scores, rng, limit=10_000) -> list[int]:
    """Label until nothing is left (or ``limit`` labels); the regular outputs judged."""
    seen = []
    view = session.next_view(engine, annotator)
    while view.slot is not None and len(seen) < limit:
        slot = view.slot
        if slot.kind == "regular":
            seen.append(slot.output_id)
        label = label_for(scores[slot.output_id], rng)
        view = judging.submit(engine, annotator, slot.assignment_id, slot.claim_version,
                              label=label)  # fmt: skip
    return seen


def test_rounds_record_pi_and_favour_uncertain_items(engine: Engine) -> None:
    cid = make_campaign(engine, 120, 2, sampling="active", planned_labels=60)
    scores = add_metric(engine, cid)
    queue_build.build_queue(engine, cid, seed=5)
    assert {r.state for r in slots(engine, cid)} == {"pending"}
    a = create_annotator(engine, cid, "a").annotator_id
    seen = label_everything(engine, a, scores, np.random.default_rng(1))
    rows = slots(engine, cid)
    assert {r.state for r in rows} == {"done", "passed"}  # every item visited, none pending
    assert len(seen) == len(set(seen)) == sum(r.state == "done" for r in rows)
    # rate b = 60 planned / 120 items; π ≥ τ·b on every slot, drawn or passed, and recorded
    b = 0.5
    assert all(DEFAULT_TAU * b - 1e-9 <= r.inclusion_prob <= 1 for r in rows)
    assert all(r.draw_round is not None for r in rows)
    # paired: both outputs of an item share one decision and one π
    by_item: dict[int, set] = {}
    for r in rows:
        by_item.setdefault(r.item_id, set()).add((r.state, r.inclusion_prob, r.draw_round))
    assert all(len(v) == 1 for v in by_item.values())
    n_drawn = sum(r.state == "done" for r in rows) // 2
    assert 35 <= n_drawn <= 85  # ≈ b·N = 60 (binomial-ish spread)
    with session_scope(engine) as s:
        rounds = s.get(Campaign, cid).meta["active_rounds"]
    assert len(rounds) >= 6 and all(r["drawn"] <= active_sampling.ROUND_DRAWS for r in rounds)
    assert rounds[0]["labels"] == 0 and rounds[-1]["labels"] > 0
    assert rounds[-1]["metric"] == "chrF2|test" and rounds[-1]["tau"] == DEFAULT_TAU
    # the model learnt that mid-range scores are uncertain: later rounds give the items
    # whose two outputs both score 30–70 a higher π than items with both at the extremes
    late = [r for r in rows if r.draw_round >= 3]
    mid = [r.inclusion_prob for r in late if 35 < scores[r.output_id] < 65]
    ext = [r.inclusion_prob for r in late if not 25 < scores[r.output_id] < 75]
    assert np.mean(mid) > np.mean(ext)
    # the reader turns them into visits for the monitor, in queue order
    data = read_campaign(engine, cid)
    assert data.visits is not None and len(data.visits) == 120
    assert data.visits.weighted and np.all(np.diff(data.visits.position) > 0)
    assert int(data.visits.drawn.sum()) == n_drawn
    # ... and the monitor accepts the unequal π (weighted streams), with the design summary
    rep = campaign_report(data, signatures=default_signatures(data))
    assert rep.monitor is not None and rep.methods == ["anytime", "active"]
    assert all(st.result.n_human == n_drawn for st in rep.monitor.systems)
    assert rep.monitor.designs["sys0 – sys1"].labels == n_drawn


def test_overlap_attention_and_no_double_work(engine: Engine) -> None:
    cid = make_campaign(engine, 60, 2, sampling="active", overlap=0.3, attention_rate=0.1)
    scores = add_metric(engine, cid, seed=2)
    queue_build.build_queue(engine, cid, seed=9)
    a = create_annotator(engine, cid, "a").annotator_id
    b = create_annotator(engine, cid, "b").annotator_id
    rng = np.random.default_rng(3)
    seen_a = label_everything(engine, a, scores, rng)
    seen_b = label_everything(engine, b, scores, rng)
    assert len(seen_a) == len(set(seen_a)) and len(seen_b) == len(set(seen_b))
    rows = slots(engine, cid)
    att = [r for r in rows if r.kind == "attention"]
    assert att and all(r.state == "done" and r.inclusion_prob == 0.0 for r in att)
    first = {r.output_id: r for r in rows if r.slot == 0 and r.kind == "regular"}
    for r in rows:
        if r.slot == 1:  # an overlap slot follows its item's decision, π × overlap share
            assert r.state == ("passed" if first[r.output_id].state == "passed" else "done")
            assert r.inclusion_prob == pytest.approx(first[r.output_id].inclusion_prob * 0.3)
    assert {r.state for r in rows} <= {"done", "passed"}


def test_switch_to_active_mid_campaign_and_back(engine: Engine) -> None:
    cid = make_campaign(engine, 50, 2)
    scores = add_metric(engine, cid, seed=4)
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "a").annotator_id
    rng = np.random.default_rng(5)
    label_everything(engine, a, scores, rng, limit=20)  # 10 items, uniform
    view = session.next_view(engine, a)  # a claim in flight stays as it is
    held = view.slot.assignment_id
    queue_admin.update_queue_settings(engine, cid, sampling="active", active_tau=0.5)
    changes = queue_admin.setting_changes(engine, cid)
    assert [(c.key, c.new_value, c.labels_before) for c in changes] == [
        ("sampling", "active", 20), ("active_tau", 0.5, 20)]  # fmt: skip
    rows = slots(engine, cid)
    assert Counter(r.state for r in rows) == Counter(done=20, claimed=2, pending=78)
    assert next(r for r in rows if r.id == held).state == "claimed"
    label_everything(engine, a, scores, rng, limit=16)
    data = read_campaign(engine, cid)
    v = data.visits
    assert v is not None and np.all(v.pi[:11] == 1.0) and v.drawn[:11].all()  # mixed history
    assert np.all(v.pi[11:] >= 0.5 * 0.5 - 1e-9) and v.weighted
    # back to uniform: what is still pending opens with π = 1 at the next claim
    assert "pending" in {r.state for r in slots(engine, cid)}
    queue_admin.update_queue_settings(engine, cid, sampling="uniform")
    label_everything(engine, a, scores, rng)
    rows = slots(engine, cid)
    assert "pending" not in {r.state for r in rows}
    last = max(r.draw_round for r in rows if r.draw_round is not None)
    assert all(r.inclusion_prob == 1.0 and r.state == "done" for r in rows if r.draw_round == last)
    with session_scope(engine) as s:
        assert s.get(Campaign, cid).meta["active_rounds"][-1]["sampling"] == "uniform"


def test_settings_are_checked(engine: Engine) -> None:
    cid = make_campaign(engine, 4, 2, paired=False)
    with pytest.raises(ValueError, match="paired design"):
        queue_admin.update_queue_settings(engine, cid, sampling="active")
    with pytest.raises(ValueError, match="active_tau"):
        queue_admin.update_queue_settings(engine, cid, active_tau=0.0)
    assert queue_admin.setting_changes(engine, cid) == []
    queue_admin.update_queue_settings(engine, cid, paired=True, sampling="active")
    assert queue_admin.queue_settings(engine, cid)["sampling"] == "active"


def test_parallel_annotators_on_an_active_queue(engine: Engine) -> None:
    """8 annotator threads on an active campaign: rounds are drawn under the campaign lock
    while others claim; no label lost, nobody judges an output twice, every drawn slot has
    exactly one judgment and every slot its π and round."""
    cid = make_campaign(engine, 150, 3, sampling="active", overlap=0.2)
    scores = add_metric(engine, cid, seed=6)
    queue_build.build_queue(engine, cid, seed=8)
    annotators = [create_annotator(engine, cid, f"p{k}").annotator_id for k in range(8)]
    par = make_engine(engine.url.render_as_string(hide_password=False), pool_size=8)
    saved: dict[int, list[int]] = {a: [] for a in annotators}
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(annotators))

    def work(annotator: int) -> None:
        rng = np.random.default_rng(annotator)
        try:
            barrier.wait()
            view = session.next_view(par, annotator)
            while view.slot is not None and len(saved[annotator]) < 40:
                slot = view.slot
                view = judging.submit(par, annotator, slot.assignment_id, slot.claim_version,
                                      label=label_for(scores[slot.output_id], rng))  # fmt: skip
                assert view.notice is None, view.notice
                saved[annotator].append(slot.assignment_id)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(a,)) for a in annotators]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    par.dispose()
    assert not errors, errors
    with session_scope(engine) as s:
        anns = s.execute(
            select(Annotation.assignment_id, Annotation.output_id, Annotation.annotator_id)
        ).all()
        done = set(s.scalars(select(Assignment.id).where(Assignment.state == "done")))
    n_saved = sum(len(v) for v in saved.values())
    assert n_saved == len(anns) and {x for x, _, _ in anns} == done
    assert max(Counter((o, who) for _, o, who in anns).values()) == 1
    rows = slots(engine, cid)
    visited = [r for r in rows if r.state != "pending"]
    assert all(r.draw_round is not None and r.inclusion_prob > 0 for r in visited)
    # draws follow queue order: no pending slot sits before a visited one
    last_visited = max(r.position for r in visited)
    assert all(r.position > last_visited for r in rows if r.state == "pending")


def test_cli_switches_sampling(tmp_path, monkeypatch) -> None:
    """`cli.py sampling`: switch to active with τ, refused (exit 1, the reason) on an unpaired
    campaign."""
    from typer.testing import CliRunner

    import cli
    from db.engine import get_engine
    from db.migrate import upgrade

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    get_engine.cache_clear()
    try:
        engine = get_engine()
        upgrade(engine)
        cid = make_campaign(engine, 6, 2, name="camp")
        make_campaign(engine, 4, 2, name="loose", paired=False)
        queue_build.build_queue(engine, cid, seed=1)
        runner = CliRunner()
        result = runner.invoke(cli.app, ["sampling", "--campaign", "camp", "--active",
                                         "--tau", "0.4"])  # fmt: skip
        assert result.exit_code == 0, result.output
        assert "camp: sampling active, τ = 0.4" in result.output
        assert queue_admin.queue_settings(engine, cid)["active_tau"] == 0.4
        assert {r.state for r in slots(engine, cid)} == {"pending"}
        result = runner.invoke(cli.app, ["sampling", "--campaign", "loose", "--active"])
        assert result.exit_code == 1 and "paired design" in result.output
    finally:
        get_engine.cache_clear()
