"""The adaptive pair policy on SQLite and PostgreSQL: chosen at import and recorded, every
pair of a source queued pending, draw rounds opening one pair per source with its π (at
least the recorded floor) and passing the others, π copied into each judgment, the read
carrying the floor and the sources' systems; and the policy's probabilities (pure)."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.judging import preference as pref
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.queue import pair_policy as policy
from db.engine import session_scope
from db.reads.preferences import preferences_of, read_preferences
from db.schema.models import Annotation, Assignment, Campaign
from formats.problems import CampaignFileError
from tests.annotation.judging.test_preference import campaign_file


def _adaptive(engine: Engine, n_items: int = 30, systems=("A", "B", "C", "D")) -> tuple[int, int]:
    report = import_campaign(
        engine, campaign_file(n_items, systems), "adaptive", filename="p.csv",
        settings={"mode": "preference", "pair_policy": "adaptive", "overlap": 0.5},
    )  # fmt: skip
    queue_build.build_queue(engine, report.campaign_id, seed=5)
    return report.campaign_id, create_annotator(engine, report.campaign_id, "ann").annotator_id


def test_policy_recorded_and_refused_where_it_does_not_apply(engine: Engine) -> None:
    cid, _ = _adaptive(engine)
    with session_scope(engine) as s:
        meta = s.get(Campaign, cid).meta
    assert meta["preference"]["policy"] == "adaptive"
    assert meta["preference"]["gamma"] == policy.DEFAULT_GAMMA
    with pytest.raises(CampaignFileError, match="only preference campaigns draw pairs"):
        import_campaign(engine, campaign_file(3), "bin", filename="p.csv",
                        settings={"mode": "binary", "pair_policy": "adaptive"})  # fmt: skip
    with pytest.raises(CampaignFileError, match="use uniform or adaptive"):
        import_campaign(engine, campaign_file(3), "odd", filename="p.csv",
                        settings={"mode": "preference", "pair_policy": "greedy"})  # fmt: skip
    with session_scope(engine) as s:  # nothing written for the refused imports
        assert len(s.scalars(select(Campaign)).all()) == 1


def test_rounds_open_one_pair_per_source_with_its_probability(engine: Engine) -> None:
    cid, ann = _adaptive(engine)
    with session_scope(engine) as s:
        states = s.scalars(select(Assignment.state).where(Assignment.campaign_id == cid)).all()
    assert len(states) == 30 * 6 and set(states) == {"pending"}  # every pair, no overlap
    judged = 0
    while (view := session.next_view(engine, ann)).slot is not None:
        shown = pref.pair_screen(ann, view)
        choice = ("left", "right", "tie")[judged % 3]
        pref.submit_preference(engine, ann, shown.assignment_id, shown.claim_version, choice)
        judged += 1
    assert judged == 30  # one pair of each source
    with session_scope(engine) as s:
        camp = s.get(Campaign, cid)
        delta = camp.meta["preference"]["floor"]
        slots = s.execute(
            select(Assignment.item_id, Assignment.state, Assignment.inclusion_prob)
            .where(Assignment.campaign_id == cid)
        ).all()  # fmt: skip
        stored = s.scalars(select(Annotation.inclusion_prob)).all()
        rounds = camp.meta["active_rounds"]
    assert delta == pytest.approx(policy.DEFAULT_GAMMA / 6)
    assert len(rounds) == 3 and {r["sampling"] for r in rounds} == {"adaptive"}
    by_item: dict[int, list[tuple[str, float]]] = {}
    for item, state, pi in slots:
        by_item.setdefault(item, []).append((state, pi))
    for entries in by_item.values():
        assert sorted(st for st, _ in entries) == ["done"] + ["passed"] * 5
        assert sum(pi for _, pi in entries) == pytest.approx(1.0)
        assert min(pi for _, pi in entries) >= delta - 1e-12
    opened = sorted(pi for e in by_item.values() for st, pi in e if st == "done")
    assert sorted(stored) == pytest.approx(opened)  # each judgment carries its slot's π
    rows = read_preferences(engine, cid)
    assert rows.floor == pytest.approx(delta) and rows.present.shape == (30, 4)
    assert rows.present.all()
    prefs = preferences_of(rows)
    assert prefs.floor == pytest.approx(delta)


def test_probabilities_favour_unsettled_pairs_and_keep_the_floor() -> None:
    rng = np.random.default_rng(0)
    k = 4  # pairs (0,1) clear, (2,3) close; the others unjudged
    a = np.array([0] * 200 + [2] * 200)
    b = np.array([1] * 200 + [3] * 200)
    x = np.concatenate([(rng.random(200) < 0.9) * 1.0, (rng.random(200) < 0.5) * 1.0])
    scores = policy.pair_scores(k, a, b, x, np.ones(400))
    assert scores[0] == 0.0 and scores[5] > 0.8 and scores[1] == 1.0
    delta = policy.floor(k, 0.3)
    pi = policy.source_probabilities(list(range(6)), scores, delta)
    assert pi.sum() == pytest.approx(1.0) and pi.min() == pytest.approx(delta)
    assert pi[5] > pi[0]
    few = policy.source_probabilities([0, 5], scores, delta)  # a source with fewer systems
    assert few.min() >= delta and few.sum() == pytest.approx(1.0)
    flat = policy.source_probabilities([0], np.zeros(6), delta)
    assert flat.tolist() == [1.0]


def test_tasks_are_not_cut_from_an_adaptive_queue(engine: Engine) -> None:
    from annotation.tasks import batches

    cid, _ = _adaptive(engine, n_items=4)
    with pytest.raises(batches.TaskError, match="adaptive preference campaign"):
        batches.cut(engine, cid, 2)
