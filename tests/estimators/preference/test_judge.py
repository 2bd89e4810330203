import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from estimators.fixed_n.control_variates import ppi_mean
from estimators.preference.judge import agreement, judge_control, judge_position


def _pair(rng, n_total: int, win: float, tie: float, keep: float, bias: float = 0.0):  # type: ignore[no-untyped-def]
    """Human outcomes of a pair and a judge that copies the human with probability
    ``keep``, otherwise says "first" with probability ½ + ``bias``."""
    u = rng.random(n_total)
    x = np.where(u < win - tie / 2, 1.0, np.where(u < win + tie / 2, 0.5, 0.0))
    guess = np.where(rng.random(n_total) < 0.5 + bias, 1.0, 0.0)
    g = np.where(rng.random(n_total) < keep, x, guess)
    return x, g


def test_the_judge_control_is_ppi_plus_plus_on_the_win_rate() -> None:
    rng = np.random.default_rng(51)
    x, g = _pair(rng, 2000, 0.58, 0.3, 0.7)
    out = judge_control(x[:300], g[:300], g[300:])
    direct = ppi_mean(x[:300], g[:300], g[300:], bounds=(0.0, 1.0))
    assert out.assisted.estimate == pytest.approx(direct.estimate)
    assert out.assisted.ci == pytest.approx(direct.ci)
    assert out.human.estimate == pytest.approx(x[:300].mean())
    assert 0 < out.saving < out.rho**2 + 0.05


def test_coverage_and_the_saving_against_its_floor_with_a_biased_judge() -> None:
    """A judge biased towards the first system: the assisted win rate stays centred and
    covers; its saving is close to ρ²·N_u/(n + N_u) and never beats the floor 1 − ρ²."""
    rng = np.random.default_rng(52)
    n, total, truth = 200, 2200, 0.56
    covered, estimates, savings, expected = 0, [], [], []
    for _ in range(300):
        x, g = _pair(rng, total, truth, 0.4, 0.6, bias=0.3)
        out = judge_control(x[:n], g[:n], g[n:])
        lo, hi = out.assisted.ci
        covered += lo <= truth <= hi
        estimates.append(out.assisted.estimate)
        savings.append(out.saving)
        expected.append(out.rho**2 * (total - n) / total)
        assert 1 - out.saving >= out.floor - 0.05
    assert covered / 300 >= 0.93
    assert np.mean(estimates) == pytest.approx(truth, abs=0.005)
    assert np.mean(savings) == pytest.approx(np.mean(expected), abs=0.03)


def test_agreement_and_kappa_match_sklearn() -> None:
    rng = np.random.default_rng(53)
    x, g = _pair(rng, 500, 0.6, 0.3, 0.5)
    share, kappa = agreement(x, g)
    assert share == pytest.approx(np.mean(x == g))
    assert kappa == pytest.approx(cohen_kappa_score(x.astype(str), g.astype(str)))


def test_a_judge_that_always_prefers_the_left_output_is_inconsistent() -> None:
    left_lover = judge_position(np.ones(40), np.ones(40))
    assert left_lover.consistent == 0.0 and left_lover.first_left_rate == 1.0
    fair = judge_position(np.array([1.0, 0.5, 0.0]), np.array([0.0, 0.5, 1.0]))
    assert fair.consistent == 1.0
    with pytest.raises(ValueError, match="3 answers in one order, 2 in the other"):
        judge_position(np.ones(3), np.ones(2))
