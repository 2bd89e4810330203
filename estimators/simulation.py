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
