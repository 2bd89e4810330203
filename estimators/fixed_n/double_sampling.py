"""Per-system double sampling: the default estimator with a binary (or discrete) metric.

Tenenbein (1970) double sampling, i.e. post-stratification of each system's labelled items
on its own metric value m (docs/statistics-notes.md §18); with two strata it is stratified PPI. It
needs no shared ρ, η, so it stays valid when a metric's error rates differ between systems
(unlike :func:`estimators.fixed_n.vondaniken.shared_rate`).

- :func:`per_system` — one system's adequacy (or mean score).
- :func:`per_system_difference` — the paired difference of two systems on shared items.

Both pass :func:`estimators.base.result.guarded`: fewer than
:data:`~estimators.base.result.MIN_LABELS_METRIC_ASSISTED` labels, or a standard error of 0, give
an unavailable result with its reason; ``bounds`` (the range of one score) clips the
estimate and interval to the estimand's range ([lo − hi, hi − lo] for a difference).
"""

from __future__ import annotations

import math

import numpy as np

from estimators.base.result import (
    MIN_LABELS_METRIC_ASSISTED,
    EstimateResult,
    Unavailable,
    difference_bounds,
    guarded,
    unavailable_result,
    wald_interval,
)

__all__ = ["per_system", "per_system_difference"]


