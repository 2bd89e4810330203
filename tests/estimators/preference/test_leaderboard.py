import math

import numpy as np
import pytest
from scipy import optimize

from estimators.base.multiple import pairs
from estimators.preference import firth
from estimators.preference.data import Preferences
from estimators.preference.leaderboard import (
    _basis,
    _Fit,
    bradley_terry,
    max_stat_constant,
    pair_counts,
)
from tests.support.preference_worlds import true_ranks, world


def _two(w: int, t: int, l: int) -> Preferences:  # noqa: E741
    x = np.array([1.0] * w + [0.5] * t + [0.0] * l)
    return Preferences(("A", "B"), np.zeros(x.size, int), np.ones(x.size, int), x,
                       np.arange(x.size) % 2 == 0)  # fmt: skip


def test_two_systems_reproduce_the_closed_form() -> None:
    """With two systems the Davidson MLE matches the observed shares exactly:
    θ_A − θ_B = log(W/L) and ν = T/√(WL); the se of θ_A − θ_B is the delta method's."""
    w, t, l = 60, 25, 35  # noqa: E741
    board = bradley_terry(_two(w, t, l), draws=2000, fit_method="mle")
    theta = dict(zip(("A", "B"), board.theta, strict=True))
    assert theta["A"] - theta["B"] == pytest.approx(math.log(w / l), abs=1e-6)
    assert theta["A"] + theta["B"] == pytest.approx(0.0, abs=1e-9)
    assert board.tie_param == pytest.approx(t / math.sqrt(w * l), rel=1e-5)
    # ridge aside, Var(θ_A − θ_B) = 4/(N(4 + cν)/D²) ... checked against the numerical Hessian
    d = math.log(w / l) / 2
    nu = t / math.sqrt(w * l)
    c, s, n = 2 * math.cosh(d), 2 * math.sinh(d), w + t + l
    big_d = c + nu
    info = n / big_d**2 * np.array([[4 + c * nu, -s * nu], [-s * nu, c * nu]])
    var_d = np.linalg.inv(info)[0, 0]  # of d = (θ_A − θ_B)/2
    var_diff = board.cov[0, 0] + board.cov[1, 1] - 2 * board.cov[0, 1]
    assert var_diff == pytest.approx(4 * var_d, rel=1e-3)


def test_plain_bradley_terry_without_ties() -> None:
    board = bradley_terry(_two(70, 0, 30), draws=2000, fit_method="mle")
    assert board.tie_param == 0.0
    assert board.theta[0] - board.theta[1] == pytest.approx(math.log(70 / 30), abs=1e-6)


def test_firth_with_two_systems_adds_half_a_win_and_half_a_loss() -> None:
    """Without ties the model is a logistic one with one parameter, where Firth's penalty is
    Jeffreys' prior and the estimate is log((W + ½)/(L + ½)): finite when one side won all."""
    for w, l in ((70, 30), (12, 0)):  # noqa: E741
        board = bradley_terry(_two(w, 0, l), draws=2000)
        assert board.converged
        diff = board.theta[0] - board.theta[1]
        assert diff == pytest.approx(math.log((w + 0.5) / (l + 0.5)), abs=1e-5)  # the ridge
    with pytest.raises(ValueError, match="fit_method"):
        bradley_terry(_two(5, 0, 5), fit_method="bayes")


@pytest.mark.parametrize("nu", [0.0, 0.7])
def test_the_firth_penalty_gradient_is_the_numerical_one(nu: float) -> None:
    rng = np.random.default_rng(1)
    prefs = world(np.array([0.5, 0.1, -0.2, -0.4]), nu, 300, rng)
    counts = pair_counts(prefs)
    ties = bool(counts[:, 1].sum() > 0)
    fit = _Fit(4, counts, ties)
    par = rng.normal(0, 0.3, 3 + ties)
    numerical = [(firth.penalty(fit, par + e) - firth.penalty(fit, par - e)) / 2e-6
                 for e in np.eye(par.size) * 1e-6]  # fmt: skip
    assert np.allclose(firth.penalty_grad(fit, par), numerical, atol=1e-6)
    # at the Firth estimate the penalised score vanishes
    board = bradley_terry(prefs, draws=500)
    est = np.append(_basis(4).T @ board.theta, [math.log(board.tie_param)] if ties else [])
    u = -fit.grad(est) + firth.penalty_grad(fit, est)
    assert np.max(np.abs(u)) < 1e-6


def test_firth_pulls_extreme_scores_in_on_average() -> None:
    """The MLE of the extreme scores is biased outwards at few judgments a pair; Firth's
    estimate much less (fixed seed, 60 campaigns of 12 systems, ≈ 4 judgments a pair)."""
    rng = np.random.default_rng(4)
    out = {"mle": [], "firth": []}
    for _ in range(60):
        theta = np.linspace(-1.2, 1.2, 12)
        prefs = world(theta, 0.4, 260, rng)
        for method in out:
            board = bradley_terry(prefs, draws=200, fit_method=method)
            out[method].append((board.theta - theta) * np.sign(theta))
    mle, fir = (float(np.mean(np.array(v)[:, [0, 1, -2, -1]])) for v in out.values())
    assert mle > 0.03 and abs(fir) < mle / 2, (mle, fir)


