"""A learned control ŷ: one prediction of the human judgment from every metric, cross-fitted.

docs/statistics-notes.md §23 (cross-prediction; Zrnic & Candès, "Cross-prediction-powered
inference", PNAS 2024). Several weak signals (BLEU/chrF/TER, BERTScore P·R·F, imported COMET-like
columns, cheap text features) predict the human judgment better together than any one. A model h(x)
is fitted on the labelled outputs, but the prediction used for a labelled output must come from a
model that never saw that output's label:

- K-fold cross-fitting: the labelled items are split into K folds *by item* (all systems'
  outputs of one input share a fold, so a paired difference's two predictions are both
  out-of-fold); h_k is trained on the labels outside fold k, labelled output i gets
  ŷ_i = h_{k(i)}(x_i), an unlabelled output gets the mean of the K models, (1/K)·Σ_k h_k(x).
  Then E[ŷ_i] is the same for labelled and unlabelled outputs, and ŷ is ONE control in
  PPI++ (:mod:`estimators.fixed_n.control_variates`, λ still tuned):

      θ̂ = ȳ_L − λ̂·(mean_L ŷ − mean_U ŷ),  se² = Var_L(y − λ̂ŷ)/n + λ̂²·Var_U(ŷ)/N_u,

  so a useless ŷ costs at most the λ-noise of one control; the data efficiency is
  1/(1 − ρ²·N_u/(N_u+n)) with ρ = corr(Y, ŷ) (docs/statistics-notes.md §17).
- Predictable (for anytime-valid monitoring, docs/statistics-notes.md §19): h is refitted only on
  the labels seen before, at doubling label counts t = 30, 60, 120, …; increment t uses the model of
  the last refit, centred on that same model's mean over the whole pool
  (:func:`predictable_control`), so E[h_t | past] = 0 for an item drawn uniformly from the pool and
  the increments stay martingale differences.

Models (fixed seeds, features standardised on the training fold, missing values set to
the training mean): L2-regularised logistic regression for binary labels, ridge
regression otherwise (stable at n = 30); scikit-learn's histogram gradient boosting when
labels are plentiful (≥ :data:`estimators.fixed_n.learned_models.BOOSTING_MIN_LABELS` training
rows; :mod:`estimators.fixed_n.learned_models`).

Never give anything derived from human work (post-edits, HTER, DA, ratings) as a feature:
that is the label itself and the intervals would be wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from estimators.base.result import (
    MIN_LABELS_METRIC_ASSISTED,
    EstimateResult,
    Unavailable,
    unavailable_result,
)
from estimators.fixed_n import control_variates as cv
from estimators.fixed_n.efficiency import correlation
from estimators.fixed_n.learned_models import Model, fit_predictor

__all__ = [
    "CROSS_FIT",
    "FIRST_REFIT",
    "CrossFit",
    "CrossFitSpec",
    "LearnedGrid",
    "PredictableControl",
    "cross_fit",
    "learned_grid",
    "learned_ppi_mean",
    "learned_ppi_paired_difference",
    "predictable_control",
    "refit_points",
]


#: Default number of cross-fitting folds (docs/statistics-notes.md §23: K = 5–10).
FOLDS = 5
#: Residual variance Var_L(y − λ̂ŷ) of a fitted intercept and slope: n − 2 in the
#: denominator (the t quantile then has n − 2 degrees of freedom), as for any regression
#: residual; measured binary coverage at n = 50 rose from 0.934 with n − 1.
RESIDUAL_DDOF = 2
#: First refit of the predictable (monitor) control; later refits at doubling counts.
FIRST_REFIT = 30


@dataclass(frozen=True)
class CrossFitSpec:
    """How ŷ is cross-fitted: into ``folds`` folds by item (fewer when there are fewer items,
    at least 2), with the ``model`` of :func:`estimators.fixed_n.learned_models.fit_predictor`, and
    ``seed`` drawing the folds (model k is fitted with ``seed`` + k)."""

    folds: int = FOLDS
    model: Model = "auto"
    seed: int = 0


#: The default cross-fitting: :data:`FOLDS` folds, the model chosen by the labels, seed 0.
CROSS_FIT = CrossFitSpec()


@dataclass(frozen=True)
class CrossFit:
    """Cross-fitted predictions, centred: out-of-fold for labelled rows, the K-model mean
    otherwise. ``offset`` (= m̄, which depends on every fold's labels) puts them back on the
    label scale for display; estimators do not need it (PPI++ ignores a constant)."""

    labelled: np.ndarray
    unlabelled: np.ndarray
    model: str
    folds: int
    offset: float = 0.0


def _fold_of(groups: np.ndarray, folds: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """A fold per row, the same for rows of one group (item); random, balanced by group."""
    uniq, inverse = np.unique(groups, return_inverse=True)
    k = max(2, min(folds, uniq.size))
    fold_of_group = rng.permutation(uniq.size) % k
    return fold_of_group[inverse], k


def cross_fit(
    x_labelled: np.ndarray,
    y: np.ndarray,
    x_unlabelled: np.ndarray,
    *,
    groups: np.ndarray | None = None,
    spec: CrossFitSpec = CROSS_FIT,
) -> CrossFit:
    """K-fold cross-fitted ŷ (Zrnic & Candès 2024, §2): ŷ_i = h̃_{k(i)}(x_i) for labelled row
    i (h_k trained without fold k), ŷ = (1/K)·Σ_k h̃_k(x) for unlabelled rows, where
    h̃_k = h_k − m_k is h_k centred on its own mean m_k over all rows (labelled and
    unlabelled: features only); ``offset`` m̄ = mean_k m_k. Each h̃_k is still fixed before the
    labels of fold k, so the PPI++ correction stays unbiased; the centring removes the
    fold-to-fold intercept (≈ ȳ without fold k), which otherwise makes mean_L ŷ track ȳ and
    biases Cov_L(y, ŷ) by ≈ −Var(ȳ) — with weak features an under-estimated se (measured:
    coverage 0.937 at n = 50) and a width above human-only.

    ``groups`` (one per labelled row, e.g. the item) keeps rows of a group in one fold, so
    no prediction for an item comes from a model that saw any label of that item. Folds,
    model and seed: ``spec`` (:class:`CrossFitSpec`).
    """
    x_l = np.asarray(x_labelled, dtype=float)
    x_u = np.asarray(x_unlabelled, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    if x_l.ndim != 2 or x_u.ndim != 2 or x_l.shape[0] != y.size or x_l.shape[1] != x_u.shape[1]:
        raise ValueError(
            f"features must be (n, p) and (N_u, p) with n = {y.size} labels; got "
            f"{x_l.shape} and {x_u.shape}"
        )
    if y.size < 4:
        raise ValueError("cross-fitting needs at least 4 labelled rows")
    rng = np.random.default_rng(spec.seed)
    groups = np.arange(y.size) if groups is None else np.asarray(groups)
    fold, k = _fold_of(groups, spec.folds, rng)
    oof = np.empty(y.size)
    unl = np.zeros(x_u.shape[0])
    names, shifts = set(), np.empty(k)
    for f in range(k):
        test = fold == f
        h, name = fit_predictor(x_l[~test], y[~test], model=spec.model, seed=spec.seed + f)
        names.add(name)
        pred_l, pred_u = h(x_l), h(x_u)
        # centre each model on its own mean over all rows (labels not involved): removes the
        # fold-to-fold intercept ȳ_{−k}, which would make the out-of-fold ŷ track ȳ_k and
        # bias the sample covariance of y and ŷ (and so se) when ŷ barely varies
        shifts[f] = (pred_l.sum() + pred_u.sum()) / (pred_l.size + pred_u.size)
        oof[test] = pred_l[test] - shifts[f]
        unl += (pred_u - shifts[f]) / k
    return CrossFit(labelled=oof, unlabelled=unl, model="+".join(sorted(names)), folds=k,
                    offset=float(shifts.mean()))  # fmt: skip


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    r = correlation(a, b)
    return math.nan if r is None else r


def _with_fit(res: EstimateResult, method: str, fit: CrossFit, rho: float) -> EstimateResult:
    """The PPI++ result as ``method``, its diagnostics adding the fitted model, the folds and
    ``rho`` = corr(y, ŷ) on the labelled items."""
    return res.with_(
        method=method,
        diagnostics={**res.diagnostics, "model": fit.model, "folds": fit.folds, "rho": rho},
    )


def _too_few(method: str, n: int, n_u: int, level: float) -> EstimateResult:
    return unavailable_result(method, Unavailable.TOO_FEW_LABELS, n, n_u, level,
                              {"min_labels": MIN_LABELS_METRIC_ASSISTED})  # fmt: skip


def learned_ppi_mean(
    y: np.ndarray,
    x_labelled: np.ndarray,
    x_unlabelled: np.ndarray,
    *,
    spec: CrossFitSpec = CROSS_FIT,
    level: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> EstimateResult:
    """PPI++ mean with the cross-fitted ŷ as its one control (module docstring).

    θ̂ = ȳ_L − λ̂(mean_L ŷ − mean_U ŷ) with λ̂ tuned as in
    :func:`estimators.fixed_n.control_variates.ppi_mean`; ``diagnostics`` add the model, the folds
    and ``rho`` = corr(y, ŷ) on the labelled items. ``spec``: how ŷ is cross-fitted
    (:class:`CrossFitSpec`). ``bounds`` and the unavailable cases (too few labels, no
    spread, no unlabelled items) as :func:`estimators.fixed_n.control_variates.ppi_mean`.
    """
    if np.size(y) < MIN_LABELS_METRIC_ASSISTED:
        return _too_few("ppi++_learned", np.size(y), np.shape(x_unlabelled)[0], level)
    fit = cross_fit(x_labelled, y, x_unlabelled, spec=spec)
    res = cv.ppi_mean(y, fit.labelled, fit.unlabelled, level=level, ddof=RESIDUAL_DDOF,
                      bounds=bounds)  # fmt: skip
    return _with_fit(res, "ppi++_learned", fit, _corr(np.asarray(y, float), fit.labelled))


def learned_ppi_paired_difference(
    y_a: np.ndarray,
    y_b: np.ndarray,
    x_a_labelled: np.ndarray,
    x_b_labelled: np.ndarray,
    x_a_unlabelled: np.ndarray,
    x_b_unlabelled: np.ndarray,
    *,
    spec: CrossFitSpec = CROSS_FIT,
    level: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> EstimateResult:
    """PPI++ on paired differences D_j = y_{A,j} − y_{B,j} with the control ŷ_A − ŷ_B.

    One model h for both systems, trained on all their labelled outputs and cross-fitted by
    item (both outputs of item j are predicted by the model that left item j out; ``spec``:
    :class:`CrossFitSpec`), then
    :func:`estimators.fixed_n.control_variates.ppi_paired_difference` with ``controls="difference"``
    (``bounds``: the range of one score; the difference is clipped to [lo − hi, hi − lo]).
    """
    y_a, y_b = np.asarray(y_a, float).ravel(), np.asarray(y_b, float).ravel()
    n, n_u = y_a.size, np.shape(x_a_unlabelled)[0]
    if n < MIN_LABELS_METRIC_ASSISTED:
        return _too_few("ppi++_paired_learned", n, n_u, level)
    items = np.arange(n)
    fit = cross_fit(
        np.vstack([x_a_labelled, x_b_labelled]), np.concatenate([y_a, y_b]),
        np.vstack([x_a_unlabelled, x_b_unlabelled]),
        groups=np.concatenate([items, items]), spec=spec,
    )  # fmt: skip
    ha, hb = fit.labelled[:n], fit.labelled[n:]
    res = cv.ppi_paired_difference(
        y_a,
        y_b,
        ha,
        hb,
        fit.unlabelled[:n_u],
        fit.unlabelled[n_u:],
        level=level,
        ddof=RESIDUAL_DDOF,
        bounds=bounds,
    )
    return _with_fit(res, "ppi++_paired_learned", fit, _corr(y_a - y_b, ha - hb))


# ------------------------------------------------------------------ a campaign's ŷ grid


@dataclass(frozen=True)
class LearnedGrid:
    """ŷ for every output of a campaign, shape (systems, N), NaN where there is no output,
    centred (``values + offset`` is on the label scale).

    ``labelled`` marks the outputs whose labels trained the models (their ŷ is out-of-fold).
    Outputs labelled *after* the fit get the K-model mean, which never saw their label
    either, so the grid stays a valid control as labels arrive; :func:`learned_grid` with
    ``previous=`` reuses it until the label count doubles.
    """

    values: np.ndarray
    labelled: np.ndarray
    n_labels: int
    model: str
    folds: int
    features: tuple[str, ...]
    #: add to ``values`` to read them on the label scale (a constant: not needed as control)
    offset: float = 0.0

    def stale(self, n_labels: int, growth: float = 2.0) -> bool:
        """Refit once the number of labels has grown by ``growth`` × since the fit."""
        return n_labels >= growth * max(self.n_labels, 1)


def learned_grid(
    features: np.ndarray,
    y_grid: np.ndarray,
    labelled: np.ndarray,
    present: np.ndarray,
    *,
    names: tuple[str, ...] = (),
    spec: CrossFitSpec = CROSS_FIT,
    previous: LearnedGrid | None = None,
) -> LearnedGrid | None:
    """Cross-fitted ŷ for a campaign (systems × N outputs) from ``features`` (k, N, p).

    Training rows are the labelled outputs of every system, folded by item. Returns
    ``previous`` unchanged while it is still fresh (same features, fewer than twice its
    label count, and every output it marked labelled still labelled), and ``None`` with
    fewer than 2·``spec.folds`` labels, fewer than 3 unlabelled outputs, or no features.
    """
    features = np.asarray(features, dtype=float)
    labelled = np.asarray(labelled, dtype=bool) & np.asarray(present, dtype=bool)
    n = int(labelled.sum())
    if features.ndim != 3 or features.shape[2] == 0 or n < 2 * spec.folds:
        return None
    if (
        previous is not None
        and previous.features == tuple(names)
        and previous.values.shape == labelled.shape
        and not previous.stale(n)
        and not (previous.labelled & ~labelled).any()
    ):
        return previous
    s_idx, j_idx = np.nonzero(labelled)
    unl = np.asarray(present, dtype=bool) & ~labelled
    if unl.sum() < 3:  # a census: no unlabelled outputs for a control to use, skip the fit
        return None
    u_s, u_j = np.nonzero(unl)
    fit = cross_fit(
        features[s_idx, j_idx], y_grid[s_idx, j_idx], features[u_s, u_j],
        groups=j_idx, spec=spec,
    )  # fmt: skip
    values = np.full(labelled.shape, np.nan)
    values[s_idx, j_idx] = fit.labelled
    values[u_s, u_j] = fit.unlabelled
    return LearnedGrid(values, labelled, n, fit.model, fit.folds, tuple(names), fit.offset)


# ------------------------------------------------------------------ predictable (monitor)


def refit_points(t_len: int, first: int = FIRST_REFIT) -> list[int]:
    """Label counts at which the monitor's model is refitted: first, 2·first, 4·first, … < T."""
    out, r = [], first
    while r < t_len:
        out.append(r)
        r *= 2
    return out


@dataclass(frozen=True)
class PredictableControl:
    """Centred learned controls h_t (T, m) for increments t = 1..T, and the refit counts."""

    h: np.ndarray
    refits: list[int]


def predictable_control(
    x_stream: np.ndarray,
    y_stream: np.ndarray,
    x_pool: np.ndarray,
    *,
    first_refit: int = FIRST_REFIT,
    model: Model = "auto",
    seed: int = 0,
) -> PredictableControl:
    """Learned controls for anytime-valid increments (docs/statistics-notes.md §23, monitor).

    ``x_stream`` (T, m, p): features of the m outputs labelled at step t (m = 1 for a
    system mean, 2 for a pair); ``y_stream`` (T, m) their labels in arrival order;
    ``x_pool`` (N, m, p): the same outputs for every item of the fixed pool. The model is
    refitted on the labels of steps 1..r at r ∈ :func:`refit_points` (one model for all m
    columns); step t > r uses h_r: h_t = h_r(x_t) − mean_pool h_r, per column. Before the
    first refit h_t = 0 (no control). Pass h (m = 1) or h[:, 0] − h[:, 1] (a pair) as the
    control of :func:`estimators.sequences.sequential.cv_increments` with pool mean 0: each h_t is
    fixed before label t and has pool mean 0, so E[z_t | past] = μ exactly.
    """
    x_stream = np.asarray(x_stream, dtype=float)
    y_stream = np.asarray(y_stream, dtype=float)
    x_pool = np.asarray(x_pool, dtype=float)
    t_len, m, p = x_stream.shape
    h = np.zeros((t_len, m))
    refits = refit_points(t_len, first_refit)
    bounds = [*refits, t_len]
    for i, r in enumerate(refits):
        predict, _ = fit_predictor(
            x_stream[:r].reshape(r * m, p), y_stream[:r].ravel(), model=model, seed=seed
        )
        pool_mean = predict(x_pool.reshape(-1, p)).reshape(-1, m).mean(axis=0)
        nxt = bounds[i + 1]
        h[r:nxt] = predict(x_stream[r:nxt].reshape(-1, p)).reshape(-1, m) - pool_mean
    return PredictableControl(h=h, refits=refits)
