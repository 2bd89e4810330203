"""Betting confidence sequence for bounded increments (hedged capital process).

statistics.md §10. Waudby-Smith & Ramdas (2024), "Estimating means of bounded random
variables by betting", JRSS-B, §4 (Thm 3, the hedged capital process with predictable
plug-in bets). Increments are mapped to x ∈ [0, 1] with their known bounds; to test the
mean m a gambler bets on both sides:

    K⁺_t(m) = Π_{i≤t} (1 + λ⁺_i (x_i − m)),   K⁻_t(m) = Π_{i≤t} (1 − λ⁻_i (x_i − m)),
    K_t(m) = ½ K⁺_t(m) + ½ K⁻_t(m),

λ⁺_i = min(λ̇_i, c/m), λ⁻_i = min(λ̇_i, c/(1 − m)) (c = 1/2 keeps every factor ≥ 1/2),
λ̇_i = sqrt(2 log(2/α) / (σ̂²_{i−1} · t*)) with σ̂²_t = (1/4 + Σ_{i≤t}(x_i − μ̂_i)²)/(t + 1),
μ̂_t = (1/2 + Σ_{i≤t} x_i)/(t + 1) — the paper's plug-in with its t·log(1 + t) replaced by
the planned size t*, so the bets are sized for the planned stopping time (validity does not
depend on t*). When the increments have conditional mean m, K_t(m) is a nonnegative
martingale with K_0 = 1 (an average of two), so by Ville's inequality
P(∃t: K_t(m) ≥ 1/α) ≤ α: the anytime p-value is p_t = min(1, min_{s≤t} 1/K_s(m)) and the
confidence sequence is C_t = {m : max_{s≤t} K_s(m) < 1/α} (on a grid of m, widened by one
grid step; its convex hull is reported). The paper reports the max of the two halves; their
average, used here, is at least as large (tighter) and still a martingale. That hedged
capital is one of three parts of the capital used (:func:`log_capital`, :data:`PARTS`);
the other two are Kelly bets for the observed effect (their arithmetic:
:mod:`estimators.sequences.betting_capital`).
"""

from __future__ import annotations

import math

import numpy as np

from estimators.base.scratch import SCRATCH
from estimators.sequences import confidence_sequences as csq
from estimators.sequences import sequential as seq
from estimators.sequences.betting_capital import C_TRUNC as C_TRUNC
from estimators.sequences.betting_capital import PARTS as PARTS
from estimators.sequences.betting_capital import _cum, _log_capital_parts, _shifted, running_moments
from estimators.sequences.betting_capital import _kelly_log_capital as _kelly_log_capital
from estimators.sequences.betting_capital import _plan_halves as _plan_halves
from estimators.sequences.betting_capital import _plan_log_capital as _plan_log_capital
from estimators.sequences.betting_capital import kelly_bet as kelly_bet
from estimators.sequences.betting_capital import log_capital as log_capital
from estimators.sequences.betting_capital import plan_bet as plan_bet

#: Grid points over the bounds for the confidence-sequence path, and points added inside
#: each endpoint's grid cell for the last (reported) interval.
CS_GRID = 61
REFINE = 17

#: Rounding slack when deciding that a null pool mean is impossible given the labels.
WOR_TOL = 1e-9


def wor_log_capital(
    x01: np.ndarray, th: np.ndarray, alpha: float, t_star: float | None, pool_size: int | None
) -> np.ndarray:
    """log K_t for the null "the mean of the whole pool is θ" (``th`` on the [0, 1] scale).

    ``pool_size`` None: the labels are i.i.d. draws (or Des Raj increments) with mean θ.
    ``pool_size`` N: the labels are the pool's own values in a uniformly random order,
    without replacement (Waudby-Smith & Ramdas 2020, "Confidence sequences for sampling
    without replacement", §3): under the null the i-th label has conditional mean
    m_i(θ) = (N θ − S_{i−1})/(N − i + 1), S_{i−1} the sum of the first i − 1 labels, and
    the capital bets on x_i − m_i(θ) — every label at full weight, late ones included (the
    Des Raj increments shrink label i by (N − i + 1)/N). When m_i(θ) leaves [0, 1] the
    labelled part alone rules θ out and the capital is +∞ from then on.
    """
    return wor_log_capital_from(x01, th, alpha, t_star, pool_size)[0]


