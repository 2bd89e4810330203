"""Pair verdicts: three outcomes, the error rate in force, and the known part of the pool.

statistics.md §4–§5; docs/statistics-notes.md. Pure numpy.

Outcomes. Each pair (A, B) settles as
- ``A better`` / ``B better``: H0: Δ = 0 rejected by the multiple-testing procedure in force
  (Holm on the anytime p-values, or e-BH on the e-values), the side from the pair's interval
  at the level it is rejected at (:func:`read_level`, :func:`side`): A better only when that
  interval lies above 0, and the estimate shown with it too (:func:`read_outcome`);
- ``equivalent``: the pair's simultaneous interval (level α/m, Bonferroni over the m pairs)
  lies inside [−ε, ε], ε the plan's smallest difference that matters. Wrong only when that
  interval misses Δ, so with the Bonferroni level all equivalence claims hold together with
  probability ≥ 1 − α (anytime: the intervals are confidence sequences);
- ``undecided``: neither yet.

Error rates (:class:`ErrorRate`):
- ``holm`` (default): Holm (1979) step-down on anytime-valid p-values: P(any false sign
  claim) ≤ α at any stopping time.
- ``ebh``: e-BH (Wang & Ramdas 2022, JRSS-B 84(3), Thm 2): with e-values e_1..e_m, reject the
  k* largest, k* = max{k : e_(k) ≥ m/(α k)}. FDR ≤ α under any dependence between the
  e-values. The betting capital K_τ(0) of each pair is an e-value at any stopping time τ
  (optional stopping for a nonnegative martingale), so the FDR bound holds whenever the
  dashboard is read.

The known part of the pool (finite-pool estimand). When the estimand is the mean over a
fixed pool of N outputs with one label each and labels lie in [lo, hi], after n labels with
sum S the pool mean lies in [(S + (N − n)·lo)/N, (S + (N − n)·hi)/N] with certainty (no
probability involved). Intersecting a confidence sequence with this set keeps its coverage
(the set always holds the truth) and makes it the exact point at the census. A pair whose
known set excludes 0 cannot be a true null, so its p-value is 0 (and its e-value ∞)
without any error probability.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from estimators.base.multiple import holm


class Outcome(StrEnum):
    """A pair's three-way verdict (plus "undecided")."""

    A_BETTER = "A better"
    B_BETTER = "B better"
    EQUIVALENT = "equivalent"
    UNDECIDED = "undecided"


class ErrorRate(StrEnum):
    """Which error the pair verdicts control (campaign setting ``error_rate``)."""

    FWER = "holm"
    FDR = "ebh"


#: One sentence per error rate, for the dashboard and the CLI.
ERROR_RATE_TEXT = {
    ErrorRate.FWER: "family-wise error rate (Holm): the chance of any false 'better' claim "
    "in the campaign is at most α",
    ErrorRate.FDR: "false discovery rate (e-BH): on average at most a share α of the "
    "'better' claims are false",
}


@dataclass(frozen=True)
class PairVerdict:
    """A pair's outcome in a form the queue can act on (racing drops settled systems)."""

    a: str
    b: str
    outcome: Outcome
    #: ε, the smallest difference that matters (the equivalence margin)
    margin: float
    #: the census: every item of the pair's pool is labelled and Δ is known exactly
    exact: bool = False

    @property
    def settled(self) -> bool:
        return self.outcome != Outcome.UNDECIDED

    def text(self) -> str:
        """The outcome in words, with the system names."""
        if self.outcome == Outcome.A_BETTER:
            return f"{self.a} better"
        if self.outcome == Outcome.B_BETTER:
            return f"{self.b} better"
        if self.outcome == Outcome.EQUIVALENT:
            return "exactly equal" if self.exact else f"no difference larger than {self.margin:g}"
        return "not yet"