def test_the_fit_matches_a_generic_optimiser_on_the_full_likelihood() -> None:
    """The maximum found by Newton on the reduced likelihood is the maximum of the textbook
    Davidson likelihood Σ log P(outcome), found by Nelder–Mead from another start."""
    rng = np.random.default_rng(5)
    theta = np.array([0.5, 0.2, 0.0, -0.3, -0.4])
    prefs = world(theta, 0.7, 800, rng)
    board = bradley_terry(prefs, draws=2000, fit_method="mle")

    def negll(par: np.ndarray) -> float:
        th = np.append(par[:4], -par[:4].sum())
        pa, pb = np.exp(th[prefs.a]), np.exp(th[prefs.b])
        tie = math.exp(par[4]) * np.sqrt(pa * pb)
        d = pa + pb + tie
        x = prefs.outcome
        p = np.where(x == 1.0, pa, np.where(x == 0.0, pb, tie)) / d
        return -float(np.sum(np.log(p)))

    res = optimize.minimize(negll, np.full(5, 0.1), method="Nelder-Mead",
                            options={"xatol": 1e-9, "fatol": 1e-11, "maxiter": 40_000})  # fmt: skip
    found = np.append(res.x[:4], -res.x[:4].sum())
    assert np.allclose(board.theta, found, atol=2e-4)
    assert board.tie_param == pytest.approx(math.exp(res.x[4]), rel=1e-3)


def test_equal_weights_give_the_unweighted_fit_and_its_sandwich() -> None:
    """Constant weights leave θ̂ alone; the sandwich covariance then agrees with the model
    one up to sampling noise (the model holds)."""
    rng = np.random.default_rng(7)
    prefs = world(np.array([0.4, 0.0, -0.4]), 0.5, 1500, rng)
    weighted = Preferences(prefs.systems, prefs.a, prefs.b, prefs.outcome, prefs.a_on_left,
                           np.full(prefs.n, 3.0))  # fmt: skip
    plain, heavy = bradley_terry(prefs, draws=2000), bradley_terry(weighted, draws=2000)
    assert np.allclose(plain.theta, heavy.theta, atol=1e-6)
    ratio = np.diag(heavy.cov) / np.diag(plain.cov)
    assert np.all((ratio > 0.85) & (ratio < 1.15)), ratio


def test_the_max_statistic_constant_lies_between_one_test_and_bonferroni() -> None:
    from scipy import stats

    k = 8
    cov = _basis(k) @ _basis(k).T  # the sum-zero projection
    c = max_stat_constant(cov, 0.05)
    assert stats.norm.ppf(0.975) < c < stats.norm.ppf(1 - 0.05 / (2 * k))
    # independent coordinates: the Šidák constant, exact
    c_ind = max_stat_constant(np.eye(k), 0.05, draws=50_000)
    assert c_ind == pytest.approx(stats.norm.ppf((1 + 0.95 ** (1 / k)) / 2), abs=0.03)


def test_counts_are_per_pair_in_pairs_order() -> None:
    prefs = Preferences(("A", "B", "C"), np.array([0, 0, 1, 1]), np.array([1, 2, 2, 2]),
                        np.array([1.0, 0.5, 0.0, 0.0]), np.ones(4, bool))  # fmt: skip
    assert pairs(3) == [(0, 1), (0, 2), (1, 2)]
    assert pair_counts(prefs).tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 2]]


def test_a_clear_winner_is_first_and_equal_leaders_are_tied() -> None:
    rng = np.random.default_rng(11)
    prefs = world(np.array([0.8, 0.8, 0.0, -0.2, -1.4]), 0.4, 3000, rng)
    board = bradley_terry(prefs, draws=4000)
    assert set(board.tied_for_first()) == {"S0", "S1"}
    assert board.first_text() == "tied for first: S0, S1"
    assert board.rows[-1].system == "S4" and str(board.rows[-1].rank) == "5"


def _coverage(k: int, nu: float, n: int, reps: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    covered = ranked = 0
    for _ in range(reps):
        theta = rng.normal(0, 0.6, k)
        theta -= theta.mean()
        board = bradley_terry(world(theta, nu, n, rng), draws=3000)
        by = {r.system: r for r in board.rows}
        rows = [by[f"S{i}"] for i in range(k)]
        covered += all(r.low <= t <= r.high for r, t in zip(rows, theta, strict=True))
        truth = true_ranks(theta)
        ranked += all(r.rank.best <= t <= r.rank.worst for r, t in zip(rows, truth, strict=True))
    return covered / reps, ranked / reps


def test_simultaneous_coverage_in_a_small_davidson_world() -> None:
    """Fast version of the slow simulation below: 5 systems with ties, 150 campaigns."""
    scores, ranks = _coverage(5, 0.6, 600, 150, seed=3)
    assert scores >= 0.92 and ranks >= 0.95


@pytest.mark.slow
@pytest.mark.parametrize(
    ("k", "nu", "n", "reps", "seed"),
    [(5, 0.0, 500, 1000, 50), (5, 0.6, 500, 1000, 56), (10, 0.0, 1500, 1000, 100),
     (10, 0.6, 1500, 1000, 106), (30, 0.0, 6000, 1000, 8), (30, 0.6, 6000, 1000, 7)],
)  # fmt: skip
def test_simultaneous_coverage_in_bradley_terry_and_davidson_worlds(k, nu, n, reps, seed) -> None:  # type: ignore[no-untyped-def]
    """All k scores inside their simultaneous (Bonferroni) intervals at the Firth fit
    together in ≥ 94 % of the campaigns (stated ≥ 95 %), and every true rank inside its
    rank set in ≥ 95 %: 5, 10 and 30 systems (≈ 50, 33 and 14 judgments a pair), plain
    Bradley–Terry and Davidson ν = 0.6."""
    scores, ranks = _coverage(k, nu, n, reps, seed=seed)
    assert scores >= 0.94, scores
    assert ranks >= 0.95, ranks