def wor_log_capital_from(x01, th, alpha, t_star, pool_size, state=None):  # type: ignore[no-untyped-def]
    """(log K_t of :func:`wor_log_capital` along ``x01``, the end state): ``state``, the end
    state after the labels before ``x01`` (None: none yet), continues a carried stream with
    the very numbers of the whole — the bets (:func:`plan_bet`, :func:`kelly_bet`) are
    functions of the past only, so they are the same however the stream is cut."""
    mom0, starts, out0 = (None, None, None) if state is None else state
    moments = running_moments(x01, mom0)
    if pool_size is None:
        m = np.minimum(np.maximum(th, 1e-12), 1 - 1e-12)
        log_k, ends = _log_capital_parts(x01, m, alpha, t_star, moments, starts)
        return log_k, (moments[3], ends, None)
    t = moments[2]
    s0 = None if mom0 is None else mom0[1]
    s_prev = _shifted(_cum(x01, s0), 0.0 if s0 is None else s0)
    shape = np.broadcast_shapes(np.shape(th), s_prev.shape)
    with SCRATCH.arrays() as take:
        m = np.subtract(float(pool_size) * th, s_prev, out=take(shape))
        m /= float(pool_size) - t + 1.0
        bad = np.less(m, -WOR_TOL, out=take(shape, bool))
        bad |= m > 1 + WOR_TOL
        if out0 is not None:
            bad |= out0
        out = _from_first(bad)
        np.maximum(m, 1e-12, out=m)
        log_k, ends = _log_capital_parts(
            x01, np.minimum(m, 1 - 1e-12, out=m), alpha, t_star, moments, starts
        )
        if out.any():
            log_k[out] = np.inf
        return log_k, (moments[3], ends, out[..., -1:].copy())


def _from_first(flag: np.ndarray) -> np.ndarray:
    """True from each row's first True on along the last axis (a running "or")."""
    if not flag.any():
        return flag
    hit = flag.any(axis=-1, keepdims=True)
    first = np.where(hit, np.argmax(flag, axis=-1, keepdims=True), flag.shape[-1])
    return np.arange(flag.shape[-1]) >= first


def _unit(z, theta0, bounds):  # type: ignore[no-untyped-def]
    """Labels and null mean(s) on the [0, 1] scale of ``bounds``."""
    lo, hi = float(bounds[0]), float(bounds[1])
    x01 = np.clip((np.asarray(z, dtype=float) - lo) / (hi - lo), 0.0, 1.0)
    th = (np.asarray(theta0, dtype=float) - lo) / (hi - lo)
    return x01, (th[..., None] if th.ndim else th)


def betting_pvalue(
    z: np.ndarray,
    theta0: float | np.ndarray,
    *,
    bounds: tuple[float, float],
    alpha_tuning: float = 0.05,
    t_star: float | None = None,
    burn_in: int = seq.BURN_IN,
    pool_size: int | None = None,
) -> np.ndarray:
    """Anytime p-value path p_t = min(1, min_{burn_in ≤ s ≤ t} 1/K_s(θ0)) (see module;
    ``pool_size``: the without-replacement null of :func:`wor_log_capital`)."""
    x01, th = _unit(z, theta0, bounds)
    log_k = wor_log_capital(x01, th, alpha_tuning, t_star, pool_size)
    t = np.arange(1, log_k.shape[-1] + 1)
    log_k = np.where(t < burn_in, -np.inf, log_k)
    p = np.minimum(1.0, np.exp(-np.maximum(log_k, 0.0)))
    return np.minimum.accumulate(p, axis=-1)


