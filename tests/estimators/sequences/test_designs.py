"""Every live design the monitor offers, under continuous monitoring (issue 11, statistics.md
§4, §6.4–§6.6, §10), and the invalid "naive re-testing" design through the same checks.

Streams: 500 × 2,000 labels of a paired difference, monitored from t = 30, for each design
tuned to a planned size equal to the planner's fixed-n forecast for the true difference, to
half of it and to 4× it. Checks: P(ever miss the truth) ≤ α (+ 2 Monte-Carlo SE); Δ = 0
type-I ≤ α + 2 MC-SE; 5 equal systems, FWER ≤ α with Holm; real null pairs (Chaganty et al.
2018, each summary rated by two raters: "system s by rater 1" vs "by rater 2") rejected ≤ α;
the finite-pool (test-set) increments never miss the pool's own mean more than α. The naive
design must fail every one of them visibly. The cost of each (mis-)plan is printed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from estimators.base.multiple import holm
from estimators.sequences import group_sequential as gsd
from estimators.sequences.designs import LiveDesign, design_paths, ever_rejects
from estimators.sequences.sequential import cv_increments, paired_cv_increments
from tests.estimators.sequences.test_sequential_null_pairs import null_pairs
from tests.support.simulation import make_pool

R, T = 500, 2000
ALPHA = 0.05
DESIGNS = [str(d) for d in LiveDesign]
BOUNDED = {str(d) for d in LiveDesign if d.bounded}
MC_SE = math.sqrt(ALPHA * (1 - ALPHA) / R)
Z80 = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)


def _increments(design: str, ya, yb, ga, gb, gbar_a, gbar_b, **kw):
    """The monitor's increments for ``design``: CV with the metric difference for the
    asymptotic designs, human-only bounded differences for the exact ones."""
    if design in BOUNDED:
        return paired_cv_increments(ya, yb, None, None, label_range=(-1.0, 1.0), **kw)
    return paired_cv_increments(ya, yb, ga, gb, gbar_a, gbar_b, **kw)


def _paths(design, inc, theta0, t_star, alpha=ALPHA, m=1):
    return design_paths(
        design, inc.z, level=alpha, alpha=alpha, m=m, theta0=theta0, t_star=t_star,
        bounds=inc.bounds, var_prior=0.0 if inc.bounds else 1.0,
    )[1]  # fmt: skip


@pytest.fixture(scope="module")
def alternative():
    """500 streams of 2,000 labels (with replacement: the super-population estimand) for a
    pair with a real difference, and the planner's fixed-n n80 for it."""
    rng = np.random.default_rng(11)
    pool = make_pool(rng, 20_000, [0.25, 0.0], r=0.5)
    idx = rng.integers(0, pool.f.shape[1], (R, T))
    ya, yb = pool.draw_labels(rng, idx, 0), pool.draw_labels(rng, idx, 1)
    ga, gb = pool.g[0][idx], pool.g[1][idx]
    truth = float(pool.mu[0] - pool.mu[1])
    var_d = np.mean(pool.f[0] * (1 - pool.f[0]) + pool.f[1] * (1 - pool.f[1])) + np.var(
        pool.f[0] - pool.f[1]
    )
    n_plan = math.ceil((Z80 * math.sqrt(var_d) / truth) ** 2)
    means = pool.g[0].mean(), pool.g[1].mean()
    return ya, yb, ga, gb, means, truth, n_plan


# ------------------------------------------------------------------ the boundaries


def test_gsd_boundaries_against_the_bivariate_normal():
    """Two looks: c_1 = z_{1−α/2}/√τ_1 by the spending function, and the recursion's c_2
    makes P(|Z_1| < c_1, |Z_2| < c_2) = 1 − α under corr √τ_1 (scipy's own integration)."""
    c = gsd.boundaries(ALPHA, looks=2)
    assert c[0] == pytest.approx(stats.norm.ppf(1 - ALPHA / 2) / math.sqrt(0.5), rel=1e-9)
    mvn = stats.multivariate_normal(cov=[[1, math.sqrt(0.5)], [math.sqrt(0.5), 1]])
    inside = (
        mvn.cdf([c[0], c[1]]) - mvn.cdf([-c[0], c[1]]) - mvn.cdf([c[0], -c[1]])
        + mvn.cdf([-c[0], -c[1]])
    )  # fmt: skip
    assert 1 - inside == pytest.approx(ALPHA, abs=2e-5)


