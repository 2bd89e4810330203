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

from estimators.data.campaign import binarise
from estimators.fixed_n.vondaniken import rates_from_counts
from estimators.sampling import active_predictions as ap


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


# ------------------------------------------------------------------------ active labelling


@dataclass(frozen=True)
class ActiveRun:
    """Visit streams of the active design (statistics.md §9), shape (reps, T) each.

    ``truth`` is μ_s (one system) or Δ = μ_A − μ_B (two systems).
    """

    z: np.ndarray
    labelled: np.ndarray
    pi: np.ndarray
    truth: float
    #: labels (or paired differences) at every visit, drawn or not, and the predictable ŷ
    #: and mean_pool(ŷ) the increments used
    y: np.ndarray
    yhat: np.ndarray
    pool_mean: np.ndarray

    @property
    def labels(self) -> np.ndarray:
        """Labelled visits per stream."""
        return self.labelled.sum(axis=-1)


def simulate_active(
    rng: np.random.Generator,
    f: np.ndarray,
    g: np.ndarray,
    systems: tuple[int, ...],
    *,
    reps: int,
    visits: int,
    rate: float,
    tau: float = 0.3,
    model: Literal["binned", "oracle", "wrong"] = "binned",
    labels: np.ndarray | None = None,
    round_size: int = 50,
    bins: int = 5,
    prior_mean: float = 0.5,
) -> ActiveRun:
    """Replay the queue's active design ``reps`` times on a pool (simulated or real).

    ``f`` (k, N): per output the expected judgment (simulated pools: Bernoulli labels are
    drawn from it) — or, with ``labels`` (k, N) given, the real labels of a data set, which
    are then replayed as they are (``f`` only defines the oracle model). ``g`` (k, N): the
    metric. Each stream visits a fresh random permutation of the items; in rounds of
    ``round_size`` visits, π = :func:`estimators.sampling.active.inclusion_probabilities` from the
    uncertainty model fitted on the labels of earlier rounds (``"binned"``: the queue's own
    model; ``"oracle"``: the true Var(Y | item); ``"wrong"``: deliberately inverted, the
    most certain items drawn most), then ξ ~ Bernoulli(π). ``rate = 1`` is uniform labelling
    of the first ``visits`` items. Increments use the predictable binned ŷ
    (:func:`estimators.sampling.active_predictions.predictions`); with two systems they are for the
    difference.
    """
    from estimators.sampling import active

    f = np.asarray(f, dtype=float)
    g = np.asarray(g, dtype=float)
    k_sel = len(systems)
    n_items = f.shape[1]
    order = np.argsort(rng.random((reps, n_items)), axis=1)[:, :visits]
    n_bins, pool_bins, vbins = _visit_bins(g, systems, order)
    y = _visit_labels(rng, f, labels, systems, order)
    codes = _bin_codes(pool_bins, n_bins, n_items)
    sums = [np.zeros((3, reps, nb)) for nb in n_bins]  # labels, Σy, Σy² per stream and bin
    rows = np.arange(reps)[:, None]
    pi = np.ones(order.shape)
    drawn = np.zeros(order.shape, dtype=bool)
    var_sel = (f * (1 - f))[list(systems)]  # the true Var(Y | item) of the oracle model
    for start in range(0, visits, round_size):
        sl = slice(start, min(start + round_size, visits))
        pi[:, sl] = _round_pi(
            model, rate, tau, sums, prior_mean, codes, order[:, sl], rows, var_sel
        )
        drawn[:, sl] = rng.random(pi[:, sl].shape) < pi[:, sl]
        hit = drawn[:, sl]
        _add_round(sums, hit, [yc[:, sl] for yc in y], [vb[:, sl] for vb in vbins], rows, n_bins)
    y_d, yhat_d, pm_d = _difference_predictions(vbins, y, drawn, pool_bins, n_bins, prior_mean)
    z = active.increments(y_d, drawn, pi, yhat_d, pm_d)
    mu = (np.asarray(labels, dtype=float) if labels is not None else f).mean(axis=1)
    truth = float(mu[systems[0]] - (mu[systems[1]] if k_sel > 1 else 0.0))
    return ActiveRun(z=z, labelled=drawn, pi=pi, truth=truth, y=y_d, yhat=yhat_d, pool_mean=pm_d)