def betting_evalue(
    z: np.ndarray,
    theta0: float | np.ndarray,
    *,
    bounds: tuple[float, float],
    alpha_tuning: float = 0.05,
    t_star: float | None = None,
    pool_size: int | None = None,
) -> np.ndarray:
    """The e-process path K_t(θ0) (not its running maximum): a nonnegative martingale with
    K_0 = 1 under the null, so K_τ is an e-value at any stopping time τ (optional stopping:
    E[K_τ] ≤ 1). The e-BH procedure (Wang & Ramdas 2022) reads these at the moment of the
    read; they are valid under any dependence between the pairs."""
    x01, th = _unit(z, theta0, bounds)
    return np.exp(wor_log_capital(x01, th, alpha_tuning, t_star, pool_size))


def _running_log_capital(x01, m, alpha, t_star, burn_in, running=True, pool_size=None):  # type: ignore[no-untyped-def]
    """(G, T): max_{burn_in ≤ s ≤ t} log K_s(m[g]) (−∞ before the burn-in); with
    ``running=False`` log K_t(m[g]) itself."""
    log_k = wor_log_capital(x01[None, :], m[:, None], alpha, t_star, pool_size)
    t = np.arange(1, x01.size + 1)
    log_k = np.where(t[None, :] < burn_in, -np.inf, log_k)
    return np.maximum.accumulate(log_k, axis=-1) if running else log_k


def betting_cs(
    z: np.ndarray,
    alpha: float = 0.05,
    *,
    bounds: tuple[float, float],
    t_star: float | None = None,
    burn_in: int = seq.BURN_IN,
    grid: int = CS_GRID,
    refine: int = REFINE,
    alpha_tuning: float | None = None,
    running: bool = True,
    pool_size: int | None = None,
) -> csq.ConfidenceSequence:
    """The betting confidence sequence of one stream ``z`` (shape (T,)) at level α.

    ``running=False`` reports {m : K_t(m) < 1/α} (the current capital, not its running
    maximum): also a valid confidence sequence (Ville's inequality bounds the chance that
    K_t(m*) ever reaches 1/α), wider, and dual to the e-value K_t(0) that e-BH reads.
    ``pool_size`` N: a sequence for the mean of a finite pool whose values arrive in a
    uniformly random order (:func:`wor_log_capital`); it shrinks to the pool mean as the
    pool is exhausted.

    The reported (last) interval is exact up to a fine grid and never narrower than the
    exact set's hull: the surviving points of a grid of ``grid`` means over ``bounds``,
    refined with ``refine`` points inside each endpoint's cell and widened by one fine step.
    Earlier entries of the path (the width chart) place each endpoint by linear
    interpolation of log K between the two grid points around the crossing of log(1/α): a
    drawing of the path, not an interval to act on. (lo, hi) before the burn-in.
    ``alpha_tuning`` (default α) sizes the bets: with the bets fixed, the sets are nested in
    α and θ0 leaves the set at level a exactly when :func:`betting_pvalue` (same tuning)
    reaches a.
    """
    tune = alpha if alpha_tuning is None else alpha_tuning
    z = np.asarray(z, dtype=float)
    if z.ndim != 1:
        raise ValueError("betting_cs takes one stream; use betting_pvalue for batches")
    lo, hi = float(bounds[0]), float(bounds[1])
    span = hi - lo
    x01 = np.clip((z - lo) / span, 0.0, 1.0)
    m = np.linspace(0.0, 1.0, grid)[1:-1]
    step = 1.0 / (grid - 1)
    thr = math.log(1.0 / alpha)
    run = _running_log_capital(x01, m, tune, t_star, burn_in, running, pool_size)  # (G, T)
    centre, low01, high01, alive = _path_interval(run, m, thr, x01, step, burn_in)
    if z.size >= burn_in:
        args = (tune, t_star, burn_in, running, pool_size)
        _refine_last(low01, high01, x01, m, alive, thr, refine, args)
    _, var, _ = csq._running_mean_var(z)
    return csq.ConfidenceSequence(
        center=centre * span + lo,
        lower=low01 * span + lo,
        upper=high01 * span + lo,
        sigma=np.sqrt(var),
        alpha=alpha,
        t_star=float(t_star) if t_star is not None else float("nan"),
        method="betting",
    )


