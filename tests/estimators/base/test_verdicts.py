"""Pair verdicts read at the level they were tuned for, exact at the census, three outcomes
(docs/statistics-notes.md; estimators.base.verdicts). Fixed-seed simulations with known truth."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.base import verdicts
from estimators.base.verdicts import Outcome
from estimators.live.monitor import CampaignMonitor
from estimators.live.status import settled_pairs
from estimators.sequences import confidence_sequences as csq
from estimators.sequences import sequential as seq

P_TRUE = np.array([0.5, 0.55, 0.6, 0.65, 0.7])


def _campaign(y: np.ndarray, order: np.ndarray, n_read: int, **kw) -> CampaignMonitor:
    """Paired queue: every system labelled for each item in ``order``, first n_read items."""
    k, n = y.shape
    items = np.repeat(order[:n_read], k)
    sys = np.tile(np.arange(k), n_read)
    pos = np.arange(items.size, dtype=float)
    return CampaignMonitor(
        [None] * k, items, sys, y[sys, items], pos, np.ones(items.size),
        present=np.ones((k, n), dtype=bool), **kw,
    )  # fmt: skip


def _binary(seed: int, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random((P_TRUE.size, n)) < P_TRUE[:, None]).astype(float)
    return y, rng.permutation(n)


@pytest.mark.parametrize(
    ("design", "rate"), [("betting", "holm"), ("asympcs", "holm"), ("betting", "ebh")]
)
def test_an_interval_that_excludes_zero_is_a_verdict(design, rate):
    # seed 1, 80 items: the old monitor showed S1 – S3 with an interval below 0 and "not yet"
    # (its p-value was tuned at α, the interval at α/10)
    y, order = _binary(1)
    excluding = 0
    for n_read in (80, 120, 160, 200, 260):
        rep = _campaign(y, order, n_read, design=design, finite_pool=True, error_rate=rate).report()
        for p in rep.pairs:
            lo, hi = p.result.ci
            if lo > 0 or hi < 0:
                excluding += 1
                assert p.decided, (n_read, p.a, p.b, p.result.ci, p.verdict)
            if p.decided:  # the verdict's side: the interval never straddles 0
                assert lo >= 0 or hi <= 0, (n_read, p.a, p.b, p.result.ci)
    assert excluding, "no read had an interval excluding 0: the check above checked nothing"


def test_the_pvalue_is_tuned_at_the_level_holm_reads_it():
    y, order = _binary(1)
    rep = _campaign(y, order, 80, design="betting", finite_pool=True).report()
    m = len(rep.pairs)
    assert any(not p.decided for p in rep.pairs)  # else the loop below checks nothing
    for p in rep.pairs:
        lo, hi = p.result.ci
        if not p.decided:  # undecided: the α/m interval holds 0 and the p-value exceeds α/m
            assert lo <= 0 <= hi and p.p_value > rep.alpha / m


def test_census_minimal_case_is_exact():
    # 200 of 200 items labelled, pool mean 0.71: the old estimate (mean of the Des Raj
    # increments) was 0.6678 on this stream, interval (0.616, 0.726)
    rng = np.random.default_rng(0)
    y = np.zeros((2, 200))
    y[0, :142] = 1.0
    rng.shuffle(y[0])
    y[1] = (rng.random(200) < 0.5).astype(float)
    order = rng.permutation(200)
    rep = _campaign(y, order, 200, design="betting", finite_pool=True).report()
    s0 = rep.systems[0].result
    assert y[0].mean() == 0.71
    assert abs(s0.estimate - 0.71) < 1e-12
    assert s0.ci[0] == pytest.approx(0.71, abs=1e-12) and s0.ci[1] == pytest.approx(0.71, abs=1e-12)


@pytest.mark.parametrize("design", ["betting", "asympcs", "eb_strict"])
def test_census_every_pair_settles_exactly(design):
    y, order = _binary(2, n=120)
    y[3] = y[2]  # one pair exactly equal
    rep = _campaign(y, order, 120, design=design, finite_pool=True).report()
    for s, st in enumerate(rep.systems):
        assert abs(st.result.estimate - y[s].mean()) < 1e-12
        assert st.result.ci[1] - st.result.ci[0] < 1e-12
    for p in rep.pairs:
        a, b = int(p.a[1:]), int(p.b[1:])
        delta = y[a].mean() - y[b].mean()
        assert abs(p.result.estimate - delta) < 1e-12
        assert p.result.ci[1] - p.result.ci[0] < 1e-12
        want = (
            Outcome.A_BETTER if delta > 0 else Outcome.B_BETTER if delta < 0 else Outcome.EQUIVALENT
        )
        assert p.outcome == want
        if delta == 0:
            assert p.verdict == "exactly equal"
    assert len(settled_pairs(rep)) == len(rep.pairs)


@pytest.mark.slow
def test_estimate_mse_no_worse_than_the_plain_mean():
    # 400 fixed-seed runs, pool of 200, read after 60 / 120 / 180 labels
    rng = np.random.default_rng(11)
    pool = (rng.random(200) < 0.7).astype(float)
    err_shown, err_plain = {t: [] for t in (60, 120, 180)}, {t: [] for t in (60, 120, 180)}
    for _ in range(400):
        order = rng.permutation(200)
        for t in err_shown:
            y = pool[order[:t]]
            mon = CampaignMonitor(
                [None], np.asarray(order[:t]), np.zeros(t, int), y, np.arange(t, dtype=float),
                np.ones(t), present=np.ones((1, 200), bool), design="asympcs", finite_pool=True,
            )  # fmt: skip
            err_shown[t].append(mon.report().systems[0].result.estimate - pool.mean())
            err_plain[t].append(y.mean() - pool.mean())
    for t in err_shown:
        mse_shown = np.mean(np.square(err_shown[t]))
        mse_plain = np.mean(np.square(err_plain[t]))
        assert mse_shown <= mse_plain * (1 + 1e-9), (t, mse_shown, mse_plain)


def test_known_part_keeps_the_sequence_valid_anytime():
    # 500 streams without replacement from a pool of 300 binary labels (mean 0.6); the
    # Des Raj AsympCS intersected with the known part misses the pool mean at some t in at
    # most α (+ 2 MC-SE) of the streams, and shrinks to the point at the census
    rng = np.random.default_rng(5)
    n, reps, alpha = 300, 500, 0.05
    pool = (rng.random(n) < 0.6).astype(float)
    mu = pool.mean()
    y = np.stack([pool[rng.permutation(n)] for _ in range(reps)])
    inc = seq.cv_increments(y, None, pool_size=n)
    cs = csq.asymptotic_cs(inc.z, alpha, t_star=n, running_intersection=True, var_prior=0.25)
    t = np.arange(1, n + 1)
    s = np.cumsum(y, axis=1)
    k_lo, k_hi = (s + (n - t) * 0.0) / n, (s + (n - t) * 1.0) / n
    lo, hi = np.maximum(cs.lower, k_lo), np.minimum(cs.upper, k_hi)
    empty = lo > hi
    lo, hi = np.where(empty, k_lo, lo), np.where(empty, k_hi, hi)
    miss = ((lo > mu + 1e-12) | (hi < mu - 1e-12))[:, seq.BURN_IN - 1 :].any(axis=1)
    assert miss.mean() <= alpha + 2 * np.sqrt(alpha * (1 - alpha) / reps)
    np.testing.assert_allclose(lo[:, -1], mu, atol=1e-12)
    np.testing.assert_allclose(hi[:, -1], mu, atol=1e-12)


def test_three_outcomes_with_the_margin():
    rng = np.random.default_rng(4)
    n = 3000
    base = (rng.random(n) < 0.6).astype(float)
    flip = rng.random(n) < 0.02
    y = np.stack([base, np.where(flip, 1 - base, base), (rng.random(n) < 0.9).astype(float)])
    order = rng.permutation(n)
    wide = _campaign(y, order, 1500, design="betting", finite_pool=True,
                     equivalence_margin=0.1).report()  # fmt: skip
    by = {(p.a, p.b): p for p in wide.pairs}
    assert by["S0", "S1"].outcome == Outcome.EQUIVALENT
    assert by["S0", "S1"].verdict == "no difference larger than 0.1"
    assert by["S0", "S2"].outcome == Outcome.B_BETTER
    lo, hi = by["S0", "S1"].result.ci
    assert lo >= -0.1 and hi <= 0.1
    narrow = _campaign(y, order, 1500, design="betting", finite_pool=True,
                       equivalence_margin=0.001).report()  # fmt: skip
    assert narrow.pairs[0].outcome == Outcome.UNDECIDED
    assert {(v.a, v.b) for v in settled_pairs(wide)} >= {("S0", "S1"), ("S0", "S2")}
    assert by["S0", "S1"].pair_verdict().text() == "no difference larger than 0.1"


def test_e_bh_rejects_the_largest_e_values():
    e = np.array([1.0, 200.0, 50.0, 0.5, 30.0])
    # m = 5, α = 0.1: thresholds 50, 25, 16.7, 12.5, 10 for k = 1..5
    np.testing.assert_array_equal(verdicts.e_bh(e, 0.1), [False, True, True, False, True])
    assert not verdicts.e_bh(np.array([9.0, 9.0]), 0.1).any()


def test_error_rate_ebh_is_in_force_for_betting_only():
    y, order = _binary(3)
    rep = _campaign(y, order, 250, design="betting", finite_pool=True, error_rate="ebh").report()
    assert rep.error_rate == "ebh"
    holm_rep = _campaign(y, order, 250, design="betting", finite_pool=True).report()
    assert sum(p.decided for p in rep.pairs) >= 1
    assert holm_rep.error_rate == "holm"
    other = _campaign(y, order, 250, design="asympcs", finite_pool=True, error_rate="ebh").report()
    assert other.error_rate == "holm" and any("e-BH" in n for n in other.notes)


def test_a_plan_larger_than_the_pool_is_said_not_clipped_silently():
    y, order = _binary(1, n=200)
    rep = _campaign(y, order, 100, design="betting", finite_pool=True, t_star=921).report()
    assert any("921 labels per system, more than the 200 items" in n for n in rep.notes)
    fits = _campaign(y, order, 100, design="betting", finite_pool=True, t_star=150).report()
    assert not any("more than the" in n for n in fits.notes)


def test_pool_fit_gives_the_smallest_settled_difference():
    from annotation.campaign.live_plan import forecast_planned_labels
    from estimators.planning.pool_fit import pool_fit

    fit = pool_fit(14, 529, forecast_planned_labels(14, 0.10))
    assert not fit.fits  # 14 systems, Δ = 0.10: the planner's t* exceeds 529 items
    # the planner needs about the pool for the smallest difference the pool settles
    need = forecast_planned_labels(14, fit.smallest_difference)
    assert abs(need - 529) <= 0.02 * 529
    assert fit.smallest_margin < fit.smallest_difference
    text = " ".join(fit.sentences(0.01))
    assert "more than the 529 items" in text and "below" in text


def test_without_replacement_betting_is_valid_and_exact_at_the_census():
    # 2,000 random orders of one fixed pool of 300 binary paired differences with mean
    # exactly 0: P(p-value ever ≤ α) ≤ α + 2 MC-SE; a pool with mean 0.1 is found
    from estimators.sequences import betting

    rng = np.random.default_rng(8)
    n, reps, alpha = 300, 2000, 0.05
    d = np.concatenate([np.ones(60), -np.ones(60), np.zeros(180)])
    z = np.stack([d[rng.permutation(n)] for _ in range(reps)])
    p = betting.betting_pvalue(z, 0.0, bounds=(-1, 1), alpha_tuning=alpha, t_star=n,
                               pool_size=n)  # fmt: skip
    rate = float((p[:, -1] <= alpha).mean())
    assert rate <= alpha + 2 * np.sqrt(alpha * (1 - alpha) / reps), rate
    alt = np.concatenate([np.ones(75), -np.ones(45), np.zeros(180)])  # Δ = 0.1
    za = np.stack([alt[rng.permutation(n)] for _ in range(200)])
    pa = betting.betting_pvalue(za, 0.0, bounds=(-1, 1), alpha_tuning=alpha, t_star=n,
                                pool_size=n)  # fmt: skip
    assert (pa[:, -1] <= alpha).mean() > 0.5
    # the sequence for the pool mean covers it along the path and ends at it
    for _ in range(30):
        cs = betting.betting_cs(alt[rng.permutation(n)], alpha, bounds=(-1, 1), t_star=n,
                                pool_size=n)  # fmt: skip
        assert cs.lower[-1] <= 0.1 + 1e-9 and cs.upper[-1] >= 0.1 - 1e-9
        assert cs.upper[-1] - cs.lower[-1] < 0.05
