"""How many judgments a pair needs to tell a given win rate from ½.

docs/statistics-notes.md §28. A pair whose first system has win rate W (ties counted half)
and tie rate τ gives outcomes x ∈ {0, ½, 1} with mean W and variance

    σ₁² = P(win) + τ/4 − W²,   P(win) = W − τ/2;   under H0 (W = ½): σ₀² = (1 − τ)/4.

Fixed n, a two-sided test at α/m (m pairs, Bonferroni) with power 1 − β (normal
approximation):

    n_fixed = ⌈((z_{1−α/(2m)} σ₀ + z_{1−β} σ₁) / (W − ½))²⌉.

Anytime (the betting verdicts of :mod:`estimators.preference.pairs`): the smallest t at which
the betting confidence sequence at α/m, bets sized for t, is narrower than the margin left
after the estimate's own spread, |W − ½| − z_{1−β} σ₁/√t ≥ h(t), h the half-width
approximation :func:`estimators.sequences.betting.betting_half_width` (a forecast: the
simulations in tests/ measure the real ratio).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from estimators.sequences import betting

#: The planner stops searching past this many judgments of one pair.
MAX_PER_PAIR = 10_000_000


@dataclass(frozen=True)
class PreferencePlan:
    """Judgments per pair (and over ``pairs`` pairs) to detect the win rate ``win_rate``."""

    win_rate: float
    tie_rate: float
    alpha: float
    power: float
    pairs: int
    fixed_n: int  # per pair, fixed-n test at α/m
    anytime: int  # per pair, betting verdict read after every judgment

    @property
    def fixed_n_total(self) -> int:
        return self.fixed_n * self.pairs

    @property
    def anytime_total(self) -> int:
        return self.anytime * self.pairs


def _sigmas(win_rate: float, tie_rate: float) -> tuple[float, float]:
    if not 0.0 <= tie_rate < 1.0 or tie_rate / 2 > min(win_rate, 1 - win_rate) + 1e-12:
        raise ValueError(
            f"a tie rate of {tie_rate:g} is impossible with a win rate of {win_rate:g} "
            "(ties count half, so the tie rate is at most 2·min(W, 1 − W))"
        )
    s0 = math.sqrt((1.0 - tie_rate) / 4.0)
    s1 = math.sqrt(max(win_rate - tie_rate / 4 - win_rate**2, 1e-12))
    return s0, s1


def fixed_n_needed(
    win_rate: float, *, tie_rate: float = 0.0, alpha: float = 0.05, power: float = 0.8,
    pairs: int = 1,
) -> int:  # fmt: skip
    """n_fixed of the module docstring (per pair)."""
    delta = abs(win_rate - 0.5)
    if delta == 0:
        raise ValueError("a win rate of exactly ½ cannot be told from ½: give W ≠ 0.5")
    s0, s1 = _sigmas(win_rate, tie_rate)
    za = float(stats.norm.ppf(1 - alpha / (2 * pairs)))
    zb = float(stats.norm.ppf(power))
    return math.ceil(((za * s0 + zb * s1) / delta) ** 2)


def anytime_needed(
    win_rate: float, *, tie_rate: float = 0.0, alpha: float = 0.05, power: float = 0.8,
    pairs: int = 1,
) -> int:  # fmt: skip
    """The anytime forecast of the module docstring (per pair), by bisection."""
    delta = abs(win_rate - 0.5)
    if delta == 0:
        raise ValueError("a win rate of exactly ½ cannot be told from ½: give W ≠ 0.5")
    _, s1 = _sigmas(win_rate, tie_rate)
    level = alpha / pairs
    zb = float(stats.norm.ppf(power))

    def ok(t: int) -> bool:
        h = betting.betting_half_width(s1, 1.0, t, level, float(t))
        return delta - zb * s1 / math.sqrt(t) >= h

    lo, hi = 1, 2
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > MAX_PER_PAIR:
            return MAX_PER_PAIR
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def labels_needed(
    win_rate: float, *, tie_rate: float = 0.0, alpha: float = 0.05, power: float = 0.8,
    pairs: int = 1,
) -> PreferencePlan:  # fmt: skip
    """Judgments per pair for a win rate ``win_rate`` (the win-rate difference from a
    no-preference pair is W − ½), fixed-n and anytime (module docstring)."""
    kw = dict(tie_rate=tie_rate, alpha=alpha, power=power, pairs=pairs)
    return PreferencePlan(
        win_rate=win_rate, tie_rate=tie_rate, alpha=alpha, power=power, pairs=pairs,
        fixed_n=fixed_n_needed(win_rate, **kw), anytime=anytime_needed(win_rate, **kw),
    )  # fmt: skip
