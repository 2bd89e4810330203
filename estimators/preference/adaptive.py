"""Win-rate verdicts when the queue chose the pairs adaptively: inverse-probability-weighted
increments with a known floor on the probabilities.

docs/statistics-notes.md §30. A step t is one judgment, of one source, whose pair the queue
drew with probability π_t given the judgments before it (π_t ≥ δ, the policy's known floor;
annotation.queue.pair_policy). For a pair (a, b) every step whose source has outputs of
both systems is *eligible*, and its increment is

    Z_t = 1{the step judged (a, b)} · (x_t − ½) / π_t ∈ [−1/(2δ), 1/(2δ)],

x_t ∈ {0, ½, 1} the outcome for a. Whatever the policy did with the past, and whichever
source the step had, E[Z_t | past] = Δ_ab = W_ab − ½ (the pair's win rate over the sources,
ties half, minus ½): the indicator's conditional mean is π_t, which cancels. So the Z_t are
bounded increments with a constant conditional mean, and the hedged betting capital of
Waudby-Smith & Ramdas (2024, JRSS-B, §4) on them,

    K_t(d) = ½ Π_{s≤t} (1 + λ_s (Z_s − d)) + ½ Π_{s≤t} (1 − λ_s (Z_s − d)),

is a nonnegative martingale under Δ_ab = d for any predictable λ_s with
λ_s (1/(2δ) + ½) ≤ c < 1 (every factor ≥ 1 − c > 0). That is the construction of the
anytime-valid off-policy confidence sequences of Waudby-Smith, Wu, Ramdas, Karampatziakis &
Mineiro (2024, "Anytime-valid off-policy inference for contextual bandits", ACM/IMS J. Data
Sci., §3: IPW increments, the known bound on the weights), here for a win rate. The bets are
the paper's predictable plug-in λ_s = min(√(2 log(2/α) / (σ̂²_{s−1} s log(1 + s))), c /
(1/(2δ) + ½)), σ̂²_s = (¼ + Σ_{i≤s} (Z_i − μ̂_{i−1})²)/(s + 1), μ̂_s = Σ_{i≤s} Z_i/(s + 1),
c = ½. Then (Ville's inequality) p_t = min(1, min_{s≤t} 1/K_s(0)) is an anytime p-value,
K_t(0) an e-value at any stopping time, and {d : max_{s≤t} K_s(d) < 1/α} a confidence
sequence; it is an interval (K⁺ falls and K⁻ rises in d), its ends found on a grid and
refined, each reported at its nearest rejected point (:func:`interval`). A step of another
pair leaves K_t(0) unchanged (Z = 0), so the test of Δ = 0 moves only on the pair's own
judgments, each bet scaled by 1/π.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from estimators.preference.data import Preferences
from estimators.sequences import sequential as seq

#: c: every capital factor stays ≥ 1 − c.
C_BET = 0.5
#: Grid points of the confidence sequence over Δ ∈ [−½, ½] (step 1/40); each end is then
#: refined REFINE_PASSES times with REFINE points (to 1/40 · 9⁻² ≈ 3·10⁻⁴).
GRID = 41
REFINE = 8
REFINE_PASSES = 2
#: Terms of the series for the steps without an increment (_Capital).
TERMS = 16
BOUNDS = (-0.5, 0.5)


def bets(z: np.ndarray, alpha: float, floor: float) -> np.ndarray:
    """The predictable plug-in bets λ_s along the last axis of ``z`` (module docstring)."""
    z = np.asarray(z, dtype=float)
    t = np.arange(1, z.shape[-1] + 1, dtype=float)
    mu = np.cumsum(z, axis=-1) / (t + 1.0)  # μ̂_s
    mu_prev = np.concatenate([np.zeros((*z.shape[:-1], 1)), mu[..., :-1]], axis=-1)
    dev = np.cumsum((z - mu_prev) ** 2, axis=-1)
    s2 = (0.25 + dev) / (t + 1.0)  # σ̂²_s
    s2_prev = np.concatenate([np.full((*z.shape[:-1], 1), 0.25), s2[..., :-1]], axis=-1)
    lam = np.sqrt(2.0 * np.log(2.0 / alpha) / (s2_prev * t * np.log1p(t)))
    return np.minimum(lam, C_BET / (0.5 / floor + 0.5))


def log_capital(z: np.ndarray, d: np.ndarray | float, lam: np.ndarray) -> np.ndarray:
    """log K_t(d) along the last axis; ``d`` of shape (G,) gives (G, T) for z of shape (T,)."""
    d = np.asarray(d, dtype=float)
    dz = z[None, :] - d.reshape(-1, 1) if d.ndim else (z - d)[None, :]
    up = np.cumsum(np.log1p(lam * dz), axis=-1)
    down = np.cumsum(np.log1p(-lam * dz), axis=-1)
    out = np.logaddexp(up, down) - np.log(2.0)
    return out if d.ndim else out[0]


def pvalue_path(z: np.ndarray, judged: np.ndarray, alpha_tuning: float, floor: float) -> np.ndarray:
    """p_t of H0: Δ = 0 after each eligible step; 1 until the pair has
    :data:`~estimators.sequences.sequential.BURN_IN` judgments (``judged``: how many after
    each step)."""
    lk = log_capital(z, 0.0, bets(z, alpha_tuning, floor))
    lk = np.where(np.asarray(judged) < seq.BURN_IN, -np.inf, lk)
    return np.minimum.accumulate(np.minimum(1.0, np.exp(-np.maximum(lk, 0.0))))


def evalue_path(z: np.ndarray, judged: np.ndarray, alpha_tuning: float, floor: float) -> np.ndarray:
    """K_t(0) after each eligible step (1 before the burn-in), for e-BH."""
    lk = log_capital(z, 0.0, bets(z, alpha_tuning, floor))
    return np.where(np.asarray(judged) < seq.BURN_IN, 1.0, np.exp(lk))


class _Capital:
    """log K_t(d) of one pair at the steps where it can peak, for any points d, without a
    pass over every step per point. A step with Z = 0 (another pair's, or a tie) multiplies
    K⁺ by 1 − λ_s d and K⁻ by 1 + λ_s d; those factors enter through the power sums
    P_j = Σ λ_s^j of their bets: log Π (1 − λ_s d) = −Σ_j d^j P_j / j and
    log Π (1 + λ_s d) = Σ_j (−1)^{j+1} d^j P_j / j (:data:`TERMS` terms; |λ_s d| ≤
    c/(1/δ + 1) ≤ ¼, so the remainder is below 1e-11 per step). Over a run of such
    steps K moves by λ_s d (K⁻_{s−1} − K⁺_{s−1})/2, whose sign changes at most once, from
    − to + (K⁻ − K⁺ only grows along the run, for d > 0; mirrored for d < 0): K peaks at
    the run's ends. So the running maximum is read exactly at the steps with a nonzero
    increment, the steps just before them, and the last step."""

    def __init__(self, z: np.ndarray, lam: np.ndarray) -> None:
        nonzero = z != 0
        self.idx = np.flatnonzero(nonzero)
        ends = np.concatenate([self.idx, self.idx - 1, [z.size - 1]])
        self.at = np.unique(ends[ends >= 0])  # the runs' ends: where K can peak
        self.z, self.lam = z[self.idx], lam[self.idx]
        quiet = np.where(nonzero, 0.0, lam)
        powers = np.cumsum(quiet[None, :] ** np.arange(1, TERMS + 1)[:, None], axis=1)
        self.p = powers[:, self.at] / np.arange(1, TERMS + 1)[:, None]  # P_j(t)/j at `at`
        self.count = np.cumsum(nonzero)[self.at]  # nonzero increments up to each `at`

    def log_k(self, d: np.ndarray) -> np.ndarray:
        """(len(d), len(at)): log K at the evaluation steps."""
        d = np.asarray(d, dtype=float)[:, None]
        dz = self.z[None, :] - d
        zero = np.zeros((d.shape[0], 1))
        up = np.hstack([zero, np.cumsum(np.log1p(self.lam * dz), axis=1)])[:, self.count]
        down = np.hstack([zero, np.cumsum(np.log1p(-self.lam * dz), axis=1)])[:, self.count]
        dj = d ** np.arange(1, TERMS + 1)[None, :]  # (G, J)
        signs = (-1.0) ** (np.arange(1, TERMS + 1) + 1)
        up = up - dj @ self.p  # log Π (1 − λ d) over the quiet steps
        down = down + (dj * signs) @ self.p  # log Π (1 + λ d)
        return np.logaddexp(up, down) - np.log(2.0)

    def top(self, d: np.ndarray, running: bool) -> np.ndarray:
        lk = self.log_k(d)
        return lk.max(axis=1) if running else lk[:, -1]


def capital(z: np.ndarray, alpha_tuning: float, floor: float) -> _Capital:
    """The pair's capital, read by :func:`interval` at any level."""
    return _Capital(np.asarray(z, dtype=float), bets(z, alpha_tuning, floor))


def interval(
    z: np.ndarray, level: float, alpha_tuning: float, floor: float, running: bool = True,
    capital: _Capital | None = None,
) -> tuple[float, float]:  # fmt: skip
    """The confidence sequence for Δ at ``level`` after the last step (module docstring);
    ``running`` False reads the current capital only (e-BH's set). The set is an interval:
    a grid of :data:`GRID` points, then each end refined :data:`REFINE_PASSES` times with
    :data:`REFINE` points between its last rejected and first surviving point; the
    rejected point is reported (the set only widened)."""
    if z.size == 0:
        return BOUNDS
    cap = capital or _Capital(z, bets(z, alpha_tuning, floor))
    grid = np.linspace(*BOUNDS, GRID)
    limit = np.log(1.0 / level)
    top = cap.top(grid, running)
    alive = np.flatnonzero(top < limit)
    if alive.size == 0:  # every grid point rejected: the least rejected one, widened
        k = int(np.argmin(top))
        return grid[max(k - 1, 0)], grid[min(k + 1, GRID - 1)]
    low = _end(cap, grid, alive[0], -1, limit, running)
    high = _end(cap, grid, alive[-1], +1, limit, running)
    return low, high


def _end(cap: _Capital, grid: np.ndarray, inside: int, way: int, limit: float,
         running: bool) -> float:  # fmt: skip
    """One end of the interval: between the surviving grid point ``inside`` and its
    rejected neighbour on side ``way`` (the bound itself when there is none)."""
    out = inside + way
    if out < 0 or out >= grid.size:
        return float(grid[inside])
    keep, drop = float(grid[inside]), float(grid[out])
    for _ in range(REFINE_PASSES):
        points = np.linspace(keep, drop, REFINE + 2)[1:-1]
        rejected = cap.top(points, running) >= limit
        first = int(np.argmax(rejected)) if rejected.any() else REFINE
        drop = float(points[first]) if first < REFINE else drop
        keep = float(points[first - 1]) if first > 0 else keep
    return drop


@dataclass(frozen=True)
class PairSteps:
    """One pair's eligible steps: the increments Z_t and the pair's judgments so far."""

    z: np.ndarray
    judged: np.ndarray  # judgments of the pair after each eligible step

    def estimate(self) -> float:
        """The Horvitz–Thompson estimate of Δ: the mean increment (0 with no step)."""
        return float(np.mean(self.z)) if self.z.size else 0.0


def pair_steps(prefs: Preferences, key: int) -> PairSteps:
    """The increments of the pair with index ``key`` (:func:`estimators.base.multiple.pairs`
    order) over its eligible steps: the steps whose source has both systems
    (``prefs.present``; every step when None)."""
    from estimators.base.multiple import pairs

    a, b = pairs(prefs.k)[key]
    own = prefs.pair_index() == key
    if prefs.present is None:
        eligible = np.ones(prefs.n, dtype=bool)
    else:
        eligible = prefs.present[:, a] & prefs.present[:, b]
    z = np.where(own, (prefs.outcome - 0.5) * prefs.weights, 0.0)[eligible]
    return PairSteps(z=z, judged=np.cumsum(own[eligible]))
