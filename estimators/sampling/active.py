"""Active labelling: draw items with recorded probabilities that favour uncertain ones, and weight
them back (Zrnic & Candès, "Active statistical inference", ICML 2024; docs/statistics-notes.md §24).

The design (:mod:`annotation.queue` runs it). The queue's recorded random permutation of the
items is *visited* in order; visit t of item J_t labels it (ξ_t = 1, all systems' outputs
together in the paired design) with probability π_t, fixed BEFORE ξ_t is drawn from the
labels of earlier visits only:

    π_j = τ·b + (1 − τ)·b·u_j/ū,  capped at 1                     (:func:`inclusion_probabilities`)

b is the labelling rate (share of visited items that get labels), u_j the predicted
uncertainty of the item, ū its mean over the items still to visit, and τ (default 0.3) the
share mixed in from uniform, so π_j ≥ τ·b: a wrong uncertainty model costs at most a factor
1/τ of variance. Zrnic & Candès' optimum is π_j ∝ sqrt(E[(Y_j − ŷ_j)² | x_j]); for a pair it
is the uncertainty of the DIFFERENCE, E[(D_j − ŷ_{D,j})²] = v_{A,j} + v_{B,j} (independent
annotator noise), and for all pairs of k systems together Σ_{pairs} = (k−1)·Σ_s v_{s,j}, so the
item's uncertainty is u_j = sqrt(Σ_s v_{s,j}) (:func:`item_uncertainty`).

The estimator. With a prediction ŷ_t (any function of earlier visits;
:func:`estimators.sampling.active_predictions.predictions` refits a binned-metric model at fixed
visit counts), every visit gives the increment

    z_t = mean_pool(ŷ_t) + (Y_{J_t} − ŷ_t(J_t))·ξ_t/π_t                (:func:`increments`)

E[z_t | past] = mean_pool(ŷ_t) + mean_j (f_j − ŷ_t(j)) = μ for an item drawn uniformly from the pool
(the same with-replacement convention as estimators.sequences.sequential): the z_t are a martingale
difference sequence because π_t and ŷ_t are fixed before draw t, so the fixed-n mean ± z·s/√T
(:func:`fixed_n`) and the confidence sequences of docs/statistics-notes.md §19 apply to them
unchanged. A visit without a label contributes mean_pool(ŷ_t) only. Uniform labelling is the special
case π = 1 (every visited item labelled), so a campaign that switched from uniform to active is one
stream of visits with π = 1 and then π < 1: mixed histories need no special case. Paired differences
use D = Y_A − Y_B with ŷ_D = ŷ_A − ŷ_B.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from estimators.base.result import EstimateResult, wald_interval
from estimators.sampling.active_predictions import bin_index, fit_binned, metric_edges, predictions

__all__ = [
    "DEFAULT_TAU",
    "DesignSummary",
    "VisitStream",
    "Visits",
    "design_summary",
    "fixed_n",
    "inclusion_probabilities",
    "increments",
    "item_uncertainties",
    "item_uncertainty",
    "visit_stream",
]

#: Share of the labelling rate every item keeps whatever the model says (π ≥ τ·b).
DEFAULT_TAU = 0.3


# ------------------------------------------------------------------------ the draw


def inclusion_probabilities(
    uncertainty: np.ndarray,
    rate: float,
    tau: float = DEFAULT_TAU,
    *,
    reference: float | None = None,
) -> np.ndarray:
    """π_j = τ·b + (1 − τ)·b·u_j/ū capped at 1 (Zrnic & Candès 2024, §3 with uniform mixing).

    ``uncertainty`` u_j ≥ 0 (NaN or ≤ 0 counts as 0: such an item keeps the floor τ·b);
    ``rate`` b ∈ (0, 1] the share of visited items to label; ``tau`` τ ∈ (0, 1];
    ``reference`` ū (default: the mean of ``uncertainty``, e.g. over the items still to
    visit). With no information (all u equal, or ū = 0) every π_j = b: uniform thinning.
    """
    if not 0.0 < rate <= 1.0:
        raise ValueError(f"the labelling rate must lie in (0, 1], not {rate}")
    if not 0.0 < tau <= 1.0:
        raise ValueError(f"tau must lie in (0, 1], not {tau}")
    u = np.asarray(uncertainty, dtype=float)
    u = np.where(np.isfinite(u) & (u > 0), u, 0.0)
    ref = float(np.mean(u)) if reference is None else float(reference)
    if not (math.isfinite(ref) and ref > 0):
        return np.full(u.shape, float(rate))
    return np.minimum(tau * rate + (1.0 - tau) * rate * u / ref, 1.0)


def item_uncertainty(residual_var: np.ndarray) -> np.ndarray:
    """u_j = sqrt(Σ_s v_{s,j}) from per-system predicted E[(Y − ŷ)²] of shape (k, N).

    The predicted uncertainty of the paired differences of item j: Σ over the k(k−1)/2 pairs
    of E[(D − ŷ_D)²] = (k−1)·Σ_s v_{s,j} under independent annotator noise, so ranking items
    by it favours the items whose differences the metrics predict worst. A system without an
    output for the item (NaN) adds nothing.
    """
    v = np.asarray(residual_var, dtype=float)
    return np.sqrt(np.nansum(np.where(v > 0, v, 0.0), axis=0))


# ------------------------------------------------------------------------ the model


def item_uncertainties(
    g: np.ndarray,
    present: np.ndarray,
    system: np.ndarray,
    item: np.ndarray,
    y: np.ndarray,
) -> np.ndarray:
    """u_j of every item from a campaign's labels so far (the queue's draw rounds).

    ``g`` (k, N): one metric's scores (NaN: none), ``present`` (k, N): the outputs that
    exist; ``system``, ``item``, ``y``: the first judgment of each labelled output. Per
    system a :func:`estimators.sampling.active_predictions.fit_binned` model on quantile bins of the
    metric (from all the pool's scores) gives v_{s,j} = E[(Y − ŷ)²];
    u_j = :func:`item_uncertainty`. Without labels or a metric every item gets the same u
    (uniform thinning).
    """
    g = np.asarray(g, dtype=float)
    edges = metric_edges(g)
    v = np.empty(g.shape)
    for s in range(g.shape[0]):
        mine = system == s
        v[s] = fit_binned(edges, g[s, item[mine]], y[mine]).residual_var(g[s])
    v[~np.asarray(present, dtype=bool)] = np.nan
    return item_uncertainty(v)


# ------------------------------------------------------------------------ the estimator


def increments(
    y: np.ndarray,
    labelled: np.ndarray,
    pi: np.ndarray,
    yhat: np.ndarray,
    yhat_pool_mean: np.ndarray,
) -> np.ndarray:
    """z_t = mean_pool(ŷ_t) + (Y_t − ŷ_t)·ξ_t/π_t along visit streams (module docstring).

    ``labelled`` is ξ_t (True: the visit drew the item and its label is in), ``pi`` the
    recorded π_t ∈ (0, 1]. A martingale difference sequence with mean μ whenever π_t and ŷ_t
    were fixed before draw t (Zrnic & Candès 2024, §4 "sequential"; docs/statistics-notes.md §24).
    """
    pi = np.asarray(pi, dtype=float)
    if np.any(~np.isfinite(pi) | (pi <= 0) | (pi > 1)):
        raise ValueError("inclusion probabilities must lie in (0, 1]")
    lab = np.asarray(labelled, dtype=bool)
    resid = np.where(lab, (np.asarray(y, dtype=float) - yhat) / pi, 0.0)
    return np.asarray(yhat_pool_mean, dtype=float) + resid


def fixed_n(z: np.ndarray, n_labels: int, level: float = 0.95) -> EstimateResult:
    """Fixed-n active-inference estimate: θ̂ = mean_t z_t ± t_{n−1, 1−α/2}·s_z/√T.

    T visits, s_z the SD of the increments (ddof 1); the martingale CLT makes it valid for
    predictable π and ŷ (Zrnic & Candès 2024, Thm 1 for the batch form θ̂ = mean_pool(ŷ) +
    (1/N) Σ_j (Y_j − ŷ_j)ξ_j/π_j, of which this is the visit-by-visit version).
    ``n_labels`` n is the number of human labels among the visits. The t quantile with
    n − 1 degrees of freedom (the information is in the n labels, not the T visits; the
    1/π weights make s_z heavy-tailed) keeps the coverage at 0.95 from n = 50 (measured
    0.947–0.953 where the normal quantile gave 0.93–0.94, tests/estimators/test_active.py).
    """
    z = np.asarray(z, dtype=float).ravel()
    t = z.size
    if t < 2:
        est = float(z[0]) if t else float("nan")
        return EstimateResult(est, (-math.inf, math.inf), math.inf, n_labels, 0, "active", level)
    est = float(z.mean())
    se = float(z.std(ddof=1) / math.sqrt(t))
    df = float(max(int(n_labels) - 1, 1))
    return EstimateResult(
        estimate=est,
        ci=wald_interval(est, se, level, df),
        se=se,
        n_human=int(n_labels),
        n_metric=t - int(n_labels),
        method="active",
        level=level,
        df=df,
        diagnostics={"visits": t},
    )


@dataclass(frozen=True)
class DesignSummary:
    """The sampling design so far: how far the weights spread and what they saved."""

    visits: int
    labels: int
    #: Kish effective sample size of the labels, (Σ 1/π)²/Σ 1/π²
    ess: float
    #: estimated variance of the active estimate, s_z²/T
    var_active: float
    #: estimated variance of uniform sampling of the same number of labels with the same ŷ
    var_uniform: float

    @property
    def saving(self) -> float:
        """1 − var_active/var_uniform: the share of labels saved (negative: active lost)."""
        if not (self.var_uniform > 0 and math.isfinite(self.var_active)):
            return float("nan")
        return 1.0 - self.var_active / self.var_uniform


def design_summary(
    y: np.ndarray,
    labelled: np.ndarray,
    pi: np.ndarray,
    yhat: np.ndarray,
    yhat_pool_mean: np.ndarray,
) -> DesignSummary:
    """Effective sample size and measured saving of one visit stream (docs/statistics-notes.md §24).

    Active: Var̂ = s_z²/T. Uniform with the same n labels and the same ŷ (increments
    mean_pool(ŷ) + Y − ŷ): Var̂ = σ̂²_U/n with σ̂²_U = m₂ − m₁², m_k = (1/T) Σ_t ξ_t (Y_t − ŷ_t)^k/π_t
    (Horvitz–Thompson estimates of the pool moments of the residual).
    """
    lab = np.asarray(labelled, dtype=bool)
    pi = np.asarray(pi, dtype=float)
    z = increments(y, lab, pi, yhat, yhat_pool_mean)
    t, n = z.size, int(lab.sum())
    w = 1.0 / pi[lab]
    ess = float(w.sum() ** 2 / np.sum(w * w)) if n else 0.0
    if t < 2 or n < 2:
        return DesignSummary(t, n, ess, float("nan"), float("nan"))
    r = np.asarray(y, dtype=float)[lab] - np.asarray(yhat, dtype=float)[lab]
    m1 = float(np.sum(r * w) / t)
    m2 = float(np.sum(r * r * w) / t)
    return DesignSummary(t, n, ess, float(z.var(ddof=1) / t), max(m2 - m1 * m1, 0.0) / n)


@dataclass(frozen=True)
class Visits:
    """The queue's visits in draw order (paired design: one visit per item).

    ``drawn`` is ξ (the visit drew the item for labelling), ``pi`` the recorded π (1.0 for
    uniform slots and imported judgments), ``position`` the queue position of the visit
    (its first slot). Drawn visits without a label in the data (skipped) are left out by
    the reader of the stream, the same missing-at-random rule as the uniform queue.
    """

    item: np.ndarray
    pi: np.ndarray
    drawn: np.ndarray
    position: np.ndarray

    def __len__(self) -> int:
        return int(self.item.size)

    @property
    def weighted(self) -> bool:
        """Some visit carries π < 1 (an active round drew it)."""
        return bool(np.any(self.pi < 1.0))

    def before(self, position: float) -> Visits:
        """The visits at queue positions before ``position`` (the monitor's frontier)."""
        keep = self.position < position
        return Visits(self.item[keep], self.pi[keep], self.drawn[keep], self.position[keep])


@dataclass(frozen=True)
class VisitStream:
    """A system's (or a pair's) increments along the visits, and what they cost."""

    z: np.ndarray
    n_labels: int
    summary: DesignSummary


def visit_stream(
    visits: Visits,
    labels: list[np.ndarray],
    metrics: list[np.ndarray | None],
    pool: np.ndarray,
    *,
    prior_mean: float = 0.5,
) -> VisitStream:
    """The active increments of one system (one entry in ``labels``/``metrics``) or of the
    difference of a pair (two entries: D = Y_A − Y_B, ŷ_D = ŷ_A − ŷ_B) along ``visits``.

    ``labels[c]`` (N,) is the system's first label of each item (NaN: none), ``metrics[c]``
    (N,) or (N, k) its metric scores (the first column is binned for ŷ; ``None``: ŷ is the
    running label mean), ``pool`` (N,) the items the stream covers (the system's outputs, or
    those both systems of a pair have). Visits outside the pool are left out; a drawn visit
    without every label (skipped) is dropped, as the uniform queue drops a skipped item.
    """
    keep = pool[visits.item]
    item, pi, drawn = visits.item[keep], visits.pi[keep], visits.drawn[keep]
    have = np.all([np.isfinite(lab[item]) for lab in labels], axis=0)
    keep = ~drawn | have
    item, pi, drawn = item[keep], pi[keep], drawn[keep]
    y_d = yhat_d = pm_d = np.zeros(item.size)
    for c, (lab, met) in enumerate(zip(labels, metrics, strict=True)):
        g = np.full(pool.size, np.nan) if met is None else np.asarray(met, dtype=float)
        g = g[:, 0] if g.ndim == 2 else g
        edges = metric_edges(g[pool])
        yhat, pm = predictions(
            bin_index(edges, g[item]),
            lab[item],
            drawn,
            bin_index(edges, g[pool]),
            edges.size + 2,
            prior_mean=prior_mean,
        )
        sign = 1.0 if c == 0 else -1.0
        y_d = y_d + sign * np.where(drawn, lab[item], 0.0)
        yhat_d, pm_d = yhat_d + sign * yhat, pm_d + sign * pm
    z = increments(y_d, drawn, pi, yhat_d, pm_d)
    return VisitStream(z, int(drawn.sum()), design_summary(y_d, drawn, pi, yhat_d, pm_d))