def test_gsd_spends_alpha_look_by_look():
    """20 looks: Monte Carlo exit probability at each look = α(τ_k) − α(τ_{k−1})."""
    rng = np.random.default_rng(0)
    c = gsd.boundaries(ALPHA, looks=gsd.LOOKS)
    assert np.all(np.diff(c) < 0)  # O'Brien–Fleming shape: strict early, near 1.96·… late
    z = np.cumsum(rng.standard_normal((200_000, gsd.LOOKS)), axis=1) / np.sqrt(
        np.arange(1, gsd.LOOKS + 1)
    )
    cross = np.abs(z) >= c
    first = np.where(cross.any(axis=1), cross.argmax(axis=1), -1)
    spend = np.diff(gsd.obf_spending(np.arange(0, gsd.LOOKS + 1) / gsd.LOOKS, ALPHA))
    exit_rate = np.array([(first == k).mean() for k in range(gsd.LOOKS)])
    assert cross.any(axis=1).mean() == pytest.approx(ALPHA, abs=3 * math.sqrt(ALPHA / 2e5))
    assert np.abs(exit_rate - spend).max() < 0.0012


def test_gsd_pvalues_round_up_to_the_level_grid():
    grid = gsd.levels(0.05, 10)
    assert np.isin(0.05 / np.arange(1, 11), grid).all()
    z = np.random.default_rng(1).standard_normal((4, 600)).cumsum(axis=1) / 10 + 0.3
    cs, p = gsd.gsd_paths(z, level=0.05, alpha=0.05, m=10, n_max=600, theta0=0.0)
    assert np.isin(p[p < 1], grid).all()
    # p ≤ α exactly when the α-level repeated interval has excluded 0 at some look
    excluded = (cs.lower > 0) | (cs.upper < 0)
    np.testing.assert_array_equal(p <= 0.05, np.maximum.accumulate(excluded, axis=1))


# ------------------------------------------------------------------ validity


@pytest.mark.slow
@pytest.mark.parametrize("factor", [1.0, 0.5, 4.0])
def test_ever_miss_and_cost_for_every_design_and_plan(alternative, factor):
    ya, yb, ga, gb, (ma, mb), truth, n_plan = alternative
    t_star = max(30, round(factor * n_plan))
    lines = []
    for design in [*DESIGNS, "naive"]:
        inc = _increments(design, ya, yb, ga, gb, ma, mb)
        miss = ever_rejects(
            design, inc.z, truth, level=ALPHA, t_star=t_star, bounds=inc.bounds,
            var_prior=0.0 if inc.bounds else 1.0,
        ).mean()  # fmt: skip
        p = _paths(design, inc, 0.0, t_star)
        hit = p <= ALPHA
        stop = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, np.inf)
        lines.append(
            f"{design:9s} t*={t_star:5d} (plan ×{factor:g}): P(ever miss) {miss:.3f}, "
            f"median labels to a verdict / fixed-n n80 {np.median(stop) / n_plan:5.2f}, "
            f"never decided in 2,000: {np.mean(~np.isfinite(stop)):.3f}"
        )
        if design == "naive":
            assert miss >= 0.3, "the naive design must fail visibly"
        else:
            assert miss <= ALPHA + 2 * MC_SE, (design, factor, miss)
    print(f"\nn80 (fixed-n, planner) = {n_plan}, true Δ = {truth:.3f}\n" + "\n".join(lines))


def test_type_one_error_at_zero_difference(alternative):
    """Δ = 0 exactly: the pair's difference with a random sign per draw (a random slot)."""
    ya, yb, ga, gb, (ma, mb), _, n_plan = alternative
    rng = np.random.default_rng(12)
    sign = np.where(rng.random(ya.shape) < 0.5, 1.0, -1.0)
    d, gd = (ya - yb) * sign, (ga - gb - (ma - mb)) * sign
    rates = {}
    for design in [*DESIGNS, "naive"]:
        if design in BOUNDED:
            inc = cv_increments(d, None, label_range=(-1.0, 1.0))
        else:
            inc = cv_increments(d, gd, 0.0)
        rates[design] = float((_paths(design, inc, 0.0, n_plan)[:, -1] <= ALPHA).mean())
    print(f"\nΔ = 0, P(ever reject) over 2,000 labels: {rates}")
    assert rates.pop("naive") >= 0.2
    assert max(rates.values()) <= ALPHA + 2 * MC_SE, rates


