"""Anytime-valid monitoring (statistics.md §4, checks §6.4–§6.5), with known truth.

The confidence sequences are checked three ways: against an independent computation of the
normal-mixture boundary (numerical integration + root finding instead of the closed form),
against a scalar loop of the empirical-Bernstein formulas, and by Monte Carlo: 500 streams of
2,000 labels monitored from t = 30, where the naive running z-interval must fail visibly.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize

from estimators.sequences.confidence_sequences import (
    asymptotic_cs,
    asymptotic_cs_pvalue,
    empirical_bernstein_cs,
    empirical_bernstein_pvalue,
    naive_running_z,
)
from estimators.sequences.sequential import (
    BURN_IN,
    asymptotic_half_width,
    cv_increments,
    paired_cv_increments,
    predictable_lambda,
)
from tests.support.simulation import make_pool

R, T = 500, 2000
ALPHA = 0.05


def mc_se(p: float, n: int = R) -> float:
    return math.sqrt(p * (1 - p) / n)


# ------------------------------------------------------------------ increments


def test_lambda_uses_only_past_labels():
    rng = np.random.default_rng(1)
    y, g = rng.random(200), rng.standard_normal((200, 2))
    lam = predictable_lambda(y, g)
    for i in (15, 60, 150):
        y2, g2 = y.copy(), g.copy()
        y2[i:] = rng.random(200 - i) * 7  # change label i onwards (0-based) …
        g2[i:] = rng.standard_normal((200 - i, 2)) * 3
        lam2 = predictable_lambda(y2, g2)
        # … λ for increments 0..i (computed from labels < i) cannot move; later ones do.
        np.testing.assert_array_equal(lam[: i + 1], lam2[: i + 1])
        assert not np.allclose(lam[i + 1 :], lam2[i + 1 :])


@pytest.mark.parametrize("k", [1, 2])
def test_lambda_equals_least_squares_on_past(k):
    rng = np.random.default_rng(2)
    g = rng.standard_normal((300, k))
    y = g @ np.array([0.7, -0.3][:k]) + rng.standard_normal(300)
    lam = predictable_lambda(y, g)
    for i in (20, 100, 299):
        x = np.column_stack([np.ones(i), g[:i]])
        coef = np.linalg.lstsq(x, y[:i], rcond=None)[0][1:]
        np.testing.assert_allclose(lam[i], coef, rtol=1e-8, atol=1e-10)
    assert np.all(lam[:10] == 0)  # no λ from fewer than LAMBDA_MIN_LABELS labels


def test_zero_lambda_and_constant_metric_give_human_only():
    rng = np.random.default_rng(3)
    y = (rng.random(100) < 0.4).astype(float)
    np.testing.assert_array_equal(cv_increments(y, None).z, y)
    const = cv_increments(y, np.full(100, 2.5), 2.5)
    np.testing.assert_allclose(const.z, y)
    assert np.all(const.lam == 0)


def test_increments_have_the_true_mean_at_every_step():
    """E[z_i] = μ for each i, including early steps where λ is noisy (r = 0.9)."""
    rng = np.random.default_rng(4)
    pool = make_pool(rng, 20_000, [0.0], r=0.9)
    idx = rng.integers(0, 20_000, (20_000, 200))
    y = pool.draw_labels(rng, idx, 0)
    z = cv_increments(y, pool.g[0, idx], pool.g[0].mean()).z
    for i in (11, 12, 30, 199):
        col = z[:, i]
        assert abs(col.mean() - pool.mu[0]) < 4 * col.std() / math.sqrt(col.size)
    # the CV increments vary less than the labels once λ is learned
    assert z[:, 150:].var() < 0.9 * y[:, 150:].var()


def test_finite_pool_increments_end_at_the_pool_mean():
    """Des Raj form: a random order through a fixed pool ends exactly at the pool mean."""
    rng = np.random.default_rng(5)
    labels = (rng.random(400) < 0.3).astype(float)
    metric = labels + rng.standard_normal(400)
    order = rng.permutation(400)
    inc = cv_increments(labels[order], metric[order], metric.mean(), pool_size=400)
    assert inc.z[-1] == pytest.approx(labels.mean(), abs=1e-12)
    assert np.mean(inc.z) == pytest.approx(labels.mean(), abs=0.1)


def test_paired_controls_both_is_two_dimensional():
    rng = np.random.default_rng(6)
    ya, yb = rng.random((2, 50))
    ga, gb = rng.random((2, 50))
    both = paired_cv_increments(ya, yb, ga, gb, 0.5, 0.5, controls="both")
    diff = paired_cv_increments(ya, yb, ga, gb, 0.5, 0.5)
    assert both.lam.shape == (50, 2) and diff.lam.shape == (50, 1)
    np.testing.assert_allclose(paired_cv_increments(ya, yb, None, None).z, ya - yb)


# ------------------------------------------------------------------ the boundary itself


def _mixture_log_martingale(s: float, v: float, rho_m: float) -> float:
    """log ∫ exp(λS − λ²V/2) N(λ; 0, 1/ρ_m) dλ by quadrature (not the closed form)."""
    tau = 1.0 / math.sqrt(rho_m)
    peak = s / (v + rho_m)  # maximiser of the integrand, for a stable log

    def f(lam):
        return math.exp(
            lam * s - lam * lam * v / 2 - lam * lam / (2 * tau * tau) - (peak * s / 2)
        ) / (tau * math.sqrt(2 * math.pi))

    val, _ = integrate.quad(f, -np.inf, np.inf, points=None, limit=200)
    return math.log(val) + peak * s / 2


def test_asymptotic_cs_equals_numerically_integrated_mixture_boundary():
    rng = np.random.default_rng(7)
    z = rng.exponential(size=600)  # skewed increments
    t_star = 400.0
    cs = asymptotic_cs(z, ALPHA, t_star=t_star)
    log_term = 2 * math.log(1 / ALPHA) + math.log1p(2 * math.log(1 / ALPHA))
    for t in (30, 100, 400, 600):
        x = z[:t]
        var = x.var()
        rho_m = t_star * var / log_term

        def excess(theta, x=x, t=t, var=var, rho_m=rho_m):
            s = float(np.sum(x - theta))
            return _mixture_log_martingale(s, t * var, rho_m) - math.log(1 / ALPHA)

        upper = optimize.brentq(excess, x.mean(), x.mean() + 5.0, xtol=1e-12)
        lower = optimize.brentq(excess, x.mean() - 5.0, x.mean(), xtol=1e-12)
        assert cs.upper[t - 1] == pytest.approx(upper, abs=1e-7)
        assert cs.lower[t - 1] == pytest.approx(lower, abs=1e-7)
    assert np.all(np.isinf(cs.lower[: BURN_IN - 1]))
    # the half-width helper agrees with the path
    np.testing.assert_allclose(
        asymptotic_half_width(cs.sigma[99], 100, ALPHA, t_star), cs.upper[99] - cs.center[99]
    )


def test_pvalue_is_dual_to_the_cs_and_never_increases():
    rng = np.random.default_rng(8)
    z = rng.standard_normal((200, 500)) * 0.5 + 0.05
    cs = asymptotic_cs(z, ALPHA, t_star=300)
    p = asymptotic_cs_pvalue(z, 0.0, t_star=300, alpha_tuning=ALPHA)
    left = np.maximum.accumulate(~cs.covers(0.0), axis=-1)
    np.testing.assert_array_equal(p <= ALPHA, left)
    assert np.all(np.diff(p, axis=-1) <= 0)


def test_pvalue_is_the_normal_mixture_martingale_pvalue():
    """The closed form equals min(1, min_s 1/M_s) of Robbins' normal-mixture martingale with
    mixing variance ρ = t*·σ̂²/(2 log(1/α) + log(1 + 2 log(1/α))) (its docstring)."""
    rng = np.random.default_rng(9)
    z = rng.standard_normal((50, 800)) * 0.7 + 0.04
    t_star, theta0, var_prior = 400, 0.01, 0.5
    p = asymptotic_cs_pvalue(z, theta0, t_star=t_star, alpha_tuning=ALPHA, var_prior=var_prior)
    t = np.arange(1, z.shape[1] + 1)
    dev = np.cumsum(z - z[:, :1], axis=1) / t + z[:, :1]
    var = np.cumsum((z - z[:, :1]) ** 2, axis=1) / t - (dev - z[:, :1]) ** 2
    var = (t * var + 10.0 * var_prior) / (t + 10.0)
    two_log = 2 * math.log(1 / ALPHA)
    rho = t_star * var / (two_log + math.log1p(two_log))
    s = np.cumsum(z - theta0, axis=1)
    log_m = 0.5 * np.log(rho / (t * var + rho)) + s * s / (2 * (t * var + rho))
    log_m[:, : BURN_IN - 1] = 0.0
    mixture = np.minimum.accumulate(np.minimum(1.0, np.exp(-np.maximum(log_m, 0.0))), axis=1)
    np.testing.assert_allclose(p, mixture, rtol=1e-9, atol=1e-300)
    assert np.all(p[:, : BURN_IN - 1] == 1.0)


def _eb_loop(x, alpha, c=0.5):
    """Waudby-Smith & Ramdas (2024) Thm 2, written as a plain loop over t, on [0, 1]."""
    lo_path, hi_path = [], []
    sum_x = sum_sq = sum_lam = sum_lx = sum_vpsi = 0.0
    mu_prev, sig2_prev = 0.5, 0.25
    for t, xt in enumerate(x, start=1):
        lam = min(math.sqrt(2 * math.log(2 / alpha) / (sig2_prev * t * math.log(1 + t))), c)
        v = 4 * (xt - mu_prev) ** 2
        sum_vpsi += v * (-math.log(1 - lam) - lam) / 4
        sum_lam += lam
        sum_lx += lam * xt
        centre = sum_lx / sum_lam
        half = (math.log(2 / alpha) + sum_vpsi) / sum_lam
        lo_path.append(max(centre - half, 0.0))
        hi_path.append(min(centre + half, 1.0))
        sum_x += xt
        mu_prev = (0.5 + sum_x) / (t + 1)
        sum_sq += (xt - mu_prev) ** 2
        sig2_prev = (0.25 + sum_sq) / (t + 1)
    return np.array(lo_path), np.array(hi_path)


def test_empirical_bernstein_matches_a_plain_loop_and_pvalue_is_dual():
    rng = np.random.default_rng(9)
    x = rng.beta(2, 5, size=300)
    lo, hi = _eb_loop(x, ALPHA)
    cs = empirical_bernstein_cs(x, ALPHA, burn_in=1, running_intersection=False)
    np.testing.assert_allclose(cs.lower, lo, atol=1e-12)
    np.testing.assert_allclose(cs.upper, hi, atol=1e-12)
    # mapped bounds: a label in [-1, 1] gives the same interval scaled
    cs2 = empirical_bernstein_cs(
        2 * x - 1, ALPHA, bounds=(-1, 1), burn_in=1, running_intersection=False
    )
    np.testing.assert_allclose(cs2.upper, 2 * hi - 1, atol=1e-12)
    # p-value duality (running minimum vs running intersection)
    csi = empirical_bernstein_cs(x, ALPHA)
    for theta in (0.2, 0.25, 0.3, 0.35):
        p = empirical_bernstein_pvalue(x, theta, alpha_tuning=ALPHA)
        np.testing.assert_array_equal(p <= ALPHA, ~csi.covers(theta))
    with pytest.raises(ValueError, match="bounds"):
        empirical_bernstein_cs(x + 1.0, ALPHA)


# ------------------------------------------------------------------ Monte Carlo (§6.4, §6.5)


def _streams(kind: str, r: float, seed: int, deltas=(0.0,)):
    rng = np.random.default_rng(seed)
    pool = make_pool(rng, 20_000, list(deltas), r=r, kind=kind)
    idx = rng.integers(0, 20_000, (R, T))  # uniform random draws from the fixed pool
    return rng, pool, idx


@pytest.mark.parametrize(("kind", "r"), [("binary", 0.6), ("post_edit", 0.8)])
def test_ever_miss_500_streams_of_2000_labels(kind, r):
    rng, pool, idx = _streams(kind, r, seed=10 if kind == "binary" else 11)
    y = pool.draw_labels(rng, idx, 0)
    g = pool.g[0, idx]
    mu = pool.mu[0]
    inc = cv_increments(y, g, pool.g[0].mean())
    asym = asymptotic_cs(inc.z, ALPHA, t_star=T).ever_misses(mu).mean()
    sd = pool.g[0].std()
    strict_inc = cv_increments(
        y,
        g,
        pool.g[0].mean(),
        lam_clip=0.5 / sd,
        label_range=(0.0, 1.0),
        g_range=(pool.g[0].min(), pool.g[0].max()),
    )
    strict = empirical_bernstein_cs(strict_inc.z, ALPHA, bounds=strict_inc.bounds)
    strict_miss = strict.ever_misses(mu).mean()
    naive = naive_running_z(inc.z, ALPHA).ever_misses(mu).mean()
    naive_fixed_n = (~naive_running_z(inc.z, ALPHA).covers(mu)[:, -1]).mean()
    print(
        f"\n{kind}: P(ever miss) asympCS {asym:.3f}, strict {strict_miss:.3f}, "
        f"naive running z {naive:.3f} (naive at fixed n=2000 only: {naive_fixed_n:.3f})"
    )
    assert asym <= 0.07
    assert strict_miss <= 0.05
    assert naive >= 0.3  # the negative control must fail visibly
    assert naive_fixed_n <= ALPHA + 3 * mc_se(ALPHA)  # … though each fixed-n look is fine
    # with a useful metric the CV sequence is narrower than human-only at T
    human = asymptotic_cs(y, ALPHA, t_star=T)
    cv_w = np.mean(asymptotic_cs(inc.z, ALPHA, t_star=T).upper[:, -1] - inc.z.mean(axis=1))
    hu_w = np.mean(human.upper[:, -1] - human.center[:, -1])
    assert cv_w < 0.95 * hu_w


@pytest.mark.parametrize("rate", [0.9, 0.97, 0.99])
def test_extreme_adequacy_rates_need_the_variance_prior(rate):
    """Binary labels with a 0.97 rate: 30 ones in a row 40 % of the time, σ̂ = 0 and a point
    interval. The variance prior (range²/4, 10 pseudo-observations) keeps the CS valid."""
    rng = np.random.default_rng(14)
    y = (rng.random((R, T)) < rate).astype(float)
    plain = asymptotic_cs(y, ALPHA, t_star=300).ever_misses(rate).mean()
    prior = asymptotic_cs(y, ALPHA, t_star=300, var_prior=0.25).ever_misses(rate).mean()
    strict = empirical_bernstein_cs(y, ALPHA).ever_misses(rate).mean()
    print(
        f"\nrate {rate}: P(ever miss) no prior {plain:.3f}, prior {prior:.3f}, strict {strict:.3f}"
    )
    assert prior <= 0.07 and strict <= 0.05
    if rate >= 0.97:
        assert plain >= 0.2  # without the prior the CLT sequence fails visibly


def _null_pair_streams(seed: int):
    """Two equal systems made exchangeable: each draw swaps A and B with probability 1/2,
    so the pool of (item, swap) has Δ = 0 and ḡ_A − ḡ_B = 0 exactly; the metric stays useful."""
    rng, pool, idx = _streams("binary", 0.7, seed, deltas=(0.0, 0.0))
    ya, yb = pool.draw_labels(rng, idx, 0), pool.draw_labels(rng, idx, 1)
    ga, gb = pool.g[0, idx], pool.g[1, idx]
    swap = rng.random((R, T)) < 0.5
    ya, yb = np.where(swap, yb, ya), np.where(swap, ya, yb)
    ga, gb = np.where(swap, gb, ga), np.where(swap, ga, gb)
    return ya, yb, ga, gb, pool


def test_type_one_error_on_exact_null_pairs():
    ya, yb, ga, gb, pool = _null_pair_streams(12)
    inc = paired_cv_increments(ya, yb, ga, gb, 0.0, 0.0)
    assert np.mean(np.abs(inc.lam[:, -1, 0])) > 0.05  # the control is used, not ignored
    p = asymptotic_cs_pvalue(inc.z, 0.0, t_star=T)
    rej = (p[:, -1] <= ALPHA).mean()
    g_range = (np.min(pool.g[0] - pool.g[1]), np.max(pool.g[0] - pool.g[1]))
    sd = np.std(pool.g[0] - pool.g[1])
    strict_inc = paired_cv_increments(
        ya,
        yb,
        ga,
        gb,
        0.0,
        0.0,
        lam_clip=1.0 / sd,
        label_range=(-1.0, 1.0),
        g_range=(min(g_range[0], -g_range[1]), max(g_range[1], -g_range[0])),
    )
    ps = empirical_bernstein_pvalue(strict_inc.z, 0.0, bounds=strict_inc.bounds)
    rej_strict = (ps[:, -1] <= ALPHA).mean()
    naive = (~naive_running_z(inc.z, ALPHA).covers(0.0)[:, BURN_IN - 1 :]).any(axis=1).mean()
    print(
        f"\nΔ = 0 pairs, P(ever reject): anytime p {rej:.3f}, strict {rej_strict:.3f}, "
        f"naive peeking {naive:.3f}"
    )
    bound = ALPHA + 2 * mc_se(ALPHA)
    assert rej <= bound and rej_strict <= bound
    assert naive >= 0.3


def test_finite_pool_streams_without_replacement():
    """The app's order: each output labelled once, in a random permutation of a fixed pool."""
    rng = np.random.default_rng(13)
    pool = make_pool(rng, 2_000, [0.0], r=0.6)
    labels = pool.draw_labels(rng, np.arange(2_000), 0)  # one fixed label per output
    truth = labels.mean()
    order = np.argsort(rng.random((R, 2_000)), axis=1)
    y, g = labels[order], pool.g[0, order]
    fin = cv_increments(y, g, pool.g[0].mean(), pool_size=2_000)
    miss_fin = asymptotic_cs(fin.z, ALPHA, t_star=2_000).ever_misses(truth).mean()
    sup = cv_increments(y, g, pool.g[0].mean())  # with-replacement form on a WoR order
    miss_sup = asymptotic_cs(sup.z, ALPHA, t_star=2_000).ever_misses(truth).mean()
    print(
        f"\nwithout replacement: P(ever miss) finite-pool form {miss_fin:.3f}, "
        f"with-replacement form {miss_sup:.3f}"
    )
    assert miss_fin <= 0.07 and miss_sup <= 0.07
