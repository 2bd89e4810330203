"""The one result type every estimator returns.

Modelled on scipy.stats result objects: named fields, a method for the interval at another
level where the estimator can give one, and diagnostics (λ, ρ/η, DE, …) in a plain dict so the
dashboard can show them without knowing which estimator produced the result.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import numpy as np
from scipy import stats

#: Below this many human labels (per system, or per pair) no verdict may say "significant":
#: CLT intervals under-cover for binary labels at small n (docs/statistics-notes.md §17, "Small n").
MIN_LABELS_FOR_VERDICT = 30

#: Fewest labels (per system, or per pair) for which a metric-assisted fixed-n interval
#: (PPI++ / control variates, double sampling, the learned control) is shown. Below it λ̂ or
#: the stratum means rest on a handful of labels and the normal-theory interval is noise (at
#: 4 labels it read "1.000 [1.000, 1.000]" and "0.590 [−0.018, 1.197]"); the Beta posterior
#: of the human-only column is the honest number there.
MIN_LABELS_METRIC_ASSISTED = 10


class Unavailable(StrEnum):
    """Why an estimate (or a whole estimate column) is not shown as a number."""

    NO_METRIC = "no_metric"  # no metric chosen, or no scores yet
    NO_THRESHOLD = "no_threshold"  # the chosen metrics have no stored threshold
    NEEDS_BINARY = "needs_binary"  # the column needs binary labels
    CENSUS = "census"  # every output is labelled: no unlabelled scores to use
    PROVIDED_NOT_SCORED = "provided_not_scored"  # imported set's metric has no scores here
    MONITOR_REFUSED = "monitor_refused"  # the monitor refused the data (reason in notes)
    TOO_FEW_LABELS = "too_few_labels"  # below the method's minimum number of labels
    NO_SPREAD = "no_spread"  # every label (or difference) equal: a zero-width interval
    OUT_OF_RANGE = "out_of_range"  # the whole interval lies outside the estimand's range


#: Why a single result has no number, in the user's words (CLI and pages).
REASONS: dict[Unavailable, str] = {
    Unavailable.NO_METRIC: "no metric scores for the chosen controls",
    Unavailable.NO_THRESHOLD: "no threshold stored for the chosen metric",
    Unavailable.NEEDS_BINARY: "needs binary labels",
    Unavailable.CENSUS: "every output is labelled (a census): no unlabelled outputs for a "
    "metric control to use",
    Unavailable.PROVIDED_NOT_SCORED: "the calibration set's metric has no scores here",
    Unavailable.MONITOR_REFUSED: "the monitor refused these labels",
    Unavailable.TOO_FEW_LABELS: "too few labels: this method needs at least {min_labels}",
    Unavailable.NO_SPREAD: "every label is the same: a normal-theory interval would have "
    "zero width",
    Unavailable.OUT_OF_RANGE: "the interval lies outside the possible range (the metric "
    "correction overshoots on these few labels)",
}


def reason_text(result: EstimateResult) -> str:
    """Why ``result`` has no number, in words ("" for an ordinary result)."""
    if result.unavailable is None:
        return ""
    text = REASONS[result.unavailable]
    return text.format(min_labels=result.diagnostics.get("min_labels", "more"))


@dataclass(frozen=True)
class EstimateResult:
    """An estimate with its interval.

    Attributes
    ----------
    estimate: point estimate (a system's mean quality, or a difference μ_A − μ_B).
    ci: (low, high) two-sided interval at ``level``.
    se: standard error of ``estimate`` (posterior SD for Bayesian estimators).
    n_human: human labels used (for a pair: labelled items shared by both systems).
    n_metric: metric-only outputs used (0 for human-only estimators).
    method: short machine name, e.g. ``"human_binary_beta"``, ``"ppi++"``.
    level: coverage level of ``ci``.
    df: degrees of freedom when the interval uses a t quantile, else ``None`` (normal).
    diagnostics: estimator-specific numbers (``lam``, ``rho``, ``eta``, ``de``, …).
    valid_for_verdict: ``False`` when the estimator must never drive a "significant"
        verdict (the shared-rate von Däniken form, or too few labels).
    unavailable: why there is no number (then ``estimate``, ``ci`` and ``se`` are NaN and
        ``diagnostics["min_labels"]`` holds the method's minimum where that is the reason);
        ``None`` for an ordinary result. See :func:`unavailable_result`.
    """

    estimate: float
    ci: tuple[float, float]
    se: float
    n_human: int
    n_metric: int
    method: str
    level: float = 0.95
    df: float | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    valid_for_verdict: bool = True
    unavailable: Unavailable | None = None

    @property
    def available(self) -> bool:
        return self.unavailable is None

    @property
    def low(self) -> float:
        return self.ci[0]

    @property
    def high(self) -> float:
        return self.ci[1]

    @property
    def width(self) -> float:
        return self.ci[1] - self.ci[0]

    def excludes(self, value: float = 0.0) -> bool:
        """True when the interval lies entirely on one side of ``value``."""
        return self.ci[0] > value or self.ci[1] < value

    def significant(self, value: float = 0.0) -> bool:
        """A verdict may be given: enough labels, a valid estimator, and ``value`` excluded."""
        return (
            self.valid_for_verdict
            and self.n_human >= MIN_LABELS_FOR_VERDICT
            and self.excludes(value)
        )

    def confidence_interval(self, level: float) -> tuple[float, float]:
        """Normal/t interval from ``se`` at another level (centred on ``estimate``)."""
        return wald_interval(self.estimate, self.se, level, self.df)

    def with_(self, **changes: Any) -> EstimateResult:
        return replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        return {
            "estimate": self.estimate,
            "low": self.ci[0],
            "high": self.ci[1],
            "se": self.se,
            "n_human": self.n_human,
            "n_metric": self.n_metric,
            "method": self.method,
            "level": self.level,
            "valid_for_verdict": self.valid_for_verdict,
            "unavailable": None if self.unavailable is None else str(self.unavailable),
            **{f"diag_{k}": v for k, v in self.diagnostics.items() if np.isscalar(v)},
        }


@functools.lru_cache(maxsize=4096)
def critical_value(level: float, df: float | None = None) -> float:
    """Two-sided critical value: z_{1-(1-level)/2}, or the t quantile when ``df`` is given.

    Cached: dashboards and simulations ask for the same few quantiles thousands of times.
    """
    q = 1.0 - (1.0 - level) / 2.0
    if df is None or not math.isfinite(df):
        return float(stats.norm.ppf(q))
    return float(stats.t.ppf(q, df))


def wald_interval(
    estimate: float, se: float, level: float = 0.95, df: float | None = None
) -> tuple[float, float]:
    """estimate ± c·se with c from :func:`critical_value`."""
    half = critical_value(level, df) * se
    return (float(estimate - half), float(estimate + half))


def unavailable_result(
    method: str,
    reason: Unavailable,
    n_human: int,
    n_metric: int = 0,
    level: float = 0.95,
    diagnostics: dict[str, Any] | None = None,
) -> EstimateResult:
    """A result that carries no number, only why (NaN estimate, interval and se; never valid
    for a verdict). Consumers word ``reason`` instead of printing an interval."""
    nan = float("nan")
    return EstimateResult(
        estimate=nan, ci=(nan, nan), se=nan, n_human=int(n_human), n_metric=int(n_metric),
        method=method, level=level, diagnostics=dict(diagnostics or {}),
        valid_for_verdict=False, unavailable=reason,
    )  # fmt: skip


def within(result: EstimateResult, bounds: tuple[float, float] | None) -> EstimateResult:
    """``result`` with its estimate and interval clipped to the estimand's range ``bounds``.

    Valid because the estimand lies in ``bounds``: intersecting a confidence set with a set
    that surely holds the parameter keeps its coverage (and a point estimate projected onto
    a convex set containing the parameter is never farther from it). A rate's mean lies in
    [0, 1], a difference of two rates in [−1, 1]. The interval is then widened, if need be,
    to contain the (clipped) estimate, so an estimate never lies outside its own interval.
    ``diagnostics["clipped"]`` says whether anything moved. ``bounds=None``: unchanged.
    An interval of positive width that lies wholly outside ``bounds`` (its intersection is
    empty or one point) would become a point of false certainty: such a result is
    unavailable (:data:`Unavailable.OUT_OF_RANGE`) instead.
    """
    if bounds is None or not result.available:
        return result
    lo_b, hi_b = bounds
    est = float(min(max(result.estimate, lo_b), hi_b))
    lo = float(min(max(result.low, lo_b), hi_b, est))
    hi = float(max(min(result.high, hi_b), lo_b, est))
    clipped = (est, lo, hi) != (result.estimate, result.low, result.high)
    if not clipped:
        return result
    if hi <= lo and result.high > result.low:
        return unavailable_result(result.method, Unavailable.OUT_OF_RANGE, result.n_human,
                                  result.n_metric, result.level, result.diagnostics)  # fmt: skip
    return replace(result, estimate=est, ci=(lo, hi),
                   diagnostics={**result.diagnostics, "clipped": True})  # fmt: skip


def guarded(
    result: EstimateResult,
    *,
    min_labels: int,
    bounds: tuple[float, float] | None = None,
) -> EstimateResult:
    """The rule every fixed-n normal-theory (Wald / t) interval passes before it is shown.

    - fewer than ``min_labels`` human labels → :data:`Unavailable.TOO_FEW_LABELS`;
    - a standard error of 0 (every label, difference or residual equal: "[0.000, 0.000]"
      at n = 4 is certainty the data cannot give) → :data:`Unavailable.NO_SPREAD`;
    - otherwise clipped to ``bounds`` by :func:`within`.
    The unavailable result keeps the diagnostics (λ, DE, …) and the label counts.
    """
    diag = {**result.diagnostics, "min_labels": min_labels}
    if result.n_human < min_labels:
        reason = Unavailable.TOO_FEW_LABELS
    elif not (result.se > 0) or not math.isfinite(result.se):
        reason = Unavailable.NO_SPREAD
    else:
        return within(result, bounds)
    return unavailable_result(result.method, reason, result.n_human, result.n_metric,
                              result.level, diag)  # fmt: skip


def difference_bounds(bounds: tuple[float, float] | None) -> tuple[float, float] | None:
    """Range of μ_A − μ_B when each mean lies in ``bounds``: [lo − hi, hi − lo]."""
    return None if bounds is None else (bounds[0] - bounds[1], bounds[1] - bounds[0])
