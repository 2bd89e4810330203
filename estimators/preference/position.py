"""Position bias: is the output shown on the left preferred more often than chance?

docs/statistics-notes.md §28. The queue puts each pair's two outputs on the two sides at
random, so without a position effect the left output's win rate (ties counted half)

    L = P(left preferred) + ½ P(tie)

is ½ whatever the systems. The judgments' left outcomes y_i ∈ {0, ½, 1} in order give an
anytime-valid p-value of H0: L = ½ and a confidence sequence for L by betting
(Waudby-Smith & Ramdas 2024, :mod:`estimators.sequences.betting`), valid however often the
dashboard is read. With unequal pair weights the estimate is the Hájek mean Σ w y / Σ w.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from estimators.preference.data import Preferences
from estimators.sequences import betting
from estimators.sequences import sequential as seq

BOUNDS = (-0.5, 0.5)


@dataclass(frozen=True)
class LeftBias:
    """The left output's win rate with its anytime interval and p-value."""

    n: int
    left_rate: float
    low: float
    high: float
    p_value: float
    alpha: float
    share_a_left: float  # how often the pair's first system was on the left (≈ ½ if random)

    @property
    def detected(self) -> bool:
        return self.p_value <= self.alpha

    def text(self) -> str:
        if self.n < seq.BURN_IN:
            return f"position bias: too few judgments yet ({self.n})"
        word = "detected" if self.detected else "not detected"
        return (
            f"left output preferred in {self.left_rate:.1%} of judgments "
            f"[{self.low:.1%}, {self.high:.1%}]: position bias {word}"
        )


def left_bias(prefs: Preferences, *, alpha: float = 0.05) -> LeftBias:
    """The left win rate (module docstring) at level α."""
    y = prefs.left_won()
    n = int(y.size)
    share = float(np.mean(prefs.a_on_left)) if n else float("nan")
    if n < seq.BURN_IN:
        est = float(np.mean(y)) if n else float("nan")
        return LeftBias(n, est, 0.0, 1.0, 1.0, alpha, share)
    w = prefs.weights
    est = float(np.sum(w * y) / np.sum(w))
    z = y - 0.5
    p = float(betting.betting_pvalue(z, 0.0, bounds=BOUNDS, alpha_tuning=alpha)[-1])
    cs = betting.betting_cs(z, alpha, bounds=BOUNDS)
    low, high = float(cs.lower[-1]) + 0.5, float(cs.upper[-1]) + 0.5
    return LeftBias(n, est, min(low, est), max(high, est), p, alpha, share)
