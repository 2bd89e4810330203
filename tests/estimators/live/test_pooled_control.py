"""The monitor's pooled control slope under asympcs_mix (estimators.live.pooled): the
monitor's pair p-values equal the direct computation, reads with the campaign's cache equal
fresh reads (a third system's label undone included), and a pair's slope reads only the
items complete before its item's first label."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.base.multiple import bonferroni_alpha, pairs
from estimators.caches.monitor import MonitorCache
from estimators.live.monitor import CampaignMonitor
from estimators.live.pooled import PooledControl
from estimators.live.pools import CampaignPool, Stream
from estimators.sequences import mixture
from estimators.sequences import mixture_control as mc

N, K = 300, 4
KW = dict(design="asympcs_mix", finite_pool=True, label_range=(0.0, 1.0), t_star=N)


@pytest.fixture(scope="module")
def campaign():  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    mu = np.array([0.80, 0.78, 0.74, 0.70])
    y = np.clip(mu[None, :] + 0.15 * rng.standard_normal((N, K)), 0, 1)
    g = y + 0.2 * rng.standard_normal((N, K))
    order = rng.permutation(N)
    return y, g, order


def _paired(y, g, order, t):  # type: ignore[no-untyped-def]
    """The paired queue's first t items: every system's label, item after item."""
    it = np.repeat(order[:t], K)
    sy = np.tile(np.arange(K), t)
    pos = np.arange(it.size, dtype=float)
    return [g[:, s] for s in range(K)], it, sy, y[it, sy], pos, np.ones(it.size)


def test_monitor_pair_pvalues_are_the_pooled_mixture(campaign) -> None:  # type: ignore[no-untyped-def]
    y, g, order = campaign
    t = 200
    rep = CampaignMonitor(*_paired(y, g, order, t), **KW).report()
    plist = pairs(K)
    yo, go = y[order[:t]], g[order[:t]]
    d = np.stack([yo[:, a] - yo[:, b] for a, b in plist], 1)
    gd = np.stack([go[:, a] - go[:, b] for a, b in plist], 1)[..., None]
    var = np.array([[np.var(g[:, a] - g[:, b])] for a, b in plist])
    lam = mc.pooled_slopes(d, gd, np.ones(d.shape, bool), var)[:t]  # item i: i − 1 complete
    a_pair = bonferroni_alpha(0.05, len(plist))
    for j, (a, b) in enumerate(plist):
        gbar = np.array([np.mean(g[:, a] - g[:, b])])
        z = mc.increments(d[:, j], gd[:, j], gbar, lam, N).z
        p = mixture.mixture_pvalue(z, 0.0, t_max=N, alpha_tuning=a_pair)[-1]
        assert rep.pairs[j].p_value == pytest.approx(p, rel=1e-12, abs=1e-300)
        assert rep.pairs[j].result.diagnostics["lam"] == pytest.approx(lam[-1, 0], rel=1e-12)
    assert sum(p.decided for p in rep.pairs) >= 3


def test_cached_reads_equal_fresh_reads_with_an_undo(campaign) -> None:  # type: ignore[no-untyped-def]
    y, g, order = campaign
    cache = MonitorCache()
    for t in (40, 90, 150):
        args = _paired(y, g, order, t)
        cached = CampaignMonitor(*args, cache=cache, **KW).report()
        fresh = CampaignMonitor(*args, **KW).report()
        for x, f in zip(cached.pairs, fresh.pairs, strict=True):
            assert x.p_value == f.p_value and x.verdict == f.verdict
    # undo system 3's label of the 20th item: pair (0, 1)'s streams are unchanged, but its
    # slopes after that item read fewer complete items
    metrics, it, sy, lab, pos, pi = _paired(y, g, order, 150)
    keep = ~((sy == 3) & (it == order[19]))
    args = (metrics, it[keep], sy[keep], lab[keep], pos[keep], pi[keep])
    cached = CampaignMonitor(*args, cache=cache, **KW).report()
    fresh = CampaignMonitor(*args, **KW).report()
    before = CampaignMonitor(*_paired(y, g, order, 150), **KW).report()
    for j in range(len(pairs(K))):
        assert cached.pairs[j].p_value == fresh.pairs[j].p_value
        assert cached.pairs[j].result.ci == fresh.pairs[j].result.ci
    assert fresh.pairs[0].result.ci != before.pairs[0].result.ci


def test_slopes_read_only_items_complete_before_the_first_label() -> None:
    """Three systems on 6 items; system 2 labels late. Pair (0, 1)'s item takes the slope
    after the items every system had labelled before its own first label."""
    rng = np.random.default_rng(2)
    metrics = [rng.normal(size=6) for _ in range(3)]
    pool = CampaignPool(metrics, None, None, "difference")
    lab = rng.random((3, 6))
    # positions: systems 0 and 1 label items 0..5 at 0..11; system 2 labels item j at 20 + j
    streams = [
        Stream(np.arange(6), lab[0], np.arange(6) * 2.0),
        Stream(np.arange(6), lab[1], np.arange(6) * 2.0 + 1),
        Stream(np.arange(6), lab[2], 20.0 + np.arange(6)),
    ]
    pc = PooledControl(pool, streams)
    np.testing.assert_array_equal(pc.completed, 20.0 + np.arange(6))
    lam = pc.pair_slopes(streams[0], streams[1], np.zeros(6))
    np.testing.assert_array_equal(lam, np.zeros((6, 1)))  # nothing complete before 11
    late = [Stream(np.arange(6), lab[2], np.arange(6) * 3.0 + 0.5)]
    pc = PooledControl(pool, streams[:2] + late)
    # item j's first label at 2j; complete items: completion max(2i + 1, 3i + 0.5)
    done = np.maximum(np.arange(6) * 2.0 + 1, np.arange(6) * 3.0 + 0.5)
    want = pc.lam[np.searchsorted(np.sort(done), np.arange(6) * 2.0, side="left")]
    np.testing.assert_array_equal(pc.pair_slopes(streams[0], streams[1], np.zeros(6)), want)


def test_other_designs_keep_their_own_controls(campaign) -> None:  # type: ignore[no-untyped-def]
    y, g, order = campaign
    args = _paired(y, g, order, 100)
    rep = CampaignMonitor(*args, **{**KW, "design": "asympcs"}).report()
    # the per-pair OLS slope (from the pair's own labels), not the pooled one
    assert rep.pairs[0].result.diagnostics["design"] == "asympcs"
    mon = CampaignMonitor(*args, **{**KW, "design": "asympcs"})
    assert mon._analysis.pair_slopes(*(mon._labels.stream(s)[0] for s in (0, 1)), None) is None
