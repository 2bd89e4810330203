"""Planner: von Däniken et al. (2022) Figure 1 numbers and simulation checks of the solvers."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.base.result import EstimateResult
from estimators.fixed_n.human import binary_beta, paired_difference
from estimators.planning.labels_needed import (
    PlannedMetric,
    human_labels_needed,
    labels_still_needed,
    labels_still_needed_for,
    measurable_difference,
    min_metric_accuracy,
)


def test_figure1_numbers():
    """α = 0.6, ρ = η known (the seed paper's Figure 1)."""

    def eps(accuracy: float, n_metric: int) -> float:
        return measurable_difference(0, n_metric, PlannedMetric(accuracy, accuracy), 0.6)

    assert eps(0.7, 1000) == pytest.approx(0.109, abs=5e-4)
    assert eps(1.0, 1000) == pytest.approx(0.043, abs=5e-4)
    assert eps(0.85, 10_000) == pytest.approx(0.0196, abs=5e-5)
    assert min_metric_accuracy(0.02, 10_000, 0.6) == pytest.approx(0.843, abs=5e-4)


def test_edge_cases_and_human_only():
    assert measurable_difference(0, 0, PlannedMetric(0.8, 0.8), 0.6) == 1.0
    eps = measurable_difference(100, 0, PlannedMetric(0.8, 0.8), 0.6)
    assert eps == pytest.approx(1.959964 * np.sqrt(2) * binary_beta(60, 100).se, rel=1e-6)
    ratio = measurable_difference(100, 0, PlannedMetric(0.8, 0.8), 0.6, power=0.8) / eps
    assert ratio == pytest.approx(1.43, abs=0.005)
    assert min_metric_accuracy(0.01, 1000, 0.6) is None  # even a perfect metric is too few


def test_monotone_and_mixed_between():
    human = measurable_difference(200, 0, PlannedMetric(0.8, 0.8), 0.6)
    metric = measurable_difference(0, 2000, PlannedMetric(0.8, 0.8), 0.6)
    both = measurable_difference(200, 2000, PlannedMetric(0.8, 0.8), 0.6)
    assert both < min(human, metric)
    # estimated rates cost precision and converge to the known-rate answer
    cal = [measurable_difference(0, 2000, PlannedMetric(0.8, 0.8, c), 0.6) for c in (100, 1000)]
    assert cal[0] > cal[1] > metric
    assert measurable_difference(0, 2000, PlannedMetric(0.8, 0.8, 10**6), 0.6) == pytest.approx(
        metric, rel=0.01
    )


def test_labels_needed_is_the_smallest():
    for n_m, cal in ((0, None), (1000, None), (1000, 200)):
        n = human_labels_needed(0.06, n_m, PlannedMetric(0.75, 0.75, cal), 0.6)
        assert n > 0
        assert measurable_difference(n, n_m, PlannedMetric(0.75, 0.75, cal), 0.6) <= 0.06
        assert measurable_difference(n - 1, n_m, PlannedMetric(0.75, 0.75, cal), 0.6) > 0.06
    assert human_labels_needed(0.2, 10_000, PlannedMetric(0.9, 0.9), 0.6) == 0
    n80 = human_labels_needed(0.12, 0, PlannedMetric(0.75, 0.75), 0.6, power=0.8)
    assert n80 > 1.9 * human_labels_needed(0.12, 0, PlannedMetric(0.75, 0.75), 0.6)


def test_measurable_difference_matches_simulation():
    """The sd of a Rogan–Gladen difference of two systems, times z, is ε."""
    rng = np.random.default_rng(1)
    alpha, acc, n_m, reps = 0.6, 0.75, 2000, 20000
    a_m = (2 * acc - 1) * alpha + 1 - acc
    m = rng.binomial(n_m, a_m, size=(2, reps)) / n_m
    est = (m + acc - 1) / (2 * acc - 1)
    sim = 1.959964 * (est[0] - est[1]).std()
    eps = measurable_difference(0, n_m, PlannedMetric(acc, acc), alpha)
    assert eps == pytest.approx(sim, rel=0.03)


def test_labels_still_needed_gives_the_promised_power():
    """Plan from a pilot's estimates, then run the study: ≈ 80 % of runs are significant."""
    rng = np.random.default_rng(2)
    delta, sd = 0.1, 0.5
    pilot = paired_difference(rng.normal(delta, sd, 40), np.zeros(40))
    assert labels_still_needed_for(pilot) > 0
    # with the true effect and se, the solver's n gives 80 % power
    n0 = 40
    extra = labels_still_needed(delta, sd / np.sqrt(n0), n0)
    n = int(n0 + extra)
    assert n == pytest.approx((1.959964 + 0.841621) ** 2 * sd**2 / delta**2, abs=2)
    d = rng.normal(delta, sd, size=(4000, n))
    z = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
    assert np.mean(z > 1.9720) == pytest.approx(0.8, abs=0.025)
    # vectorised over pairs; a decided pair needs nothing, a zero estimate can never decide
    out = labels_still_needed([0.3, 0.0, 0.05], [0.05, 0.05, 0.05], [100, 100, 100])
    assert out[0] == 0 and np.isinf(out[1]) and out[2] > 100
    # a fixed metric-variance part that alone exceeds the target: no label count suffices
    assert np.isinf(labels_still_needed(0.05, 0.03, 100, fixed_var=0.03**2 * 0.9))
    small = EstimateResult(0.5, (0.2, 0.8), 0.15, 10, 0, "x")
    assert labels_still_needed_for(small) >= 20  # at least up to the 30-label minimum