def e_bh(e: np.ndarray, alpha: float) -> np.ndarray:
    """e-BH rejections (see module): reject the k* largest e-values, k* = max{k : e_(k) ≥
    m/(α k)} (none when no k qualifies). NaN e-values count as 0 (no evidence)."""
    e = np.nan_to_num(np.asarray(e, dtype=float), nan=0.0, posinf=np.inf)
    m = e.size
    if m == 0:
        return np.zeros(0, dtype=bool)
    order = np.argsort(-e, kind="stable")
    k = np.arange(1, m + 1)
    ok = e[order] >= m / (alpha * k)
    reject = np.zeros(m, dtype=bool)
    if ok.any():
        k_star = int(np.max(np.nonzero(ok)[0])) + 1
        reject[order[:k_star]] = True
    return reject


def settle(
    p: np.ndarray, e: np.ndarray | None, alpha: float, error_rate: str
) -> tuple[np.ndarray, np.ndarray]:
    """(rejections of H0: Δ = 0, the level each pair is read at next).

    Holm: the undecided pairs are read at α/(m − r) (r rejections so far); e-BH at
    α(r + 1)/m (their e-value must reach m/(α(r + 1))). ``e`` is required for e-BH."""
    p = np.asarray(p, dtype=float)
    m = p.size
    if m == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    if error_rate == ErrorRate.FDR:
        if e is None:
            raise ValueError("e-BH needs e-values (the betting design)")
        reject = e_bh(e, alpha)
        r = int(reject.sum())
        level = alpha * min(r + 1, m) / m
    else:
        reject = holm(p, alpha).reject
        r = int(reject.sum())
        level = alpha / max(m - r, 1)
    return reject, np.full(m, level)


def known_bounds(
    label_sum: float, n_labelled: int, pool: int, label_range: tuple[float, float]
) -> tuple[float, float]:
    """The set the pool mean lies in for sure (see module): labelled sum plus the unlabelled
    outputs at the ends of the label range, over the pool size."""
    lo, hi = label_range
    rest = pool - n_labelled
    return (label_sum + rest * lo) / pool, (label_sum + rest * hi) / pool


def pair_known_bounds(
    known_a: tuple[float, int], known_b: tuple[float, int], pool: int,
    label_range: tuple[float, float],
) -> tuple[float, float]:  # fmt: skip
    """Known set of Δ = mean_A − mean_B over the pair's pool, from each system's labelled
    (sum, count) on that pool: [low_A − high_B, high_A − low_B]."""
    la, ha = known_bounds(known_a[0], known_a[1], pool, label_range)
    lb, hb = known_bounds(known_b[0], known_b[1], pool, label_range)
    return la - hb, ha - lb


def intersect(ci: tuple[float, float], known: tuple[float, float] | None) -> tuple[float, float]:
    """A confidence interval intersected with the known set (the known set alone when they
    do not meet: it holds the truth for sure, the interval only with probability 1 − α)."""
    if known is None:
        return ci
    lo, hi = max(ci[0], known[0]), min(ci[1], known[1])
    return (lo, hi) if lo <= hi else known


def read_level(reject: np.ndarray, alpha: float, error_rate: str) -> float:
    """The level the rejected pairs are read at: Holm's last step α/(m − r + 1) (every
    rejected pair has p ≤ it), e-BH's α·r/m (every rejected e-value ≥ m/(α r)); r the
    number of rejections. Under the betting designs the interval at this level excludes 0
    for every rejected pair and for no other: interval and p-value come from one capital
    K_t (same tuning), Δ = 0 is one of the means the interval's end search tests, and the
    reported ends are the floats inside the means it excludes
    (:func:`estimators.sequences.betting.exact_ends`), so 0 lies outside the interval at
    level a exactly when max_{s≤t} K_s(0) ≥ 1/a, i.e. p ≤ a (Waudby-Smith & Ramdas 2024,
    JRSS-B; the capital quasi-convex in the mean, so its sets are intervals)."""
    reject = np.asarray(reject, dtype=bool)
    m, r = reject.size, int(reject.sum())
    if r == 0:
        return float("nan")
    if error_rate == ErrorRate.FDR:
        return alpha * r / m
    return alpha / (m - r + 1)


def side(ci: tuple[float, float]) -> int:
    """+1 when the interval lies above 0, −1 below, 0 when it touches or straddles 0.

    A rejection of Δ = 0 says that Δ ≠ 0, not which way: the side is read from the interval
    at the level the pair is rejected at (:func:`read_level`), never from the estimate's sign
    or a tie-break (an estimate of 0 once broke a tie towards "A better" while Δ < 0)."""
    lo, hi = ci
    return 1 if lo > 0 else -1 if hi < 0 else 0


