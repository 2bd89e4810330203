"""Planning: how small a difference can a campaign detect, and how many labels does it need?

The formulas. The planner's tables (:mod:`estimators.planning.tables`), a campaign's inputs
(:mod:`estimators.planning.inputs`), whether a plan fits the pool
(:mod:`estimators.planning.pool_fit`) and plans in documents (:mod:`estimators.planning.documents`)
build on them.

The planning quantity of von Däniken et al. (2022, §4 and Figure 1; docs/statistics-notes.md §16.5):

    ε = z_{1−a/2} · sqrt(2 · Var[α | data])

— the smallest difference between two systems with the same α and the same sample sizes
that a two-sided level-(1−a) comparison can resolve (normal approximation of α₁ − α₂). A true
gap of exactly ε is detected only about half of the time; for power 1−β use
(z_{1−a/2} + z_{1−β})·sqrt(2·Var) (≈ 1.43·ε for 80 % power at 95 %).

Var[α | data] is evaluated at the *expected* data for the given α: h₊ = n_h·α human-positive,
m₊ = n_m·α_M metric-positive with α_M = (ρ+η−1)α + (1−η), and calibration counts
TP = n_c·α·ρ, FN = n_c·α·(1−ρ), TN = n_c·(1−α)·η, FP = n_c·(1−α)·(1−η).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from estimators.base.result import MIN_LABELS_FOR_VERDICT, EstimateResult, critical_value
from estimators.fixed_n.vondaniken import _trunc_beta
from estimators.fixed_n.vondaniken_posterior import MetricAccuracy, Ratings, posterior

__all__ = [
    "PERFECT_METRIC",
    "PlannedMetric",
    "human_labels_needed",
    "labels_still_needed",
    "labels_still_needed_for",
    "measurable_difference",
    "min_metric_accuracy",
    "posterior_variance",
    "power_factor",
    "score_labels_needed",
]


@dataclass(frozen=True)
class PlannedMetric:
    """The binary metric a plan assumes: true-positive rate ρ and true-negative rate η,
    known exactly (``n_calibration=None``) or estimated from ``n_calibration`` human-labelled
    calibration items."""

    rho: float
    eta: float
    n_calibration: float | None = None

    def accuracy_at(self, alpha: float) -> MetricAccuracy:
        """ρ, η known, or the expected calibration counts at adequacy rate α: TP = n_c·α·ρ,
        FN = n_c·α·(1−ρ), TN = n_c·(1−α)·η, FP = n_c·(1−α)·(1−η)."""
        n_c, rho, eta = self.n_calibration, self.rho, self.eta
        if n_c is None:
            return MetricAccuracy(rho, eta)
        return MetricAccuracy(calibration=(
            n_c * alpha * rho, n_c * alpha * (1 - rho), n_c * (1 - alpha) * eta,
            n_c * (1 - alpha) * (1 - eta),
        ))  # fmt: skip


# ρ = η = 1: what a perfect metric gives; also the placeholder for human-only plans (no
# metric ratings, so the metric plays no part).
PERFECT_METRIC = PlannedMetric(1.0, 1.0)


def posterior_variance(
    n_human: float, n_metric: float, metric: PlannedMetric, alpha: float
) -> float:
    """Var[α | expected data] under von Däniken's model (uniform prior on α).

    Human only: Beta(h₊+1, h₋+1). Metric only with ρ, η known: Var_trunc[α_M]/(ρ+η−1)², the
    closed form of the truncated Beta(m₊+1, m₋+1) on [1−η, ρ]. Otherwise (ρ, η estimated from
    ``metric.n_calibration`` labelled items, or human and metric ratings mixed): the grid
    posterior of :func:`estimators.fixed_n.vondaniken_posterior.posterior`. No data: Var = 1/12.
    """
    if not 0 <= alpha <= 1:
        raise ValueError("alpha must lie in [0, 1]")
    h_pos, h_neg = n_human * alpha, n_human * (1 - alpha)
    if n_metric <= 0:
        a, b = h_pos + 1, h_neg + 1
        return a * b / ((a + b) ** 2 * (a + b + 1))
    rho, eta = metric.rho, metric.eta
    m_pos = n_metric * ((rho + eta - 1) * alpha + (1 - eta))
    if metric.n_calibration is None and n_human <= 0 and rho + eta > 1:
        _, var_m, _, _ = _trunc_beta(m_pos + 1, n_metric - m_pos + 1, 1 - eta, rho, 0.95)
        return var_m / (rho + eta - 1) ** 2
    ratings = Ratings(h_pos, n_human, m_pos, n_metric)
    return posterior(ratings, metric.accuracy_at(alpha)).var


def measurable_difference(
    n_human: float,
    n_metric: float,
    metric: PlannedMetric,
    alpha: float,
    level: float = 0.95,
    power: float | None = None,
) -> float:
    """ε = z·sqrt(2·Var[α|data]) (von Däniken et al. 2022, §4, Figure 1); with ``power``,
    the gap detected with that probability: (z_{1−a/2} + z_{power})·sqrt(2·Var)
    (docs/statistics-notes.md §16.5: ≈ 1.43·ε at 95 % / 80 %).

    Human-only (``n_metric = 0``), metric-only (``n_human = 0``; ρ, η known, or estimated
    from ``metric.n_calibration`` labelled items), or mixed (both > 0). 1 when both counts
    are 0. Checks (α = 0.6, ρ = η): accuracy 0.7, 1,000 ratings → 0.109; perfect metric,
    1,000 → 0.043; accuracy 0.85, 10,000 → 0.0196.
    """
    if n_human <= 0 and n_metric <= 0:
        return 1.0
    var = posterior_variance(n_human, n_metric, metric, alpha)
    return critical_value(level) * math.sqrt(2 * var) * power_factor(level, power)


def power_factor(level: float, power: float | None) -> float:
    if power is None:
        return 1.0
    z = critical_value(level)
    return (z + float(stats.norm.ppf(power))) / z


def human_labels_needed(
    target: float,
    n_metric: float,
    metric: PlannedMetric,
    alpha: float,
    level: float = 0.95,
    power: float | None = None,
    max_labels: int = 10_000_000,
) -> int | None:
    """Smallest number of human labels per system with ε ≤ ``target`` given ``n_metric``.

    ``power=None`` solves for the measurable difference ε, ``power=0.8`` for the 80 %-power
    detectable difference. Returns 0 when the metric ratings alone suffice and ``None``
    when even ``max_labels`` labels do not reach the target.
    """

    def eps(n_h: int) -> float:
        return measurable_difference(n_h, n_metric, metric, alpha, level, power)

    if eps(0) <= target:
        return 0
    hi = 1
    while eps(hi) > target:
        hi *= 2
        if hi > max_labels:
            return None
    lo = hi // 2  # eps(lo) > target ≥ eps(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if eps(mid) > target else (lo, mid)
    return hi


def min_metric_accuracy(
    target: float,
    n_metric: float,
    alpha: float,
    n_human: float = 0,
    level: float = 0.95,
    power: float | None = None,
) -> float | None:
    """Smallest metric accuracy ρ = η giving ε ≤ ``target`` (von Däniken et al. 2022, Fig. 1).

    With 10,000 metric ratings at α = 0.6 and ε = 0.02 this is ≈ 0.843. ``None`` when even a
    perfect metric is not enough.
    """

    def gap(acc: float) -> float:
        return measurable_difference(n_human, n_metric, PlannedMetric(acc, acc), alpha, level,
                                     power) - target  # fmt: skip

    if gap(1.0) > 0:
        return None
    lo = 0.5 + 1e-4  # ρ+η−1 → 0: the metric carries no information (ε → large)
    if gap(lo) <= 0:
        return 0.5
    return float(optimize.brentq(gap, lo, 1.0, xtol=1e-10))


def labels_still_needed(
    estimate: np.ndarray | float,
    se: np.ndarray | float,
    n_human: np.ndarray | float,
    level: float = 0.95,
    power: float = 0.8,
    fixed_var: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Live planning: more labels each undecided pair needs, from current variance estimates.

    Treat the current estimate Δ̂ as the true gap. The variance splits into a part that
    shrinks with labels and a fixed part (e.g. the PPI++ term λ²Var_U(g)/N_u):
    se² = A/n + B. To detect Δ̂ with probability ``power`` we need
    se_target = |Δ̂|/(z_{1−a/2} + z_{power}), i.e. n' = A/(se_target² − B) labels. Returns
    max(0, ⌈n' − n⌉), at least enough to reach MIN_LABELS_FOR_VERDICT, 0 for pairs already
    decided (|Δ̂| > z·se with ≥ 30 labels) and ∞ when no number of labels suffices
    (Δ̂ = 0, or the fixed part alone is too large). Vectorised over pairs.
    """
    est, se, n = (np.asarray(v, dtype=float) for v in (estimate, se, n_human))
    fixed = np.asarray(fixed_var, dtype=float)
    z = critical_value(level)
    zp = float(special.ndtri(power))
    a = np.maximum(se**2 - fixed, 0.0) * n
    target = (np.abs(est) / (z + zp)) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        room = target - fixed
        n_new = np.where(room > 0, a / np.where(room > 0, room, 1.0), np.inf)
    need = np.maximum(np.ceil(n_new - n), MIN_LABELS_FOR_VERDICT - n)
    need = np.where(np.isfinite(n_new), np.maximum(need, 0.0), np.inf)
    decided = (np.abs(est) > z * se) & (n >= MIN_LABELS_FOR_VERDICT)
    return np.where(decided, 0.0, need)


