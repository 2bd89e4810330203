"""The monitor with its analyses carried between reads (estimators.caches.monitor) agrees
with the full recomputation at every read of replayed campaigns, to 1e-12 (issue 29)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from estimators.caches.monitor import MonitorCache
from estimators.live.monitor import CampaignMonitor


def _same(x, y, path="") -> None:  # type: ignore[no-untyped-def]
    """Recursive equality, floats to 1e-12 (NaN equals NaN)."""
    if dataclasses.is_dataclass(x):
        assert type(x) is type(y), path
        for f in dataclasses.fields(x):
            _same(getattr(x, f.name), getattr(y, f.name), f"{path}.{f.name}")
    elif isinstance(x, dict):
        assert x.keys() == y.keys(), path
        for k in x:
            _same(x[k], y[k], f"{path}[{k}]")
    elif isinstance(x, list | tuple):
        assert len(x) == len(y), path
        for i, (a, b) in enumerate(zip(x, y, strict=True)):
            _same(a, b, f"{path}[{i}]")
    elif isinstance(x, float | np.floating) and not isinstance(x, bool):
        assert (
            (math.isnan(x) and math.isnan(y))
            or math.isclose(x, y, rel_tol=0, abs_tol=1e-12)
            or x == y
        ), (path, x, y)
    elif isinstance(x, np.ndarray):
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-12, err_msg=path)
    else:
        assert x == y, (path, x, y)


def _replay(k: int, n: int, seed: int, **kw) -> tuple[int, MonitorCache]:
    """Label a paired queue one label at a time (systems in random order within an item)
    and compare the cached monitor's report with a fresh one after every label."""
    rng = np.random.default_rng(seed)
    q = np.linspace(0.5, 0.8, k)
    y = (rng.random((k, n)) < q[:, None]).astype(float)
    metrics = kw.pop("metrics", None)
    order = rng.permutation(n)
    items = np.repeat(order, k)
    sys = np.concatenate([rng.permutation(k) for _ in range(n)])
    label = y[sys, items]
    cache = MonitorCache()
    reads = 0
    for t in range(1, items.size + 1, kw.pop("every", 1) if "every" in kw else 1):
        args = (
            [None] * k if metrics is None else list(metrics), items[:t], sys[:t], label[:t],
            np.arange(t, dtype=float), np.ones(t),
        )  # fmt: skip
        common = dict(present=np.ones((k, n), dtype=bool), finite_pool=True, **kw)
        fresh = CampaignMonitor(*args, **common).report()
        cached = CampaignMonitor(*args, cache=cache, **common).report()
        _same(cached, fresh)
        reads += 1
    return reads, cache


@pytest.mark.parametrize(
    ("design", "rate"), [("betting", "holm"), ("betting", "ebh"), ("asympcs", "holm")]
)
@pytest.mark.slow
def test_every_read_agrees_with_the_full_recomputation(design, rate):
    reads, cache = _replay(4, 24, seed=3, design=design, error_rate=rate)
    assert reads == 4 * 24
    # each label touches its system and the pairs it completes: the rest is reused
    assert cache.hits > cache.misses, (cache.hits, cache.misses)


def test_metric_controls_and_a_changed_setting_are_part_of_the_key():
    rng = np.random.default_rng(5)
    metrics = [rng.random(40) for _ in range(3)]
    _replay(3, 12, seed=5, design="asympcs", metrics=[m[:12] for m in metrics])
    # the same labels under another α must not reuse the analyses made at 0.05
    y = (rng.random((3, 40)) < 0.6).astype(float)
    items, sys = np.repeat(np.arange(40), 3), np.tile(np.arange(3), 40)
    args = ([None] * 3, items, sys, y[sys, items], np.arange(120.0), np.ones(120))
    cache = MonitorCache()
    CampaignMonitor(*args, present=np.ones((3, 40), bool), finite_pool=True, cache=cache).report()
    kw = {"present": np.ones((3, 40), bool), "finite_pool": True, "alpha": 0.10}
    other = CampaignMonitor(*args, cache=cache, **kw).report()
    _same(other, CampaignMonitor(*args, **kw).report())
    assert cache.hits == 0


def test_a_fingerprint_is_the_digest_and_follows_any_change():
    from estimators.caches.monitor import digest

    cache = MonitorCache()
    items, y, pos = np.arange(5), np.array([0.0, 1, 1, 0, 1]), np.arange(5.0)
    fp = cache.fingerprint(("system", 0), (items, y, pos))
    assert fp == digest(items, y, pos)
    assert cache.fingerprint(("system", 0), (items.copy(), y.copy(), pos.copy())) == fp
    y2 = y.copy()
    y2[2] = 0.0  # a label changed
    assert cache.fingerprint(("system", 0), (items, y2, pos)) == digest(items, y2, pos) != fp
    for changed in (
        (items, y, pos.astype(np.float32)),  # another dtype, equal values
        (items[:4], y[:4], pos[:4]),  # a label undone
        (items, y, pos + 1),
    ):
        assert cache.fingerprint(("system", 0), changed) == digest(*changed)
    assert cache.fingerprint(("system", 1), (items, y, pos)) == fp  # per name
