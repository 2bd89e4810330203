"""Per-system double sampling (Tenenbein 1970): the formula, the collapse, coverage."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.fixed_n.double_sampling import per_system, per_system_difference
from tests.estimators.fixed_n.test_vondaniken import REPS, _sim


def test_per_system_formula_and_collapse():
    rng = np.random.default_rng(0)
    m_all = (rng.random(5000) < 0.3).astype(float)
    m = m_all[:200]
    y = (rng.random(200) < np.where(m == 1, 0.8, 0.4)).astype(float)
    r = per_system(y, m, m_all)
    q, p1, p0 = m_all.mean(), y[m == 1].mean(), y[m == 0].mean()
    assert r.estimate == pytest.approx(q * p1 + (1 - q) * p0)
    var = q**2 * y[m == 1].var(ddof=1) / (m == 1).sum()
    var += (1 - q) ** 2 * y[m == 0].var(ddof=1) / (m == 0).sum() + q * (1 - q) * (
        p1 - p0
    ) ** 2 / 5000
    assert r.se == pytest.approx(np.sqrt(var), rel=1e-10)
    const = per_system(y, np.ones(200), np.ones(5000))
    assert const.estimate == pytest.approx(y.mean()) and const.diagnostics["collapsed"]


@pytest.mark.slow
@pytest.mark.parametrize("n", [20, 50, 100, 400])
@pytest.mark.parametrize("r", [0.8, 0.0])
def test_per_system_coverage(r: float, n: int):
    pool, m, idx, y = _sim(r, n, seed=n + int(100 * r))
    mu = pool.mu
    hit_m = hit_d = 0
    for i in range(REPS):
        li = idx[i]
        a = per_system(y[0, i], m[0, li], m[0])
        d = per_system_difference(y[0, i], y[1, i], m[0, li], m[1, li], m[0], m[1])
        hit_m += a.low <= mu[0] <= a.high
        hit_d += d.low <= mu[0] - mu[1] <= d.high
    cov = hit_m / REPS, hit_d / REPS
    print(f"per_system r={r} n={n} mean={cov[0]:.4f} diff={cov[1]:.4f}")
    for c in cov:
        assert (0.94 <= c <= 0.96) if n >= 50 else c >= 0.92, cov
