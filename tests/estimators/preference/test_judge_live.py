import itertools

import numpy as np
import pytest

from estimators.base.multiple import holm, pairs
from estimators.base.verdicts import Outcome
from estimators.preference import judge_live
from estimators.preference.data import Preferences
from estimators.preference.pairs import pair_preferences, pvalue_paths
from estimators.sequences import betting_control
from tests.support.judge_worlds import human, judge_of, pair_pools


def test_the_controlled_capital_has_mean_one_at_the_truth_exactly() -> None:
    """All 4⁶ equally likely draw sequences from a pool of 4 instances (with replacement):
    E[K_t(W)] = 1 at every t, W the pool's win rate, whatever the judge's g — the slope is
    learned from the past judgments only. A slope fitted including the current judgment
    would break it (checked: the planted bug moves the mean)."""
    x = np.array([1.0, 0.0, 0.5, 0.5])  # W = ½
    g = np.array([0.9, 0.2, 0.6, 0.1])
    seqs = np.array(list(itertools.product(range(4), repeat=6)))
    e = judge_live.betting_control.evalue(x[seqs] - 0.5, g[seqs], g, 0.0,
                                          bounds=judge_live.BOUNDS, alpha_tuning=0.01,
                                          t_star=None, pool_size=None)  # fmt: skip
    assert np.allclose(e.mean(axis=0), 1.0, atol=1e-9)
    # the same capital at a false null: its mean grows
    e_false = judge_live.betting_control.evalue(x[seqs] - 0.5, g[seqs], g, -0.2,
                                                bounds=judge_live.BOUNDS, alpha_tuning=0.01,
                                                t_star=None, pool_size=None)  # fmt: skip
    assert e_false.mean(axis=0)[-1] > 1.01


