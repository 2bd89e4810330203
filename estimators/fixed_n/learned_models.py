"""The models behind the learned control ŷ of :mod:`estimators.fixed_n.learned`.

docs/statistics-notes.md §23.

Fixed seeds, features standardised on the training fold, missing values set to the training
mean: L2-regularised logistic regression for binary labels (Newton's method on the penalised
log-likelihood), ridge regression otherwise (closed form, stable at n = 30); scikit-learn's
histogram gradient boosting when labels are plentiful (≥ :data:`BOOSTING_MIN_LABELS` rows).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np
from scipy import special
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from threadpoolctl import threadpool_limits

Model = Literal["auto", "linear", "boosting"]


Predictor = Callable[[np.ndarray], np.ndarray]


#: Training rows from which "auto" uses gradient boosting instead of a linear model.
BOOSTING_MIN_LABELS = 2000


def _is_binary(y: np.ndarray) -> bool:
    return bool(np.isin(y, (0.0, 1.0)).all())


def fit_predictor(
    x: np.ndarray, y: np.ndarray, *, model: Model = "auto", seed: int = 0
) -> tuple[Predictor, str]:
    """Fit h on (x, y) and return (h, model name); h(x) predicts E[Y | x].

    Binary y → P(Y = 1 | x) from an L2 logistic regression (C = 1 on standardised
    features); other y → ridge regression (α = 1). ``model="boosting"`` (or "auto" with
    ≥ :data:`BOOSTING_MIN_LABELS` rows) uses HistGradientBoosting (fixed ``seed``, no early
    stopping). Missing feature values are set to the training mean (boosting handles them
    natively). A training set whose labels are all equal predicts that constant.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    binary = _is_binary(y)
    if np.ptp(y) == 0 or x.shape[1] == 0:
        const = float(y.mean())
        return (lambda xn: np.full(np.asarray(xn).shape[0], const)), "constant"
    boosting = model == "boosting" or (model == "auto" and y.size >= BOOSTING_MIN_LABELS)
    if boosting:
        params = dict(max_iter=100, learning_rate=0.1, max_leaf_nodes=15, l2_regularization=1.0,
                      early_stopping=False, random_state=seed)  # fmt: skip
        est = (HistGradientBoostingClassifier if binary else HistGradientBoostingRegressor)(
            **params
        )
        # one OpenMP thread: on a shared, loaded machine the default thread team made a fit
        # 75× slower (11 s instead of 0.15 s for 5,600 rows, measured)
        with threadpool_limits(1):
            est.fit(x, y.astype(int) if binary else y)

        def predict(xn: np.ndarray) -> np.ndarray:
            with threadpool_limits(1):
                xn = np.asarray(xn, float)
                return est.predict_proba(xn)[:, 1] if binary else est.predict(xn)

        return predict, "boosting"
    mean = np.nanmean(np.where(np.isfinite(x), x, np.nan), axis=0)
    mean = np.where(np.isfinite(mean), mean, 0.0)
    filled = np.where(np.isfinite(x), x, mean)
    sd = filled.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)

    def prep(xn: np.ndarray) -> np.ndarray:
        xn = np.asarray(xn, dtype=float)
        return (np.where(np.isfinite(xn), xn, mean) - mean) / sd

    z = prep(x)
    if binary:
        w, b = _logistic_l2(z, y)
        return (lambda xn: special.expit(prep(xn) @ w + b)), "logistic"
    w, b = _ridge(z, y)
    return (lambda xn: prep(xn) @ w + b), "ridge"


def _logistic_l2(z: np.ndarray, y: np.ndarray, c: float = 1.0) -> tuple[np.ndarray, float]:
    """argmin_{w,b} Σ_i logloss(y_i, z_iᵀw + b) + ‖w‖²/(2c), by Newton's method.

    The objective of scikit-learn's ``LogisticRegression(C=c)`` (intercept not penalised;
    tests check the coefficients agree), solved here directly because the monitor and the
    simulations fit it thousands of times on ~100 rows, where scikit-learn's per-call input
    checks cost ten times the fit. Strictly convex, so Newton from the intercept-only start
    converges; a step that does not decrease the objective is halved.
    """
    n, p = z.shape
    za = np.column_stack([z, np.ones(n)])
    pen = np.full(p + 1, 1.0 / c)
    pen[-1] = 0.0
    ybar = float(np.clip(y.mean(), 1e-6, 1 - 1e-6))
    beta = np.zeros(p + 1)
    beta[-1] = math.log(ybar / (1 - ybar))

    def objective(bt: np.ndarray) -> float:
        eta = za @ bt
        return float(np.sum(np.logaddexp(0.0, eta) - y * eta) + 0.5 * np.sum(pen * bt * bt))

    obj = objective(beta)
    for _ in range(100):
        mu = special.expit(za @ beta)
        grad = za.T @ (mu - y) + pen * beta
        hess = (za * (mu * (1 - mu))[:, None]).T @ za + np.diag(pen) + 1e-12 * np.eye(p + 1)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:
            cand = beta - t * step
            new = objective(cand)
            if new <= obj + 1e-12 or t < 1e-6:
                break
            t /= 2
        beta, done = cand, obj - new < 1e-10 * max(1.0, abs(obj))
        obj = new
        if done:
            break
    return beta[:-1], float(beta[-1])


def _ridge(z: np.ndarray, y: np.ndarray, alpha: float = 1.0) -> tuple[np.ndarray, float]:
    """argmin ‖y − zw − b‖² + α‖w‖² (scikit-learn's ``Ridge(alpha)``, intercept free)."""
    zc = z - z.mean(axis=0)
    w = np.linalg.solve(zc.T @ zc + alpha * np.eye(z.shape[1]), zc.T @ (y - y.mean()))
    return w, float(y.mean() - z.mean(axis=0) @ w)
