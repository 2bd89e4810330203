"""Binary metrics: ROC curve, threshold choice, and ρ/η with Beta credible intervals.

A metric g becomes a binary metric m(z) = 1{g(z) ≥ t} (``higher_is_better``; for TER/HTER
m(z) = 1{g(z) ≤ t}). On the human-labelled outputs (label 1 = adequate):

- ρ = P(m = 1 | human = 1) (true-positive rate), η = P(m = 0 | human = 0) (true-negative rate) —
  docs/statistics-notes.md §16, von Däniken et al. 2022. With a uniform prior their posteriors
  are ρ ~ Beta(TP+1, FN+1), η ~ Beta(TN+1, FP+1); :class:`Rate` reports the empirical rate
  (the posterior mode), the posterior mean and a credible interval that contains both.
- The threshold maximises Youden's J = TPR + TNR − 1 (Youden 1950) over the observed score
  values. ``method="balanced_accuracy"`` maximises (TPR + TNR)/2 = (J + 1)/2, which picks the
  same threshold; both names are accepted so the stored method says what the user chose.
  Ties go to the strictest threshold (fewest metric positives).
- Per-system ρ/η: docs/statistics-notes.md §16.6 — they differ between systems, so the per-system
  figures are the default inputs of the von Däniken estimator.

Pure numpy/scipy: arrays in, small result objects out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

# m = 1{g ≥ t} (or 1{g ≤ t} when lower is better): the estimators' rule, under this name here.
from estimators.data.campaign import binarise as metric_positive

__all__ = [
    "METHODS",
    "Agreement",
    "Calibration",
    "Rate",
    "RocCurve",
    "agreement",
    "calibrate",
    "choose_threshold",
    "metric_positive",
    "roc_curve",
]

METHODS = ("youden", "balanced_accuracy")


@dataclass(frozen=True)
class RocCurve:
    """ROC points for thresholds from strictest to most lenient (first point: none positive)."""

    thresholds: np.ndarray  # +inf (or −inf for lower-is-better) first
    tpr: np.ndarray
    fpr: np.ndarray
    higher_is_better: bool

    @property
    def auc(self) -> float:
        """Area under the ROC curve (trapezoids; the curve is closed at (1, 1))."""
        x = np.append(self.fpr, 1.0)
        y = np.append(self.tpr, 1.0)
        return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))


@dataclass(frozen=True)
class Rate:
    """A rate k/n with a credible interval from its Beta(k+1, n−k+1) posterior (uniform prior).

    ``estimate`` is k/n, which is also the posterior *mode*, and the interval always
    contains it (and the posterior mean): the equal-tailed interval when 0 < k < n, and
    the one-sided interval of the same level when k ∈ {0, n}, where the mode sits on the
    boundary and the equal-tailed interval excludes it (k = n = 4 would read
    "ρ = 1.000 [0.158, 0.987]"). For k = n the posterior CDF is x^{n+1}, so the interval is
    [(1 − level)^{1/(n+1)}, 1]; for k = 0 it is [0, 1 − (1 − level)^{1/(n+1)}]. A final guard
    widens the interval to contain k/n (more posterior mass, never less). No trials: NaN.
    """

    successes: int
    trials: int
    estimate: float  # k/n (NaN when n = 0)
    posterior_mean: float  # (k+1)/(n+2)
    lower: float  # credible interval at ``level`` containing ``estimate``
    upper: float
    level: float

    @staticmethod
    def of(successes: int, trials: int, level: float = 0.95) -> Rate:
        k, n = int(successes), int(trials)
        a, b = k + 1, n - k + 1
        if n == 0:
            lo = hi = est = float("nan")
        elif k == n:
            est, lo, hi = 1.0, float((1 - level) ** (1 / (n + 1))), 1.0
        elif k == 0:
            est, lo, hi = 0.0, 0.0, float(1 - (1 - level) ** (1 / (n + 1)))
        else:
            tail = (1 - level) / 2
            est = k / n
            lo = min(float(stats.beta.ppf(tail, a, b)), est)
            hi = max(float(stats.beta.ppf(1 - tail, a, b)), est)
        return Rate(successes=k, trials=n, estimate=est, posterior_mean=a / (a + b),
                    lower=lo, upper=hi, level=level)  # fmt: skip


@dataclass(frozen=True)
class Agreement:
    """Confusion counts of a binary metric against human labels, with ρ and η."""

    tp: int
    fn: int
    tn: int
    fp: int
    rho: Rate  # TPR ~ Beta(TP+1, FN+1)
    eta: Rate  # TNR ~ Beta(TN+1, FP+1)

    @property
    def n(self) -> int:
        return self.tp + self.fn + self.tn + self.fp

    @property
    def accuracy(self) -> float:
        return (self.tp + self.tn) / self.n if self.n else float("nan")

    @property
    def youden_j(self) -> float:
        return self.rho.estimate + self.eta.estimate - 1


@dataclass(frozen=True)
class Calibration:
    """A chosen threshold with its ROC curve and ρ/η overall and per system."""

    threshold: float
    higher_is_better: bool
    method: str
    roc: RocCurve
    overall: Agreement
    per_system: dict[str, Agreement] = field(default_factory=dict)
    level: float = 0.95

    @property
    def chosen_point(self) -> tuple[float, float]:
        """(FPR, TPR) of the chosen threshold."""
        return 1 - self.overall.eta.estimate, self.overall.rho.estimate


def _arrays(scores: Sequence[float], labels: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels)
    if s.shape != y.shape or s.ndim != 1:
        raise ValueError(f"scores and labels must be equal-length 1-d ({s.shape} vs {y.shape})")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("labels must be 0 (inadequate) or 1 (adequate)")
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    return s, y.astype(int)


def roc_curve(
    scores: Sequence[float], labels: Sequence[int], higher_is_better: bool = True
) -> RocCurve:
    """TPR and FPR of m = 1{g ≥ t} for every observed score value t (and t = ±inf)."""
    s, y = _arrays(scores, labels)
    n_pos, n_neg = int(y.sum()), int((1 - y).sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError(
            f"a ROC curve needs adequate and inadequate labels (have {n_pos} adequate, "
            f"{n_neg} inadequate)"
        )
    key = s if higher_is_better else -s
    cuts = np.unique(key)[::-1]  # strictest first
    pos, neg = np.sort(key[y == 1]), np.sort(key[y == 0])
    tp = n_pos - np.searchsorted(pos, cuts, side="left")
    fp = n_neg - np.searchsorted(neg, cuts, side="left")
    thresholds = cuts if higher_is_better else -cuts
    first = np.inf if higher_is_better else -np.inf
    return RocCurve(
        thresholds=np.concatenate([[first], thresholds]),
        tpr=np.concatenate([[0.0], tp / n_pos]),
        fpr=np.concatenate([[0.0], fp / n_neg]),
        higher_is_better=higher_is_better,
    )


def choose_threshold(roc: RocCurve, method: str = "youden") -> float:
    """The threshold maximising Youden's J (= balanced accuracy); ties → the strictest."""
    if method not in METHODS:
        raise ValueError(f"unknown threshold method {method!r}; known: {', '.join(METHODS)}")
    crit = roc.tpr - roc.fpr if method == "youden" else (roc.tpr + 1 - roc.fpr) / 2
    crit = crit[1:]  # the ±inf point (nothing positive) is not a usable threshold
    return float(roc.thresholds[1:][int(np.argmax(crit))])


