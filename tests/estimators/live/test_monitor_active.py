"""The monitor and the fixed-n report accept unequal inclusion probabilities through the
active design's visits (statistics.md §9): weighted streams, mixed histories, and the
design summary the dashboard shows."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.data.campaign import CampaignData, Judgments, MetricInfo
from estimators.live.monitor import CampaignMonitor
from estimators.report.campaign_report import campaign_report
from estimators.sampling import active
from estimators.sampling import active_predictions as ap
from tests.support.simulation import make_pool

SIG = "chrF2|test"


def _active_campaign(rng, n_items=1500, deltas=(0.0, 0.4, 0.45), rate=0.5, uniform_first=0):
    """An active campaign replayed on a §6 pool: items visited in random order, the first
    ``uniform_first`` with π = 1 (a mixed history), then π from the binned model's
    uncertainty fitted on the labels of earlier rounds (rounds of 50 visits)."""
    pool = make_pool(rng, n_items, list(deltas), r=0.5)
    k = len(deltas)
    order = rng.permutation(n_items)
    y_true = (rng.random(pool.f.shape) < pool.f).astype(float)
    edges = ap.metric_edges(pool.g)
    pi = np.ones(n_items)
    drawn = np.zeros(n_items, dtype=bool)
    for start in range(0, n_items, 50):
        sl = slice(start, start + 50)
        if start >= uniform_first:
            seen = order[:start][drawn[:start]]
            v = np.stack([
                ap.fit_binned(edges, pool.g[s, seen], y_true[s, seen]).residual_var(pool.g[s])
                for s in range(k)
            ])  # fmt: skip
            u = active.item_uncertainty(v)
            pi[sl] = active.inclusion_probabilities(u[order[sl]], rate, reference=u.mean())
        drawn[sl] = rng.random(pi[sl].shape) < pi[sl]
    visits = active.Visits(order, pi, drawn, np.arange(n_items) * k.__float__())
    items = order[drawn]
    positions = np.arange(n_items)[drawn] * k
    item = np.repeat(items, k)
    system = np.tile(np.arange(k), items.size)
    position = (np.repeat(positions, k) + system).astype(float)
    label = y_true[system, item]
    incl = np.repeat(pi[drawn], k)
    return pool, visits, item, system, label, position, incl


def test_monitor_refuses_unequal_pi_without_visits_and_accepts_them_with():
    rng = np.random.default_rng(3)
    pool, visits, item, system, label, position, incl = _active_campaign(rng)
    assert visits.weighted
    grids = [pool.g[s] for s in range(3)]
    with pytest.raises(ValueError, match="unequal inclusion probabilities"):
        CampaignMonitor(grids, item, system, label, position, incl)
    report = CampaignMonitor(grids, item, system, label, position, incl, visits=visits).report()
    for s, st in enumerate(report.systems):
        assert st.result.method == "asympcs+active"
        assert st.result.n_human == int(visits.drawn.sum())  # labels, not visits
        assert st.result.low <= pool.mu[s] <= st.result.high
    by_pair = {(p.a, p.b): p for p in report.pairs}
    assert by_pair[("S0", "S1")].verdict == "B better"  # Δ = −0.4 on the probit scale
    undecided = by_pair[("S1", "S2")]
    assert not undecided.decided  # a 0.05 gap: not decidable with 750 labels
    # the stream runs over visits; the 30-label floor and n_human count labels
    r = undecided.result
    assert r.diagnostics["visits"] == 1500 and r.n_human == int(visits.drawn.sum())
    assert set(report.designs) == {"S0", "S1", "S2", "S0 – S1", "S0 – S2", "S1 – S2"}
    d = report.designs["S0 – S1"]
    assert d.visits == 1500 and 0 < d.ess < d.labels == int(visits.drawn.sum())
    with pytest.raises(ValueError, match="strict mode"):
        CampaignMonitor(grids, item, system, label, position, incl, visits=visits, mode="strict")


def test_weighted_monitor_covers_the_truth():
    """200 replayed campaigns: each system's and pair's final simultaneous interval covers
    the truth in ≥ 95 % of them (anytime-valid at level 0.05/3 per family)."""
    rng = np.random.default_rng(8)
    misses = 0
    reps = 200
    for _ in range(reps):
        pool, visits, item, system, label, position, incl = _active_campaign(
            rng, n_items=600, deltas=(0.0, 0.2), uniform_first=100
        )
        rep = CampaignMonitor([pool.g[0], pool.g[1]], item, system, label, position, incl,
                              visits=visits).report()  # fmt: skip
        truth = [pool.mu[0], pool.mu[1], pool.mu[0] - pool.mu[1]]
        results = [st.result for st in rep.systems] + [rep.pairs[0].result]
        misses += any(not r.low <= t <= r.high for r, t in zip(results, truth, strict=True))
    assert misses / reps <= 0.05


def _data(pool, visits, item, system, label, position, incl) -> CampaignData:
    k, n = pool.f.shape
    zeros = np.zeros(label.size)
    judgments = Judgments(
        annotation_id=np.arange(label.size), item=item, system=system,
        annotator=np.zeros(label.size, dtype=int), label=label, score=zeros * np.nan,
        hter=zeros * np.nan, seconds=zeros * np.nan, position=position, inclusion_prob=incl,
        created_at=np.zeros(label.size, dtype="datetime64[us]"),
    )  # fmt: skip
    return CampaignData(
        campaign_id=1, name="c", mode="binary", systems=[f"S{s}" for s in range(k)],
        is_human=np.zeros(k, bool), item_ids=[str(j) for j in range(n)],
        output_ids=np.arange(k * n).reshape(k, n), metrics=[MetricInfo(SIG, "chrf", k * n)],
        scores={SIG: pool.g}, judgments=judgments, annotators=["a"], visits=visits,
    )  # fmt: skip


def test_report_replaces_unweighted_fixed_n_columns_for_an_active_campaign():
    rng = np.random.default_rng(5)
    parts = _active_campaign(rng, uniform_first=300)
    pool, visits = parts[0], parts[1]
    rep = campaign_report(_data(*parts), signatures=[SIG])
    assert rep.methods == ["anytime", "active"]
    assert any("would be biased" in note for note in rep.notes)
    for s, name in enumerate(rep.systems):
        res = rep.estimates[(name, "active")]
        assert res.n_human == int(visits.drawn.sum()) and res.low <= pool.mu[s] <= res.high
    assert rep.monitor is not None and rep.monitor.designs
    # a uniform campaign (no visits) keeps its columns
    uniform = campaign_report(_data(*parts[:1], None, *parts[2:6], np.ones(parts[6].size)),
                              signatures=[SIG])  # fmt: skip
    assert "active" not in uniform.methods and "human" in uniform.methods
