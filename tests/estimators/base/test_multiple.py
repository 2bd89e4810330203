"""Several systems (statistics.md §5, check §6.6): Holm, Bonferroni sequences, rank sets."""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import pytest

from estimators.base.multiple import bonferroni_alpha, bonferroni_cs, holm, pairs, rank_sets
from estimators.sequences.confidence_sequences import asymptotic_cs, asymptotic_cs_pvalue
from estimators.sequences.sequential import BURN_IN, paired_cv_increments
from tests.support.simulation import make_pool

ALPHA = 0.05


def _holm_by_definition(p, alpha):
    """Reject H_(1), H_(2), … while p_(i) ≤ α/(m − i + 1); stop at the first failure."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    reject = np.zeros(m, dtype=bool)
    for i, j in enumerate(order):
        if p[j] <= alpha / (m - i):
            reject[j] = True
        else:
            break
    return reject


def test_holm_matches_its_definition_and_a_worked_example():
    rng = np.random.default_rng(0)
    for _ in range(300):
        m = rng.integers(1, 12)
        p = rng.random(m) ** 3
        np.testing.assert_array_equal(holm(p, ALPHA).reject, _holm_by_definition(p, ALPHA))
    res = holm([0.01, 0.04, 0.03, 0.005], 0.05)
    np.testing.assert_allclose(res.adjusted, [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_array_equal(res.reject, [True, False, False, True])
    # batches: tests on the last axis, NaN counts as 1
    batch = holm(np.array([[0.01, np.nan], [0.2, 0.001]]))
    np.testing.assert_allclose(batch.adjusted, [[0.02, 1.0], [0.2, 0.002]])


def test_bonferroni_and_rank_sets():
    assert bonferroni_alpha(0.05, 10) == pytest.approx(0.005)
    with pytest.raises(ValueError):
        bonferroni_alpha(0.05, 0)
    # 4 systems: 0 beats everyone, 1 and 2 tie, 3 is worse than 1 only
    plist = pairs(4)
    assert plist == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    sig = np.array([True, True, True, False, True, False])
    est = np.array([0.2, 0.3, 0.4, 0.05, 0.1, 0.05])
    ranks = rank_sets(4, sig, est)
    assert [(r.best, r.worst) for r in ranks] == [(1, 1), (2, 3), (2, 4), (3, 4)]
    assert str(ranks[0]) == "1" and str(ranks[2]) == "2–4"
    # flipping every sign reverses the ranking
    flipped = rank_sets(4, sig, -est)
    assert [(r.best, r.worst) for r in flipped] == [(4, 4), (2, 3), (1, 3), (1, 2)]


def _five_systems(seed: int, deltas, r_: int = 500, t_: int = 2000, exchangeable=None):
    """Paired streams for 5 systems; systems listed in ``exchangeable`` are randomly permuted
    on every draw, so their pool means (labels and metric) are exactly equal."""
    rng = np.random.default_rng(seed)
    k = len(deltas)
    pool = make_pool(rng, 20_000, list(deltas), r=0.6)
    idx = rng.integers(0, 20_000, (r_, t_))
    ex = list(range(k)) if exchangeable is None else list(exchangeable)
    perms = np.array(list(permutations(range(len(ex)))))
    choice = perms[rng.integers(0, len(perms), (r_, t_))]  # (R, T, len(ex))
    col = np.broadcast_to(np.arange(k), (r_, t_, k)).copy()
    col[..., ex] = np.asarray(ex)[choice]
    f = pool.f[col, idx[..., None]]  # (R, T, k)
    g = pool.g[col, idx[..., None]]
    y = (rng.random(f.shape) < f).astype(float)
    gbar = np.array([pool.g[ex].mean() if s in ex else pool.g[s].mean() for s in range(k)])
    mu = np.array([pool.mu[ex].mean() if s in ex else pool.mu[s] for s in range(k)])
    return y, g, gbar, mu


def _pairwise(y, g, gbar, mu, t_star):
    k = y.shape[-1]
    out = []
    for a, b in pairs(k):
        inc = paired_cv_increments(y[..., a], y[..., b], g[..., a], g[..., b], gbar[a], gbar[b])
        out.append((a, b, inc.z, mu[a] - mu[b]))
    p = np.stack([asymptotic_cs_pvalue(z, 0.0, t_star=t_star) for *_, z, _ in out], axis=-1)
    return out, p  # p: (R, T, m)


@pytest.mark.slow
def test_five_equal_systems_family_wise_error():
    y, g, gbar, mu = _five_systems(1, [0.0] * 5)
    assert np.ptp(mu) < 1e-12 and np.ptp(gbar) < 1e-12  # exact null for all 10 pairs
    out, p = _pairwise(y, g, gbar, mu, t_star=2000)
    holm_any = holm(p, ALPHA).reject.any(axis=(1, 2))  # any false rejection at any t
    fwer_holm = holm_any.mean()
    cs = bonferroni_cs([z for *_, z, _ in out], asymptotic_cs, ALPHA, t_star=2000)
    miss = np.stack([c.ever_misses(0.0) for c in cs], axis=-1).any(axis=-1)
    fwer_bonf = miss.mean()
    unadjusted = (p[:, -1, :] <= ALPHA).any(axis=-1).mean()
    print(
        f"\n5 equal systems, 500 streams x 2000: FWER Holm {fwer_holm:.3f}, "
        f"Bonferroni CS {fwer_bonf:.3f}, unadjusted anytime p {unadjusted:.3f}"
    )
    assert fwer_holm <= ALPHA
    assert fwer_bonf <= ALPHA
    assert unadjusted > fwer_holm  # multiplicity matters: the adjustment is not a no-op


@pytest.mark.slow
def test_one_better_system_power_and_rank_sets():
    y, g, gbar, mu = _five_systems(2, [0.3, 0.0, 0.0, 0.0, 0.0], exchangeable=[1, 2, 3, 4])
    out, p = _pairwise(y, g, gbar, mu, t_star=2000)
    rej = holm(p[:, -1, :], ALPHA).reject  # (R, 10) at T = 2000 (Holm paths only fall)
    first_four = np.array([a == 0 for a, *_ in out])
    est = np.stack([z.mean(axis=1) for *_, z, _ in out], axis=-1)
    right_sign = est[:, first_four] > 0
    power_all = (rej[:, first_four] & right_sign).all(axis=1).mean()
    power_any = (rej[:, first_four] & right_sign).any(axis=1).mean()
    false = rej[:, ~first_four].any(axis=1).mean()
    top = np.mean([rank_sets(5, rej[i], est[i])[0].worst == 1 for i in range(rej.shape[0])])
    # median labels until S0 is declared better than all four (Holm at every t)
    rej_t = holm(p, ALPHA).reject[:, :, first_four].all(axis=-1)
    first = np.where(rej_t.any(axis=1), rej_t.argmax(axis=1) + 1, np.inf)
    delta = mu[0] - mu[1]
    print(
        f"\none better system (Δ = {delta:.3f}), 500 streams x 2000: power (S0 > all 4) "
        f"{power_all:.3f}, (S0 > at least one) {power_any:.3f}, rank set {{1}} {top:.3f}, "
        f"median labels to S0 > all {np.median(first):.0f}; false rejections among the "
        f"4 equal {false:.3f}"
    )
    assert power_all >= 0.8
    assert top == pytest.approx(power_all)
    assert false <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / 500)
    assert np.median(first) >= BURN_IN
