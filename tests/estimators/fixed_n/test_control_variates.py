"""CV / PPI++: identities, the ppi-python cross-check, coverage, width and DE (statistics.md §6)."""

from __future__ import annotations

import numpy as np
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

from estimators.fixed_n.control_variates import (
    chaganty_mean,
    data_efficiency,
    optimal_lambda,
    ppi_mean,
    ppi_paired_difference,
    theoretical_data_efficiency,
)
from estimators.fixed_n.human import mean_t, paired_difference
from estimators.judgments.annotator_noise import annotator_noise_ratio
from tests.support.simulation import draw_subsets, label_correlation, make_pool

N_POOL = 10_000
REPS = 2000


def _data(seed: int, n: int = 150, n_u: int = 3000, k: int = 1):
    rng = np.random.default_rng(seed)
    g = rng.normal(size=(n + n_u, k))
    y = 0.4 + g[:n] @ rng.normal(0.3, 0.2, size=k) + rng.normal(size=n)
    return y, (g[:n, 0], g[n:, 0]) if k == 1 else (g[:n], g[n:])


def test_lambda_zero_is_human_only():
    y, (gl, gu) = _data(1)
    assert ppi_mean(y, gl, gu, lam=0).ci == pytest.approx(mean_t(y).ci, abs=1e-14)
    assert ppi_mean(y, gl, gu, lam=0).estimate == pytest.approx(mean_t(y).estimate, abs=1e-14)
    rng = np.random.default_rng(2)
    ya, yb = rng.random(60), rng.random(60)
    ga, gb = rng.random(560), rng.random(560)
    for controls in ("difference", "both"):
        r = ppi_paired_difference(ya, yb, ga[:60], gb[:60], ga[60:], gb[60:], controls, lam=0)
        assert r.ci == pytest.approx(paired_difference(ya, yb).ci, abs=1e-14)


def test_constant_predictor_returns_label_mean():
    y, _ = _data(3)
    for lam in (None, 1.0, 0.7):
        r = ppi_mean(y, np.full(y.size, 2.5), np.full(500, 2.5), lam=lam)
        assert r.estimate == pytest.approx(y.mean(), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_matches_ppi_python(seed: int):
    """Same λ, same α: point estimate and interval equal ppi_py's within 1e-8."""
    rng = np.random.default_rng(seed)
    n, n_u = rng.integers(30, 400), rng.integers(500, 5000)
    g = rng.normal(size=n + n_u) * rng.uniform(0.5, 3)
    y = rng.uniform(-1, 1) * g[:n] + rng.normal(size=n)
    gl, gu = g[:n], g[n:]
    for lam in (optimal_lambda(y, gl, gu), 0.0, 1.0, 0.37, -0.8):
        ours = ppi_mean(y, gl, gu, lam=lam, level=0.9, ddof=0, use_t=False)
        lo, hi = ppi_mean_ci(y, gl, gu, alpha=0.1, lam=lam)
        assert ours.ci == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-8)
        point = ppi_mean_pointestimate(y, gl, gu, lam=lam)
        assert ours.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-8)
    # ppi_py's own λ̂ (clipped to [0, 1]) equals ours whenever ours lies inside [0, 1]
    lam = optimal_lambda(y, gl, gu)
    if 0 < lam < 1:
        lo, hi = ppi_mean_ci(y, gl, gu, alpha=0.1)
        ours = ppi_mean(y, gl, gu, level=0.9, ddof=0, use_t=False)
        assert ours.ci == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-8)


def test_chaganty_form_is_the_same_estimator():
    for seed in range(3):
        y, (gl, gu) = _data(seed, k=1)
        c, p = chaganty_mean(y, gl, gu), ppi_mean(y, gl, gu)
        assert c.estimate == pytest.approx(p.estimate, abs=1e-12)
        assert c.ci == pytest.approx(p.ci, abs=1e-12)
        y, (gl, gu) = _data(seed, k=3)
        c, p = chaganty_mean(y, gl, gu), ppi_mean(y, gl, gu)
        assert c.estimate == pytest.approx(p.estimate, abs=1e-12)


def test_lambda_not_clipped_and_vector_controls():
    rng = np.random.default_rng(5)
    g = rng.random((2000, 2))
    hter = 0.8 - 0.6 * g[:, 0] + 0.1 * rng.normal(size=2000)  # lower-is-better score
    lam = optimal_lambda(hter[:200], g[:200, 0], g[200:, 0])
    assert lam < -0.4
    lam2 = optimal_lambda(hter[:200], g[:200], g[200:])
    assert lam2.shape == (2,) and lam2[0] < -0.4 and abs(lam2[1]) < 0.1
    # the formula itself: Cov_L(y, g) (1/n) / ((1 + n/N_u)·Var_{L∪U}(g))
    y = hter[:200]
    expected = np.mean((y - y.mean()) * (g[:200, 0] - g[:200, 0].mean()))
    expected /= (1 + 200 / 1800) * np.var(g[:, 0], ddof=1)
    assert lam == pytest.approx(expected, rel=1e-12)


