"""The cross-fitted learned control ŷ (statistics.md §8), checked by simulation with known truth.

Pools from :mod:`tests.support.simulation` (statistics.md §6 generator) with three noisy metrics
g_m = r·q/sd(q) + sqrt(1 − r²)·ε_m (r = 0.3 each, independent noise). Checks: ŷ beats the best
single metric in correlation; fixed-n coverage of PPI++ with ŷ in [0.94, 0.96] for means and
paired differences; measured DE within ±5 % of 1/(1 − ρ²·N_u/(N_u+n)); pure-noise features cost
≤ 3 % width; the in-sample ŷ (no cross-fitting) under-covers visibly; and anytime P(ever
miss) ≤ 0.05 when the monitor's ŷ is refitted only on past labels.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression, Ridge

from estimators.fixed_n import control_variates as cv
from estimators.fixed_n import human
from estimators.fixed_n import learned as lr
from estimators.fixed_n import learned_models as lm
from estimators.sequences.confidence_sequences import asymptotic_cs
from estimators.sequences.sequential import cv_increments
from tests.support.simulation import Pool, draw_subsets, make_pool


def noisy_metrics(rng: np.random.Generator, pool: Pool, r: float = 0.3, k: int = 3) -> np.ndarray:
    """k metrics of correlation r with quality, independent noise: shape (systems, N, k)."""
    q = pool.q
    return np.stack(
        [r * q / q.std() + math.sqrt(1 - r * r) * rng.standard_normal(q.shape) for _ in range(k)],
        axis=-1,
    )


def label_corr(pool: Pool, pred: np.ndarray, system: int = 0) -> float:
    """Exact corr(single binary label Y, pred) over the pool (Var Y = Var f + E f(1−f))."""
    f = pool.f[system]
    cov = np.mean((f - f.mean()) * (pred - pred.mean()))
    return float(cov / math.sqrt((f.var() + np.mean(f * (1 - f))) * pred.var()))


# ------------------------------------------------------------------ the models


def test_logistic_and_ridge_solve_scikit_learns_objectives():
    rng = np.random.default_rng(0)
    z = rng.standard_normal((120, 4))
    y = (rng.random(120) < 1 / (1 + np.exp(-z[:, 0] + 0.5 * z[:, 2]))).astype(float)
    w, b = lm._logistic_l2(z, y)
    ref = LogisticRegression(C=1.0, tol=1e-12, max_iter=1000).fit(z, y)
    np.testing.assert_allclose(w, ref.coef_[0], atol=1e-5)
    assert b == pytest.approx(ref.intercept_[0], abs=1e-5)
    yc = z @ [1.0, 0.0, -2.0, 0.5] + rng.standard_normal(120)
    w, b = lm._ridge(z, yc)
    ref = Ridge(alpha=1.0).fit(z, yc)
    np.testing.assert_allclose(w, ref.coef_, atol=1e-10)
    assert b == pytest.approx(ref.intercept_, abs=1e-10)


def test_constant_labels_predict_the_constant_and_boosting_runs():
    x = np.random.default_rng(1).standard_normal((40, 3))
    h, name = lm.fit_predictor(x, np.ones(40))
    assert name == "constant" and np.all(h(x) == 1.0)
    y = (x[:, 0] > 0).astype(float)
    h, name = lm.fit_predictor(x, y, model="boosting")
    assert name == "boosting" and np.corrcoef(h(x), y)[0, 1] > 0.8


def test_a_prediction_never_depends_on_its_own_items_labels():
    """Cross-fitting by item: flipping every label of item j (both systems) leaves both
    of item j's predictions unchanged, while the in-sample fit moves them."""
    rng = np.random.default_rng(2)
    n = 60
    x = rng.standard_normal((2 * n, 3))
    y = (rng.random(2 * n) < 0.5).astype(float)
    items = np.concatenate([np.arange(n), np.arange(n)])
    base = lr.cross_fit(x, y, x[:5], groups=items, spec=lr.CrossFitSpec(seed=3))
    flipped = y.copy()
    flipped[[7, n + 7]] = 1 - flipped[[7, n + 7]]
    again = lr.cross_fit(x, flipped, x[:5], groups=items, spec=lr.CrossFitSpec(seed=3))
    assert again.labelled[7] == base.labelled[7]
    assert again.labelled[n + 7] == base.labelled[n + 7]
    assert not np.allclose(again.labelled, base.labelled)  # other folds' models did change
    h1, _ = lm.fit_predictor(x, y)
    h2, _ = lm.fit_predictor(x, flipped)
    assert h1(x[[7]])[0] != h2(x[[7]])[0]


