"""Adaptive pair selection read by inverse-probability-weighted increments, with fixed seeds
and known truth (Bradley–Terry and Davidson worlds): the Horvitz–Thompson estimate is
unbiased while the policy chases the close pairs, family-wise false claims at true nulls
read after every judgment stay ≤ 5 %, and the adaptive policy settles every pair of a world
with a few close pairs with fewer labels than the uniform one (the figure is printed)."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.base.multiple import pairs
from estimators.preference import adaptive
from estimators.preference.data import Preferences
from estimators.preference.pairs import pair_preferences
from estimators.sequences import sequential as seq
from tests.support.preference_adaptive import (
    holm_rejections,
    labels_to_settle,
    pvalues_by_step,
    simulate,
)
from tests.support.preference_worlds import true_win_rates

CLOSE = np.array([0.0, 0.35, 1.0, 1.35, 2.0])  # two close pairs: (0, 1) and (2, 3)


def test_increments_are_zero_off_the_pair_and_scaled_by_one_over_pi() -> None:
    prefs = Preferences(("A", "B", "C"), np.array([0, 0, 1, 0]), np.array([1, 2, 2, 1]),
                        np.array([1.0, 0.0, 0.5, 0.0]), np.ones(4, bool),
                        weight=np.array([2.0, 4.0, 2.0, 5.0]), floor=0.2)  # fmt: skip
    st = adaptive.pair_steps(prefs, 0)  # pair (A, B)
    assert st.z.tolist() == [1.0, 0.0, 0.0, -2.5] and st.judged.tolist() == [1, 1, 1, 2]
    present = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], bool)
    only = Preferences(prefs.systems, prefs.a, prefs.b, prefs.outcome, prefs.a_on_left,
                       weight=prefs.weight, floor=0.2, present=present)  # fmt: skip
    assert adaptive.pair_steps(only, 0).z.tolist() == [1.0, -2.5]  # eligible steps only
    with pytest.raises(ValueError, match="below the floor"):
        Preferences(prefs.systems, prefs.a, prefs.b, prefs.outcome, prefs.a_on_left,
                    weight=prefs.weight, floor=0.3)  # fmt: skip
    with pytest.raises(ValueError, match="lacks one of its two systems"):
        Preferences(prefs.systems, prefs.a, prefs.b, prefs.outcome, prefs.a_on_left,
                    weight=prefs.weight, floor=0.2, present=~present)  # fmt: skip


def test_bets_keep_every_capital_factor_positive() -> None:
    z = np.array([1 / (2 * 0.01), -1 / (2 * 0.01), 0.0] * 20)
    lam = adaptive.bets(z, 0.005, 0.01)
    assert np.all(lam * (z.max() + 0.5) <= adaptive.C_BET + 1e-12)
    assert np.all(np.isfinite(adaptive.log_capital(z, np.linspace(-0.5, 0.5, 11), lam)))


def test_horvitz_thompson_estimate_is_unbiased_under_the_adaptive_policy() -> None:
    rng = np.random.default_rng(3)
    truth = true_win_rates(CLOSE, 0.3) - 0.5
    est = np.array([
        [adaptive.pair_steps(p, key).estimate() for key in range(10)]
        for p in (simulate(CLOSE, 0.3, 600, "adaptive", rng) for _ in range(150))
    ])  # fmt: skip
    se = est.std(axis=0, ddof=1) / np.sqrt(est.shape[0])
    assert np.all(np.abs(est.mean(axis=0) - truth) < 4 * se), (est.mean(axis=0), truth)


def test_verdicts_of_an_adaptive_campaign_settle_on_the_true_sides() -> None:
    rng = np.random.default_rng(4)
    prefs = simulate(CLOSE, 0.0, 4000, "adaptive", rng)
    rows = pair_preferences(prefs)
    truth = true_win_rates(CLOSE, 0.0)
    for row, w in zip(rows, truth, strict=True):
        assert row.low - 1e-9 <= w <= row.high + 1e-9
        if row.verdict != "not yet":
            assert row.verdict == ("a better" if w > 0.5 else "b better")
    assert sum(r.verdict != "not yet" for r in rows) >= 8
    assert all(r.n >= seq.BURN_IN for r in rows)


def _null_worlds():  # type: ignore[no-untyped-def]
    yield np.zeros(5), 0.5
    yield np.array([0.4, 0.4, 0.0, 0.0, -0.5, -0.5]), 0.3  # nulls beside clear pairs
    yield np.array([0.0, 0.0, 1.0, 1.0, 2.0]), 0.0


def _false_claim_rate(campaigns: int, steps: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    worlds = list(_null_worlds())
    claims = 0
    for c in range(campaigns):
        theta, nu = worlds[c % len(worlds)]
        plist = pairs(theta.size)
        null = np.array([np.isclose(theta[a], theta[b]) for a, b in plist])
        prefs = simulate(theta, nu, steps, "adaptive", rng)
        claims += bool(np.any(holm_rejections(pvalues_by_step(prefs))[:, null]))
    return claims / campaigns


def test_family_wise_false_claims_at_true_nulls_few_campaigns() -> None:
    rate = _false_claim_rate(45, 1500, seed=11)
    assert rate <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 45), rate


@pytest.mark.slow
def test_family_wise_false_claims_at_true_nulls_read_after_every_judgment() -> None:
    """600 adaptive campaigns (the policy concentrates on the null pairs once the clear
    ones settle), Holm read after every judgment: any false claim in ≤ 5 % of them."""
    rate = _false_claim_rate(600, 2000, seed=12)
    print(f"adaptive policy: family-wise false claims at true nulls {rate:.3f} (600 campaigns)")
    assert rate <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 600), rate


def _labels(rule: str, campaigns: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = [labels_to_settle(simulate(CLOSE, 0.0, 12000, rule, rng)) for _ in range(campaigns)]
    return np.array([12000 if n is None else n for n in out], dtype=float)


@pytest.mark.slow
def test_adaptive_settles_every_pair_with_fewer_labels_than_uniform() -> None:
    """5 systems, two close pairs (W ≈ 0.59), Bradley–Terry, Holm at 5 %: the judgments until
    every pair is settled, 40 campaigns per policy (same seed)."""
    uniform, adapt = _labels("uniform", 40, 21), _labels("adaptive", 40, 21)
    ratio = np.median(adapt) / np.median(uniform)
    print(f"labels to settle every pair: uniform median {np.median(uniform):.0f}, adaptive "
          f"{np.median(adapt):.0f} (ratio {ratio:.2f}; p80 {np.quantile(uniform, 0.8):.0f} "
          f"vs {np.quantile(adapt, 0.8):.0f})")  # fmt: skip
    assert ratio < 0.75


def test_the_capital_read_at_its_peaks_equals_the_full_pass() -> None:
    """The power-sum series and the evaluation steps give the exact log capital of the
    step-by-step product at those steps, and its running maximum there is that of every
    step (the hedged capital peaks at the ends of the runs without an increment)."""
    rng = np.random.default_rng(5)
    prefs = simulate(CLOSE, 0.3, 3000, "adaptive", rng)
    st = adaptive.pair_steps(prefs, 5)
    lam = adaptive.bets(st.z, 0.005, prefs.floor)
    d = np.linspace(-0.5, 0.5, 9)
    full = adaptive.log_capital(st.z, d, lam)
    cap = adaptive.capital(st.z, 0.005, prefs.floor)
    assert np.allclose(cap.log_k(d), full[:, cap.at], atol=1e-9)
    assert np.allclose(cap.top(d, True), full.max(axis=1), atol=1e-9)
    assert np.allclose(cap.top(d, False), full[:, -1], atol=1e-9)
    lo, hi = adaptive.interval(st.z, 0.05, 0.005, prefs.floor)
    inside = (d > lo) & (d < hi)
    assert np.all(full.max(axis=1)[~inside] >= np.log(20) - 1e-9) or not (~inside).any()


def _mixed_sources(steps: int, rng) -> Preferences:  # type: ignore[no-untyped-def]
    """Half the sources have only systems 0 and 1 (their one pair drawn with π = 1), where
    0 wins 80 % of the time; the other half have all 4 systems, where 0 wins 40 % against
    1 and the adaptive policy draws (0, 1) with a small π. Over the sources with both,
    W_01 = 0.6: the judged sources of (0, 1) are mostly the small ones."""
    from annotation.queue import pair_policy as policy

    k, delta = 4, policy.floor(4, 0.3)
    plist = pairs(k)
    a = np.zeros(steps, int)
    b = np.zeros(steps, int)
    pi, x = np.ones(steps), np.zeros(steps)
    present = np.ones((steps, k), bool)
    scores = np.full(len(plist), 1.0)
    for t in range(steps):
        if t % 10 == 0 and t:
            scores = policy.pair_scores(k, a[:t], b[:t], x[:t], 1 / pi[:t])
        small = rng.random() < 0.5
        keys = [0] if small else list(range(len(plist)))
        present[t, 2:] = not small
        probs = policy.source_probabilities(keys, scores, delta)
        j = int(rng.choice(len(keys), p=probs))
        a[t], b[t] = plist[keys[j]]
        pi[t] = probs[j]
        p_win = (0.8 if small else 0.4) if keys[j] == 0 else 0.5
        x[t] = float(rng.random() < p_win)
    return Preferences(("S0", "S1", "S2", "S3"), a, b, x, rng.random(steps) < 0.5,
                       weight=1 / pi, floor=delta, present=present)  # fmt: skip


def test_sources_with_fewer_systems_are_weighted_back() -> None:
    """Where the plain mean of the pair's judgments is biased (0.77 instead of 0.6), the
    Horvitz–Thompson estimate is not, and the anytime interval covers the truth."""
    rng = np.random.default_rng(8)
    plain, ht, covered = [], [], 0
    for _ in range(40):
        prefs = _mixed_sources(800, rng)
        own = prefs.pair_index() == 0
        plain.append(prefs.outcome[own].mean())
        st = adaptive.pair_steps(prefs, 0)
        ht.append(0.5 + st.estimate())
        lo, hi = adaptive.interval(st.z, 0.05, 0.05 / 6, prefs.floor)
        covered += lo <= 0.1 <= hi
    assert abs(np.mean(plain) - 0.6) > 0.05  # the judged sources are not the sources
    assert abs(np.mean(ht) - 0.6) < 3 * np.std(ht) / np.sqrt(len(ht)) + 1e-3
    assert covered >= 38