@pytest.mark.slow
def test_five_equal_systems_family_wise_error_with_holm():
    """5 systems with the same quality on every item (labels drawn independently): any
    significant pair is a false discovery. Holm over the 10 anytime p-values."""
    rng = np.random.default_rng(13)
    n_items, k = 20_000, 5
    base = make_pool(rng, n_items, [0.0], r=0.5)
    f = base.f[0]
    g = 0.5 * base.q[0] / base.q[0].std() + math.sqrt(0.75) * rng.standard_normal((k, n_items))
    idx = rng.integers(0, n_items, (R, T))
    y = (rng.random((k, R, T)) < f[idx]).astype(float)
    gs = g[:, idx]
    fwer = {}
    for design in [*DESIGNS, "naive"]:
        p_end = []
        for a in range(k):
            for b in range(a + 1, k):
                inc = _increments(design, y[a], y[b], gs[a], gs[b], g[a].mean(), g[b].mean())
                p_end.append(_paths(design, inc, 0.0, 500, m=10)[:, -1])
        # p paths never rise, so a rejection at any t is a rejection at the end
        fwer[design] = float(holm(np.stack(p_end, axis=-1), ALPHA).reject.any(axis=1).mean())
    print(f"\n5 equal systems, 10 pairs, Holm, FWER over 2,000 labels: {fwer}")
    assert fwer.pop("naive") >= 0.3
    assert max(fwer.values()) <= ALPHA + 2 * MC_SE, fwer


def test_real_null_pairs_rater_one_vs_rater_two():
    """Chaganty et al. 2018: each system's summaries as judged by rater 1 vs rater 2 (a
    true null for the super-population estimand), 500 random orders of the whole pool."""
    rng = np.random.default_rng(2024)
    rates = {d: [] for d in [*DESIGNS, "naive"]}
    for d in null_pairs().values():
        order = np.argsort(rng.random((R, d.size)), axis=1)
        for design in rates:
            if design in BOUNDED:
                inc = cv_increments(d[order], None, label_range=(-1.0, 1.0))
            else:
                inc = cv_increments(d[order], None)
            p = _paths(design, inc, 0.0, 250)
            rates[design].append(float((p[:, -1] <= ALPHA).mean()))
    print(
        "\nreal null pairs (10: 5 systems × binary/HTER), P(ever reject): "
        + ", ".join(f"{k} mean {np.mean(v):.3f} max {max(v):.3f}" for k, v in rates.items())
    )
    assert np.mean(rates.pop("naive")) >= 0.2
    for design, r in rates.items():
        assert np.mean(r) <= ALPHA, design
        assert max(r) <= ALPHA + 2 * MC_SE, design


@pytest.mark.slow
@pytest.mark.parametrize("factor", [1.0, 0.5, 4.0])
def test_finite_pool_estimand_every_design(factor):
    """The test-set estimand: a pool of 2,000 items, each labelled once, in 500 random
    orders (without replacement), Des Raj increments; the truth is the pool's own mean."""
    rng = np.random.default_rng(14)
    pool = make_pool(rng, T, [0.2, 0.0], r=0.5)
    y = (rng.random(pool.f.shape) < pool.f).astype(float)  # one fixed label per output
    truth = float(y[0].mean() - y[1].mean())
    order = np.argsort(rng.random((R, T)), axis=1)
    d = y[0] - y[1]
    n_plan = math.ceil((Z80 * d.std() / truth) ** 2)
    t_star = max(30, round(factor * n_plan))
    miss = {}
    for design in [*DESIGNS, "naive"]:
        ga, gb = pool.g[0][order], pool.g[1][order]
        inc = _increments(
            design, y[0][order], y[1][order], ga, gb, pool.g[0].mean(), pool.g[1].mean(),
            pool_size=T,
        )  # fmt: skip
        miss[design] = float(
            ever_rejects(
                design, inc.z, truth, level=ALPHA, t_star=t_star, bounds=inc.bounds,
                var_prior=0.0 if inc.bounds else 1.0,
            ).mean()
        )  # fmt: skip
    print(f"\ntest-set estimand, plan ×{factor:g} (t* = {t_star}): P(ever miss) {miss}")
    assert miss.pop("naive") >= 0.2
    assert max(miss.values()) <= ALPHA + 2 * MC_SE, miss


def test_graded_scores_default_to_the_mixture_design_binary_labels_to_betting():
    from estimators.sequences.designs import GUARANTEE, LivePlan, default_design, plan_in_force

    for kind in ("esa", "da", "one_minus_hter"):
        assert default_design(kind) == LiveDesign.ASYMPCS_MIX
    assert default_design("label") == default_design(None) == LiveDesign.BETTING
    unset = plan_in_force({"live_design": None}, [])
    assert not unset.design_set and unset.design_for("esa") == LiveDesign.ASYMPCS_MIX
    assert unset.design_for("label") == LiveDesign.BETTING
    chosen = plan_in_force({"live_design": "betting"}, [])
    assert chosen.design_set and chosen.design_for("esa") == LiveDesign.BETTING
    assert LivePlan(design=LiveDesign.ASYMPCS).design_for("esa") == LiveDesign.ASYMPCS
    assert set(GUARANTEE) == set(LiveDesign)
    assert GUARANTEE[LiveDesign.ASYMPCS_MIX] == "asymptotic"
    assert GUARANTEE[LiveDesign.BETTING] == "finite-sample"
