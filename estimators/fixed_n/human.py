"""Human-only estimators: the baseline every metric-assisted estimator must beat.

All functions take plain numbers or arrays and return :class:`EstimateResult`.

- Binary labels (1 = adequate): the von Däniken et al. (2022, §3.1, "error-free") Beta
  posterior, the Wilson score interval, the Wald z interval.
- Continuous scores (HTER, 1 − HTER, DA): mean with a Student-t interval.
- Paired differences of two systems judged on the same items: t interval on D = y_A − y_B
  (docs/statistics-notes.md §17 "Pairs"; Chaganty et al. 2018 measured paired variance 0.58–0.99 ×
  unpaired), and Welch's unpaired interval for comparison.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from estimators.base.result import (
    EstimateResult,
    Unavailable,
    critical_value,
    difference_bounds,
    guarded,
    unavailable_result,
    wald_interval,
    within,
)

__all__ = [
    "binary_beta",
    "binary_wilson",
    "binary_z",
    "mean_t",
    "paired_difference",
    "welch_difference",
]


def _counts(successes: float, n: float) -> tuple[float, float]:
    successes, n = float(successes), float(n)
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    return successes, n


def binary_beta(successes: float, n: float, level: float = 0.95) -> EstimateResult:
    """Posterior of a binary adequacy rate α under a uniform prior.

    α | data ~ Beta(h₊ + 1, n − h₊ + 1)  (von Däniken et al. 2022, §3.1, error-free case).
    ``estimate`` is the posterior mean (h₊+1)/(n+2), ``se`` the posterior SD, ``ci`` the
    equal-tailed credible interval. With n = 0 this is the uniform prior (ε = 1 territory):
    a posterior exists at every n, so this method has no minimum. The posterior mean of a
    Beta(a, b) with a, b ≥ 1 lies inside its central interval (and in [0, 1]); :func:`within`
    guards the floating-point edge.
    """
    h, n = _counts(successes, n)
    a, b = h + 1.0, n - h + 1.0
    tail = (1.0 - level) / 2.0
    lo, hi = special.betaincinv(a, b, [tail, 1.0 - tail])
    mean = a / (a + b)
    var = a * b / ((a + b) ** 2 * (a + b + 1.0))
    return within(
        EstimateResult(
            estimate=float(mean),
            ci=(float(lo), float(hi)),
            se=math.sqrt(var),
            n_human=int(n),
            n_metric=0,
            method="human_binary_beta",
            level=level,
            diagnostics={"successes": h, "mle": h / n if n else float("nan"), "a": a, "b": b},
        ),
        (0.0, 1.0),
    )


def binary_wilson(successes: float, n: float, level: float = 0.95) -> EstimateResult:
    """Wilson score interval for a proportion (Wilson 1927).

    centre = (p̂ + z²/2n)/(1 + z²/n), half-width = z/(1 + z²/n)·sqrt(p̂(1−p̂)/n + z²/4n²).
    ``estimate`` is p̂ = h₊/n; ``se`` is sqrt(p̂(1−p̂)/n). The Wilson interval always
    contains p̂ and lies in [0, 1]. No labels: unavailable (p̂ does not exist).
    """
    h, n = _counts(successes, n)
    if n == 0:
        return unavailable_result("human_binary_wilson", Unavailable.TOO_FEW_LABELS, 0,
                                  level=level, diagnostics={"min_labels": 1})  # fmt: skip
    z = critical_value(level)
    p = h / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return within(
        EstimateResult(
            estimate=p,
            ci=(max(0.0, centre - half), min(1.0, centre + half)),
            se=math.sqrt(p * (1 - p) / n),
            n_human=int(n),
            n_metric=0,
            method="human_binary_wilson",
            level=level,
            diagnostics={"successes": h, "centre": centre},
        ),
        (0.0, 1.0),
    )


def binary_z(successes: float, n: float, level: float = 0.95) -> EstimateResult:
    """Wald interval p̂ ± z·sqrt(p̂(1−p̂)/n) (normal quantile, as the name says).

    Kept as the textbook reference; it under-covers at small n and collapses to a point
    when p̂ ∈ {0, 1}. Use :func:`binary_wilson`, :func:`binary_beta` or :func:`mean_t`.
    Passed through :func:`estimators.base.result.guarded`: no labels, or p̂ ∈ {0, 1} (a point
    interval), give an unavailable result; otherwise the interval is clipped to [0, 1].
    """
    h, n = _counts(successes, n)
    if n == 0:
        return unavailable_result("human_binary_z", Unavailable.TOO_FEW_LABELS, 0,
                                  level=level, diagnostics={"min_labels": 1})  # fmt: skip
    p = h / n
    se = math.sqrt(p * (1 - p) / n)
    return guarded(
        EstimateResult(
            estimate=p,
            ci=wald_interval(p, se, level),
            se=se,
            n_human=int(n),
            n_metric=0,
            method="human_binary_z",
            level=level,
            diagnostics={"successes": h},
        ),
        min_labels=1,
        bounds=(0.0, 1.0),
    )


def mean_t(
    y: np.ndarray, level: float = 0.95, bounds: tuple[float, float] | None = None
) -> EstimateResult:
    """Mean of human scores with a Student-t interval: ȳ ± t_{n−1}·s/√n (s with ddof = 1).

    Works for binary labels too (then it is the Wald interval with the t quantile and the unbiased
    variance, which is what docs/statistics-notes.md §17 "Small n" asks for). ``bounds`` is the
    range of a single score ((0, 1) for binary labels and 1 − HTER): the interval is clipped to it
    (:func:`estimators.base.result.within`). Fewer than 2 scores, or all equal (s = 0, a zero-width
    interval), give an unavailable result (:func:`estimators.base.result.guarded`).
    """
    y = np.asarray(y, dtype=float).ravel()
    n = y.size
    if n < 2:
        return unavailable_result("human_mean_t", Unavailable.TOO_FEW_LABELS, n, level=level,
                                  diagnostics={"min_labels": 2})  # fmt: skip
    mean = float(y.mean())
    se = float(y.std(ddof=1) / math.sqrt(n))
    df = n - 1
    return guarded(
        EstimateResult(
            estimate=mean,
            ci=wald_interval(mean, se, level, df),
            se=se,
            n_human=n,
            n_metric=0,
            method="human_mean_t",
            level=level,
            df=df,
        ),
        min_labels=2,
        bounds=bounds,
    )


def paired_difference(
    y_a: np.ndarray,
    y_b: np.ndarray,
    level: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> EstimateResult:
    """Paired difference μ_A − μ_B from the same items: t interval on D_j = y_{A,j} − y_{B,j}.

    D̄ ± t_{n−1}·s_D/√n (docs/statistics-notes.md §17, "Pairs"; the paired design is the default).
    ``bounds`` is the range of one score; the interval is clipped to the range of a
    difference, [lo − hi, hi − lo] ([−1, 1] for rates). Every D_j equal (n = 4 all ties
    read "[0.0000, 0.0000]") or n < 2 → unavailable, as in :func:`mean_t`.
    """
    y_a = np.asarray(y_a, dtype=float).ravel()
    y_b = np.asarray(y_b, dtype=float).ravel()
    if y_a.shape != y_b.shape:
        raise ValueError("paired_difference needs labels of both systems on the same items")
    res = mean_t(y_a - y_b, level, difference_bounds(bounds))
    corr = (
        float(np.corrcoef(y_a, y_b)[0, 1])
        if y_a.size > 2 and y_a.std() > 0 and y_b.std() > 0
        else float("nan")
    )
    return res.with_(method="human_paired_t", diagnostics={**res.diagnostics, "corr_ab": corr})


def welch_difference(
    y_a: np.ndarray,
    y_b: np.ndarray,
    level: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> EstimateResult:
    """Unpaired difference ȳ_A − ȳ_B with Welch's t interval (Welch–Satterthwaite df).

    For systems labelled on different items; with a paired design prefer
    :func:`paired_difference`. ``bounds`` and the unavailable cases as :func:`paired_difference`
    (fewer than 2 scores on a side, or no spread on either side).
    """
    y_a = np.asarray(y_a, dtype=float).ravel()
    y_b = np.asarray(y_b, dtype=float).ravel()
    if min(y_a.size, y_b.size) < 2:
        return unavailable_result("human_welch_t", Unavailable.TOO_FEW_LABELS,
                                  min(y_a.size, y_b.size), level=level,
                                  diagnostics={"min_labels": 2})  # fmt: skip
    va, vb = y_a.var(ddof=1) / y_a.size, y_b.var(ddof=1) / y_b.size
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (y_a.size - 1) + vb**2 / (y_b.size - 1)) if se > 0 else None
    est = float(y_a.mean() - y_b.mean())
    return guarded(
        EstimateResult(
            estimate=est,
            ci=wald_interval(est, se, level, df),
            se=se,
            n_human=min(y_a.size, y_b.size),
            n_metric=0,
            method="human_welch_t",
            level=level,
            df=df,
        ),
        min_labels=2,
        bounds=difference_bounds(bounds),
    )
