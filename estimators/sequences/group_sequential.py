"""Group-sequential design: Lan–DeMets α-spending with O'Brien–Fleming-type spending.

docs/statistics-notes.md §25. The test looks at the data only at K label counts fixed before the
first label, n_k = ⌈k·n_max/K⌉ (k = 1..K, n_max = the planned maximum), and spends the error α(τ) =
2 − 2Φ(z_{1−α/2}/√τ) by information fraction τ = n/n_max (Lan & DeMets 1983, O'Brien–Fleming-type
spending). The two-sided boundaries c_1 > c_2 > … > c_K solve

    P(|Z_1| < c_1, …, |Z_{k−1}| < c_{k−1}, |Z_k| ≥ c_k) = α(τ_k) − α(τ_{k−1})

for the standardised statistic of independent normal increments, Z_k = S_k/√(n_k σ²)
(Cov(Z_j, Z_k) = √(n_j/n_k)). The probabilities are computed by the recursive numerical
integration of Armitage, McPherson & Rowe (1969) as set out in Jennison & Turnbull (2000),
"Group Sequential Methods with Applications to Clinical Trials", ch. 19: the sub-density of
Z_k on the continuation region (−c_k, c_k) is propagated on a Simpson grid, and each c_k is
found by bisection on the exit probability (a Gaussian tail, in closed form).

Inference (Jennison & Turnbull ch. 9):

- repeated confidence intervals RCI_k = Δ̂_k ± c_k(α)·σ̂_k/√n_k hold simultaneously at all
  looks with probability ≥ 1 − α, so "ever miss" is measured on them;
- the repeated p-value p_k = the smallest level α' whose boundary some look j ≤ k has
  crossed; P(p_k ≤ a for some k) ≤ a, so Holm across pairs stays valid at every look.
  Levels come from a grid (:func:`levels`: a geometric grid plus α/j exactly for the m
  pairs' Holm thresholds); a p-value is rounded UP to the next grid level, never down.

Past the planned maximum all α is spent: no look is left, the verdict of the last look
stands, and a pair undecided at n_max stays undecided under this design. Looks before the
30-label burn-in give no verdict (the α(τ) they would spend is a tiny fraction for this
spending function, e.g. α(0.25) = 0.00009 at α = 0.05, and is simply not used).

σ² is unknown and estimated at each look (σ̂_k, with the monitor's variance prior); the
boundaries are then asymptotic, as for AsympCS. Increments whose variance falls over time
(the finite-pool Des Raj form) have looks more strongly correlated than √(n_j/n_k); more
correlated looks give fewer chances to cross (measured: P(ever miss) 0.008–0.038 for the
test-set estimand, vs 0.018–0.052 with replacement). Both approximations are checked by
simulation in tests/estimators/test_live_designs.py.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import special

#: Looks per design: enough that a decision waits at most n_max/20 labels for its look.
LOOKS = 20
#: Simpson grid size (odd) on each continuation region.
GRID = 101
#: A boundary this large means "no rejection possible at this look".
NO_EXIT = 12.0
#: The continuation region is integrated over |z| ≤ min(c, REACH): beyond it the density
#: is below 1e-10.
REACH = 6.5


#: Levels at which boundaries are always computed (ratio 1.12 between neighbours).
BASE_LEVELS = np.geomspace(1e-6, 1.0, 121)


def levels(alpha: float, m: int) -> np.ndarray:
    """The level grid for m pairs at family-wise α: :data:`BASE_LEVELS` and α/j for
    j = 1..m exactly, the thresholds Holm compares the smallest p-values with, so rounding a
    p-value up to the grid never changes a Holm verdict at α."""
    holm = float(alpha) / np.arange(1, max(int(m), 1) + 1)
    return np.unique(np.concatenate([BASE_LEVELS, holm]))


def obf_spending(tau: np.ndarray | float, alpha: float | np.ndarray) -> np.ndarray:
    """Lan–DeMets O'Brien–Fleming-type spending α(τ) = 2 − 2Φ(z_{1−α/2}/√τ), τ ∈ (0, 1]."""
    tau = np.clip(np.asarray(tau, dtype=float), 1e-12, 1.0)
    z = special.ndtri(1 - np.asarray(alpha, dtype=float) / 2)
    return 2.0 * special.ndtr(-z / np.sqrt(tau))


def _simpson_weights(g: int) -> np.ndarray:
    w = np.ones(g)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return w / 3.0


