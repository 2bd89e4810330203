"""An LLM (or metric) judge's preferences: agreement with the humans, and a control variate
for the human win rate (fixed n).

docs/statistics-notes.md §28. For one pair of systems, the humans judged n of the N
(source, pair) instances, x_i ∈ {0, ½, 1}; the judge judged all of them, g_j ∈ [0, 1] (its
winner as 1 / ½ / 0, or its probability that the first system is preferred). The
prediction-powered (PPI++) win rate of Boyeau, Angelopoulos, Yosef, Malik & Jordan (2025),
"AutoEval done right: using synthetic data for model evaluation" (ICML), is the
control-variate mean of :func:`estimators.fixed_n.control_variates.ppi_mean`,

    Ŵ_λ = x̄_L − λ (ḡ_L − ḡ_U),   se² = Var_L(x − λ g)/n + λ² Var_U(g)/N_u,
    λ̂ = Cov_L(g, x) / (Var(g) (1 + n/N_u)),

(L the human-judged instances, U the judge-only ones, N_u of them). Whatever the judge's
bias, Ŵ_λ is unbiased when L is a uniform sample; its variance against the human-only mean
is ≈ 1 − ρ²·N_u/(n + N_u) (ρ the correlation of judge and human outcomes), so the judgments
a target precision needs shrink by at most the share ρ²: the floor 1 − ρ² is what a judge
can save at best.

Agreement: the share of human-judged instances where the judge's winner (g > ½, < ½, = ½)
is the human's, and Cohen's (1960) κ over the three classes. Position consistency: a judge
asked about the same pair in both orders should give mirrored answers; the share of
instances where it does, and its left-win rate in each order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from estimators.base.result import EstimateResult
from estimators.fixed_n.control_variates import ppi_mean


@dataclass(frozen=True)
class JudgeControl:
    """The pair's human-only and judge-assisted win rates and what the judge saves."""

    human: EstimateResult
    assisted: EstimateResult
    rho: float  # correlation of judge and human outcomes on the human-judged instances
    agreement: float
    kappa: float

    @property
    def saving(self) -> float:
        """1 − se²_assisted/se²_human: the share of human judgments the judge saves at this
        precision (negative when it costs)."""
        return 1.0 - (self.assisted.se / self.human.se) ** 2

    @property
    def floor(self) -> float:
        """1 − ρ²: the smallest ratio of human judgments any control with this ρ reaches."""
        return 1.0 - self.rho**2


def _classes(v: np.ndarray) -> np.ndarray:
    return np.sign(np.asarray(v, dtype=float) - 0.5).astype(int)


def agreement(human: np.ndarray, judge: np.ndarray) -> tuple[float, float]:
    """(share of equal winners, Cohen's κ) over the classes first / tie / second."""
    h, j = _classes(human), _classes(judge)
    if h.size == 0:
        return float("nan"), float("nan")
    observed = float(np.mean(h == j))
    expected = float(sum(np.mean(h == c) * np.mean(j == c) for c in (-1, 0, 1)))
    kappa = (observed - expected) / (1 - expected) if expected < 1 else float("nan")
    return observed, kappa


def judge_control(
    human: np.ndarray, judge_labelled: np.ndarray, judge_unlabelled: np.ndarray,
    *, level: float = 0.95,
) -> JudgeControl:  # fmt: skip
    """The module's estimates for one pair: ``human`` (n,) outcomes, the judge's on the same
    n instances and on the N_u the humans did not judge."""
    x = np.asarray(human, dtype=float).ravel()
    g_l = np.asarray(judge_labelled, dtype=float).ravel()
    g_u = np.asarray(judge_unlabelled, dtype=float).ravel()
    bounds = (0.0, 1.0)
    plain = ppi_mean(x, g_l, g_u, lam=0.0, level=level, bounds=bounds)
    assisted = ppi_mean(x, g_l, g_u, level=level, bounds=bounds)
    rho = float(np.corrcoef(x, g_l)[0, 1]) if x.std() > 0 and g_l.std() > 0 else 0.0
    share, kappa = agreement(x, g_l)
    return JudgeControl(human=plain, assisted=assisted, rho=rho, agreement=share, kappa=kappa)


@dataclass(frozen=True)
class JudgePosition:
    """A judge asked about each pair in both orders."""

    n: int
    consistent: float  # share of instances whose two answers mirror each other
    first_left_rate: float  # left output's win rate (ties half), first order
    second_left_rate: float


def judge_position(as_shown: np.ndarray, swapped: np.ndarray) -> JudgePosition:
    """``as_shown[i]``: the judge's outcome for the left output with instance i's outputs in
    one order; ``swapped[i]``: the same, sides exchanged. Mirrored answers satisfy
    as_shown = 1 − swapped (a tie stays a tie)."""
    a = np.asarray(as_shown, dtype=float).ravel()
    s = np.asarray(swapped, dtype=float).ravel()
    if a.shape != s.shape:
        raise ValueError(f"{a.size} answers in one order, {s.size} in the other")
    consistent = float(np.mean(_classes(a) == -_classes(s))) if a.size else float("nan")
    return JudgePosition(int(a.size), consistent, float(np.mean(a)), float(np.mean(s)))
