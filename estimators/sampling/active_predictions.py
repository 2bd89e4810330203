"""The predictable ŷ of active labelling: a binned-metric model refitted at fixed visit counts.

docs/statistics-notes.md §24 (Zrnic & Candès, "Active statistical inference", ICML 2024). The
metric's pool scores are cut into quantile bins; ŷ of an item is its bin's label mean shrunk
towards the overall mean with :data:`PRIOR_WEIGHT` pseudo-labels, (s_b + w·m₀)/(n_b + w), and
its E[(Y − ŷ)²] the bin's shrunk residual variance. Along a visit stream the model is refitted
only after the visit counts in :data:`REFIT_AT`, on earlier visits' labels, so ŷ_t is fixed
before draw t and the increments of :func:`estimators.sampling.active.increments` stay a
martingale difference sequence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Visit counts after which the predictable ŷ of :func:`predictions` is refitted.
REFIT_AT = (20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960)


#: Pseudo-labels of the prior in every bin of :func:`fit_binned`.
PRIOR_WEIGHT = 5.0


def metric_edges(g_pool: np.ndarray, bins: int = 5) -> np.ndarray:
    """Interior edges of ``bins`` quantile bins of a metric over the pool (fixed before any
    label, so the bins never depend on labels). Empty when the metric has no spread."""
    g = np.asarray(g_pool, dtype=float).ravel()
    g = g[np.isfinite(g)]
    if g.size == 0:
        return np.zeros(0)
    return np.unique(np.quantile(g, np.linspace(0, 1, bins + 1)[1:-1]))


@dataclass(frozen=True)
class BinnedModel:
    """ŷ and E[(Y − ŷ)²] per metric bin; the last bin holds items without a score."""

    edges: np.ndarray
    mean: np.ndarray  # (bins + 1,) ŷ per bin
    second: np.ndarray  # (bins + 1,) predicted E[(Y − ŷ)²] per bin
    n_labels: int

    def bin_of(self, g: np.ndarray) -> np.ndarray:
        return bin_index(self.edges, g)

    def predict(self, g: np.ndarray) -> np.ndarray:
        return self.mean[self.bin_of(g)]

    def residual_var(self, g: np.ndarray) -> np.ndarray:
        return self.second[self.bin_of(g)]


def bin_index(edges: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Bin of each value (0..len(edges)); a missing score (NaN) gets the extra last bin."""
    g = np.asarray(g, dtype=float)
    idx = np.searchsorted(edges, np.where(np.isfinite(g), g, 0.0), side="right")
    return np.where(np.isfinite(g), idx, edges.size + 1)


