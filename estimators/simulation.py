"""Synthetic evaluation pools with known truth, for simulation tests and benchmarks.

Generator of statistics.md §6: inputs j = 1..N with shared difficulty u_j ~ N(0, 1); system
quality q_{s,j} = sqrt(0.7)·u_j + sqrt(0.3)·e_{s,j} + δ_s. Binary judgments: f = Φ(a + q),
y ~ Bernoulli(f). Post-edit judgments: f = logistic(q), y = clip(f + σ_a·ε, 0, 1). Metric:
g = r·q/sd(q) + sqrt(1 − r²)·ε, so corr(g, q) ≈ r (r = 0 is a useless metric).

The estimand is the finite-pool mean μ_s = mean_j f_{s,j} (returned as ``mu``); labels are
draws of y for items chosen uniformly at random.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special, stats

from estimators.campaign import binarise
from estimators.vondaniken import rates_from_counts


@dataclass(frozen=True)
class Pool:
    """A simulated pool: ``f``, ``g`` and ``q`` have shape (systems, N)."""

    q: np.ndarray
    f: np.ndarray
    g: np.ndarray
    kind: str
    noise_sd: float

    @property
    def mu(self) -> np.ndarray:
        """True per-system means μ_s over the pool."""
        return self.f.mean(axis=1)

    def draw_labels(self, rng: np.random.Generator, idx: np.ndarray, system: int) -> np.ndarray:
        """Fresh human labels y for items ``idx`` of ``system`` (one annotator each)."""
        f = self.f[system, idx]
        if self.kind == "binary":
            return (rng.random(f.shape) < f).astype(float)
        return np.clip(f + self.noise_sd * rng.standard_normal(f.shape), 0.0, 1.0)


def make_pool(
    rng: np.random.Generator,
    n_items: int,
    deltas: np.ndarray | list[float],
    *,
    r: float = 0.5,
    kind: Literal["binary", "post_edit"] = "binary",
    a: float = 0.3,
    noise_sd: float = 0.1,
) -> Pool:
    """A pool of ``n_items`` inputs answered by ``len(deltas)`` systems (paired design)."""
    deltas = np.asarray(deltas, dtype=float)
    u = rng.standard_normal(n_items)
    e = rng.standard_normal((deltas.size, n_items))
    q = np.sqrt(0.7) * u + np.sqrt(0.3) * e + deltas[:, None]
    f = stats.norm.cdf(a + q) if kind == "binary" else special.expit(q)
    noise = rng.standard_normal(q.shape)
    g = r * q / q.std() + np.sqrt(max(0.0, 1.0 - r * r)) * noise
    return Pool(q=q, f=f, g=g, kind=kind, noise_sd=noise_sd)


def draw_subsets(rng: np.random.Generator, n_items: int, n: int, reps: int) -> np.ndarray:
    """``reps`` independent uniformly random labelled subsets of size ``n`` (rows, no repeats).

    Sampling without replacement inside each row, as the app draws items to label.
    """
    if n > n_items:
        raise ValueError("cannot draw more labelled items than the pool has")
    if n * n <= n_items:  # ties are rare: draw with replacement, redraw rows with a tie
        idx = rng.integers(0, n_items, size=(reps, n))
        while True:
            s = np.sort(idx, axis=1)
            bad = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
            if bad.size == 0:
                return idx
            idx[bad] = rng.integers(0, n_items, size=(bad.size, n))
    out = np.empty((reps, n), dtype=np.int64)
    chunk = max(1, 2_000_000 // n_items)
    for start in range(0, reps, chunk):  # the n smallest of iid uniform keys: a random subset
        keys = rng.random((min(chunk, reps - start), n_items))
        out[start : start + keys.shape[0]] = np.argpartition(keys, n - 1, axis=1)[:, :n]
    return out


def binary_metric(
    pool: Pool, threshold: float | None = None, offsets: np.ndarray | list[float] | None = None
) -> np.ndarray:
    """Thresholded metric m = 1{g_s + offset_s ≥ threshold}, shape (systems, N).

    ``threshold`` defaults to the pool median of g. ``offsets`` shifts one system's metric
    relative to the others — a calibration shift: that system's ρ, η differ from the rest
    (statistics.md §1.6, the shared-rate negative control).
    """
    g = pool.g
    if offsets is not None:
        g = g + np.asarray(offsets, dtype=float)[:, None]
    if threshold is None:
        threshold = float(np.median(pool.g))
    return binarise(g, threshold).astype(float)


def true_rates(pool: Pool, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-system ρ = P(m=1 | y=1) and η = P(m=0 | y=0) over the pool (binary pools): the
    rates of the expected confusion counts, TP = Σ f·m, FN = Σ f·(1−m), and so on."""
    f = pool.f
    return rates_from_counts(
        (f * m).sum(axis=1), (f * (1 - m)).sum(axis=1),
        ((1 - f) * (1 - m)).sum(axis=1), ((1 - f) * m).sum(axis=1),
    )  # fmt: skip


def label_correlation(pool: Pool, system: int = 0) -> float:
    """ρ_y = corr(single label Y, g) over the pool, exact for binary pools.

    Cov(Y, g) = Cov(f, g) and Var Y = Var f + E[f(1−f)] (one Bernoulli label per item).
    For post-edit pools, E Var(Y|z) is estimated from 64 fresh label draws per item.
    """
    f, g = pool.f[system], pool.g[system]
    cov = np.mean((f - f.mean()) * (g - g.mean()))
    if pool.kind == "binary":
        var_y = f.var() + np.mean(f * (1 - f))
    else:
        rng = np.random.default_rng(0)
        draws = np.clip(f + pool.noise_sd * rng.standard_normal((64, f.size)), 0, 1)
        var_y = draws.mean(axis=0).var() + draws.var(axis=0, ddof=1).mean()
        cov = np.mean((draws.mean(axis=0) - draws.mean()) * (g - g.mean()))
    return float(cov / np.sqrt(var_y * g.var()))
