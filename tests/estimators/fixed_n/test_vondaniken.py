"""von Däniken estimators: closed forms, quadrature vs brute force, coverage, negative control."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from estimators.fixed_n.double_sampling import per_system
from estimators.fixed_n.human import binary_beta
from estimators.fixed_n.vondaniken import (
    calibration_counts,
    drift_test,
    metric_only_calibrated,
    metric_only_known,
    mixed,
    per_system_posterior,
    shared_rate,
)
from estimators.fixed_n.vondaniken_posterior import MetricAccuracy, Ratings, posterior
from tests.support.simulation import binary_metric, draw_subsets, make_pool, true_rates

N_POOL = 10_000
REPS = 2000


def _brute(h, n_h, m, n_m, cal, grid=300, alphas=600):
    """Posterior mean, SD and 95 % interval by a dense tensor grid over (α, ρ, η)."""
    tp, fn, tn, fp = cal

    def rate(a, b):
        lo, hi = stats.beta.ppf([1e-10, 1 - 1e-10], a, b)
        x = np.linspace(lo, hi, grid)
        return x, stats.beta.logpdf(x, a, b)

    rho, lr = rate(tp + 1, fn + 1)
    eta, le = rate(tn + 1, fp + 1)
    al = (np.arange(alphas) + 0.5) / alphas
    prior = (lr[:, None] + le[None, :]).ravel()
    lp = np.empty(alphas)
    for start in range(0, alphas, 40):
        a = al[start : start + 40, None, None]
        x = (rho[None, :, None] * a + (1 - eta[None, None, :]) * (1 - a)).reshape(a.size, -1)
        ll = m * np.log(x) + (n_m - m) * np.log1p(-x) + prior
        lp[start : start + 40] = special.logsumexp(ll, axis=1)
    lp += special.xlogy(h, al) + special.xlog1py(n_h - h, -al)
    d = np.exp(lp - lp.max())
    d /= d.sum()
    mean = d @ al
    cdf = np.cumsum(d) - d / 2
    return mean, np.sqrt(d @ (al - mean) ** 2), *np.interp([0.025, 0.975], cdf, al)


@pytest.mark.parametrize(
    "case",
    [
        (0, 0, 5400, 10000, (180, 70, 160, 90)),
        (40, 100, 5400, 10000, (180, 70, 160, 90)),
        (12, 20, 400, 1000, (10, 2, 6, 2)),
    ],
)
@pytest.mark.slow
def test_quadrature_matches_brute_force(case):
    h, n_h, m, n_m, cal = case
    p = posterior(Ratings(h, n_h, m, n_m), MetricAccuracy(calibration=cal))
    mean, sd, lo, hi = _brute(h, n_h, m, n_m, cal)
    assert p.mean == pytest.approx(mean, abs=3e-4)
    assert np.sqrt(p.var) == pytest.approx(sd, rel=5e-3)
    assert (p.low, p.high) == pytest.approx((lo, hi), abs=2e-3)


def test_known_rates_closed_form():
    r = metric_only_known(540, 1000, 0.7, 0.7)
    assert r.estimate == pytest.approx(0.6)  # Rogan–Gladen (0.54 + 0.7 − 1)/0.4
    a, b = 541, 461
    lo, hi = 0.3, 0.7
    mass = special.betainc(a, b, hi) - special.betainc(a, b, lo)
    xs = np.linspace(lo, hi, 400_001)
    dens = stats.beta.pdf(xs, a, b) / mass
    var_m = np.trapezoid(xs**2 * dens, xs) - np.trapezoid(xs * dens, xs) ** 2
    assert r.se == pytest.approx(np.sqrt(var_m) / 0.4, rel=1e-6)
    # the grid engine agrees with the closed form
    g = posterior(Ratings(0, 0, 540, 1000), MetricAccuracy(0.7, 0.7))
    assert np.sqrt(g.var) == pytest.approx(r.se, rel=1e-4)
    assert (g.low, g.high) == pytest.approx(r.ci, abs=2e-4)
    # ρ + η < 1: the flipped metric gives the same answer
    f = metric_only_known(460, 1000, 0.3, 0.3)
    assert f.estimate == pytest.approx(r.estimate) and f.ci == pytest.approx(r.ci)


def test_mixed_reduces_to_known_cases():
    # no metric data: the error-free Beta posterior
    m = mixed(Ratings(37, 50, 0, 0), MetricAccuracy(0.8, 0.8))
    b = binary_beta(37, 50)
    assert m.estimate == pytest.approx(b.estimate, abs=1e-5)
    assert m.ci == pytest.approx(b.ci, abs=5e-4)
    # a perfect metric is just more human labels
    p = mixed(Ratings(37, 50, 140, 200), MetricAccuracy(1.0, 1.0))
    b = binary_beta(177, 250)
    assert p.estimate == pytest.approx(b.estimate, abs=1e-5)
    assert p.se == pytest.approx(b.se, rel=1e-3)


def _sim(r: float, n: int, seed: int, offsets=None, systems=2):
    rng = np.random.default_rng(seed)
    pool = make_pool(rng, N_POOL, np.linspace(0, 0.3, systems), r=r)
    m = binary_metric(pool, offsets=offsets)
    idx = draw_subsets(rng, N_POOL, n, REPS)
    y = np.stack([pool.draw_labels(rng, idx, s) for s in range(systems)])
    return pool, m, idx, y


@pytest.mark.slow
@pytest.mark.parametrize(("r", "n"), [(0.8, 20), (0.8, 50), (0.8, 400), (0.0, 50), (0.0, 400)])
def test_per_system_posterior_coverage(r: float, n: int):
    """The Bayesian per-system mixed posterior (own calibration counts + h₊ + m₊ of U)."""
    pool, m, idx, y = _sim(r, n, seed=7 * n + int(10 * r), systems=1)
    mu = pool.mu[0]
    hits = 0
    mask = np.ones(N_POOL, bool)
    for i in range(REPS):
        mask[:] = True
        mask[idx[i]] = False
        res = per_system_posterior(y[0, i], m[0, idx[i]], m[0, mask])
        hits += res.low <= mu <= res.high
    print(f"per_system_posterior r={r} n={n} coverage={hits / REPS:.4f}")
    assert (0.94 <= hits / REPS <= 0.96) if n >= 50 else hits / REPS >= 0.92


@pytest.mark.slow
@pytest.mark.parametrize("n_m", [100, 1000, 10000])
def test_metric_only_coverage_model_based(n_m: int):
    """Known truth from the model itself: α = 0.6, ρ = 0.8, η = 0.75."""
    rng = np.random.default_rng(n_m)
    alpha, rho, eta = 0.6, 0.8, 0.75
    alpha_m = (rho + eta - 1) * alpha + 1 - eta
    m_pos = rng.binomial(n_m, alpha_m, size=REPS)
    hits = sum((r := metric_only_known(k, n_m, rho, eta)).low <= alpha <= r.high for k in m_pos)
    assert 0.94 <= hits / REPS <= 0.96
    # ρ, η from a calibration set of 300 items, integrated out
    reps = 1000 if n_m == 10000 else 600
    pos = rng.binomial(300, alpha, size=reps)
    tp, tn = rng.binomial(pos, rho), rng.binomial(300 - pos, eta)
    hits = 0
    for i in range(reps):
        cal = (tp[i], pos[i] - tp[i], tn[i], 300 - pos[i] - tn[i])
        res = metric_only_calibrated(m_pos[i], n_m, cal)
        hits += res.low <= alpha <= res.high
    # MC-SE ≈ 0.009 at 600 reps; a calibrated Bayesian interval is not exact frequentist
    assert 0.925 <= hits / reps <= 0.975, hits / reps


@pytest.mark.slow
def test_shared_rate_negative_control():
    """Calibration shift: system 0's metric is biased upward. Shared-rate must lose coverage
    (and say so through its drift test); per-system keeps it. statistics.md §1.6 / §6.7."""
    reps, n, systems = 600, 100, 4
    rng = np.random.default_rng(99)
    pool = make_pool(rng, N_POOL, np.zeros(systems), r=0.7)
    m = binary_metric(pool, offsets=[0.5, 0.0, 0.0, 0.0])
    rho, eta = true_rates(pool, m)
    assert rho[0] - rho[1] > 0.1 and eta[1] - eta[0] > 0.1  # the shift is real
    idx = draw_subsets(rng, N_POOL, n, reps)
    y = np.stack([pool.draw_labels(rng, idx, s) for s in range(systems)])
    mu = pool.mu[0]
    hit_shared = hit_per = drift = 0
    mask = np.ones(N_POOL, bool)
    for i in range(reps):
        li = idx[i]
        mask[:] = True
        mask[li] = False
        res = shared_rate(
            [y[s, i] for s in range(systems)],
            [m[s, li] for s in range(systems)],
            [m[s, mask] for s in range(systems)],
        )[0]
        assert not res.valid_for_verdict and not res.significant(0.0)
        hit_shared += res.low <= mu <= res.high
        drift += res.diagnostics["drift_p_value"] < 0.05
        p = per_system(y[0, i], m[0, li], m[0])
        hit_per += p.low <= mu <= p.high
    print(
        f"shared {hit_shared / reps:.3f} per-system {hit_per / reps:.3f} drift {drift / reps:.3f}"
    )
    assert hit_shared / reps < 0.5  # collapses
    assert hit_per / reps >= 0.93
    assert drift / reps > 0.5


def test_drift_test_quiet_without_shift():
    rng = np.random.default_rng(4)
    pool = make_pool(rng, N_POOL, np.zeros(3), r=0.7)
    m = binary_metric(pool)
    idx = rng.choice(N_POOL, 300, replace=False)
    ys = [pool.draw_labels(rng, idx, s) for s in range(3)]
    res = drift_test(ys, [m[s, idx] for s in range(3)])
    assert res["p_value"] > 0.05
    assert calibration_counts([1, 1, 0, 0], [1, 0, 0, 1]) == (1, 1, 1, 1)