def _boundaries_for(alphas: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """Two-sided boundaries (len(alphas), K) by recursive integration (vectorised over α)."""
    n_lev, k_looks = alphas.size, taus.size
    spend = obf_spending(taus[None, :], alphas[:, None])
    inc = np.diff(np.concatenate([np.zeros((n_lev, 1)), spend], axis=1), axis=1)
    bounds = np.empty((n_lev, k_looks))
    x = np.linspace(-1.0, 1.0, GRID)
    w = _simpson_weights(GRID)
    # look 1: Z_1 ~ N(0, 1)
    c = np.where(inc[:, 0] > 1e-300, -special.ndtri(np.maximum(inc[:, 0], 1e-300) / 2), NO_EXIT)
    c = np.minimum(c, NO_EXIT)
    bounds[:, 0] = c
    reach = np.minimum(c, REACH)
    z = reach[:, None] * x[None, :]  # (L, G) grid on (−c, c)
    dens = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    step = 2.0 / (GRID - 1)
    wz = dens * w[None, :] * (reach * step)[:, None]  # density × Simpson weight
    for k in range(1, k_looks):
        r_prev, r_now = math.sqrt(taus[k - 1]), math.sqrt(taus[k])
        sd = math.sqrt(taus[k] - taus[k - 1])
        shift = z * r_prev  # S_{k−1} on the τ scale

        def exit_prob(cc: np.ndarray, shift=shift, wz=wz, r_now=r_now, sd=sd) -> np.ndarray:
            hi = (cc[:, None] * r_now - shift) / sd
            lo = (-cc[:, None] * r_now - shift) / sd
            return np.sum(wz * (special.ndtr(-hi) + special.ndtr(lo)), axis=1)

        target = inc[:, k]
        lo_c, hi_c = np.zeros(n_lev), np.full(n_lev, NO_EXIT)
        for _ in range(30):  # bisection: exit probability falls as c grows
            mid = 0.5 * (lo_c + hi_c)
            too_much = exit_prob(mid) > target
            lo_c = np.where(too_much, mid, lo_c)
            hi_c = np.where(too_much, hi_c, mid)
        c = hi_c
        bounds[:, k] = c
        if k + 1 < k_looks:
            reach = np.minimum(c, REACH)
            z_new = reach[:, None] * x[None, :]
            # f_k(z) = ∫ f_{k−1}(u)·(r_now/sd)·φ((z·r_now − u·r_prev)/sd) du
            arg = (z_new[:, :, None] * r_now - shift[:, None, :]) / sd
            kern = np.exp(-0.5 * arg * arg) * (r_now / (sd * math.sqrt(2 * math.pi)))
            dens = np.einsum("lgu,lu->lg", kern, wz)
            z, wz = z_new, dens * w[None, :] * (reach * step)[:, None]
    return bounds


def boundaries(alpha: float, looks: int = LOOKS, taus: np.ndarray | None = None) -> np.ndarray:
    """Boundaries c_1..c_K at level ``alpha`` for looks at information fractions ``taus``
    (default equally spaced k/``looks``)."""
    taus = np.arange(1, looks + 1) / looks if taus is None else np.asarray(taus, dtype=float)
    return _boundaries_for(np.array([float(alpha)]), taus)[0]


def look_times(n_max: int, looks: int = LOOKS) -> np.ndarray:
    """The label counts n_k = ⌈k·n_max/K⌉ at which the design looks (data-independent);
    the boundaries use the exact information fractions n_k/n_max."""
    if n_max < looks:
        raise ValueError(f"a planned maximum of {n_max} labels is below the {looks} looks")
    return np.ceil(np.arange(1, looks + 1) * n_max / looks).astype(int)


# --------------------------------------------------------------------------------------------
# Paths: repeated confidence intervals and repeated p-values along a label stream
# --------------------------------------------------------------------------------------------


def gsd_paths(
    z: np.ndarray,
    *,
    level: float,
    alpha: float,
    m: int,
    n_max: int,
    theta0: float | None = None,
    var_prior: float = 0.0,
    prior_weight: float = 10.0,
    burn_in: int | None = None,
    looks: int = LOOKS,
):  # type: ignore[no-untyped-def]
    """Repeated confidence intervals at ``level`` and repeated p-values along the stream(s)
    ``z`` (shape (..., T)): entry t − 1 holds the result of the last look at or before t.

    Looks at n_k = :func:`look_times` (n_max fixed in advance); at look k with n_k ≥
    ``burn_in``: Δ̂_k ± c_k(level)·σ̂_k/√n_k (σ̂ with the monitor's variance prior) and
    p_k from |Z_k| = |Δ̂_k − θ0|·√n_k/σ̂_k on the (α, m) level grid; intervals are
    intersected over looks, p-values are running minima. Returns (ConfidenceSequence, p or
    ``None``).
    """
    from estimators.sequences import confidence_sequences as csq
    from estimators.sequences import sequential as seq

    burn_in = seq.BURN_IN if burn_in is None else burn_in
    z = np.asarray(z, dtype=float)
    t_len = z.shape[-1]
    mean, var, t = csq._running_mean_var(z, var_prior, prior_weight)
    n_looks = look_times(n_max, looks)
    taus = tuple(float(x) for x in n_looks / n_max)
    grid, table = _table_for(alpha, m, taus)
    c_level = _row(grid, table, level, taus)
    idx = np.full(t_len, -1)  # look in force after t labels (−1: none yet)
    for k, n_k in enumerate(n_looks):
        if burn_in <= n_k <= t_len:
            idx[n_k - 1 :] = k
    active = idx >= 0
    at = np.where(active, n_looks[np.maximum(idx, 0)] - 1, 0)  # 0-based index of that look
    sd = np.sqrt(np.take(var, at, axis=-1) / np.take(t, at))
    centre = np.take(mean, at, axis=-1)
    half = c_level[np.maximum(idx, 0)] * sd
    lower = np.where(active, centre - half, -np.inf)
    upper = np.where(active, centre + half, np.inf)
    lower, upper = csq._intersect(lower, upper)
    cs = csq.ConfidenceSequence(
        center=mean, lower=lower, upper=upper, sigma=np.sqrt(var), alpha=level,
        t_star=float(n_max), method="gsd_obf",
    )  # fmt: skip
    if theta0 is None:
        return cs, None
    return cs, _repeated_pvalues(theta0, centre, sd, idx, grid, table, len(n_looks))


def _repeated_pvalues(theta0, centre, sd, idx, grid, table, n_looks):  # type: ignore[no-untyped-def]
    """Repeated p-values: at each look the smallest grid level whose boundary |Z_k| reaches,
    |Z_k| = |Δ̂_k − θ0|/sd_k, carried forward to the next look, running minimum."""
    active = idx >= 0
    th = np.asarray(theta0, dtype=float)
    if th.ndim:
        th = th[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        zstat = np.abs(centre - th) / sd
    zstat = np.where(np.isfinite(zstat), zstat, 0.0)
    # p at each look (only the active entries matter), carried forward, running minimum
    p_look = np.ones(np.shape(centre))
    for k in range(n_looks):
        mask = idx == k
        if not mask.any():
            continue
        col = table[:, k]
        i = np.searchsorted(-col, -zstat[..., mask], side="left")
        p_look[..., mask] = np.where(i < grid.size, grid[np.minimum(i, grid.size - 1)], 1.0)
    p = np.minimum.accumulate(np.where(active, p_look, 1.0), axis=-1)
    return p


@lru_cache(maxsize=64)
def _table_for(alpha: float, m: int, taus: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    grid = levels(alpha, m)
    return grid, _boundaries_for(grid, np.asarray(taus))


def _row(grid: np.ndarray, table: np.ndarray, level: float, taus: tuple[float, ...]):  # type: ignore[no-untyped-def]
    i = int(np.searchsorted(grid, level))
    if i < grid.size and math.isclose(grid[i], level, rel_tol=1e-12):
        return table[i]
    return _boundaries_for(np.array([float(level)]), np.asarray(taus))[0]


def gsd_labels_needed(
    delta_hat: float, sigma: float, n_now: int, *, level: float, alpha: float, m: int,
    n_max: int, max_labels: int, burn_in: int = 30, looks: int = LOOKS,
) -> int | None:  # fmt: skip
    """More labels until the next look whose repeated interval, at the current Δ̂ and σ̂,
    would exclude 0 (c_k·σ̂/√n_k < |Δ̂|); ``None`` when no look within the plan (and the
    pool) gets there: the design's α would be spent first."""
    if not (math.isfinite(delta_hat) and math.isfinite(sigma)) or delta_hat == 0:
        return None
    n_looks = look_times(n_max, looks)
    taus = tuple(float(x) for x in n_looks / n_max)
    grid, table = _table_for(alpha, m, taus)
    c = _row(grid, table, level, taus)
    for n_k, c_k in zip(n_looks, c, strict=True):
        if n_k < max(n_now, burn_in) or n_k > max_labels:
            continue
        if c_k * sigma / math.sqrt(n_k) < abs(delta_hat):
            return int(n_k - n_now)
    return None