def _coverage(r: float, n: int, seed: int) -> dict[str, float]:
    # pool ≥ 50·n: the estimand is the pool mean, so a large sampling fraction would make
    # every interval conservative (finite-population correction 1 − n/N)
    big_n = max(N_POOL, 50 * n)
    rng = np.random.default_rng(seed)
    pool = make_pool(rng, big_n, [0.0, 0.3], r=r)
    mu = pool.mu
    idx = draw_subsets(rng, big_n, n, REPS)
    ya, yb = pool.draw_labels(rng, idx, 0), pool.draw_labels(rng, idx, 1)
    ga, gb = pool.g
    hits = {k: 0 for k in ("mean", "human", "diff", "both")}
    width = {"mean": 0.0, "human": 0.0}
    mask = np.ones(big_n, bool)
    for i in range(REPS):
        mask[:] = True
        mask[idx[i]] = False
        li = idx[i]
        res = ppi_mean(ya[i], ga[li], ga[mask])
        hum = mean_t(ya[i])
        hits["mean"] += res.low <= mu[0] <= res.high
        hits["human"] += hum.low <= mu[0] <= hum.high
        width["mean"] += res.width
        width["human"] += hum.width
        for controls in ("difference", "both"):
            d = ppi_paired_difference(ya[i], yb[i], ga[li], gb[li], ga[mask], gb[mask], controls)
            key = "diff" if controls == "difference" else "both"
            hits[key] += d.low <= mu[0] - mu[1] <= d.high
    out = {k: v / REPS for k, v in hits.items()}
    out["width_ratio"] = width["mean"] / width["human"]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("n", [20, 50, 100, 400])
@pytest.mark.parametrize("r", [0.8, 0.0])
def test_fixed_n_coverage_and_width(r: float, n: int):
    cov = _coverage(r, n, seed=10 * n + int(10 * r))
    print(f"r={r} n={n}", cov)
    for key in ("mean", "diff", "both"):
        if n >= 50:
            assert 0.94 <= cov[key] <= 0.96, (key, cov)
        else:
            assert cov[key] >= 0.92, (key, cov)
    if r == 0.0:  # a useless metric costs (almost) nothing
        assert cov["width_ratio"] <= 1.02, cov
    else:
        assert cov["width_ratio"] < 0.97, cov


@pytest.mark.parametrize(("r", "n", "n_u"), [(0.8, 200, 10_000), (0.95, 100, 2_000)])
def test_data_efficiency_matches_theory(r: float, n: int, n_u: int):
    """mean(se²_human)/mean(se²_PPI++) within ±5 % of 1/(1 − ρ_y²·N_u/(N_u+n)) (§6.3)."""
    rng = np.random.default_rng(7)
    pool = make_pool(rng, n + n_u, [0.0], r=r)
    rho_y = label_correlation(pool)
    idx = draw_subsets(rng, n + n_u, n, REPS)
    y = pool.draw_labels(rng, idx, 0)
    g = pool.g[0]
    se_h2 = se_p2 = 0.0
    mask = np.ones(n + n_u, bool)
    for i in range(REPS):
        mask[:] = True
        mask[idx[i]] = False
        res = ppi_mean(y[i], g[idx[i]], g[mask])
        se_h2 += res.diagnostics["se_human"] ** 2
        se_p2 += res.se**2
    de, theory = se_h2 / se_p2, theoretical_data_efficiency(rho_y, n, n_u)
    print(f"rho_y={rho_y:.3f} DE={de:.4f} theory={theory:.4f}")
    assert de == pytest.approx(theory, rel=0.05)
    assert data_efficiency(y[0], g[idx[0]], g[mask]) > 1


@pytest.mark.slow
def test_annotator_noise_ratio_recovers_gamma():
    rng = np.random.default_rng(11)
    gamma, items, hits = 0.5, 400, 0
    for _ in range(300):
        f = rng.normal(size=items)
        ratings = f[:, None] + np.sqrt(gamma) * rng.normal(size=(items, 2))
        res = annotator_noise_ratio(ratings)
        hits += res.low <= gamma <= res.high
    assert 0.92 <= hits / 300 <= 0.98
    assert res.diagnostics["de_cap"] == pytest.approx((1 + res.estimate) / res.estimate)
    ragged = [[1.0, 2.0], [0.5, 0.7, 0.4], [3.0], [2.0, 2.5], [0.0, 0.2]]
    assert annotator_noise_ratio(ragged).diagnostics["n_items"] == 4
