"""The betting capital with a metric control (estimators.sequences.betting_control): a martingale
with
mean exactly 1 at the truth (every order of a small pool enumerated), anytime coverage and
no false claims at true nulls by simulation (fixed seeds, known pool means), a carried
stream equal to the whole, and faster verdicts where the control correlates."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from estimators.sequences import betting
from estimators.sequences import betting_control as bc


def _log_k(pool, g_pool, orders, theta, pool_size, weight=bc.WEIGHT):  # type: ignore[no-untyped-def]
    """log K_t(θ) along every order (labels and controls on [0, 1] / standardised)."""
    x01 = (pool[orders] + 1.0) / 2.0
    ctrl = bc.ControlPool.of(g_pool)
    return bc.log_capital_from(
        x01, ctrl.scaled(g_pool[orders]), (theta + 1.0) / 2.0, 0.05, 5, pool_size, ctrl,
        weight=weight,
    )[0]  # fmt: skip


EXACT_POOLS = {
    # paired differences in [−1, 1]: continuous, binary (−1, 0, 1), and a control that is the
    # label itself (the largest coefficient the ridge lets through)
    "continuous": (np.array([0.9, -0.4, 0.3, 0.7, -0.8, 0.1, 0.5]),
                   np.array([1.2, -0.1, 0.4, 2.0, -1.5, 0.0, 0.3])),
    "binary": (np.array([1.0, 1.0, 0.0, -1.0, 1.0, 0.0, 1.0]),
               np.array([0.8, 0.3, 0.1, -0.9, 0.7, -0.2, 0.2])),
    "control = label": (np.array([0.6, -0.2, 0.9, -0.7, 0.4, 0.0, 0.8]),
                        np.array([0.6, -0.2, 0.9, -0.7, 0.4, 0.0, 0.8])),
}  # fmt: skip


@pytest.mark.parametrize("name", list(EXACT_POOLS))
def test_the_capital_at_the_pool_mean_has_mean_one_over_every_order(name):
    """Exact: over all 7! orders of a 7-item pool, E[K_t(θ*)] = 1 at every t (θ* the pool
    mean, without replacement) — the martingale property itself, for the mixture, for the
    controlled Kelly part alone (weight 1 − 1e-12) and for every part on Z (weight 1). A
    coefficient fitted with the current label, a bet or cap that looks at g_i, or ḡ of the
    whole pool instead of the remaining items makes it ≠ 1 (docs/statistics-notes.md §14)."""
    pool, g = EXACT_POOLS[name]
    orders = np.array(list(itertools.permutations(range(pool.size))))
    for weight in (bc.WEIGHT, 1.0 - 1e-12, 1.0):  # w = 1: the plan and Kelly parts on Z
        k = np.exp(_log_k(pool, g, orders, pool.mean(), pool.size, weight))
        np.testing.assert_allclose(k.mean(axis=0), 1.0, rtol=0, atol=1e-9)
    # and the control does move the capital (the test is not vacuous)
    k0 = np.exp(_log_k(pool, np.zeros_like(g), orders, pool.mean(), pool.size))
    assert np.abs(k - k0).max() > 1e-3


def _pool(n, rng, *, binary, rho, delta):  # type: ignore[no-untyped-def]
    """(differences with pool mean exactly ``delta``, a control correlated ≈ ``rho``)."""
    if binary:
        n_pos = round(n * (0.3 + delta / 2))
        n_neg = round(n * (0.3 - delta / 2))
        d = np.array([1.0] * n_pos + [-1.0] * n_neg + [0.0] * (n - n_pos - n_neg))
        rng.shuffle(d)
    else:
        d = np.clip(rng.normal(0.0, 0.35, n), -1, 1)
        d = np.clip(d - d.mean() + delta, -1, 1)
        d = d - d.mean() + delta  # exact mean (clipping moved only a few values)
    s = (d - d.mean()) / d.std()
    g = rho * s + np.sqrt(1 - rho**2) * rng.standard_normal(n)
    return d, g


N, RUNS, ALPHA = 150, 400, 0.1
#: α + 3 Monte-Carlo standard errors: a rejection rate above it fails the test.
BOUND = ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / RUNS)


def _ever_rejects(d, g, orders, theta0) -> np.ndarray:  # type: ignore[no-untyped-def]
    p = bc.pvalue_path(d[orders], g[orders], g, theta0, bounds=(-1, 1), alpha_tuning=ALPHA,
                       t_star=N, pool_size=N, burn_in=1)  # fmt: skip
    return (p <= ALPHA).any(axis=1)


@pytest.mark.parametrize("binary", [False, True], ids=["continuous", "binary"])
@pytest.mark.parametrize("rho", [0.0, 0.3, 0.7, "adversarial"])
def test_anytime_coverage_and_no_false_claims(binary, rho):
    """Finite pool of 150, 400 orders, read after every label to the census, no burn-in, at
    α = 0.1 (tuned there): the pool difference Δ* = 0.2 is ever excluded, and a true null
    Δ* = 0 ever rejected, in at most α + 3 MC-SE of the orders. "adversarial": a control
    that tracks the label (ρ ≈ 0.9) on half the items and its opposite on the other half,
    so the fitted coefficient swings with the share of each half drawn so far. (A control
    that knows the order — the label on the items drawn first, its opposite later — is
    outside the premise, controls fixed before the order is drawn: it is ever-rejecting in
    0.17 of the binary orders at Δ* = 0.2, see docs/statistics-notes.md §14.)"""
    rng = np.random.default_rng(7 + (3 if binary else 0))
    orders = np.stack([rng.permutation(N) for _ in range(RUNS)])
    for delta in (0.2, 0.0):
        d, g = _pool(N, rng, binary=binary, rho=0.7 if rho == "adversarial" else rho,
                     delta=delta)  # fmt: skip
        assert abs(d.mean() - delta) < 1e-12
        if rho == "adversarial":
            flip = np.where(rng.permutation(N) < N // 2, 1.0, -1.0)
            g = flip * (d - delta) / d.std() + 0.5 * rng.standard_normal(N)
        hits = _ever_rejects(d, g, orders, delta)
        assert hits.mean() <= BOUND, (delta, hits.mean())


def test_a_carried_stream_equals_the_whole():
    """Extending the state piece by piece gives the whole stream's log capital (to 1e-12,
    every label), for a grid of null means, with and without the finite pool."""
    rng = np.random.default_rng(5)
    d, g = _pool(120, rng, binary=False, rho=0.6, delta=0.1)
    x01 = (d + 1) / 2
    ctrl = bc.ControlPool.of(g)
    gs = ctrl.scaled(g)
    th = np.linspace(0.05, 0.95, 19)[:, None]
    for pool_size in (120, None):
        whole = bc.log_capital_from(x01[None, :], gs[None, :], th, 0.01, 80, pool_size, ctrl)[0]
        state, pieces = None, []
        for a, b in ((0, 1), (1, 7), (7, 8), (8, 60), (60, 120)):
            lk, state = bc.log_capital_from(
                x01[None, a:b], gs[None, a:b], th, 0.01, 80, pool_size, ctrl, state
            )
            pieces.append(lk)
        np.testing.assert_allclose(np.concatenate(pieces, axis=1), whole, rtol=0, atol=1e-12)


def test_a_correlated_control_settles_sooner_and_a_useless_one_costs_little():
    """Continuous differences (Δ = 0.05, SD 0.35), pool of 800, α/10, 60 orders: with a
    control of ρ ≈ 0.7 the median first rejection falls (measured 0.84×); with ρ = 0 it
    stays within 2 % of the label capital alone (measured 1.00×)."""
    rng = np.random.default_rng(11)
    n = 800
    orders = np.stack([rng.permutation(n) for _ in range(60)])
    level = 0.05 / 10

    def first(p):  # type: ignore[no-untyped-def]
        hit = p <= level
        return np.median(np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, n + 1))

    ratios = {}
    for rho in (0.0, 0.7):
        d, g = _pool(n, rng, binary=False, rho=rho, delta=0.05)
        base = betting.betting_pvalue(d[orders], 0.0, bounds=(-1, 1), alpha_tuning=level,
                                      t_star=300, pool_size=n)  # fmt: skip
        ctrl = bc.pvalue_path(d[orders], g[orders], g, 0.0, bounds=(-1, 1), alpha_tuning=level,
                              t_star=300, pool_size=n, burn_in=30)  # fmt: skip
        ratios[rho] = first(ctrl) / first(base)
    assert ratios[0.7] <= 0.92, ratios
    assert ratios[0.0] <= 1.02, ratios