def fit_binned(
    edges: np.ndarray,
    g: np.ndarray,
    y: np.ndarray,
    *,
    prior_mean: float = 0.5,
    prior_var: float = 0.25,
    prior_weight: float = PRIOR_WEIGHT,
) -> BinnedModel:
    """A metric-bin model of the label, shrunk to the overall mean (empirical Bayes).

    Overall: m₀ = (Σy + w·prior_mean)/(n + w), v₀ = (Σ(y − m₀)² + w·prior_var)/(n + w).
    Bin b: ŷ_b = (Σ_b y + w·m₀)/(n_b + w), E[(Y − ŷ)²]_b = (Σ_b (y − ŷ_b)² + w·v₀)/(n_b + w)
    (w = ``prior_weight`` pseudo-labels). Binary labels: prior_var 0.25 is the largest
    Bernoulli variance, so a bin with few labels is treated as uncertain.
    """
    g = np.asarray(g, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(y)
    g, y = g[ok], y[ok]
    n_bins = edges.size + 2
    w = float(prior_weight)
    m0 = (y.sum() + w * prior_mean) / (y.size + w)
    v0 = (np.sum((y - m0) ** 2) + w * prior_var) / (y.size + w)
    b = bin_index(edges, g)
    n_b = np.bincount(b, minlength=n_bins).astype(float)
    s_b = np.bincount(b, weights=y, minlength=n_bins)
    mean = (s_b + w * m0) / (n_b + w)
    ss = np.bincount(b, weights=(y - mean[b]) ** 2, minlength=n_bins)
    second = (ss + w * v0) / (n_b + w)
    return BinnedModel(edges=edges, mean=mean, second=second, n_labels=int(y.size))


def predictions(
    bins: np.ndarray,
    y: np.ndarray,
    labelled: np.ndarray,
    pool_bins: np.ndarray,
    n_bins: int,
    *,
    prior_mean: float = 0.5,
    prior_weight: float = PRIOR_WEIGHT,
    refit_at: tuple[int, ...] = REFIT_AT,
) -> tuple[np.ndarray, np.ndarray]:
    """Predictable ŷ along visit streams: ŷ_t(J_t) and mean_pool(ŷ_t), shape (..., T) each.

    The bin means of :func:`fit_binned` (means only) refitted after the visit counts in
    ``refit_at``; visit t uses the fit on the labels of visits before the last refit point
    ≤ t (before the first: ``prior_mean``), so ŷ_t depends on earlier visits only.
    ``bins`` (..., T) is the metric bin of each visit's item (0..n_bins−1), ``y`` the labels
    (ignored where ``labelled`` is False), ``pool_bins`` the bins of every pool item, whose
    counts turn bin means into mean_pool(ŷ). Vectorised over leading stream axes.
    """
    bins = np.asarray(bins, dtype=int)
    lab = np.asarray(labelled, dtype=bool)
    y = np.where(lab, np.asarray(y, dtype=float), 0.0)
    t_len = bins.shape[-1]
    share = np.bincount(np.asarray(pool_bins, dtype=int).ravel(), minlength=n_bins) / max(
        np.size(pool_bins), 1
    )
    lead = bins.shape[:-1]
    streams = int(np.prod(lead))
    flat_bins = bins.reshape(streams, t_len)
    flat_lab = lab.reshape(streams, t_len)
    flat_y = y.reshape(streams, t_len)
    row_key = (np.arange(streams) * n_bins)[:, None]
    n_b = np.zeros((streams, n_bins))
    s_b = np.zeros((streams, n_bins))
    yhat = np.full((streams, t_len), float(prior_mean))
    pool_mean = np.full((streams, t_len), float(prior_mean))
    w = float(prior_weight)
    points = [p for p in refit_at if p < t_len]
    done = 0
    for k, start in enumerate(points):
        # labels of visits done..start−1 join the fit used from visit ``start`` on
        seg = slice(done, start)
        _add_labels(n_b, s_b, row_key + flat_bins[:, seg], flat_lab[:, seg], flat_y[:, seg])
        done = start
        m0 = (s_b.sum(axis=1, keepdims=True) + w * prior_mean) / (
            n_b.sum(axis=1, keepdims=True) + w
        )
        mean = (s_b + w * m0) / (n_b + w)
        stop = points[k + 1] if k + 1 < len(points) else t_len
        sl = slice(start, stop)
        yhat[:, sl] = np.take_along_axis(mean, flat_bins[:, sl], axis=1)
        pool_mean[:, sl] = (mean @ share)[:, None]
    yhat = yhat.reshape(bins.shape)
    pool_mean = pool_mean.reshape(bins.shape)
    return yhat, pool_mean


def _add_labels(
    n_b: np.ndarray, s_b: np.ndarray, keys: np.ndarray, labelled: np.ndarray, y: np.ndarray
) -> None:
    """Add a segment of visits to the per-stream bin label counts n_b and sums s_b, in place
    (``keys``: stream × n_bins + bin of each visit)."""
    streams, n_bins = n_b.shape
    key = keys.ravel()
    hit = labelled.ravel().astype(float)
    n_b += np.bincount(key, hit, streams * n_bins).reshape(streams, n_bins)
    s_b += np.bincount(key, hit * y.ravel(), streams * n_bins).reshape(streams, n_bins)
