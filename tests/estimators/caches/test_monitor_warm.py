"""A cold read analyses its pairs on several threads first (MonitorCache.warm): the report is
the one the read's own thread gives alone and the one without a cache — every pair's p-value,
interval, e-value and verdict — Holm and e-BH (whose e-values each thread hands back),
betting (with and without a metric control) and AsympCS designs; and the next read carries
on from the threads' states."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.caches import monitor as monitor_cache
from estimators.caches.monitor import MIN_PARALLEL, MonitorCache
from estimators.live.monitor import CampaignMonitor
from tests.estimators.caches.test_monitor import _same

K, N, LABELLED = 10, 150, 90  # 45 pairs


def _monitor(t: int, cache, **kw) -> CampaignMonitor:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(29)
    y = (rng.random((K, N)) < np.linspace(0.35, 0.8, K)[:, None]).astype(float)
    items = np.repeat(rng.permutation(N)[:LABELLED], K)
    sys_ = np.concatenate([rng.permutation(K) for _ in range(LABELLED)])
    scores = y + 0.4 * rng.standard_normal((K, N))  # a metric correlated with the labels
    metrics = list(scores) if kw.get("design") == "betting_cv" else [None] * K
    return CampaignMonitor(
        metrics, items[:t], sys_[:t], y[sys_[:t], items[:t]], np.arange(t, dtype=float),
        np.ones(t), present=np.ones((K, N), dtype=bool), cache=cache,
        **{"finite_pool": True, **kw},
    )  # fmt: skip


@pytest.mark.parametrize(
    "kw",
    [
        dict(design="betting"),
        dict(design="betting", error_rate="ebh"),
        dict(design="betting", finite_pool=False),
        dict(design="asympcs"),
        dict(design="betting_cv"),
    ],
)
@pytest.mark.slow
def test_a_cold_read_on_threads_is_the_read_on_one(kw):
    assert K * (K - 1) // 2 >= MIN_PARALLEL
    t = K * LABELLED - 3
    threaded = MonitorCache(threads=3)
    warm = _monitor(t, threaded, **kw).report()
    assert threaded.hits >= K * (K - 1) // 2  # the read found every pair's row stored
    alone = _monitor(t, MonitorCache(threads=1), **kw).report()
    fresh = _monitor(t, None, **kw).report()
    for a, b in zip(warm.pairs, alone.pairs, strict=True):
        assert (a.p_value, a.result.ci, a.e_value, a.verdict) == (
            b.p_value, b.result.ci, b.e_value, b.verdict,
        )  # fmt: skip
    _same(warm, alone)
    _same(warm, fresh)
    _same(_monitor(t + 3, threaded, **kw).report(), _monitor(t + 3, None, **kw).report())


def test_a_warm_read_stays_on_its_thread():
    cache = MonitorCache(threads=3)
    _monitor(K * LABELLED - 1, cache, design="betting").report()
    calls = []
    cache.warm([("pair", 0, 1)] * MIN_PARALLEL, calls.append)  # stored: nothing to do
    assert calls == []
    cache.warm([("pair", -1, s) for s in range(MIN_PARALLEL - 1)], calls.append)  # too few
    assert calls == []
    cache.warm([("pair", -1, s) for s in range(MIN_PARALLEL)], calls.append)
    assert sorted(calls) == [("pair", -1, s) for s in range(MIN_PARALLEL)]


def test_threads_only_on_idle_cores(monkeypatch):
    """By default a cold read spreads over the cores only when the load average leaves half
    a core idle (on busy cores more threads only add contention)."""
    monkeypatch.setattr(monitor_cache.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(monitor_cache.os, "getloadavg", lambda: (0.3, 0.2, 0.1))
    assert monitor_cache.default_threads() == 2
    monkeypatch.setattr(monitor_cache.os, "getloadavg", lambda: (1.8, 0.2, 0.1))
    assert monitor_cache.default_threads() == 1
