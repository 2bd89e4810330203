import math

import numpy as np
import pytest
from scipy import stats

from estimators.preference.pairs import pvalue_paths
from estimators.preference.planner import fixed_n_needed, labels_needed


def test_fixed_n_is_the_normal_formula() -> None:
    n = fixed_n_needed(0.6, tie_rate=0.2, alpha=0.05, power=0.8, pairs=10)
    s0 = math.sqrt(0.8 / 4)
    s1 = math.sqrt((0.6 - 0.1) + 0.2 / 4 - 0.36)
    za, zb = stats.norm.ppf(1 - 0.05 / 20), stats.norm.ppf(0.8)
    assert n == math.ceil(((za * s0 + zb * s1) / 0.1) ** 2)


def test_the_fixed_n_plan_has_its_power() -> None:
    """At the planned n the two-sided z test at α/m rejects in ≈ 80 % of simulated pairs."""
    rng = np.random.default_rng(31)
    w, tie, m = 0.58, 0.3, 6
    n = fixed_n_needed(w, tie_rate=tie, pairs=m)
    u = rng.random((4000, n))
    x = np.where(u < w - tie / 2, 1.0, np.where(u < w + tie / 2, 0.5, 0.0))
    z = (x.mean(axis=1) - 0.5) / (x.std(axis=1, ddof=1) / math.sqrt(n))
    power = np.mean(np.abs(z) > stats.norm.ppf(1 - 0.05 / (2 * m)))
    assert 0.77 <= power <= 0.83, power


def test_the_anytime_forecast_is_near_the_simulated_median() -> None:
    """The forecast of the judgments an anytime verdict needs is within a factor 1.5 of the
    simulated 80th percentile of the first rejection (bets at α/m)."""
    rng = np.random.default_rng(32)
    w, tie, m = 0.6, 0.2, 10
    plan = labels_needed(w, tie_rate=tie, pairs=m)
    assert plan.anytime > plan.fixed_n  # the price of reading after every judgment
    horizon = 3 * plan.anytime
    u = rng.random((300, horizon))
    x = np.where(u < w - tie / 2, 1.0, np.where(u < w + tie / 2, 0.5, 0.0))
    p = pvalue_paths(x, 0.05 / m)
    hit = p <= 0.05 / m
    first = np.where(hit.any(axis=1), np.argmax(hit, axis=1) + 1, horizon)
    p80 = float(np.quantile(first, 0.8))
    assert plan.anytime / 1.5 <= p80 <= plan.anytime * 1.5, (plan.anytime, p80)
    assert plan.anytime_total == plan.anytime * m


def test_impossible_plans_are_refused() -> None:
    with pytest.raises(ValueError, match="cannot be told from ½"):
        fixed_n_needed(0.5)
    with pytest.raises(ValueError, match=r"tie rate of 0\.5 is impossible with a win rate of 0\.9"):
        labels_needed(0.9, tie_rate=0.5)
