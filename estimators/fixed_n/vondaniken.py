"""Binary error-prone metrics: the model of von Däniken et al. (2022).

Model (von Däniken, Deriu, Tuggener, Cieliebak 2022, "On the Effectiveness of Automated
Metrics for Text Generation Systems", Findings of EMNLP, §3; docs/statistics-notes.md §16): a binary
metric m says "adequate" with true-positive rate ρ = P(m=1 | human=1) and true-negative rate
η = P(m=0 | human=0). For a system with adequacy rate α the metric-positive rate is

    α_M(α) = (ρ + η − 1)·α + (1 − η).

- :func:`metric_only_known` — ρ, η known: with m₊ of n_m metric-positive and a uniform prior
  on α, α_M | data ~ Beta(m₊+1, m₋+1) truncated to [1−η, ρ]; α = (α_M + η − 1)/(ρ+η−1)
  (Rogan–Gladen), Var[α|data] = Var_trunc[α_M]/(ρ+η−1)². Closed form.
- :func:`metric_only_calibrated` / :func:`mixed` — ρ ~ Beta(TP+1, FN+1), η ~ Beta(TN+1, FP+1)
  from a calibration set are integrated out of p(m₊ | α) by tensor Gauss–Legendre quadrature
  (the paper's tool used MCMC); human ratings multiply in α^{h₊}(1−α)^{h₋} (paper §3.3,
  mixed case). The posterior of α is evaluated on an adaptive grid: milliseconds
  (:mod:`estimators.fixed_n.vondaniken_posterior`).
- :func:`per_system_posterior` — :func:`mixed` with each system's own calibration counts.
  (The default per-system double-sampling estimator, which needs no ρ, η at all, is
  :mod:`estimators.fixed_n.double_sampling`.)
- :func:`shared_rate` — one ρ, η pooled over systems. Biased when a metric's error rates differ
  between systems (docs/statistics-notes.md §16.6: coverage 95% → 78% under a 0.1-SD shift), so
  it is returned with ``valid_for_verdict=False`` and a per-system ρ/η drift test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import special, stats

from estimators.base.result import EstimateResult, within
from estimators.fixed_n.vondaniken_posterior import MetricAccuracy, Ratings, posterior

__all__ = [
    "MetricAccuracy",
    "Ratings",
    "calibration_counts",
    "drift_test",
    "metric_only_calibrated",
    "metric_only_known",
    "mixed",
    "per_system_posterior",
    "rates_from_counts",
    "shared_rate",
]


# --------------------------------------------------------------------------- helpers


def calibration_counts(y: np.ndarray, m: np.ndarray) -> tuple[int, int, int, int]:
    """(TP, FN, TN, FP) of binary metric ``m`` against binary human labels ``y``."""
    y = np.asarray(y).astype(bool).ravel()
    m = np.asarray(m).astype(bool).ravel()
    if y.shape != m.shape:
        raise ValueError("human and metric labels must cover the same items")
    return (
        int(np.sum(y & m)),
        int(np.sum(y & ~m)),
        int(np.sum(~y & ~m)),
        int(np.sum(~y & m)),
    )


def rates_from_counts(tp, fn, tn, fp):  # type: ignore[no-untyped-def]
    """(ρ̂, η̂) = (TP/(TP+FN), TN/(TN+FP)): the metric's true-positive and true-negative
    rates (von Däniken et al. 2022, §3); NaN where a class is empty. Element-wise on arrays."""
    tp, fn, tn, fp = (np.asarray(c, dtype=float) for c in (tp, fn, tn, fp))
    with np.errstate(invalid="ignore", divide="ignore"):
        return tp / (tp + fn), tn / (tn + fp)


def _trunc_beta(a: float, b: float, lo: float, hi: float, level: float):
    """Mean, variance and equal-tailed quantiles of Beta(a, b) truncated to [lo, hi]."""
    i_lo, i_hi = special.betainc(a, b, lo), special.betainc(a, b, hi)
    mass = i_hi - i_lo
    if mass <= 1e-300:  # data far outside [lo, hi]: all mass at the nearer end
        x = hi if i_hi < 0.5 else lo
        return x, 0.0, x, x
    m1 = a / (a + b)
    m2 = m1 * (a + 1) / (a + b + 1)
    mean = m1 * (special.betainc(a + 1, b, hi) - special.betainc(a + 1, b, lo)) / mass
    ex2 = m2 * (special.betainc(a + 2, b, hi) - special.betainc(a + 2, b, lo)) / mass
    var = max(ex2 - mean * mean, 0.0)
    tail = (1 - level) / 2
    qlo, qhi = special.betaincinv(a, b, [i_lo + tail * mass, i_lo + (1 - tail) * mass])
    return float(mean), float(var), float(np.clip(qlo, lo, hi)), float(np.clip(qhi, lo, hi))


def metric_only_known(
    m_pos: float, n_m: float, rho: float, eta: float, level: float = 0.95
) -> EstimateResult:
    """α from metric verdicts alone, ρ and η known (von Däniken et al. 2022, §3.2).

    α_M | m₊ ~ Beta(m₊+1, n_m−m₊+1) truncated to [1−η, ρ]; α = (α_M+η−1)/(ρ+η−1).
    ``estimate`` is the Rogan–Gladen point estimate (m₊/n_m + η − 1)/(ρ+η−1) clipped to
    [0, 1]; ``se`` = sqrt(Var_trunc[α_M])/(ρ+η−1); ``ci`` maps the truncated-Beta quantiles.
    When ρ + η < 1 the metric is flipped (m → 1−m); ρ + η = 1 carries no information.
    The Rogan–Gladen estimate (the posterior mode) can fall just outside the equal-tailed
    interval at small n_m; the interval is then widened to contain it
    (:func:`estimators.base.result.within`), which keeps at least ``level`` posterior mass.
    """
    m_pos, n_m = float(m_pos), float(n_m)
    if not 0 <= m_pos <= n_m:
        raise ValueError("need 0 <= m_pos <= n_m")
    if not (0 <= rho <= 1 and 0 <= eta <= 1):
        raise ValueError("rho and eta must lie in [0, 1]")
    flipped = rho + eta < 1
    if flipped:
        m_pos, rho, eta = n_m - m_pos, 1 - rho, 1 - eta
    c = rho + eta - 1
    if c <= 1e-12:
        return EstimateResult(
            0.5, (0.0 + (1 - level) / 2, 1 - (1 - level) / 2), math.sqrt(1 / 12), 0,
            int(n_m), "vondaniken_metric_known", level,
            diagnostics={"rho": rho, "eta": eta, "uninformative": True},
        )  # fmt: skip
    a, b = m_pos + 1, n_m - m_pos + 1
    mean_m, var_m, q_lo, q_hi = _trunc_beta(a, b, 1 - eta, rho, level)
    rg = (m_pos / n_m + eta - 1) / c if n_m else 0.5
    post_mean = (mean_m + eta - 1) / c
    return within(
        EstimateResult(
            estimate=float(np.clip(rg, 0.0, 1.0)),
            ci=((q_lo + eta - 1) / c, (q_hi + eta - 1) / c),
            se=math.sqrt(var_m) / c,
            n_human=0,
            n_metric=int(n_m),
            method="vondaniken_metric_known",
            level=level,
            diagnostics={
                "rho": rho,
                "eta": eta,
                "posterior_mean": post_mean,
                "rogan_gladen": rg,
                "flipped": flipped,
            },
        ),
        (0.0, 1.0),
    )


def mixed(
    ratings: Ratings,
    metric: MetricAccuracy,
    level: float = 0.95,
    *,
    method: str = "vondaniken_mixed",
) -> EstimateResult:
    """Human ratings and metric ratings in one posterior (von Däniken et al. 2022, §3.3).

    p(α | data) ∝ α^{h₊}(1−α)^{h₋} · p(m₊ | α), ρ/η known or integrated out of p(m₊ | α)
    over Beta calibration posteriors (``metric``; see
    :func:`estimators.fixed_n.vondaniken_posterior.posterior`). Human-rated and metric-rated
    items are separate sets. ``estimate`` = posterior mean, ``se`` = posterior SD,
    ``ci`` = equal-tailed credible interval, clipped to [0, 1] and to contain the mean
    (:func:`estimators.base.result.within`: a guard against grid rounding; a posterior on [0, 1]
    has its mean there).
    """
    post = posterior(ratings, metric, level)
    diag: dict = {"h_pos": float(ratings.h_pos), "m_pos": float(ratings.m_pos)}
    if metric.rho is not None:
        diag["rho"] = float(metric.rho)
    if metric.eta is not None:
        diag["eta"] = float(metric.eta)
    if metric.calibration is not None:
        tp, fn, tn, fp = map(float, metric.calibration)
        diag |= {"tp": tp, "fn": fn, "tn": tn, "fp": fp}
        diag.setdefault("rho", (tp + 1) / (tp + fn + 2))
        diag.setdefault("eta", (tn + 1) / (tn + fp + 2))
    return within(
        EstimateResult(
            estimate=post.mean,
            ci=(post.low, post.high),
            se=math.sqrt(post.var),
            n_human=int(ratings.n_h),
            n_metric=int(ratings.n_m),
            method=method,
            level=level,
            diagnostics=diag,
        ),
        (0.0, 1.0),
    )


def metric_only_calibrated(
    m_pos: float,
    n_m: float,
    calibration: tuple[float, float, float, float],
    level: float = 0.95,
) -> EstimateResult:
    """α from metric verdicts alone with ρ, η estimated from calibration counts.

    ρ ~ Beta(TP+1, FN+1), η ~ Beta(TN+1, FP+1); p(m₊|α) = ∫∫ Bin(m₊; n_m, α_M) p(ρ)p(η)
    (von Däniken et al. 2022, §3.2 with an uncertain metric; docs/statistics-notes.md §16.3), by
    quadrature instead of the tool's MCMC. Posterior mean, SD and credible interval.
    """
    return mixed(Ratings(0, 0, m_pos, n_m), MetricAccuracy(calibration=calibration), level,
                 method="vondaniken_metric_calibrated")  # fmt: skip


# ------------------------------------------------------------ per-system posterior


def per_system_posterior(
    y_labelled: np.ndarray,
    m_labelled: np.ndarray,
    m_unlabelled: np.ndarray,
    level: float = 0.95,
) -> EstimateResult:
    """Bayesian per-system form: :func:`mixed` with this system's own calibration counts.

    The labelled items give h₊ and (TP, FN, TN, FP); the unlabelled items give m₊. This is
    the full likelihood of the misclassification model for one system, so it is valid for
    verdicts (unlike :func:`shared_rate`); asymptotically it agrees with
    :func:`estimators.fixed_n.double_sampling.per_system`.
    """
    y = np.asarray(y_labelled).astype(int).ravel()
    cal = calibration_counts(y, m_labelled)
    return mixed(Ratings.from_labels(y, m_unlabelled), MetricAccuracy(calibration=cal), level,
                 method="vondaniken_mixed_per_system")  # fmt: skip


# ------------------------------------------------------------ shared rate (opt-in)


def drift_test(
    y_labelled: Sequence[np.ndarray], m_labelled: Sequence[np.ndarray]
) -> dict[str, float | list[float]]:
    """Do ρ and η differ between systems? Chi-square tests of homogeneity.

    For TPR: the systems × {m=1, m=0} table of human-positive items; for TNR: the same for
    human-negative items (Fisher's exact test when there are two systems). ``p_value`` is
    the Bonferroni combination min(1, 2·min(p_rho, p_eta)).
    """
    counts = np.array(
        [calibration_counts(y, m) for y, m in zip(y_labelled, m_labelled, strict=True)]
    )
    tp, fn, tn, fp = counts.T

    def homogeneity(a: np.ndarray, b: np.ndarray) -> float:
        table = np.column_stack([a, b])
        table = table[table.sum(axis=1) > 0]
        if table.shape[0] < 2 or np.any(table.sum(axis=0) == 0):
            return 1.0
        if table.shape[0] == 2:
            return float(stats.fisher_exact(table).pvalue)
        return float(stats.chi2_contingency(table, correction=False).pvalue)

    p_rho, p_eta = homogeneity(tp, fn), homogeneity(tn, fp)
    rhos, etas = rates_from_counts(tp, fn, tn, fp)
    return {
        "p_rho": p_rho,
        "p_eta": p_eta,
        "p_value": min(1.0, 2 * min(p_rho, p_eta)),
        "rho_by_system": rhos.tolist(),
        "eta_by_system": etas.tolist(),
    }


def shared_rate(
    y_labelled: Sequence[np.ndarray],
    m_labelled: Sequence[np.ndarray],
    m_unlabelled: Sequence[np.ndarray],
    level: float = 0.95,
) -> list[EstimateResult]:
    """Shared-rate von Däniken: one ρ, η pooled over all systems' calibration items.

    For each system s: :func:`mixed` with its own h₊, m₊ and the pooled (TP, FN, TN, FP). This is
    the paper's setting of one calibration set per metric. It is biased whenever the metric's error
    rates differ between systems (docs/statistics-notes.md §16.6), so every result has
    ``valid_for_verdict=False`` and carries the :func:`drift_test` in its diagnostics.
    """
    if not len(y_labelled) == len(m_labelled) == len(m_unlabelled):
        raise ValueError("one labelled and one unlabelled array per system")
    pooled = np.sum(
        [calibration_counts(y, m) for y, m in zip(y_labelled, m_labelled, strict=True)], axis=0
    )
    drift = drift_test(y_labelled, m_labelled)
    metric = MetricAccuracy(calibration=tuple(pooled))
    out = []
    for y, m_u in zip(y_labelled, m_unlabelled, strict=True):
        res = mixed(Ratings.from_labels(y, m_u), metric, level, method="vondaniken_shared_rate")
        out.append(
            res.with_(
                valid_for_verdict=False,
                diagnostics={**res.diagnostics, **{f"drift_{k}": v for k, v in drift.items()}},
            )
        )
    return out
