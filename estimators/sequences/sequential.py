"""Anytime-valid monitoring: predictable control-variate increments.

docs/statistics-notes.md §19. A dashboard that re-tests a fixed-n interval after every label and
stops at the first "significant" result is invalid (≈ 35–37 % false positives on real null pairs).
The objects here stay valid at any data-dependent stopping time:

- :func:`cv_increments` / :func:`paired_cv_increments` — predictable control-variate
  increments z_i = y_i − λ_{i−1}·(g_i − ḡ_pool): λ_{i−1} uses labels 1..i−1 only and ḡ_pool is
  the metric mean over the whole fixed pool, so E[z_i | past] = μ exactly when item i is drawn
  uniformly from the pool (Chaganty et al. 2018 control variates / PPI++ of Angelopoulos et
  al. 2023, made predictable).
- :func:`pool_controls` — the pool's controls with missing metric scores imputed so that the
  increments stay exactly unbiased (an item without a score gets no control).
- :func:`asymptotic_half_width` — the half-width of the asymptotic confidence sequence
  (Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas 2024) after t labels, for forecasts.

The confidence sequences and p-values run on these increments live in
:mod:`estimators.sequences.confidence_sequences`.

Every function works on the whole path t = 1..T at once with cumulative sums (O(T)), and on
batches: arrays of shape (..., T) are many independent streams (e.g. (500, 2000)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Labels before which no confidence sequence is reported (docs/statistics-notes.md §19).
BURN_IN = 30
#: Labels before which λ stays 0 (an estimate from a handful of labels adds variance only).
LAMBDA_MIN_LABELS = 10


@dataclass(frozen=True)
class Increments:
    """Predictable increments ``z`` (shape (..., T)) and the λ used for each (..., T, k)."""

    z: np.ndarray
    lam: np.ndarray
    #: Bounds every increment is guaranteed to lie in (for strict mode), or ``None``.
    bounds: tuple[float, float] | None = None


# --------------------------------------------------------------------------------------------
# Predictable control-variate increments
# --------------------------------------------------------------------------------------------


def _as_controls(g: np.ndarray, t: int) -> np.ndarray:
    g = np.asarray(g, dtype=float)
    if g.shape[-1] == t and (g.ndim == 1 or g.shape[-1] != 1):
        # (..., T) → (..., T, 1); a (..., T, k) array is left as it is.
        return g[..., None]
    return g


def predictable_lambda(
    y: np.ndarray,
    g: np.ndarray,
    *,
    min_labels: int = LAMBDA_MIN_LABELS,
    clip: np.ndarray | float | None = None,
) -> np.ndarray:
    """λ_{i−1} for every step i: Σ_gg⁻¹·σ_gy from labels 1..i−1 only (shape (..., T, k)).

    ``y`` has shape (..., T); ``g`` shape (..., T, k). λ = 0 until ``min_labels`` labels
    (and at least k+2) have been seen, or when the controls have no spread yet. ``clip``
    bounds each component to [−clip, clip] (strict mode needs bounded increments).
    Computed in O(T·k²) from cumulative sums of y, g, g·gᵀ and g·y.
    """
    y = np.asarray(y, dtype=float)
    t_len = y.shape[-1]
    k = g.shape[-1]
    zeros = np.zeros((*y.shape[:-1], 1), dtype=float)
    # Sums over labels 1..i−1 for increment i: cumulative sums shifted right by one.
    n = np.arange(t_len, dtype=float)  # labels before increment i (0-based index i)
    sy = np.concatenate([zeros, np.cumsum(y, axis=-1)[..., :-1]], axis=-1)
    zk = np.zeros((*y.shape[:-1], 1, k), dtype=float)
    sg = np.concatenate([zk, np.cumsum(g, axis=-2)[..., :-1, :]], axis=-2)
    sgy = np.concatenate([zk, np.cumsum(g * y[..., None], axis=-2)[..., :-1, :]], axis=-2)
    gg = g[..., :, None] * g[..., None, :]
    zkk = np.zeros((*y.shape[:-1], 1, k, k), dtype=float)
    sgg = np.concatenate([zkk, np.cumsum(gg, axis=-3)[..., :-1, :, :]], axis=-3)
    with np.errstate(invalid="ignore", divide="ignore"):
        nn = np.maximum(n, 1.0)
        cgy = sgy - sg * (sy / nn)[..., None]
        cgg = sgg - sg[..., :, None] * sg[..., None, :] / nn[:, None, None]
        if k == 1:
            var = cgg[..., 0, 0]
            ok = var > 1e-12 * np.maximum(1.0, sgg[..., 0, 0])
            lam = np.where(ok, cgy[..., 0] / np.where(ok, var, 1.0), 0.0)[..., None]
        else:
            ridge = 1e-9 * np.trace(cgg, axis1=-2, axis2=-1)[..., None, None] + 1e-300
            a = cgg + ridge * np.eye(k)
            det = np.linalg.det(a)
            ok = np.abs(det) > 1e-14 * np.prod(np.diagonal(a, axis1=-2, axis2=-1), axis=-1)
            safe = np.where(ok[..., None, None], a, np.eye(k))
            lam = np.linalg.solve(safe, cgy[..., None])[..., 0]
            lam = np.where(ok[..., None], lam, 0.0)
    early = n < max(min_labels, k + 2)
    lam = np.where(early[:, None], 0.0, lam)
    lam = np.nan_to_num(lam, nan=0.0, posinf=0.0, neginf=0.0)
    if clip is not None:
        c = np.broadcast_to(np.asarray(clip, dtype=float), (k,))
        lam = np.clip(lam, -c, c)
    return lam


def cv_increments(
    y: np.ndarray,
    g: np.ndarray | None,
    g_pool_mean: float | np.ndarray | None = None,
    *,
    min_labels: int = LAMBDA_MIN_LABELS,
    lam_clip: np.ndarray | float | None = None,
    pool_size: int | None = None,
    label_range: tuple[float, float] | None = None,
    g_range: tuple[np.ndarray, np.ndarray] | None = None,
) -> Increments:
    """Predictable control-variate increments for a system mean (docs/statistics-notes.md §17, §19).

    z_i = y_i − λ_{i−1}ᵀ(g_i − ḡ_pool), with λ_{i−1} = Σ_gg⁻¹σ_gy from labels 1..i−1
    (Chaganty, Mussmann & Liang 2018; PPI++, Angelopoulos, Duchi & Zrnic 2023). Because λ_{i−1}
    is fixed before label i arrives and ḡ_pool is the mean over the whole fixed pool,
    E[z_i | past] = μ exactly when item i is drawn uniformly from the pool (with replacement,
    or — approximately, conservatively — without). λ = 0 gives the human-only increments y_i.

    Parameters
    ----------
    y: labels in arrival order, shape (..., T).
    g: metric values of the labelled items, shape (..., T) or (..., T, k); ``None`` for
        human-only increments.
    g_pool_mean: metric mean over all N outputs of the pool, scalar or (k,) (or (..., k)).
    lam_clip: bound |λ_k| (strict mode); ``None`` leaves λ free (HTER ⇒ λ may be < 0).
    pool_size: N for the exact finite-pool form (Des Raj 1956 ordered estimator for uniform
        sampling without replacement): z_i = S_{i−1}/N + (N−i+1)/N·y_i − λ_{i−1}ᵀh_i with
        h_i = S^g_{i−1}/N + (N−i+1)/N·g_i − ḡ_pool. Exact martingale when each output has one
        fixed label and items are taken in uniformly random order without replacement;
        z_N is then the pool mean itself.
    label_range, g_range: known bounds of y and of each control over the pool; when given
        (with ``lam_clip``) the result carries bounds every z_i lies in (strict mode).
    """
    y = np.asarray(y, dtype=float)
    lam, gk, gbar = _controls_and_lambda(y, g, g_pool_mean, min_labels, lam_clip)
    a, h = _pool_terms(y, gk, gbar, pool_size)
    z = a - np.sum(lam * h, axis=-1)
    bounds = _increment_bounds(label_range, g, gbar, lam_clip, g_range)
    return Increments(z=z, lam=lam, bounds=bounds)


def _controls_and_lambda(y, g, g_pool_mean, min_labels, lam_clip):  # type: ignore[no-untyped-def]
    """The controls as (..., T, k), their pool mean ḡ_pool and the predictable λ_{i−1}
    (:func:`predictable_lambda`); zero controls and λ = 0 without a metric."""
    t_len = y.shape[-1]
    if g is None:
        lam = np.zeros((*y.shape, 1))
        gk = np.zeros((*y.shape, 1))
        gbar = np.zeros(1)
    else:
        gk = _as_controls(g, t_len)
        if gk.shape[:-1] != y.shape:
            raise ValueError(f"g has shape {np.shape(g)}, labels have shape {y.shape}")
        if g_pool_mean is None:
            raise ValueError("g_pool_mean (metric mean over the whole pool) is required")
        gbar = np.asarray(g_pool_mean, dtype=float)
        if gbar.ndim == 0:
            gbar = gbar[None]
        lam = predictable_lambda(y, gk, min_labels=min_labels, clip=lam_clip)
    return lam, gk, gbar


def _pool_terms(y, gk, gbar, pool_size):  # type: ignore[no-untyped-def]
    """(a_i, h_i) of z_i = a_i − λ_{i−1}ᵀh_i: (y_i, g_i − ḡ_pool) with replacement, or the
    Des Raj (1956) ordered terms a_i = S_{i−1}/N + (N−i+1)/N·y_i and
    h_i = S^g_{i−1}/N + (N−i+1)/N·g_i − ḡ_pool on a finite pool of N."""
    t_len = y.shape[-1]
    gbar_t = gbar[..., None, :] if gbar.ndim > 1 else gbar
    if pool_size is None:
        a = y
        h = gk - gbar_t
    else:
        big_n = float(pool_size)
        if t_len > pool_size:
            raise ValueError(f"{t_len} labels from a pool of {pool_size} without replacement")
        c = (big_n - np.arange(t_len)) / big_n  # (N − i + 1)/N for i = 1..T
        zero = np.zeros((*y.shape[:-1], 1))
        s_prev = np.concatenate([zero, np.cumsum(y, axis=-1)[..., :-1]], axis=-1)
        a = s_prev / big_n + c * y
        zk = np.zeros((*gk.shape[:-2], 1, gk.shape[-1]))
        sg_prev = np.concatenate([zk, np.cumsum(gk, axis=-2)[..., :-1, :]], axis=-2)
        h = sg_prev / big_n + c[:, None] * gk - gbar_t
    return a, h


def _increment_bounds(label_range, g, gbar, lam_clip, g_range):  # type: ignore[no-untyped-def]
    """Bounds every z_i lies in (strict mode): the label range widened by
    Σ_k |λ_k|max · max|g_k − ḡ_k| over the pool; ``None`` without a label range."""
    bounds = None
    if label_range is not None:
        lo, hi = float(label_range[0]), float(label_range[1])
        spread = 0.0
        if g is not None:
            if lam_clip is None or g_range is None:
                raise ValueError("bounded increments need lam_clip and g_range with controls")
            gmin = np.broadcast_to(np.asarray(g_range[0], dtype=float), gbar.shape[-1:])
            gmax = np.broadcast_to(np.asarray(g_range[1], dtype=float), gbar.shape[-1:])
            clip = np.broadcast_to(np.asarray(lam_clip, dtype=float), gbar.shape[-1:])
            gb = gbar.reshape(-1, gbar.shape[-1])
            reach = np.maximum((gmax - gb).max(axis=0), (gb - gmin).max(axis=0))
            spread = float(np.sum(clip * reach))
        bounds = (lo - spread, hi + spread)
    return bounds


@dataclass(frozen=True)
class PoolControls:
    """Controls for every item of a fixed pool, with missing scores imputed (see
    :func:`pool_controls`)."""

    #: (N, c) control values of every item (rows outside the pool are NaN)
    values: np.ndarray
    #: (c,) mean of ``values`` over the pool — the ḡ_pool of :func:`cv_increments`
    mean: np.ndarray
    #: (N,) True for pool items with some control imputed (that control has weight 0 there)
    imputed: np.ndarray
    #: number of items in the pool
    size: int


def pool_controls(g: np.ndarray, in_pool: np.ndarray) -> PoolControls | None:
    """Controls over a fixed pool with some metric scores missing (docs/statistics-notes.md §19).

    ``g`` (N, c) holds the control of every item (NaN = score missing); ``in_pool`` (N,)
    marks the pool. Each column's missing pool entries are set to that column's mean over the
    pool items that have it, ḡ_obs. The imputed control h is then still a fixed function of
    the item, chosen before any label, and its pool mean is ḡ_obs, so for an item drawn
    uniformly from the pool E[h_i] = h̄_pool and E[z_i | past] = μ exactly (any predictable
    λ). For an item with a missing score h_i − h̄_pool = 0: its increment is its label alone
    (the control has weight 0 there), so a missing score costs variance, never bias. An
    extra "missing" indicator control would also be unbiased but adds one more λ to learn
    from the few labelled items that lack a score, so it is not used. Columns with no score in
    the pool are dropped; ``None`` when no column is left (human-only increments).
    """
    g = np.asarray(g, dtype=float)
    if g.ndim == 1:
        g = g[:, None]
    in_pool = np.asarray(in_pool, dtype=bool)
    sub = g[in_pool]
    ok = np.isfinite(sub)
    keep = ok.any(axis=0)
    if sub.shape[0] == 0 or not keep.any():
        return None
    sub, ok = sub[:, keep], ok[:, keep]
    col_mean = np.where(ok, sub, 0.0).sum(axis=0) / ok.sum(axis=0)
    sub = np.where(ok, sub, col_mean)
    values = np.full((g.shape[0], sub.shape[1]), np.nan)
    values[in_pool] = sub
    imputed = np.zeros(g.shape[0], dtype=bool)
    imputed[in_pool] = ~ok.all(axis=1)
    return PoolControls(values=values, mean=col_mean, imputed=imputed, size=int(in_pool.sum()))


def paired_cv_increments(
    y_a: np.ndarray,
    y_b: np.ndarray,
    g_a: np.ndarray | None,
    g_b: np.ndarray | None,
    g_pool_mean_a: float | np.ndarray | None = None,
    g_pool_mean_b: float | np.ndarray | None = None,
    *,
    controls: str = "difference",
    **kwargs,
) -> Increments:
    """Predictable CV increments for a paired Δ = μ_A − μ_B (docs/statistics-notes.md §17, §19).

    D_i = y_{A,i} − y_{B,i} on the i-th item labelled for both systems; controls are the metric
    difference g_A − g_B (``controls="difference"``, pool mean ḡ_A − ḡ_B) or the 2-vector
    (g_A, g_B) (``controls="both"``; with k metrics each, 2k controls). Other keyword
    arguments go to :func:`cv_increments` (``label_range`` is that of D, e.g. (−1, 1)).
    """
    d = np.asarray(y_a, dtype=float) - np.asarray(y_b, dtype=float)
    if g_a is None or g_b is None:
        return cv_increments(d, None, **kwargs)
    ga = _as_controls(g_a, d.shape[-1])
    gb = _as_controls(g_b, d.shape[-1])
    ma = np.atleast_1d(np.asarray(g_pool_mean_a, dtype=float))
    mb = np.atleast_1d(np.asarray(g_pool_mean_b, dtype=float))
    if controls == "difference":
        g = ga - gb
        m = ma - mb
        g_range = kwargs.pop("g_range", None)
    elif controls == "both":
        g = np.concatenate([ga, gb], axis=-1)
        m = np.concatenate([ma, mb], axis=-1)
        g_range = kwargs.pop("g_range", None)
    else:
        raise ValueError(f"controls must be 'difference' or 'both', not {controls!r}")
    return cv_increments(d, g, m, g_range=g_range, **kwargs)


# --------------------------------------------------------------------------------------------
# Asymptotic confidence sequence and its p-value
# --------------------------------------------------------------------------------------------


def _log_term(alpha: float) -> float:
    """2·log(1/α) + log(1 + 2·log(1/α)): the optimal mixture tuning of WS et al. 2024."""
    two_log = 2.0 * math.log(1.0 / alpha)
    return two_log + math.log1p(two_log)


def asymptotic_half_width(
    sigma: float | np.ndarray,
    t: float | np.ndarray,
    alpha: float = 0.05,
    t_star: float | None = None,
    alpha_tuning: float | None = None,
) -> np.ndarray:
    """Half-width of :func:`estimators.sequences.confidence_sequences.asymptotic_cs` after t labels
    with SD σ (for planning)."""
    t = np.asarray(t, dtype=float)
    t_star = float(t_star if t_star is not None else np.max(t))
    r2 = _log_term(alpha if alpha_tuning is None else alpha_tuning) / t_star
    tr = t * r2 + 1.0
    return np.asarray(sigma) * np.sqrt(2.0 * tr / (t * t * r2) * np.log(np.sqrt(tr) / alpha))


# --------------------------------------------------------------------------------------------
# Strict mode: predictable plug-in empirical Bernstein (bounded increments)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Negative control
# --------------------------------------------------------------------------------------------


def smallest_t(ok, n_now: int, most: int, floor: int) -> int | None:  # type: ignore[no-untyped-def]
    """How many more observations until ``ok(t)`` holds (monotone: true from some t on), for
    floor ≤ t ≤ ``most``, by bisection; ``None`` when it never holds within ``most``. Used
    by the label forecasts (floor: the verdict's minimum labels) and the document forecasts
    (floor: the minimum documents)."""
    t0 = max(int(n_now), floor)
    if most < t0 or not ok(most):
        return None
    if ok(t0):
        return t0 - int(n_now)
    lo, hi = t0, int(most)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi - int(n_now)
