"""The planner's tables: ε over human × metric counts (von Däniken et al. 2022, Table 1) and
against metric accuracy (their Figure 1), and ρ, η from calibration counts. Each cell is
:func:`estimators.planning.labels_needed.measurable_difference` (docs/statistics-notes.md §16.5)."""

from __future__ import annotations

import numpy as np

from estimators.fixed_n.vondaniken import rates_from_counts
from estimators.planning.labels_needed import PlannedMetric, measurable_difference

# The planner's default axes: human × metric counts like von Däniken et al.'s Table 1, and
# metric accuracies × metric counts like their Figure 1.
TABLE1_HUMANS: tuple[int, ...] = (0, 50, 100, 200, 500, 1000)
TABLE1_METRIC: tuple[int, ...] = (0, 1_000, 5_000, 10_000, 50_000)
FIGURE1_METRIC: tuple[int, ...] = (1_000, 5_000, 10_000, 50_000)
FIGURE1_ACCURACY: tuple[float, ...] = tuple(round(0.55 + 0.025 * i, 3) for i in range(19))
DEFAULT_METRIC = PlannedMetric(0.8, 0.8)  # ρ = η = 0.8, known


def calibration_rates(tp: int, fn: int, tn: int, fp: int) -> tuple[float, float, int]:
    """(ρ̂, η̂, n_c) from calibration counts: ρ̂ = TP/(TP+FN), η̂ = TN/(TN+FP), n_c = their sum.

    The planner's inputs for the calibrated case (docs/statistics-notes.md §16.3): with
    ``n_calibration = n_c`` the planning functions spread the n_c items over the classes at the
    planned α (expected counts), so a calibration set whose positive share differs much from α is
    approximated. Raises ValueError when a class is empty (ρ or η undefined).
    """
    if min(tp, fn, tn, fp) < 0:
        raise ValueError("calibration counts must be ≥ 0")
    if tp + fn == 0:
        raise ValueError("no human-positive calibration items (TP + FN = 0): ρ is undefined")
    if tn + fp == 0:
        raise ValueError("no human-negative calibration items (TN + FP = 0): η is undefined")
    rho, eta = rates_from_counts(tp, fn, tn, fp)
    return float(rho), float(eta), int(tp + fn + tn + fp)


def epsilon_grid(
    humans: tuple[float, ...] | list[float] = TABLE1_HUMANS,
    metrics: tuple[float, ...] | list[float] = TABLE1_METRIC,
    metric: PlannedMetric = DEFAULT_METRIC,
    alpha: float = 0.6,
    level: float = 0.95,
    power: float | None = None,
) -> np.ndarray:
    """ε for every (human count, metric count), like von Däniken et al. (2022) Table 1.

    Returns an array of shape (len(humans), len(metrics)) with cell [i, j] =
    :func:`measurable_difference` (ε with ``power=None``; ``power=0.8``: the 80 %-power
    difference) for ``humans[i]`` human and ``metrics[j]`` metric labels per system, the
    ``metric``'s ρ, η (estimated from its ``n_calibration`` items when given) and adequacy
    rate α. Cell [0, 0] with no labels at all is 1.
    """
    return np.array(
        [
            [measurable_difference(h, m, metric, alpha, level, power) for m in metrics]
            for h in humans
        ],
        dtype=float,
    ).reshape(len(humans), len(metrics))


def epsilon_vs_accuracy(
    accuracies: tuple[float, ...] | list[float] = FIGURE1_ACCURACY,
    metrics: tuple[float, ...] | list[float] = FIGURE1_METRIC,
    alpha: float = 0.6,
    n_human: float = 0,
    n_calibration: float | None = None,
    level: float = 0.95,
    power: float | None = None,
) -> np.ndarray:
    """ε against metric accuracy ρ = η for several metric counts, like von Däniken et al.
    (2022) Figure 1 (there: α = 0.6, no human labels, ρ and η known).

    Returns an array of shape (len(accuracies), len(metrics)) with cell [i, j] = ε (or the
    ``power`` difference) for accuracy ``accuracies[i]``, ``metrics[j]`` metric labels and
    ``n_human`` human labels per system; with ``n_calibration`` the accuracy is estimated
    from that many calibration items instead of known. Check: α = 0.6, accuracy 0.85,
    10,000 metric ratings, no humans → 0.0196.
    """
    planned = [PlannedMetric(a, a, n_calibration) for a in accuracies]
    return np.array(
        [
            [measurable_difference(n_human, m, p, alpha, level, power) for m in metrics]
            for p in planned
        ],
        dtype=float,
    ).reshape(len(accuracies), len(metrics))
