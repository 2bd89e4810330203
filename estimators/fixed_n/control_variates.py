"""Control variates (Chaganty, Mussmann & Liang 2018) = PPI++ (Angelopoulos, Duchi & Zrnic 2023).

One estimator family (docs/statistics-notes.md §17). A labelled set L (n items: human scores ``y``
and metric scores ``g_labelled``) and a disjoint unlabelled set U (N_u items, metric only):

    θ̂_λ = ȳ_L − λᵀ(ḡ_L − ḡ_U)
    se²  = Var_L(y − λᵀg)/n + λᵀ Cov_U(g) λ / N_u
    λ̂    = Σ_gg⁻¹ σ_gy / (1 + n/N_u)      (Σ_gg over L ∪ U, σ_gy = Cov_L(g, y))

λ = 0 is the human-only mean, λ = 1 plain PPI (Angelopoulos et al. 2023, "PPI"), λ̂ the
power-tuned PPI++ choice (Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453, Example 6.1 and
eq. (8)), which is also Chaganty et al.'s optimal control-variate coefficient (§3, eq. 4)
rescaled by N_u/N. λ is never clipped: for a lower-is-better metric or score (TER, HTER)
the optimal λ is negative. Several metrics at once are a vector of controls (g of shape
(n, k)).

Conventions: σ_gy uses 1/n and Σ_gg uses 1/(n+N_u−1), exactly as ppi_py's ``_calc_lam_glm``
(so our λ̂ equals theirs whenever theirs is not clipped to [0, 1]). The interval uses the
unbiased variances and a t quantile with n − 1 − k degrees of freedom when λ is estimated
(n − 1 when it is given); pass ``ddof=0, use_t=False`` to get ppi_py's z interval exactly.

No number that cannot be true: every result passes :func:`estimators.base.result.guarded`. With λ
estimated, fewer than :data:`~estimators.base.result.MIN_LABELS_METRIC_ASSISTED` labels (or a
standard error of 0: every label and residual equal) give an unavailable result with its
reason, and fewer than 2 unlabelled items give ``Unavailable.CENSUS``; ``bounds`` (the range
of one score, e.g. (0, 1) for rates) clips the estimate and interval to the estimand's range
(for pairs the difference range [lo − hi, hi − lo]). An estimate such as 0.590 with a
t interval [−0.018, 1.197] is then reported within [0, 1].
"""

from __future__ import annotations

import math
from typing import Literal

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

__all__ = [
    "chaganty_mean",
    "data_efficiency",
    "optimal_lambda",
    "ppi_mean",
    "ppi_paired_difference",
    "theoretical_data_efficiency",
]


def _as_2d(g: np.ndarray) -> np.ndarray:
    g = np.asarray(g, dtype=float)
    if g.ndim == 1:
        return g[:, None]
    if g.ndim != 2:
        raise ValueError(f"metric scores must have shape (n,) or (n, k), got {g.shape}")
    return g


def _check(y: np.ndarray, g_l: np.ndarray, g_u: np.ndarray) -> None:
    if g_l.shape[0] != y.shape[0]:
        raise ValueError(f"{y.shape[0]} labels but {g_l.shape[0]} labelled metric rows")
    if g_l.shape[1] != g_u.shape[1]:
        raise ValueError("labelled and unlabelled metric arrays have different numbers of metrics")
    if g_u.shape[0] < 2:
        raise ValueError("need at least 2 unlabelled items")


