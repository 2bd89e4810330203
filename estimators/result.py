"""The one result type every estimator returns.

Modelled on scipy.stats result objects: named fields, a method for the interval at another
level where the estimator can give one, and diagnostics (λ, ρ/η, DE, …) in a plain dict so the
dashboard can show them without knowing which estimator produced the result.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy import stats

#: Below this many human labels (per system, or per pair) no verdict may say "significant":
#: CLT intervals under-cover for binary labels at small n (statistics.md §2, "Small n").
MIN_LABELS_FOR_VERDICT = 30


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
