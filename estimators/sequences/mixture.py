"""Asymptotic confidence sequence from a normal mixture over planned sizes (``asympcs_mix``).

docs/statistics-notes.md §19 ("The mixture over planned sizes"). The AsympCS of
Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas (2024, "Time-uniform central limit theory and
asymptotic confidence sequences", Ann. Statist., Thm 2.2) is the Robbins (1970) normal-mixture
boundary with the running variance: with S_t = t(μ̂_t − θ), V_t = t σ̂²_t and mixing variance
ρ, M_t(θ) = sqrt(ρ/(V_t + ρ)) exp(S_t²/(2(V_t + ρ))) and C_t = {θ : M_t(θ) < 1/α}. Its one
tuning, ρ = σ̂²_t t*/L(α) with L(α) = 2 log(1/α) + log(1 + 2 log(1/α)), makes it tightest at
t = t*; a pair that needs far fewer or far more labels than t* pays for the mis-tuning (on
the shipped MQM pools up to 3× the labels of a fixed-n t-test, bench/side_shown_bench.py).

Robbins' method holds for any mixing distribution: averaging the normal mixtures of J planned
sizes t*_1 < … < t*_J with weights w_j = 1/J,

    M_t(θ) = Σ_j w_j sqrt(q_j/(1 + q_j)) exp(u_t(θ)/(2(1 + q_j))),
    u_t(θ) = t (μ̂_t − θ)²/σ̂²_t,   q_j = ρ_j/V_t = t*_j/(L(α) t),

is again a nonnegative martingale for Gaussian increments (the average of J of them), so the
asymptotic argument of WS et al. (2024) goes through as for one t*: the sequence is valid as t
grows (an asymptotic guarantee, like the t-test's, not a finite-sample one), checked at true
nulls by simulation (tests/estimators/sequences/test_mixture.py). The sizes double from the
verdict floor (30 labels) to the pool size, so no plan tunes it; the price is log J in the
threshold where one t* would be right.

M_t increases in u, so C_t = μ̂_t ± σ̂_t sqrt(u*_t/t), u*_t the root of log M_t(u) = log(1/α)
(it depends on t, α, the tuning and the sizes only, not on the data: found once per read by
bisection to the last float). The dual p-value p_t = min(1, min_{s≤t} 1/M_s(θ0)) is ≤ a
exactly when θ0 has left the running intersection of the sequences at level a (same tuning):
an interval and a p-value that cannot disagree.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from estimators.sequences.confidence_sequences import (
    ConfidenceSequence,
    _intersect,
    _running_mean_var,
)
from estimators.sequences.sequential import BURN_IN, _log_term

#: The smallest planned size: no verdict is read before this many labels (the floor of
#: estimators.base.result.MIN_LABELS_FOR_VERDICT).
SIZE_FLOOR = 30
#: Bisection steps for u*: the bracket's width halves each step, so 80 reach the last float.
BISECTIONS = 80


def planned_sizes(t_max: float, floor: int = SIZE_FLOOR) -> tuple[float, ...]:
    """t*_j: floor, 2·floor, 4·floor, … below ``t_max``, then ``t_max`` (at least one)."""
    t_max = float(max(t_max, floor))
    sizes = [float(floor)]
    while sizes[-1] * 2 < t_max:
        sizes.append(sizes[-1] * 2)
    if sizes[-1] < t_max:
        sizes.append(t_max)
    return tuple(sizes)


def _terms(t: np.ndarray, sizes: tuple[float, ...], tuning: float) -> tuple[np.ndarray, np.ndarray]:
    """(c_j, b_j) of shape (J, T): log M_t(u) = logsumexp_j (c_j + b_j u)."""
    big_l = _log_term(tuning)
    q = np.asarray(sizes, dtype=float)[:, None] / (big_l * t[None, :])
    c = -math.log(len(sizes)) + 0.5 * np.log(q / (1.0 + q))
    return c, 0.5 / (1.0 + q)


def _log_m(u: np.ndarray, c: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log M_t(u) for u of shape (..., T) (inf stays inf)."""
    with np.errstate(invalid="ignore"):
        return np.logaddexp.reduce(c + b * u[..., None, :], axis=-2)