def labels_still_needed_for(result: EstimateResult, power: float = 0.8) -> float:
    """:func:`labels_still_needed` for one :class:`EstimateResult` (uses its level and the
    fixed metric variance ``diagnostics["var_metric"]`` when the estimator reports one)."""
    if result.significant():
        return 0.0
    return float(
        labels_still_needed(
            result.estimate,
            result.se,
            result.n_human,
            result.level,
            power,
            result.diagnostics.get("var_metric", 0.0),
        )
    )


def score_labels_needed(
    target: float, variance: float, level: float = 0.95, power: float = 0.8
) -> int:
    """Labels per system for a graded score (ESA, DA / SQM ÷ 100; any kind with a variance)
    to detect a difference ``target`` between two systems with probability ``power`` at a
    two-sided level ``level``:

        n = ⌈ 2 σ² (z_{1−a/2} + z_{power})² / δ² ⌉

    the two-sample normal approximation (the same as the binary planner's
    ε = (z + z_β)·sqrt(2·Var), docs/statistics-notes.md §16.5, with Var = σ²/n in place of the Beta
    posterior's ≈ p(1−p)/n). ``variance`` is the score's per-judgment variance on the
    analysed scale (a pilot's or a previous campaign's; at most 0.25 on [0, 1], Popoviciu's
    bound, where this equals the binary worst case). A paired design whose differences
    have variance below 2σ² needs fewer; this plan is then conservative."""
    if not target > 0:
        raise ValueError(f"the difference to detect must be positive, not {target}")
    if not variance > 0:
        raise ValueError(f"the score's variance must be positive, not {variance}")
    z = critical_value(level) + float(stats.norm.ppf(power))
    return max(math.ceil(2 * variance * z**2 / target**2), 1)