def agreement(
    scores: Sequence[float],
    labels: Sequence[int],
    threshold: float,
    higher_is_better: bool = True,
    level: float = 0.95,
) -> Agreement:
    """Confusion counts and ρ/η (Beta credible intervals) of a thresholded metric."""
    s, y = _arrays(scores, labels)
    m = metric_positive(s, threshold, higher_is_better)
    tp = int(np.sum(m & (y == 1)))
    fn = int(np.sum(~m & (y == 1)))
    tn = int(np.sum(~m & (y == 0)))
    fp = int(np.sum(m & (y == 0)))
    return Agreement(tp, fn, tn, fp, Rate.of(tp, tp + fn, level), Rate.of(tn, tn + fp, level))


def calibrate(
    scores: Sequence[float],
    labels: Sequence[int],
    systems: Sequence[str] | None = None,
    higher_is_better: bool = True,
    method: str = "youden",
    level: float = 0.95,
    threshold: float | None = None,
) -> Calibration:
    """Choose a threshold on labelled outputs (or use ``threshold``) and report ρ/η.

    ``systems[k]`` names the system of output k; per-system agreement uses the same
    threshold.
    """
    roc = roc_curve(scores, labels, higher_is_better)
    t = choose_threshold(roc, method) if threshold is None else float(threshold)
    s, y = _arrays(scores, labels)
    per_system: dict[str, Agreement] = {}
    if systems is not None:
        names = np.asarray(systems, dtype=object)
        if names.shape != s.shape:
            raise ValueError("systems must align with scores")
        for name in sorted(set(names.tolist())):
            sel = names == name
            per_system[name] = agreement(s[sel], y[sel], t, higher_is_better, level)
    return Calibration(
        threshold=t,
        higher_is_better=higher_is_better,
        method=method,
        roc=roc,
        overall=agreement(s, y, t, higher_is_better, level),
        per_system=per_system,
        level=level,
    )