def _bin_codes(pool_bins, n_bins, n_items):  # type: ignore[no-untyped-def]
    """Every pool item's combination of bins (one per system) as one code, the codes' pool
    shares and each code's bin per system: the binned model's uncertainty is a function of
    the code, so ū over the pool is a weighted sum over codes."""
    strides = np.cumprod([1, *n_bins[:-1]])
    code_pool = sum(pb * st for pb, st in zip(pool_bins, strides, strict=True))
    n_codes = int(np.prod(n_bins))
    code_share = np.bincount(code_pool, minlength=n_codes) / n_items
    code_bins = [(np.arange(n_codes) // st) % nb for st, nb in zip(strides, n_bins, strict=True)]
    return code_pool, code_share, code_bins


def _round_pi(model, rate, tau, sums, prior_mean, codes, visit_items, rows, var_sel):  # type: ignore[no-untyped-def]
    """π of one round's visits, π = τ·b + (1 − τ)·b·u/ū capped at 1
    (:func:`estimators.sampling.active.inclusion_probabilities`), u from the model: the binned fit
    on earlier rounds, the true Var(Y | item) ("oracle"), or its inverse ("wrong");
    1 for uniform labelling (``rate`` ≥ 1)."""
    if rate >= 1.0:
        return 1.0
    if model == "binned":
        code_pool, code_share, code_bins = codes
        v = sum(_binned_second(sums[c], prior_mean)[:, code_bins[c]] for c in range(len(sums)))
        u_code = np.sqrt(v)  # (reps, codes)
        u_visit = u_code[rows, code_pool[visit_items]]
        ref = (u_code @ code_share)[:, None]
        return np.minimum(tau * rate + (1 - tau) * rate * u_visit / ref, 1.0)
    u_pool = np.sqrt(var_sel.sum(axis=0) if model == "oracle" else (0.26 - var_sel).sum(0))
    u_visit = u_pool[visit_items]
    return np.minimum(tau * rate + (1 - tau) * rate * u_visit / u_pool.mean(), 1.0)


def _add_round(sums, hit, y, vbins, rows, n_bins) -> None:  # type: ignore[no-untyped-def]
    """Add one round's labels to each system's running (labels, Σy, Σy²) per stream and
    bin, in place."""
    reps = hit.shape[0]
    for c in range(len(sums)):
        yy = np.where(hit, y[c], 0.0)
        key = (rows * n_bins[c] + vbins[c]).ravel()
        for m, w in enumerate((hit.astype(float), yy, yy * yy)):
            sums[c][m] += np.bincount(key, w.ravel(), reps * n_bins[c]).reshape(reps, -1)


def _visit_bins(g, systems, order):  # type: ignore[no-untyped-def]
    """Per system, the number of metric bins, every pool item's bin and each visit's bin
    (quantile bins of the pool's scores,
    :func:`estimators.sampling.active_predictions.metric_edges`)."""
    edges = [ap.metric_edges(g[s]) for s in systems]
    n_bins = [e.size + 2 for e in edges]
    pool_bins = [ap.bin_index(e, g[s]) for e, s in zip(edges, systems, strict=True)]
    vbins = [pb[order] for pb in pool_bins]
    return n_bins, pool_bins, vbins


def _visit_labels(rng, f, labels, systems, order):  # type: ignore[no-untyped-def]
    """Per system, the label of every visit: Bernoulli(f) draws, or the real ``labels``."""
    if labels is None:
        return np.stack([(rng.random(order.shape) < f[s][order]).astype(float) for s in systems])
    return np.stack([np.asarray(labels, dtype=float)[s][order] for s in systems])


def _difference_predictions(vbins, y, drawn, pool_bins, n_bins, prior_mean):  # type: ignore[no-untyped-def]
    """Labels, predictable ŷ and mean_pool(ŷ) of the stream: one system's, or the
    difference A − B (:func:`estimators.sampling.active_predictions.predictions`)."""
    y_d = yhat_d = pm_d = 0.0
    for c in range(len(vbins)):
        yhat, pool_mean = ap.predictions(
            vbins[c], y[c], drawn, pool_bins[c], n_bins[c], prior_mean=prior_mean
        )
        sign = 1.0 if c == 0 else -1.0
        y_d, yhat_d, pm_d = y_d + sign * y[c], yhat_d + sign * yhat, pm_d + sign * pool_mean
    return y_d, yhat_d, pm_d


def _binned_second(sums: np.ndarray, prior_mean: float) -> np.ndarray:
    """Per stream and bin, :func:`estimators.sampling.active_predictions.fit_binned`'s E[(Y − ŷ)²]
    from running sums (labels, Σy, Σy²) of shape (3, reps, bins)."""
    from estimators.sampling.active_predictions import PRIOR_WEIGHT as w

    n_b, s1, s2 = sums
    prior_var = prior_mean * (1 - prior_mean)
    n = n_b.sum(axis=1, keepdims=True)
    m0 = (s1.sum(axis=1, keepdims=True) + w * prior_mean) / (n + w)
    ss0 = s2.sum(axis=1, keepdims=True) - 2 * m0 * s1.sum(axis=1, keepdims=True) + n * m0**2
    v0 = (ss0 + w * prior_var) / (n + w)
    mean = (s1 + w * m0) / (n_b + w)
    return (s2 - 2 * mean * s1 + n_b * mean**2 + w * v0) / (n_b + w)


def permuted_nulls(rng: np.random.Generator, base: np.ndarray, k: int, runs: int) -> np.ndarray:
    """``runs`` true-null campaigns built from real labels, (runs, N, k) in arrival order:
    each of the k pseudo-systems is an independent uniform permutation of the same labels
    ``base`` over the N items, so every pool mean is equal and every pair's Δ is exactly 0
    (test-set estimand), and the items arrive in a random order."""
    n = base.size
    return base[np.argsort(rng.random((runs, k, n)), axis=2)].transpose(0, 2, 1)
