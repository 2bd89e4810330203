"""Planner tables: the Table-1 grid and Figure-1 curves agree with the planning functions."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.planning.labels_needed import PlannedMetric, measurable_difference
from estimators.planning.tables import (
    FIGURE1_ACCURACY,
    FIGURE1_METRIC,
    TABLE1_HUMANS,
    TABLE1_METRIC,
    calibration_rates,
    epsilon_grid,
    epsilon_vs_accuracy,
)


@pytest.mark.parametrize("n_cal", [None, 200])
def test_grid_cells_are_the_measurable_difference(n_cal: int | None) -> None:
    metric = PlannedMetric(0.8, 0.75, n_cal)
    grid = epsilon_grid(TABLE1_HUMANS, TABLE1_METRIC, metric, 0.6)
    assert grid.shape == (len(TABLE1_HUMANS), len(TABLE1_METRIC))
    for i, j in [(0, 0), (2, 0), (0, 3), (3, 2), (5, 4)]:
        want = measurable_difference(TABLE1_HUMANS[i], TABLE1_METRIC[j], metric, 0.6)
        assert grid[i, j] == pytest.approx(want, rel=1e-12)
    assert grid[0, 0] == 1.0  # no labels at all


def test_grid_with_power_is_the_detectable_difference() -> None:
    metric = PlannedMetric(0.8, 0.8)
    grid = epsilon_grid([0, 100], [0, 1000], metric, 0.6, power=0.8)
    assert grid[1, 1] == pytest.approx(measurable_difference(100, 1000, metric, 0.6, power=0.8))
    assert grid[1, 1] / epsilon_grid([100], [1000], metric, 0.6)[0, 0] == pytest.approx(
        1.4295, abs=1e-3
    )


@pytest.mark.parametrize("n_cal", [None, 200])
def test_more_labels_never_increase_epsilon(n_cal: int | None) -> None:
    grid = epsilon_grid(TABLE1_HUMANS, TABLE1_METRIC, PlannedMetric(0.8, 0.8, n_cal), 0.6)
    assert np.all(np.diff(grid, axis=0) <= 1e-9)  # more human labels
    assert np.all(np.diff(grid, axis=1) <= 1e-9)  # more metric labels
    curves = epsilon_vs_accuracy(FIGURE1_ACCURACY, FIGURE1_METRIC, 0.6, n_calibration=n_cal)
    assert np.all(np.diff(curves, axis=1) <= 1e-9)  # more metric labels
    assert np.all(np.diff(curves, axis=0) <= 1e-9)  # a more accurate metric


def test_curves_reproduce_figure_1() -> None:
    """von Däniken et al. (2022) Figure 1, α = 0.6, no human labels, ρ = η known."""
    curves = epsilon_vs_accuracy([0.7, 0.85, 1.0], [1000, 10_000], alpha=0.6)
    assert curves.shape == (3, 2)
    assert curves[1, 1] == pytest.approx(0.0196, abs=5e-4)  # 0.85, 10,000
    assert curves[0, 0] == pytest.approx(0.109, abs=2e-3)  # 0.7, 1,000
    assert curves[2, 0] == pytest.approx(0.043, abs=1e-3)  # perfect metric, 1,000
    want = measurable_difference(0, 10_000, PlannedMetric(0.85, 0.85), 0.6)
    assert curves[1, 1] == pytest.approx(want)
    assert FIGURE1_ACCURACY[0] == 0.55 and FIGURE1_ACCURACY[-1] == 1.0


def test_calibration_rates() -> None:
    assert calibration_rates(80, 20, 60, 40) == (0.8, 0.6, 200)
    with pytest.raises(ValueError, match="ρ is undefined"):
        calibration_rates(0, 0, 5, 5)
    with pytest.raises(ValueError, match="η is undefined"):
        calibration_rates(5, 5, 0, 0)


def test_tables_are_fast() -> None:
    import time

    start = time.perf_counter()
    epsilon_grid(TABLE1_HUMANS, TABLE1_METRIC, PlannedMetric(0.8, 0.8, 200), 0.6)
    epsilon_vs_accuracy(FIGURE1_ACCURACY, FIGURE1_METRIC, 0.6, n_human=200)
    assert time.perf_counter() - start < 1.0