def test_a_planted_bug_fails_the_exact_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The slope including the current judgment (not predictable): the mean moves off 1."""
    real = betting_control.coefficients

    def peeking(x01, g, start=None):  # type: ignore[no-untyped-def]
        c, end = real(x01, g, start)
        after = np.concatenate([c[..., 1:], end[-1]], axis=-1)
        return after, end

    monkeypatch.setattr(betting_control, "coefficients", peeking)
    x = np.array([1.0, 0.0, 0.5, 0.5])
    g = np.array([0.9, 0.2, 0.6, 0.1])
    seqs = np.array(list(itertools.product(range(4), repeat=6)))
    e = betting_control.evalue(x[seqs] - 0.5, g[seqs], g, 0.0, bounds=judge_live.BOUNDS,
                               alpha_tuning=0.01, t_star=None, pool_size=None)  # fmt: skip
    assert not np.allclose(e.mean(axis=0), 1.0, atol=1e-3)


def _two_systems(x: np.ndarray) -> Preferences:
    n = x.size
    return Preferences(("A", "B"), np.zeros(n, int), np.ones(n, int), x, np.arange(n) % 2 == 0)


def _first(hit: np.ndarray) -> float:
    return float(np.argmax(hit)) if hit.any() else np.inf


def test_a_good_judge_settles_a_pair_sooner_and_an_uncovered_pair_reads_human_only() -> None:
    rng = np.random.default_rng(3)
    pool_y = np.where(rng.random(400) < 0.58, 1.0, 0.0)  # W = 0.58 or so
    g_pool = judge_of(pool_y, 0.9, rng)
    draws = rng.integers(0, 400, 600)
    x = human(pool_y[draws], 0.05, 0.58, 0.0, rng)
    p_plain = pvalue_paths(x, 0.05)
    p_judge = judge_live.pvalue_paths(x, g_pool[draws], g_pool, 0.05)
    assert _first(p_judge <= 0.05) < _first(p_plain <= 0.05)
    prefs = _two_systems(x)
    streams = judge_live.judge_streams(
        prefs, draws, {(j, 0, 1): float(g_pool[j]) for j in range(400)}, name="gpt"
    )
    (row,) = pair_preferences(prefs, judge=streams)
    assert row.control == "gpt" and row.outcome == Outcome.A_BETTER
    assert row.p_value == pytest.approx(float(p_judge[-1]))
    assert row.low <= float(np.mean(pool_y)) <= row.high
    # the judge lacks one of the judged instances: the pair falls back to the humans alone
    partial = {(j, 0, 1): float(g_pool[j]) for j in range(400) if j != draws[5]}
    fallback = judge_live.judge_streams(prefs, draws, partial)
    assert fallback.skipped == (0,)
    (plain,) = pair_preferences(prefs, judge=fallback)
    assert plain.control == "" and plain.p_value == pytest.approx(float(p_plain[-1]))


def test_bad_judge_input_is_refused() -> None:
    prefs = _two_systems(np.array([1.0, 0.0, 0.5]))
    with pytest.raises(ValueError, match="not in \\[0, 1\\]"):
        judge_live.judge_streams(prefs, [0, 1, 2], {(0, 0, 1): 1.5})
    with pytest.raises(ValueError, match="canonical"):
        judge_live.judge_streams(prefs, [0, 1, 2], {(0, 1, 0): 1.0})
    with pytest.raises(ValueError, match="3 judgments"):
        judge_live.judge_streams(prefs, [0, 1], {})


WORLDS = (  # (θ, ν, judge agreement, judge kind)
    (np.zeros(4), 0.5, 0.8, "noisy"),
    (np.array([0.4, 0.4, 0.0, 0.0, -0.5]), 0.3, 0.7, "biased"),
    (np.zeros(5), 0.0, 0.9, "probability"),
    (np.array([0.3, 0.0, 0.0, 0.0]), 0.6, 0.0, "noisy"),  # a useless judge
)


def _campaign(world, per_pair: int, rng, pool: int = 150, alpha: float = 0.05):  # type: ignore[no-untyped-def]
    """(any false claim at a true null, with the judge; the same, humans only; per
    non-null pair (judgments to rejection with the judge, without, ρ²)), reading Holm over
    the pairs after every judgment (pairs interleaved at random)."""
    theta, nu, agree, kind = world
    plist = pairs(theta.size)
    m = len(plist)
    tune = alpha / m
    p_judge, p_human, nulls, rho2 = [], [], [], []
    for y, win, tie, null in pair_pools(theta, nu, pool, rng):
        g = judge_of(y, agree, rng, kind)
        draws = rng.integers(0, pool, per_pair)
        x = human(y[draws], 0.2, win, tie, rng)
        p_judge.append(judge_live.pvalue_paths(x, g[draws], g, tune))
        p_human.append(pvalue_paths(x, tune))
        nulls.append(null)
        rho2.append(judge_live.rho(human(y, 0.2, win, tie, rng), g) ** 2)
    order = rng.permutation(np.repeat(np.arange(m), per_pair))
    counts = np.zeros((order.size, m), dtype=int)
    counts[np.arange(order.size), order] = 1
    counts = np.cumsum(counts, axis=0)
    out = []
    for paths in (np.array(p_judge), np.array(p_human)):
        padded = np.hstack([np.ones((m, 1)), paths])
        reject = holm(padded[np.arange(m), counts], alpha).reject  # (steps, m)
        first = np.where(reject.any(axis=0), np.argmax(reject, axis=0), np.inf)
        out.append((bool(np.any(reject[:, np.array(nulls)])), first))
    steps = [(out[0][1][j], out[1][1][j], rho2[j]) for j in range(m) if not nulls[j]]
    return out[0][0], out[1][0], steps


def _simulate(campaigns: int, per_pair: int, seed: int):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    claims = np.zeros(2)
    steps = []
    for c in range(campaigns):
        with_judge, human_only, s = _campaign(WORLDS[c % len(WORLDS)], per_pair, rng)
        claims += (with_judge, human_only)
        steps += s
    return claims / campaigns, np.array(steps, dtype=float).reshape(-1, 3)


def test_family_wise_false_claims_with_a_judge_few_campaigns() -> None:
    rates, _ = _simulate(40, 300, seed=11)
    assert rates[0] <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 40), rates


@pytest.mark.slow
def test_family_wise_false_claims_with_a_judge_read_after_every_judgment() -> None:
    """1,200 campaigns of 4–5 systems (Bradley–Terry and Davidson, true nulls in every
    world; noisy, biased, probability and useless judges), Holm over the pairs read after
    every judgment: the share of campaigns with a false claim at a true null stays within
    1–5 % with the judge as the control; the judge settles the non-null pairs with fewer
    human judgments where it correlates with the humans."""
    rates, steps = _simulate(1200, 400, seed=12)
    assert 0.01 <= rates[0] <= 0.05, rates
    settled = np.isfinite(steps[:, 0]) & np.isfinite(steps[:, 1])
    ratio = np.median(steps[settled, 0]) / np.median(steps[settled, 1])
    assert ratio < 1.0, ratio


def test_an_adaptive_campaign_reads_its_weighted_verdicts_without_the_judge() -> None:
    """The judge's increment assumes uniform draws from the pair's pool; a campaign whose
    pairs were drawn adaptively (a floor on π) keeps its inverse-probability-weighted
    verdicts and names no control."""
    rng = np.random.default_rng(8)
    x = np.where(rng.random(200) < 0.6, 1.0, 0.0)
    n = x.size
    adaptive_prefs = Preferences(("A", "B"), np.zeros(n, int), np.ones(n, int), x,
                                 np.arange(n) % 2 == 0, np.full(n, 2.0), floor=0.25)  # fmt: skip
    streams = judge_live.judge_streams(
        adaptive_prefs, np.arange(n), {(j, 0, 1): float(x[j]) * 0.8 + 0.1 for j in range(n)}
    )
    (row,) = pair_preferences(adaptive_prefs, judge=streams)
    (plain,) = pair_preferences(adaptive_prefs)
    assert row.control == "" and row.p_value == plain.p_value
