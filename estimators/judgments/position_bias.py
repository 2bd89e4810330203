"""Position bias on comparative screens: does an output's place on the screen change its
judgment?

Data: complete screens of one size k; screen i has a judgment y_ij (a 0/1 label or a score)
at each position j = 0..k-1. The outputs were put in a random order per annotator and item
(annotation.judging.comparative), so under H0 "no position effect" the k judgments of a screen are
exchangeable over positions.

Reported per position j, over the n screens:

- the mean judgment ȳ_·j with a t interval over screens (screens are independent; the k
  judgments of one screen are not, so intervals are per position, across screens);
- the position effect e_j = mean_i (y_ij − ȳ_i·), the judgment at j minus its screen's mean,
  with a t interval over screens: the screen's item and its systems cancel out.

Test of H0 (pairing respected): the within-screen permutation test. Statistic
T = Σ_j n · ē_j² (ē_j the position effect above); its null distribution permutes the k
judgments within each screen independently (Monte Carlo, B draws; p = (1 + #{T* ≥ T}) / (B + 1),
exact in level for any B, Phipson & Smyth 2010). Randomised order makes the permutation
null exact, for labels and scores alike. For 0/1 labels Cochran's Q is given too:
Q = (k − 1)(k Σ_j C_j² − N²) / (k N − Σ_i R_i²) ~ χ²_{k−1} (Cochran 1950; C_j column totals,
R_i screen totals, N the grand total), the binary case of Friedman's test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["PositionBias", "cochran_q", "permutation_p", "position_bias", "screens_matrix"]


@dataclass(frozen=True)
class PositionBias:
    size: int  # k, outputs per screen
    n_screens: int
    mean: tuple[float, ...]  # ȳ_·j per position
    mean_low: tuple[float, ...]
    mean_high: tuple[float, ...]
    effect: tuple[float, ...]  # e_j = mean of (y_ij − screen mean)
    effect_low: tuple[float, ...]
    effect_high: tuple[float, ...]
    p_permutation: float
    cochran_q: float | None  # binary labels only
    p_cochran: float | None
    alpha: float

    @property
    def detected(self) -> bool:
        return self.p_permutation <= self.alpha


def screens_matrix(
    screen: np.ndarray, position: np.ndarray, value: np.ndarray, size: int
) -> np.ndarray:
    """An n × k matrix of the complete screens of ``size`` (screen ids, 0-based positions
    and values as parallel arrays); incomplete screens (an attention check's) are left out."""
    screen, position = np.asarray(screen), np.asarray(position, dtype=int)
    value = np.asarray(value, dtype=float)
    ids, inverse = np.unique(screen, return_inverse=True)
    y = np.full((len(ids), size), np.nan)
    ok = (position >= 0) & (position < size)
    y[inverse[ok], position[ok]] = value[ok]
    return y[~np.isnan(y).any(axis=1)]


def _t_interval(x: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = x.shape[0]
    m = x.mean(axis=0)
    if n < 2:
        return m, np.full_like(m, np.nan), np.full_like(m, np.nan)
    half = stats.t.ppf(1 - alpha / 2, n - 1) * x.std(axis=0, ddof=1) / np.sqrt(n)
    return m, m - half, m + half


def permutation_p(y: np.ndarray, draws: int = 2000, seed: int = 0) -> float:
    """Within-screen permutation p-value of T = n Σ_j ē_j² (module docstring)."""
    n, k = y.shape
    centred = y - y.mean(axis=1, keepdims=True)
    observed = n * np.sum(centred.mean(axis=0) ** 2)
    rng = np.random.default_rng(seed)
    exceed, batch = 0, max(1, 4_000_000 // max(n * k, 1))
    rows = np.arange(n)[None, :, None]
    for start in range(0, draws, batch):
        b = min(batch, draws - start)
        order = np.argsort(rng.random((b, n, k)), axis=2)
        means = centred[rows, order].mean(axis=1)  # b × k position effects
        exceed += int(np.sum(n * np.sum(means**2, axis=1) >= observed - 1e-12))
    return (1 + exceed) / (draws + 1)


def cochran_q(y: np.ndarray) -> tuple[float, float]:
    """Cochran's Q and its χ²_{k−1} p-value for an n × k 0/1 matrix (module docstring)."""
    k = y.shape[1]
    col, row = y.sum(axis=0), y.sum(axis=1)
    total = row.sum()
    denominator = k * total - np.sum(row**2)
    if denominator <= 0:  # every screen all 0 or all 1: no information on positions
        return 0.0, 1.0
    q = (k - 1) * (k * np.sum(col**2) - total**2) / denominator
    return float(q), float(stats.chi2.sf(q, k - 1))


def position_bias(
    y: np.ndarray, *, binary: bool, alpha: float = 0.05, draws: int = 2000, seed: int = 0
) -> PositionBias | None:
    """Position means, effects and the tests for an n × k matrix of complete screens
    (None: fewer than 2 screens or fewer than 2 positions)."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 2 or y.shape[0] < 2 or y.shape[1] < 2:
        return None
    m, m_lo, m_hi = _t_interval(y, alpha)
    e, e_lo, e_hi = _t_interval(y - y.mean(axis=1, keepdims=True), alpha)
    q = cochran_q(y) if binary else (None, None)
    return PositionBias(
        size=y.shape[1],
        n_screens=y.shape[0],
        mean=tuple(map(float, m)),
        mean_low=tuple(map(float, m_lo)),
        mean_high=tuple(map(float, m_hi)),
        effect=tuple(map(float, e)),
        effect_low=tuple(map(float, e_lo)),
        effect_high=tuple(map(float, e_hi)),
        p_permutation=permutation_p(y, draws, seed),
        cochran_q=q[0],
        p_cochran=q[1],
        alpha=alpha,
    )
