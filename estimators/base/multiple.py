"""Several systems: Holm, Bonferroni intervals, rank sets (docs/statistics-notes.md §20).

- :func:`holm` — Holm (1979) step-down adjusted p-values over the k(k−1)/2 pairwise tests.
  With anytime-valid p-values
  (:func:`estimators.sequences.confidence_sequences.asymptotic_cs_pvalue`) the adjusted p-values
  are themselves anytime valid: P(any false rejection at a stopping time τ) ≤ α,
  because each p_τ is a valid p-value at τ and Holm controls the FWER for any valid p-values.
- :func:`bonferroni_alpha` / :func:`bonferroni_cs` — simultaneous intervals at level α/m.
- :func:`rank_sets` — rank(i) ∈ [1 + #{j significantly better than i},
  k − #{j significantly worse than i}] (rank 1 = best).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np


@dataclass(frozen=True)
class HolmResult:
    """Holm-adjusted p-values (same shape as the input) and the rejections at ``alpha``."""

    adjusted: np.ndarray
    reject: np.ndarray
    alpha: float


def holm(pvalues: Sequence[float] | np.ndarray, alpha: float = 0.05) -> HolmResult:
    """Holm's step-down procedure over the last axis of ``pvalues``.

    Sort p_(1) ≤ … ≤ p_(m); adjusted p_(i) = max_{j≤i} min(1, (m − j + 1)·p_(j)); reject
    H_(i) when its adjusted p-value ≤ α. Controls the family-wise error rate at α for any
    dependence between the tests (Holm 1979). Works on batches (..., m) and on path arrays
    when the tests are on the last axis. NaN p-values (tests not yet possible) count as 1.
    """
    p = np.asarray(pvalues, dtype=float)
    p = np.where(np.isnan(p), 1.0, p)
    if p.ndim == 0:
        p = p[None]
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    sorted_p = np.take_along_axis(p, order, axis=-1)
    factors = m - np.arange(m)
    adj_sorted = np.maximum.accumulate(np.minimum(1.0, factors * sorted_p), axis=-1)
    adjusted = np.empty_like(adj_sorted)
    np.put_along_axis(adjusted, order, adj_sorted, axis=-1)
    return HolmResult(adjusted=adjusted, reject=adjusted <= alpha, alpha=alpha)


def bonferroni_alpha(alpha: float, m: int) -> float:
    """Per-interval level α/m so that m intervals (or CSs) hold simultaneously at 1 − α."""
    if m < 1:
        raise ValueError("need at least one comparison")
    return alpha / m


def bonferroni_cs(
    increments: Sequence[np.ndarray],
    cs_function: Callable[..., object],
    alpha: float = 0.05,
    **kwargs,
) -> list:
    """Simultaneous confidence sequences: ``cs_function(z, alpha/m, **kwargs)`` for each of
    the m increment paths. With probability ≥ 1 − α all m sequences cover at all times."""
    a = bonferroni_alpha(alpha, len(increments))
    return [cs_function(z, a, **kwargs) for z in increments]


def pairs(k: int) -> list[tuple[int, int]]:
    """The k(k−1)/2 pairs (a, b), a < b, in the order every function here uses."""
    return list(combinations(range(k), 2))


@dataclass(frozen=True)
class RankSet:
    """Plausible ranks of one system: ``best``..``worst`` (1 = best)."""

    best: int
    worst: int

    def __str__(self) -> str:
        return str(self.best) if self.best == self.worst else f"{self.best}–{self.worst}"


def rank_sets(k: int, significant: np.ndarray, estimates: np.ndarray) -> list[RankSet]:
    """Rank sets from significant pairwise differences (docs/statistics-notes.md §20).

    ``significant[p]`` says whether pair p of :func:`pairs(k) <pairs>` (a, b) is significant,
    ``estimates[p]`` is Δ̂ = μ̂_a − μ̂_b (its sign says who is better; higher μ = better —
    pass −Δ̂ for lower-is-better scales such as HTER). rank(i) ∈
    [1 + #{j significantly better than i}, k − #{j significantly worse than i}].
    """
    significant = np.asarray(significant, dtype=bool)
    estimates = np.asarray(estimates, dtype=float)
    plist = pairs(k)
    if significant.shape != (len(plist),) or estimates.shape != (len(plist),):
        raise ValueError(f"need {len(plist)} pairwise entries for {k} systems")
    better = np.zeros(k, dtype=int)  # how many are significantly better than i
    worse = np.zeros(k, dtype=int)  # how many are significantly worse than i
    for (a, b), sig, d in zip(plist, significant, estimates, strict=True):
        if not sig or d == 0:
            continue
        winner, loser = (a, b) if d > 0 else (b, a)
        better[loser] += 1
        worse[winner] += 1
    return [RankSet(best=1 + int(better[i]), worst=k - int(worse[i])) for i in range(k)]