def _solve_psd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a⁻¹b for a covariance matrix, 0 along directions where a metric is constant."""
    if a.shape == (1, 1):
        return b / a[0, 0] if a[0, 0] > 1e-300 else np.zeros_like(b)
    scale = np.sqrt(np.clip(np.diag(a), 1e-300, None))
    corr = a / np.outer(scale, scale)
    if np.linalg.cond(corr) < 1e10:
        return np.linalg.solve(a, b)
    return np.linalg.pinv(a, rcond=1e-10, hermitian=True) @ b


def _col_sums(a: np.ndarray) -> np.ndarray:
    """Column sums of a tall (n, k) array as one BLAS product: numpy's axis-0 reduction over
    a few columns is ~20× slower, and it ran for every system and pair at each refresh."""
    return np.ones(a.shape[0]) @ a


def _moments(g_l: np.ndarray, g_u: np.ndarray):
    """ḡ_U and the centred cross-product matrices of U and L (about ḡ_U), computed once."""
    mean_u = _col_sums(g_u) / g_u.shape[0]
    cu = g_u - mean_u
    cl = g_l - mean_u
    return mean_u, cu.T @ cu, cl


def _lambda(y: np.ndarray, g_l: np.ndarray, g_u: np.ndarray, moments=None) -> np.ndarray:
    n, n_u = g_l.shape[0], g_u.shape[0]
    _, ss_u, cl = moments if moments is not None else _moments(g_l, g_u)
    gc = g_l - _col_sums(g_l) / n
    sigma_gy = gc.T @ (y - y.mean()) / n
    # Cov over L ∪ U (ddof 1) from sums about ḡ_U: no concatenation of the pool
    total = n + n_u
    s1 = _col_sums(cl)
    sigma_gg = (ss_u + cl.T @ cl - np.outer(s1, s1) / total) / (total - 1)
    return _solve_psd(sigma_gg, sigma_gy) / (1.0 + n / n_u)


def optimal_lambda(
    y: np.ndarray, g_labelled: np.ndarray, g_unlabelled: np.ndarray
) -> float | np.ndarray:
    """PPI++ power-tuning parameter λ̂ = Σ_gg⁻¹ Cov_L(g, y) / (1 + n/N_u).

    Angelopoulos, Duchi & Zrnic (2023), eq. (8) for the mean; the vector form is the
    multiple-control-variate optimum (Chaganty et al. 2018, §3; Glasserman 2003, §4.1.2).
    Not clipped. Returns a float for one metric, an array of k coefficients for g of shape
    (n, k).
    """
    y = np.asarray(y, dtype=float).ravel()
    g_l, g_u = _as_2d(g_labelled), _as_2d(g_unlabelled)
    _check(y, g_l, g_u)
    lam = _lambda(y, g_l, g_u)
    return float(lam[0]) if np.ndim(g_labelled) == 1 else lam


def _ppi(
    y: np.ndarray,
    g_l: np.ndarray,
    g_u: np.ndarray,
    lam: np.ndarray | None,
    level: float,
    ddof: int,
    use_t: bool,
    method: str,
) -> EstimateResult:
    n, k = g_l.shape
    n_u = g_u.shape[0]
    estimated = lam is None
    moments = _moments(g_l, g_u)
    mean_u, ss_u, _ = moments
    if estimated:
        lam = _lambda(y, g_l, g_u, moments)
    else:
        lam = np.broadcast_to(np.asarray(lam, float), (k,))
    estimate = float(y.mean() - (_col_sums(g_l) / n - mean_u) @ lam)
    resid = y - g_l @ lam
    var_u = float(lam @ ss_u @ lam) / (n_u - ddof)
    var_l = float(np.var(resid, ddof=ddof))
    se = math.sqrt(var_l / n + var_u / n_u)
    df = (n - 1 - (k if estimated else 0)) if use_t else None
    if df is not None and df < 1:
        df = 1
    var_human = float(np.var(y, ddof=ddof)) / n
    de = var_human / se**2 if se > 0 else float("nan")
    lam_out: float | tuple[float, ...] = float(lam[0]) if k == 1 else tuple(map(float, lam))
    return EstimateResult(
        estimate=estimate,
        ci=wald_interval(estimate, se, level, df),
        se=se,
        n_human=n,
        n_metric=n_u,
        method=method,
        level=level,
        df=df,
        diagnostics={
            "lam": lam_out,
            "lam_estimated": estimated,
            "de": de,
            "se_human": math.sqrt(var_human),
            "var_metric": var_u / n_u,
            "n_controls": k,
        },
    )


def ppi_mean(
    y: np.ndarray,
    g_labelled: np.ndarray,
    g_unlabelled: np.ndarray,
    lam: float | np.ndarray | None = None,
    level: float = 0.95,
    *,
    ddof: int = 1,
    use_t: bool = True,
    bounds: tuple[float, float] | None = None,
) -> EstimateResult:
    """PPI++ / control-variate mean: θ̂_λ = ȳ_L − λᵀ(ḡ_L − ḡ_U), interval θ̂ ± c·se.

    se² = Var_L(y − λᵀg)/n + λᵀCov_U(g)λ/N_u (Angelopoulos et al. 2023, PPI++ mean,
    Example 6.1; docs/statistics-notes.md §17). ``lam=None`` estimates λ̂ (:func:`optimal_lambda`);
    ``lam=0`` is exactly :func:`estimators.fixed_n.human.mean_t`; ``lam=1`` is plain PPI. The
    critical value c is t_{n−1−k} (λ estimated) or t_{n−1} (λ given); ``use_t=False`` uses z.
    ``diagnostics["de"]`` is the data efficiency se²_human/se² on these data. ``bounds``
    and the unavailable cases: module docstring (minimum labels: 2 with λ given,
    :data:`~estimators.base.result.MIN_LABELS_METRIC_ASSISTED` with λ estimated).
    """
    y = np.asarray(y, dtype=float).ravel()
    g_l, g_u = _as_2d(g_labelled), _as_2d(g_unlabelled)
    method = "human_mean_t" if lam is not None and not np.any(lam) else "ppi++"
    early = _unavailable(y, g_l, g_u, lam, level, method, ddof)
    if early is not None:
        return early
    res = _ppi(y, g_l, g_u, None if lam is None else lam, level, ddof, use_t, method)
    return guarded(res, min_labels=_min_labels(lam), bounds=bounds)


def _min_labels(lam: float | np.ndarray | None) -> int:
    """Fewest labels for an interval: λ̂ estimated needs MIN_LABELS_METRIC_ASSISTED."""
    return MIN_LABELS_METRIC_ASSISTED if lam is None else 2


def _unavailable(
    y: np.ndarray,
    g_l: np.ndarray,
    g_u: np.ndarray,
    lam,
    level: float,
    method: str,
    ddof: int = 1,
) -> EstimateResult | None:
    """Shape errors raise; too few labels, or too few unlabelled items for a variance with
    ``ddof`` (at least 2), give an unavailable result."""
    if g_l.shape[0] != y.shape[0] or g_l.shape[1] != g_u.shape[1]:
        _check(y, g_l, g_u)
    reason = None
    if y.size < _min_labels(lam):
        reason = Unavailable.TOO_FEW_LABELS
    elif g_u.shape[0] < max(2, ddof + 1):
        reason = Unavailable.CENSUS
    if reason is None:
        return None
    return unavailable_result(method, reason, y.size, g_u.shape[0], level,
                              {"min_labels": _min_labels(lam)})  # fmt: skip


def _paired_controls(
    g_a: np.ndarray, g_b: np.ndarray, controls: Literal["difference", "both"]
) -> np.ndarray:
    g_a, g_b = _as_2d(g_a), _as_2d(g_b)
    if g_a.shape != g_b.shape:
        raise ValueError("metric arrays of the two systems must cover the same items")
    if controls == "difference":
        return g_a - g_b
    if controls == "both":
        return np.concatenate([g_a, g_b], axis=1)
    raise ValueError(f"controls must be 'difference' or 'both', got {controls!r}")


def ppi_paired_difference(
    y_a: np.ndarray,
    y_b: np.ndarray,
    g_a_labelled: np.ndarray,
    g_b_labelled: np.ndarray,
    g_a_unlabelled: np.ndarray,
    g_b_unlabelled: np.ndarray,
    controls: Literal["difference", "both"] = "difference",
    lam: float | np.ndarray | None = None,
    level: float = 0.95,
    *,
    ddof: int = 1,
    use_t: bool = True,
    bounds: tuple[float, float] | None = None,
) -> EstimateResult:
    """PPI++ on paired differences D_j = y_{A,j} − y_{B,j} (docs/statistics-notes.md §17, "Pairs").

    Controls are g_A − g_B (``controls="difference"``, one coefficient) or the vector
    (g_A, g_B) (``controls="both"``, two coefficients, never worse asymptotically). Labelled
    items are those judged for both systems; unlabelled items carry both systems' metric
    scores. ``lam=0`` gives :func:`estimators.fixed_n.human.paired_difference`. ``bounds`` is the
    range of one score; the result is clipped to the difference range (module docstring).
    """
    d = np.asarray(y_a, dtype=float).ravel() - np.asarray(y_b, dtype=float).ravel()
    g_l = _paired_controls(g_a_labelled, g_b_labelled, controls)
    g_u = _paired_controls(g_a_unlabelled, g_b_unlabelled, controls)
    method = "human_paired_t" if lam is not None and not np.any(lam) else f"ppi++_paired_{controls}"
    early = _unavailable(d, g_l, g_u, lam, level, method, ddof)
    if early is not None:
        return early
    res = _ppi(d, g_l, g_u, lam, level, ddof, use_t, method)
    res = res.with_(diagnostics={**res.diagnostics, "controls": controls})
    return guarded(res, min_labels=_min_labels(lam), bounds=difference_bounds(bounds))


def chaganty_mean(
    y: np.ndarray,
    g_labelled: np.ndarray,
    g_unlabelled: np.ndarray,
    level: float = 0.95,
    *,
    bounds: tuple[float, float] | None = None,
) -> EstimateResult:
    """Chaganty, Mussmann & Liang (2018, §3 eq. 3–4) control-variate estimator.

    Standardise the metric over all outputs (L ∪ U): g̃ = (g − mean)/sd; coefficient
    α̂ = mean_L((y − ȳ)·g̃) (vector: Corr⁻¹ of that); μ̃ = mean_L(y − α̂ᵀg̃). This is the same
    estimator as :func:`ppi_mean` with λ̂ (α̂ ≡ λ̂·sd·N/N_u), and the interval is the PPI++ one.
    ``diagnostics["alpha"]`` is Chaganty's standardised coefficient. ``bounds`` and the
    unavailable cases as :func:`ppi_mean` with λ estimated.
    """
    y = np.asarray(y, dtype=float).ravel()
    g_l, g_u = _as_2d(g_labelled), _as_2d(g_unlabelled)
    early = _unavailable(y, g_l, g_u, None, level, "chaganty_cv")
    if early is not None:
        return early
    n, n_u = g_l.shape[0], g_u.shape[0]
    pooled = np.concatenate([g_l, g_u], axis=0)
    mu, sd = pooled.mean(axis=0), pooled.std(axis=0, ddof=1)
    sd = np.where(sd > 0, sd, 1.0)
    gt_l = (g_l - mu) / sd
    corr = np.atleast_2d(np.cov((pooled - mu) / sd, rowvar=False))
    alpha = _solve_psd(corr, gt_l.T @ (y - y.mean()) / n)
    estimate = float(np.mean(y - gt_l @ alpha))
    lam = alpha / sd * n_u / (n + n_u)
    res = _ppi(y, g_l, g_u, lam, level, 1, True, "chaganty_cv")
    df = n - 1 - g_l.shape[1]
    alpha_out = float(alpha[0]) if alpha.size == 1 else tuple(map(float, alpha))
    res = res.with_(
        estimate=estimate,
        ci=wald_interval(estimate, res.se, level, df),
        df=df,
        diagnostics={**res.diagnostics, "alpha": alpha_out, "lam_estimated": True},
    )
    return guarded(res, min_labels=MIN_LABELS_METRIC_ASSISTED, bounds=bounds)


def data_efficiency(
    y: np.ndarray,
    g_labelled: np.ndarray,
    g_unlabelled: np.ndarray,
    lam: float | np.ndarray | None = None,
) -> float:
    """Measured data efficiency DE = se²(human-only) / se²(PPI++) on the same labels.

    Chaganty et al. (2018, §3 "data efficiency"): how many times more human labels the
    human-only mean would need for the same interval. Compare with
    :func:`theoretical_data_efficiency`.
    """
    return float(ppi_mean(y, g_labelled, g_unlabelled, lam).diagnostics.get("de", math.nan))


def theoretical_data_efficiency(
    rho_y: float, n: float, n_unlabelled: float = math.inf, gamma: float | None = None
) -> float:
    """DE at the optimal λ: 1 / (1 − ρ_y²·N_u/(N_u + n))  (docs/statistics-notes.md §17).

    As N_u → ∞ this is 1/(1 − ρ_y²); with annotator-noise ratio γ and a metric of
    correlation ρ_f with f, (1+γ)/(1 − ρ_f² + γ) when ``gamma`` is given (then ``rho_y`` is
    read as ρ_f; Chaganty et al. 2018, Prop. 1). A perfect metric is capped at (1+γ)/γ.
    """
    if gamma is not None:
        shrink = 1.0 if math.isinf(n_unlabelled) else n_unlabelled / (n_unlabelled + n)
        return (1 + gamma) / (1 + gamma - rho_y**2 * shrink)
    shrink = 1.0 if math.isinf(n_unlabelled) else n_unlabelled / (n_unlabelled + n)
    return 1.0 / (1.0 - rho_y**2 * shrink)
