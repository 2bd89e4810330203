"""The live monitor's forecasts: how many more labels until a pair's verdict.

docs/statistics-notes.md §1. The smallest t at which the confidence sequence of the design
in force, at the current Δ̂ and σ̂, excludes 0 at the level the pair is read at next (or fits
inside ±ε), found by bisection on the decreasing half-width; the group-sequential design's
own forecast (:func:`estimators.sequences.group_sequential.gsd_labels_needed`); and the
planner's fixed-n forecast (:func:`estimators.planning.labels_needed.labels_still_needed`,
80 % power).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from estimators.base.result import MIN_LABELS_FOR_VERDICT, EstimateResult
from estimators.live.settings import MonitorSettings
from estimators.planning import labels_needed as planning
from estimators.sequences import betting, mixture
from estimators.sequences import group_sequential as gsd
from estimators.sequences import sequential as seq
from estimators.sequences.designs import LiveDesign


class MonitorForecast:
    """The labels a pair still needs until its verdict, under the monitor's settings."""

    def __init__(self, settings: MonitorSettings) -> None:
        self.settings = settings

    def planner_forecast(
        self, res: EstimateResult, sigma: float, level: float, pool_size: int
    ) -> int | None:
        """The planner's fixed-n labels-still-needed (80 % power, se = σ̂/√n)."""
        n = res.n_human
        if n < 2 or not (math.isfinite(res.estimate) and math.isfinite(sigma)):
            return None
        need = float(
            planning.labels_still_needed(res.estimate, sigma / math.sqrt(n), n, level, 0.8)
        )
        if not math.isfinite(need) or n + need > pool_size:
            return None
        return int(need)

    def labels_needed(
        self, res: EstimateResult, sigma: float, t_star: int, pool_size: int, read_at: float,
        a_pair: float,
    ) -> tuple[int | None, str]:  # fmt: skip
        """(more items to label for the pair, what that number is) until the verdict is
        forecast — not the interval's crossing: the sign verdict comes when the interval at
        the level the procedure reads the pair at next (``read_at``: α/(m − r) for Holm,
        α(r + 1)/m for e-BH), tuned at α/m, excludes 0, or when the labelled part alone
        excludes 0 (finite pool); the equivalence verdict when the α/m interval fits inside
        ±ε. At the current Δ̂ and σ̂; ``None`` when the pool (or the plan) cannot get there."""
        n = res.n_human
        if n < MIN_LABELS_FOR_VERDICT:
            return MIN_LABELS_FOR_VERDICT - n, "floor"
        if n >= pool_size:
            return None, "pool exhausted"
        settings = self.settings
        if settings.design == LiveDesign.GSD_OBF:
            if n >= t_star:
                return None, "plan spent"
            need = gsd.gsd_labels_needed(
                res.estimate, sigma, n, level=read_at, alpha=settings.alpha,
                m=settings.pairs_adjusted, n_max=t_star, max_labels=min(t_star, pool_size),
            )  # fmt: skip
            return need, "forecast"
        width = self._width_function(sigma, t_star, a_pair, pool_size)
        est = abs(res.estimate)
        labels = settings.label_range
        span = 2 * (labels[1] - labels[0]) if labels else None
        finite = settings.finite_increments and span is not None

        def ok(t: int) -> bool:
            if width(t, read_at) < est or width(t, a_pair) < settings.margin - est:
                return True
            # the labelled part alone excludes 0: t/N·|Δ̂| > (N − t)/N·span
            return finite and t * est > (pool_size - t) * span

        return seq.smallest_t(ok, n, pool_size, MIN_LABELS_FOR_VERDICT), "forecast"

    def _width_function(
        self, sigma: float, t_star: int, a_pair: float, pool_size: int
    ) -> Callable[[int, float], float]:
        """Half-width after t labels read at level a, sequences tuned at α/m."""
        design = self.settings.design
        if design == LiveDesign.ASYMPCS_MIX:
            top = float(pool_size)
            return lambda t, a: mixture.mixture_half_width(sigma, t, a, top, a_pair)
        if design == LiveDesign.ASYMPCS:
            return lambda t, a: float(
                seq.asymptotic_half_width(sigma, t, a, t_star, alpha_tuning=a_pair)
            )
        lo, hi = self.settings.estimand_range(pair=False)
        span = 2 * (hi - lo)  # the pair's increments lie in [lo − hi, hi − lo]
        if design.bets:
            return lambda t, a: betting.betting_half_width(sigma, span, t, a, t_star, a_pair)
        return lambda t, a: betting.betting_half_width(sigma, span, t, a, None)


def forecast_labels_needed(
    delta_hat: float,
    sigma: float,
    n_now: int,
    *,
    alpha: float = 0.05,
    t_star: float | None = None,
    max_labels: int | None = None,
) -> int | None:
    """More labels until the asymptotic CS half-width falls below |Δ̂|.

    Assumes Δ̂ and σ̂ stay at their current values and solves
    σ̂·sqrt(2(t r²+1)/(t² r²)·log(sqrt(t r²+1)/α)) < |Δ̂| for the smallest t ≥ max(n_now, 30)
    (the half-width decreases in t). Returns t − n_now, or ``None`` when Δ̂ = 0, σ̂ is
    unknown, or t would exceed ``max_labels`` (the pool cannot settle the pair).
    """
    if not (math.isfinite(delta_hat) and math.isfinite(sigma)) or delta_hat == 0:
        return None
    hi = int(max_labels) if max_labels is not None else 10**7

    def ok(t: int) -> bool:
        return bool(seq.asymptotic_half_width(sigma, t, alpha, t_star) < abs(delta_hat))

    return seq.smallest_t(ok, n_now, hi, MIN_LABELS_FOR_VERDICT)