@lru_cache(maxsize=256)
def _threshold(n: int, sizes: tuple[float, ...], tuning: float, level: float) -> np.ndarray:
    """u*_t for t = 1..n (:func:`_threshold_at`), kept: every pair of a read shares it."""
    out = _threshold_at(np.arange(1, n + 1, dtype=float), sizes, tuning, level)
    out.setflags(write=False)
    return out


def _threshold_at(
    t: np.ndarray, sizes: tuple[float, ...], tuning: float, level: float
) -> np.ndarray:
    """u*_t: the root of log M_t(u) = log(1/level). Bracketed by the single terms: M ≤
    max_j M_j gives u* ≥ min_j (root of M_j = 1/level), M ≥ w_j M_j gives u* ≤ min_j (root
    of w_j M_j = 1/level); the upper end of the last bracket is returned (M(u*) ≥ 1/level)."""
    c, b = _terms(t, sizes, tuning)
    thr = math.log(1.0 / level)
    w = -math.log(len(sizes))
    lo = np.min((thr - (c - w)) / b, axis=0)
    hi = np.min((thr - c) / b, axis=0)
    lo = np.maximum(lo, 0.0)
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        above = _log_m(mid, c, b) >= thr
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    return hi


def _u(mean: np.ndarray, var: np.ndarray, t: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """u_t(θ) = t(μ̂_t − θ)²/σ̂²_t; +∞ off θ when σ̂ = 0, 0 on it."""
    dev2 = (mean - theta) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        u = t * dev2 / var
    return np.where(var > 0, u, np.where(dev2 > 0, np.inf, 0.0))


def mixture_cs(
    z: np.ndarray,
    alpha: float = 0.05,
    *,
    t_max: float,
    alpha_tuning: float | None = None,
    burn_in: int = BURN_IN,
    running_intersection: bool = True,
) -> ConfidenceSequence:
    """The mixture sequence at level α (module docstring) on the increments ``z`` (..., T):
    μ̂_t ± σ̂_t sqrt(u*_t/t), tuned at ``alpha_tuning`` (default α; with a fixed tuning the
    sequences are nested in α), the sizes :func:`planned_sizes` (``t_max``); (−∞, ∞)
    before ``burn_in``; ``running_intersection``: ∩_{s≤t} C_s."""
    z = np.asarray(z, dtype=float)
    mean, var, t = _running_mean_var(z)
    tune = alpha if alpha_tuning is None else alpha_tuning
    u_star = _threshold(z.shape[-1], planned_sizes(t_max), float(tune), float(alpha))
    half = np.sqrt(var * u_star / t)
    early = t < burn_in
    lower = np.where(early, -np.inf, mean - half)
    upper = np.where(early, np.inf, mean + half)
    if running_intersection:
        lower, upper = _intersect(lower, upper)
    return ConfidenceSequence(
        center=mean, lower=lower, upper=upper, sigma=np.sqrt(var), alpha=alpha,
        t_star=float(t_max), method="asympcs_mix",
    )  # fmt: skip


def mixture_pvalue(
    z: np.ndarray,
    theta0: float | np.ndarray = 0.0,
    *,
    t_max: float,
    alpha_tuning: float = 0.05,
    burn_in: int = BURN_IN,
) -> np.ndarray:
    """p_t = min(1, min_{burn_in ≤ s ≤ t} 1/M_s(θ0)) (module docstring), on batches."""
    z = np.asarray(z, dtype=float)
    th = np.asarray(theta0, dtype=float)
    if th.ndim:
        th = th[..., None]
    mean, var, t = _running_mean_var(z)
    c, b = _terms(t, planned_sizes(t_max), float(alpha_tuning))
    log_m = _log_m(_u(mean, var, t, th), c, b)
    log_m = np.where(t < burn_in, 0.0, log_m)
    p = np.exp(-np.maximum(log_m, 0.0))
    return np.minimum.accumulate(p, axis=-1)


def mixture_half_width(
    sigma: float, t: float, level: float, t_max: float, alpha_tuning: float
) -> float:
    """Half-width σ sqrt(u*_t/t) after t labels with SD σ (for the forecast)."""
    n = float(max(t, 1))
    sizes = planned_sizes(t_max)
    u_star = _threshold_at(np.array([n]), sizes, float(alpha_tuning), float(level))[0]
    return float(sigma * math.sqrt(u_star / n))
