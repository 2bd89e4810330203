import numpy as np
import pytest

from estimators.base.multiple import holm, pairs
from estimators.base.verdicts import Outcome, e_bh
from estimators.preference.data import Preferences
from estimators.preference.pairs import evalue_paths, pair_preferences, pvalue_paths
from tests.support.preference_worlds import davidson_probabilities, true_win_rates, world


def test_a_clear_pair_is_decided_on_its_side_and_an_equal_pair_is_not() -> None:
    rng = np.random.default_rng(1)
    prefs = world(np.array([0.7, 0.0, 0.0]), 0.5, 2400, rng)
    rows = {(r.a, r.b): r for r in pair_preferences(prefs)}
    assert rows[("S0", "S1")].outcome == Outcome.A_BETTER
    assert rows[("S0", "S1")].text() == "S0 better"
    assert rows[("S0", "S1")].verdict == "a better"
    assert rows[("S1", "S2")].outcome == Outcome.UNDECIDED
    truth = true_win_rates(np.array([0.7, 0.0, 0.0]), 0.5)
    for (a, b), w in zip(pairs(3), truth, strict=True):
        row = rows[(f"S{a}", f"S{b}")]
        assert row.low <= w <= row.high
        assert row.n == row.wins_a + row.ties + row.wins_b
        assert row.win_rate == pytest.approx((row.wins_a + row.ties / 2) / row.n)


def test_b_better_is_read_from_the_first_systems_side() -> None:
    rng = np.random.default_rng(2)
    prefs = world(np.array([-0.8, 0.0]), 0.3, 400, rng)
    (row,) = pair_preferences(prefs)
    assert row.outcome == Outcome.B_BETTER and row.text() == "S1 better"
    assert row.high < 0.5


def test_within_epsilon_when_the_interval_fits_the_margin() -> None:
    rng = np.random.default_rng(3)
    prefs = world(np.array([0.0, 0.0]), 0.5, 3000, rng)
    (row,) = pair_preferences(prefs, epsilon=0.05)
    assert row.outcome == Outcome.EQUIVALENT and row.verdict == "within ε"
    assert row.low >= 0.45 and row.high <= 0.55
    (strict,) = pair_preferences(prefs, epsilon=0.0)
    assert strict.outcome == Outcome.UNDECIDED


def test_no_verdict_before_the_burn_in() -> None:
    x = np.ones(20)
    prefs = Preferences(("A", "B"), np.zeros(20, int), np.ones(20, int), x, np.ones(20, bool))
    (row,) = pair_preferences(prefs)
    assert row.outcome == Outcome.UNDECIDED and row.p_value == 1.0


def test_ebh_and_holm_are_both_available_and_unknown_names_refused() -> None:
    rng = np.random.default_rng(4)
    prefs = world(np.array([0.6, 0.0, -0.6]), 0.2, 1500, rng)
    for correction in ("holm", "ebh"):
        rows = pair_preferences(prefs, correction=correction)
        assert {r.outcome for r in rows} == {Outcome.A_BETTER}
    with pytest.raises(ValueError):
        pair_preferences(prefs, correction="bonferroni")


def _campaign_claims(theta, nu, per_pair, rng, correction, alpha=0.05):  # type: ignore[no-untyped-def]
    """Whether any true-null pair is ever rejected, reading after every judgment: each
    pair's stream of ``per_pair`` judgments, interleaved in a random global order."""
    k = theta.size
    plist = pairs(k)
    m = len(plist)
    a = np.array([p[0] for p in plist])
    b = np.array([p[1] for p in plist])
    win, tie = davidson_probabilities(theta, nu, a, b)
    u = rng.random((m, per_pair))
    x = np.where(u < win[:, None], 1.0, np.where(u < (win + tie)[:, None], 0.5, 0.0))
    null = np.isclose(theta[a], theta[b])
    order = rng.permutation(np.repeat(np.arange(m), per_pair))  # which pair at each step
    counts = np.zeros((order.size, m), dtype=int)
    counts[np.arange(order.size), order] = 1
    counts = np.cumsum(counts, axis=0)  # judgments of each pair after each step
    tune = alpha / m
    if correction == "holm":
        paths = pvalue_paths(x, tune)  # (m, per_pair)
        padded = np.hstack([np.ones((m, 1)), paths])
        p_t = padded[np.arange(m), counts]  # (steps, m): p of each pair at each step
        reject = holm(p_t, alpha).reject
    else:
        paths = evalue_paths(x, tune)
        padded = np.hstack([np.ones((m, 1)), paths])
        e_t = padded[np.arange(m), counts]
        reject = np.array([e_bh(row, alpha) for row in e_t[::7]])  # every 7th step
    return bool(np.any(reject[:, null]))


def _worlds(rng):  # type: ignore[no-untyped-def]
    """Worlds with true nulls: all equal, and half the systems tied in pairs."""
    yield np.zeros(5), 0.5
    yield np.array([0.4, 0.4, 0.0, 0.0, -0.5, -0.5]), 0.3
    yield np.zeros(8), 0.0


def _false_claim_rate(campaigns: int, per_pair: int, seed: int, correction: str) -> float:
    rng = np.random.default_rng(seed)
    claims = total = 0
    worlds = list(_worlds(rng))
    for c in range(campaigns):
        theta, nu = worlds[c % len(worlds)]
        claims += _campaign_claims(theta, nu, per_pair, rng, correction)
        total += 1
    return claims / total


def test_family_wise_false_claims_read_after_every_judgment_few_campaigns() -> None:
    """Fast version: 60 campaigns; the bound α = 5 % is an upper bound (anytime-valid
    betting is conservative), so at most a few false claims."""
    rate = _false_claim_rate(60, 200, seed=9, correction="holm")
    assert rate <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 60), rate


@pytest.mark.slow
@pytest.mark.parametrize("correction", ["holm", "ebh"])
def test_family_wise_false_claims_read_after_every_judgment(correction: str) -> None:
    """1,200 campaigns in Bradley–Terry and Davidson worlds with true nulls, verdicts read
    after every judgment (e-BH: every 7th): the share of campaigns with any false claim at a
    true null stays within 1–5 % (e-BH controls the FDR; with every null true it is the
    FWER, and its rate is reported here against the same bound)."""
    rate = _false_claim_rate(1200, 400, seed=10, correction=correction)
    assert rate <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 1200), rate