def _codes(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Metric values → (sorted distinct values, integer code per item); fast for 0/1 data."""
    m = np.asarray(m).ravel()
    as_int = m.astype(np.int64)
    if m.size and as_int.min() >= 0 and as_int.max() < 1024 and np.array_equal(as_int, m):
        present = np.flatnonzero(np.bincount(as_int))
        if present.size == as_int.max() + 1:  # no gaps (e.g. both 0 and 1): codes = values
            return present.astype(float), as_int
        lookup = np.zeros(as_int.max() + 1, np.int64)
        lookup[present] = np.arange(present.size)
        return present.astype(float), lookup[as_int]
    levels, codes = np.unique(m, return_inverse=True)
    return levels.astype(float), codes


class _Strata:
    """Post-stratify one system's labelled items on its metric (docs/statistics-notes.md §18).

    q_m = pool share of stratum m, ȳ_m = labelled mean in it, and the influence of item j
    on Σ_m q_m ȳ_m: u_j = n·q_m/n_m·e_j with e_j = (y_j − ȳ_m)·sqrt(n_m/(n_m−1)), so that
    Σ u_j²/n² = Σ_m q_m² s_m²/n_m. Strata with < 2 labelled items are merged into one.
    """

    def __init__(self, y: np.ndarray, m: np.ndarray, m_all: np.ndarray):
        y = np.asarray(y, float).ravel()
        levels, codes_all = _codes(m_all)
        m = np.asarray(m, float).ravel()
        pos = np.searchsorted(levels, m)
        if m.shape != y.shape:
            raise ValueError("one metric value per labelled item")
        if np.any(pos >= levels.size) or np.any(levels[np.minimum(pos, levels.size - 1)] != m):
            raise ValueError("labelled metric values must occur in the pool")
        counts = np.bincount(pos, minlength=levels.size)
        self.collapsed = bool(np.any(counts < 2)) or levels.size == 1
        if self.collapsed:
            levels, pos, codes_all = np.zeros(1), np.zeros(y.size, np.int64), None
            counts = np.array([y.size])
        n = y.size
        self.n, self.levels, self.counts = n, levels, counts
        self.big_n = np.asarray(m_all).size
        self.codes_all = codes_all
        self.q = (
            np.bincount(codes_all, minlength=levels.size) / self.big_n
            if codes_all is not None
            else np.ones(1)
        )
        self.means = np.bincount(pos, weights=y, minlength=levels.size) / counts
        resid = (y - self.means[pos]) * np.sqrt(counts / np.maximum(counts - 1, 1))[pos]
        self.infl = n * self.q[pos] / counts[pos] * resid
        self.estimate = float(self.q @ self.means)

    def pool_values(self) -> np.ndarray:
        """ȳ_{m_j} for every pool item j (the fitted stratum mean)."""
        if self.codes_all is None:
            return np.full(self.big_n, self.means[0])
        return self.means[self.codes_all]


def _too_few(method: str, n: int, big_n: int, level: float) -> EstimateResult:
    return unavailable_result(method, Unavailable.TOO_FEW_LABELS, n, big_n - n, level,
                              {"min_labels": MIN_LABELS_METRIC_ASSISTED})  # fmt: skip


def per_system(
    y_labelled: np.ndarray,
    m_labelled: np.ndarray,
    m_all: np.ndarray,
    level: float = 0.95,
    *,
    bounds: tuple[float, float] | None = None,
) -> EstimateResult:
    """Per-system double sampling, the default (Tenenbein 1970; docs/statistics-notes.md §18).

    q̂ = metric-positive rate over all N outputs of the system (``m_all``, labelled ones
    included); p̂₁, p̂₀ = human means among labelled items with m = 1 / m = 0;
    α̂ = q̂·p̂₁ + (1−q̂)·p̂₀ and Var ≈ Σ_m q_m² s_m²/n_m + q(1−q)(p̂₁−p̂₀)²/N, with the
    within-stratum variance s_m² (ddof 1), t quantile on n − (number of strata) df. This is
    stratified PPI with two strata, so it needs no shared ρ, η. Works for continuous human
    scores too (HTER), and for any discrete m (more strata). Strata with < 2 labelled items
    are merged (the estimator then falls back to the human-only mean).
    """
    if np.size(y_labelled) < MIN_LABELS_METRIC_ASSISTED:
        return _too_few("vondaniken_per_system", np.size(y_labelled), np.size(m_all), level)
    st = _Strata(y_labelled, m_labelled, m_all)
    n, big_n = st.n, st.big_n
    pool_var = float(st.q @ (st.means - st.estimate) ** 2) / big_n
    se = math.sqrt(float(st.infl @ st.infl) / n**2 + pool_var)
    df = max(n - st.levels.size, 1)
    diag: dict = {"strata": int(st.levels.size), "collapsed": st.collapsed, "n_pool": big_n}
    if st.levels.size == 2:
        diag |= {"q": float(st.q[1]), "p1": float(st.means[1]), "p0": float(st.means[0])}
    return guarded(
        EstimateResult(
            estimate=st.estimate,
            ci=wald_interval(st.estimate, se, level, df),
            se=se,
            n_human=n,
            n_metric=big_n - n,
            method="vondaniken_per_system",
            level=level,
            df=df,
            diagnostics=diag,
        ),
        min_labels=MIN_LABELS_METRIC_ASSISTED,
        bounds=bounds,
    )


def per_system_difference(
    y_a: np.ndarray,
    y_b: np.ndarray,
    m_a_labelled: np.ndarray,
    m_b_labelled: np.ndarray,
    m_a_all: np.ndarray,
    m_b_all: np.ndarray,
    level: float = 0.95,
    *,
    bounds: tuple[float, float] | None = None,
) -> EstimateResult:
    """Paired difference α_A − α_B of two per-system double-sampling estimates.

    Each system is post-stratified on its own metric (docs/statistics-notes.md §18); items labelled
    for both systems make the two estimates correlated, which the paired influence-function variance
    Σ_j (u_{A,j} − u_{B,j})²/n² uses (u = n·q_m/n_m·e, the linearisation of Σ_m q_m ȳ_m), plus the
    pool term Var_pool(ȳ_{m_A} − ȳ_{m_B})/N. t quantile, n − 3 df.
    """
    y_a = np.asarray(y_a, float).ravel()
    y_b = np.asarray(y_b, float).ravel()
    if y_a.shape != y_b.shape:
        raise ValueError("per_system_difference needs both systems judged on the same items")
    if y_a.size < MIN_LABELS_METRIC_ASSISTED:
        return _too_few("vondaniken_per_system_paired", y_a.size, np.size(m_a_all), level)
    sa = _Strata(y_a, m_a_labelled, m_a_all)
    sb = _Strata(y_b, m_b_labelled, m_b_all)
    if sa.big_n != sb.big_n:
        raise ValueError("paired pools must hold the same items for both systems")
    n, big_n = sa.n, sa.big_n
    du = sa.infl - sb.infl
    pool_var = float(np.var(sa.pool_values() - sb.pool_values())) / big_n
    se = math.sqrt(float(du @ du) / n**2 + pool_var)
    estimate = sa.estimate - sb.estimate
    df = max(n - 1 - (sa.levels.size - 1) - (sb.levels.size - 1), 1)
    return guarded(
        EstimateResult(
            estimate=estimate,
            ci=wald_interval(estimate, se, level, df),
            se=se,
            n_human=n,
            n_metric=big_n - n,
            method="vondaniken_per_system_paired",
            level=level,
            df=df,
            diagnostics={
                "estimate_a": sa.estimate,
                "estimate_b": sb.estimate,
                "collapsed": sa.collapsed or sb.collapsed,
            },
        ),
        min_labels=MIN_LABELS_METRIC_ASSISTED,
        bounds=difference_bounds(bounds),
    )