#: Rounding slack between an estimate and the bound it equals in exact arithmetic (the
#: census: label mean vs the known pool mean, summed in another order).
ROUNDING = 1e-12


def holding(ci: tuple[float, float], estimate: float) -> tuple[float, float]:
    """The interval widened, if need be, to hold the estimate shown with it. Clipping the
    estimate into the interval instead would hide a miss: an estimate just past ±ε shown at
    ±ε beside "no difference larger than ε". Widening keeps coverage."""
    if not math.isfinite(estimate):
        return ci
    return (min(ci[0], estimate), max(ci[1], estimate))


def shown(ci: tuple[float, float], estimate: float) -> tuple[float, tuple[float, float]]:
    """(estimate, interval) as shown: an estimate past a bound by rounding only
    (:data:`ROUNDING`) is set on it, otherwise the interval is widened to hold it
    (:func:`holding`)."""
    lo, hi = ci
    if math.isfinite(estimate) and lo - ROUNDING <= estimate <= hi + ROUNDING:
        return float(min(max(estimate, lo), hi)), ci
    return estimate, holding(ci, estimate)


def read_outcome(
    sign: int, estimate: float, ci: tuple[float, float], margin: float,
    higher_is_better: bool,
) -> Outcome:  # fmt: skip
    """The pair's outcome (see module) from ``sign`` — the :func:`side` of its interval at
    the level it is rejected at, 0 when not rejected — the estimate and the interval shown
    (:func:`compatible_interval`). A side is claimed only when all three agree: the
    read-level interval, the shown interval and the estimate lie strictly on it (an
    estimate of exactly 0 claims no side)."""
    if sign and estimate * sign > 0 and (ci[0] >= 0 if sign > 0 else ci[1] <= 0):
        a_wins = (sign > 0) == higher_is_better
        return Outcome.A_BETTER if a_wins else Outcome.B_BETTER
    if -margin <= ci[0] and ci[1] <= margin:
        return Outcome.EQUIVALENT
    return Outcome.UNDECIDED


def compatible_interval(ci: tuple[float, float], sign: int, estimate: float) -> tuple[float, float]:
    """The interval shown for a pair: its Bonferroni-level interval, with a pair Holm (or
    e-BH) rejected on ``sign``'s side (:func:`side` of its read-level interval, 0 when not
    rejected) before that interval left 0 bounded at 0 on that side — the bound that
    step-down procedures' compatible intervals give (Strassburger & Bretz 2008), so an
    interval never straddles 0 next to a verdict, and (Bonferroni ⊂ Holm) an interval that
    excludes 0 is always a verdict — then widened to hold the estimate (:func:`holding`)."""
    lo, hi = ci
    if sign > 0 and lo <= 0 <= hi:
        ci = (0.0, hi)
    elif sign < 0 and lo <= 0 <= hi:
        ci = (lo, 0.0)
    return holding(ci, estimate)


def fixed_n_words(
    a: str, b: str, estimate: float, se: float, p_holm: float, *, alpha: float, m: int,
    margin: float, n: int, min_labels: int,
) -> str:  # fmt: skip
    """A fixed-n pair in the same three words as the live verdicts: a winner when Holm's
    adjusted p-value ≤ α, "no difference larger than ε" when the Bonferroni-level (α/m)
    normal interval Δ̂ ± z_{1−α/(2m)}·se lies within ±ε (two one-sided tests at α/m each,
    Schuirmann 1987, simultaneous over the m pairs), otherwise "not significant"."""
    from scipy import stats

    if n < min_labels or not (math.isfinite(estimate) and math.isfinite(se)):
        return "not significant"
    if p_holm <= alpha:
        return f"{a if estimate > 0 else b} better"
    half = float(stats.norm.ppf(1 - alpha / (2 * max(m, 1)))) * se
    if -margin <= estimate - half and estimate + half <= margin:
        return f"no difference larger than {margin:g}"
    return "not significant"