def test_refit_points_double():
    assert lr.refit_points(500) == [30, 60, 120, 240, 480]
    assert lr.refit_points(30) == []


# ------------------------------------------------------------------ simulation checks


def test_learned_control_beats_the_best_single_metric():
    rng = np.random.default_rng(3)
    pool = make_pool(rng, 20_000, [0.0], r=0.3)
    g = noisy_metrics(rng, pool)[0]
    idx = rng.choice(20_000, 400, replace=False)
    y = pool.draw_labels(rng, idx, 0)
    rest = np.setdiff1d(np.arange(20_000), idx)
    fit = lr.cross_fit(g[idx], y, g[rest])
    yhat = np.empty(20_000)
    yhat[idx], yhat[rest] = fit.labelled, fit.unlabelled
    single = max(label_corr(pool, g[:, m]) for m in range(3))
    learned = label_corr(pool, yhat)
    print(f"\ncorr(Y, ·): best single metric {single:.3f}, learned ŷ {learned:.3f}")
    assert learned > single + 0.05


def _coverage(kind: str, n: int, reps: int, seed: int, *, noise_only: bool = False):
    """Fixed-n coverage and width ratio vs human-only of PPI++ with the cross-fitted ŷ, for
    system 0's mean and the paired difference of systems 0 and 1 (same labelled items)."""
    rng = np.random.default_rng(seed)
    n_items = 2000
    pool = make_pool(rng, n_items, [0.0, 0.2], r=0.3, kind=kind)
    g = rng.standard_normal((2, n_items, 3)) if noise_only else noisy_metrics(rng, pool)
    subsets = draw_subsets(rng, n_items, n, reps)
    hit = np.zeros((reps, 2), dtype=bool)
    width = np.zeros((reps, 2))
    width_h = np.zeros((reps, 2))
    mu, delta = pool.mu[0], pool.mu[0] - pool.mu[1]
    for r in range(reps):
        idx = subsets[r]
        rest = np.ones(n_items, dtype=bool)
        rest[idx] = False
        ya, yb = pool.draw_labels(rng, idx, 0), pool.draw_labels(rng, idx, 1)
        spec = lr.CrossFitSpec(seed=r)
        m = lr.learned_ppi_mean(ya, g[0, idx], g[0, rest], spec=spec)
        d = lr.learned_ppi_paired_difference(
            ya, yb, g[0, idx], g[1, idx], g[0, rest], g[1, rest], spec=spec
        )
        hit[r] = (m.low <= mu <= m.high, d.low <= delta <= d.high)
        width[r] = (m.width, d.width)
        width_h[r] = (human.mean_t(ya).width, human.paired_difference(ya, yb).width)
    return hit.mean(axis=0), width.mean(axis=0) / width_h.mean(axis=0)


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "n", "reps"), [("binary", 100, 2000), ("post_edit", 50, 2000)])
def test_fixed_n_coverage_of_ppi_with_the_learned_control(kind, n, reps):
    cover, ratio = _coverage(kind, n, reps, seed=4 if kind == "binary" else 5)
    print(f"\n{kind} n={n}: coverage mean {cover[0]:.3f}, pair {cover[1]:.3f}; "
          f"width / human-only {ratio[0]:.3f}, {ratio[1]:.3f}")  # fmt: skip
    assert np.all((cover >= 0.94) & (cover <= 0.96))


@pytest.mark.slow
def test_pure_noise_features_cost_at_most_three_percent_width():
    cover, ratio = _coverage("binary", 100, 600, seed=6, noise_only=True)
    print(
        f"\nnoise features n=100: width / human-only {ratio[0]:.4f} (mean), {ratio[1]:.4f} (pair)"
    )
    assert np.all(ratio <= 1.03)
    assert np.all(cover >= 0.93)