def _path_interval(run, m, thr, x01, step, burn_in, t0=0, centre=None):  # type: ignore[no-untyped-def]
    """The path's intervals on [0, 1]: the grid points whose running log K stays below
    thr, each endpoint placed by :func:`_crossing` (the running mean ± one grid step when
    no point survives); (0, 1) before the burn-in. Also (first, last, any) surviving point.
    ``t0``, ``centre``: the columns of ``run`` are labels t0 + 1, … with running means
    ``centre`` (a carried stream's new labels)."""
    alive = run < thr
    any_alive = alive.any(axis=0)
    first = np.argmax(alive, axis=0)
    last = alive.shape[0] - 1 - np.argmax(alive[::-1], axis=0)

    t = np.arange(t0 + 1, t0 + run.shape[1] + 1)
    centre = np.cumsum(x01) / t if centre is None else centre
    low01 = np.where(
        any_alive, _crossing(run, m, thr, first, first - 1), np.maximum(centre - step, 0.0)
    )
    high01 = np.where(
        any_alive, _crossing(run, m, thr, last, last + 1), np.minimum(centre + step, 1.0)
    )
    early = t < burn_in
    low01, high01 = np.where(early, 0.0, low01), np.where(early, 1.0, high01)
    return centre, low01, high01, (first, last, any_alive)

def _crossing(
    run: np.ndarray, m: np.ndarray, thr: float, inside: np.ndarray, outside: np.ndarray
) -> np.ndarray:
    """m where the running log K crosses thr between two neighbouring grid points (linear
    interpolation of log K; the edge 0 or 1 past the grid)."""
    cols = np.arange(run.shape[1])
    a, b = run[inside, cols], run[np.clip(outside, 0, m.size - 1), cols]
    edge = np.where(outside < 0, 0.0, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.clip((thr - a) / (b - a), 0.0, 1.0)
    out_m = np.where(
        (outside < 0) | (outside >= m.size), edge, m[np.clip(outside, 0, m.size - 1)]
    )
    return np.where(np.isfinite(w), m[inside] + w * (out_m - m[inside]), out_m)


def _refine_last(low01, high01, x01, m, alive, thr, refine, args) -> None:  # type: ignore[no-untyped-def]
    """The reported (last) interval, in place: the surviving points of ``refine`` points
    inside each endpoint's grid cell, widened by one fine step."""
    first, last, any_alive = alive
    f, g = (first[-1], last[-1]) if any_alive[-1] else (0, m.size - 1)
    alive_last = bool(any_alive[-1])
    step = 1.0 / (m.size + 1)
    cell_lo = np.linspace(max(m[f] - step, 1e-9), m[f], refine)
    cell_hi = np.linspace(m[g], min(m[g] + step, 1 - 1e-9), refine)
    fine = step / (refine - 1)
    ok_lo = _running_log_capital(x01, cell_lo, *args)[:, -1] < thr
    ok_hi = _running_log_capital(x01, cell_hi, *args)[:, -1] < thr
    if alive_last or ok_lo.any():
        low01[-1] = max(cell_lo[np.argmax(ok_lo)] - fine, 0.0) if ok_lo.any() else m[f] - fine
        high01[-1] = (
            min(cell_hi[len(ok_hi) - 1 - np.argmax(ok_hi[::-1])] + fine, 1.0)
            if ok_hi.any() else m[g] + fine
        )  # fmt: skip

def betting_half_width(
    sigma: float,
    span: float,
    t: float,
    alpha: float,
    t_star: float | None,
    alpha_tuning: float | None = None,
) -> float:
    """Approximate half-width after t increments with SD σ (for forecasts): with a constant
    bet λ = sqrt(2 log(2/α_tune)/(σ_x² t*)) the boundary is log(2/α)/(λ t) + λ σ_x²/2 on
    the [0, 1] scale (σ_x = σ/span), times ``span`` (α_tune = ``alpha_tuning``, default α)."""
    sx2 = max((sigma / span) ** 2, 1e-12)
    ts = float(t_star) if t_star is not None else t * math.log1p(t)
    tune = alpha if alpha_tuning is None else alpha_tuning
    lam = min(math.sqrt(2.0 * math.log(2.0 / tune) / (sx2 * ts)), C_TRUNC / 0.5)
    return span * (math.log(2.0 / alpha) / (lam * t) + lam * sx2 / 2.0)