def test_measured_data_efficiency_matches_the_prediction():
    """DE = mean se²(human) / mean se²(PPI++ with ŷ) within ±5 % of 1/(1 − ρ²·N_u/(N_u+n)),
    ρ² the mean over repetitions of corr(Y, ŷ)² for the ŷ each one used (post-edit labels,
    ridge; ρ from a fresh label of every pool item)."""
    rng = np.random.default_rng(7)
    n_items, n, reps = 4000, 400, 200
    pool = make_pool(rng, n_items, [0.0], r=0.5, kind="post_edit")
    g = noisy_metrics(rng, pool, r=0.5)[0]
    subsets = draw_subsets(rng, n_items, n, reps)
    se_h, se_l, rho2 = [], [], []
    for r in range(reps):
        idx = subsets[r]
        rest = np.ones(n_items, dtype=bool)
        rest[idx] = False
        y = pool.draw_labels(rng, idx, 0)
        fit = lr.cross_fit(g[idx], y, g[rest], spec=lr.CrossFitSpec(seed=r))
        se_l.append(cv.ppi_mean(y, fit.labelled, fit.unlabelled, ddof=lr.RESIDUAL_DDOF).se ** 2)
        se_h.append(np.var(y, ddof=1) / n)
        yhat = np.empty(n_items)
        yhat[idx], yhat[rest] = fit.labelled, fit.unlabelled
        fresh = pool.draw_labels(rng, np.arange(n_items), 0)
        rho2.append(np.corrcoef(fresh, yhat)[0, 1] ** 2)
    rho = math.sqrt(float(np.mean(rho2)))
    predicted = cv.theoretical_data_efficiency(rho, n, n_items - n)
    measured = float(np.mean(se_h) / np.mean(se_l))
    print(f"\nDE measured {measured:.3f}, predicted {predicted:.3f} (ρ = {rho:.3f})")
    assert measured == pytest.approx(predicted, rel=0.05)
    assert measured > 1.2  # the check has something to measure


def test_in_sample_learned_control_under_covers_visibly():
    """Negative control: ŷ fitted on the same labels it is used with (no cross-fitting),
    n = 30 and 12 features (3 metrics + 9 pure noise), under-covers; cross-fitting does not."""
    rng = np.random.default_rng(8)
    n_items, n, reps = 2000, 30, 800
    pool = make_pool(rng, n_items, [0.0], r=0.3, kind="post_edit")
    x = np.concatenate([noisy_metrics(rng, pool)[0], rng.standard_normal((n_items, 9))], axis=1)
    subsets = draw_subsets(rng, n_items, n, reps)
    naive_hit = cross_hit = 0
    mu = pool.mu[0]
    for r in range(reps):
        idx = subsets[r]
        rest = np.ones(n_items, dtype=bool)
        rest[idx] = False
        y = pool.draw_labels(rng, idx, 0)
        h, _ = lm.fit_predictor(x[idx], y)
        naive = cv.ppi_mean(y, h(x[idx]), h(x[rest]))
        crossed = lr.learned_ppi_mean(y, x[idx], x[rest], spec=lr.CrossFitSpec(seed=r))
        naive_hit += naive.low <= mu <= naive.high
        cross_hit += crossed.low <= mu <= crossed.high
    naive_cov, cross_cov = naive_hit / reps, cross_hit / reps
    print(f"\nn=30: in-sample ŷ coverage {naive_cov:.3f}, cross-fitted {cross_cov:.3f}")
    assert naive_cov < 0.90
    assert cross_cov >= 0.93


@pytest.mark.slow
def test_anytime_miss_rate_with_the_predictable_learned_control():
    """500 streams of 2,000 labels (without replacement from a pool of 20,000), ŷ refitted
    at 30, 60, 120, … on past labels only: P(ever miss) of the AsympCS ≤ 0.05, and the
    control narrows the sequence at T vs human-only."""
    rng = np.random.default_rng(9)
    n_items, streams, t_len = 20_000, 500, 2000
    pool = make_pool(rng, n_items, [0.0], r=0.3, kind="binary")
    g = noisy_metrics(rng, pool, r=0.5)[0]
    mu = pool.mu[0]
    miss = np.zeros(streams, dtype=bool)
    width = np.zeros((streams, 2))
    for s in range(streams):
        idx = rng.choice(n_items, t_len, replace=False)
        y = pool.draw_labels(rng, idx, 0)
        ctrl = lr.predictable_control(g[idx][:, None, :], y[:, None], g[:, None, :], seed=s)
        inc = cv_increments(y, ctrl.h[:, 0], 0.0)
        cs = asymptotic_cs(inc.z, 0.05, t_star=t_len)
        miss[s] = cs.ever_misses(mu)
        width[s] = (cs.upper[-1] - cs.lower[-1],
                    np.ptp([asymptotic_cs(y, 0.05, t_star=t_len).lower[-1],
                            asymptotic_cs(y, 0.05, t_star=t_len).upper[-1]]))  # fmt: skip
    rate = miss.mean()
    print(
        f"\nlearned control in the monitor: P(ever miss) {rate:.3f}; "
        f"width at T / human-only {width[:, 0].mean() / width[:, 1].mean():.3f}"
    )
    assert rate <= 0.05
    assert width[:, 0].mean() < 0.97 * width[:, 1].mean()
