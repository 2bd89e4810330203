"""Planning: how small a difference can a campaign detect, and how many labels does it need?

The planning quantity of von Däniken et al. (2022, §4 and Figure 1; statistics.md §1.5):

    ε = z_{1−a/2} · sqrt(2 · Var[α | data])

— the smallest difference between two systems with the same α and the same sample sizes
that a two-sided level-(1−a) comparison can resolve (normal approximation of α₁ − α₂). A true
gap of exactly ε is detected only about half of the time; for power 1−β use
(z_{1−a/2} + z_{1−β})·sqrt(2·Var) (≈ 1.43·ε for 80 % power at 95 %).

Var[α | data] is evaluated at the *expected* data for the given α: h₊ = n_h·α human-positive,
m₊ = n_m·α_M metric-positive with α_M = (ρ+η−1)α + (1−η), and calibration counts
TP = n_c·α·ρ, FN = n_c·α·(1−ρ), TN = n_c·(1−α)·η, FP = n_c·(1−α)·(1−η).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from estimators.campaign import CampaignData, LabelKind
from estimators.result import MIN_LABELS_FOR_VERDICT, EstimateResult, critical_value
from estimators.vondaniken import _trunc_beta, posterior, rates_from_counts

__all__ = [
    "FIGURE1_ACCURACY",
    "FIGURE1_METRIC",
    "TABLE1_HUMANS",
    "TABLE1_METRIC",
    "PlanningInputs",
    "calibration_rates",
    "detectable_difference",
    "epsilon_grid",
    "epsilon_vs_accuracy",
    "human_labels_needed",
    "labels_still_needed",
    "labels_still_needed_for",
    "measurable_difference",
    "min_metric_accuracy",
    "planning_inputs",
    "posterior_variance",
]


def posterior_variance(
    n_human: float,
    n_metric: float,
    rho: float,
    eta: float,
    alpha: float,
    n_calibration: float | None = None,
) -> float:
    """Var[α | expected data] under von Däniken's model (uniform prior on α).

    Human only: Beta(h₊+1, h₋+1). Metric only with ρ, η known: Var_trunc[α_M]/(ρ+η−1)², the
    closed form of the truncated Beta(m₊+1, m₋+1) on [1−η, ρ]. Otherwise (ρ, η estimated from
    ``n_calibration`` labelled items, or human and metric ratings mixed): the grid posterior
    of :func:`estimators.vondaniken.posterior`. No data: Var = 1/12 (uniform).
    """
    if not 0 <= alpha <= 1:
        raise ValueError("alpha must lie in [0, 1]")
    h_pos, h_neg = n_human * alpha, n_human * (1 - alpha)
    if n_metric <= 0:
        a, b = h_pos + 1, h_neg + 1
        return a * b / ((a + b) ** 2 * (a + b + 1))
    alpha_m = (rho + eta - 1) * alpha + (1 - eta)
    m_pos = n_metric * alpha_m
    if n_calibration is None:
        if n_human <= 0 and rho + eta > 1:
            _, var_m, _, _ = _trunc_beta(m_pos + 1, n_metric - m_pos + 1, 1 - eta, rho, 0.95)
            return var_m / (rho + eta - 1) ** 2
        return posterior(h_pos, n_human, m_pos, n_metric, rho, eta).var
    cal = (
        n_calibration * alpha * rho,
        n_calibration * alpha * (1 - rho),
        n_calibration * (1 - alpha) * eta,
        n_calibration * (1 - alpha) * (1 - eta),
    )
    return posterior(h_pos, n_human, m_pos, n_metric, calibration=cal).var


def measurable_difference(
    n_human: float,
    n_metric: float,
    rho: float,
    eta: float,
    alpha: float,
    n_calibration: float | None = None,
    level: float = 0.95,
) -> float:
    """ε = z·sqrt(2·Var[α|data]) (von Däniken et al. 2022, §4, Figure 1).

    Human-only (``n_metric = 0``), metric-only (``n_human = 0``; ρ, η known, or estimated
    from ``n_calibration`` labelled items), or mixed (both > 0). ε = 1 when both counts
    are 0. Checks (α = 0.6, ρ = η): accuracy 0.7, 1,000 ratings → 0.109; perfect metric,
    1,000 → 0.043; accuracy 0.85, 10,000 → 0.0196.
    """
    if n_human <= 0 and n_metric <= 0:
        return 1.0
    var = posterior_variance(n_human, n_metric, rho, eta, alpha, n_calibration)
    return critical_value(level) * math.sqrt(2 * var)


def detectable_difference(
    n_human: float,
    n_metric: float,
    rho: float,
    eta: float,
    alpha: float,
    n_calibration: float | None = None,
    level: float = 0.95,
    power: float | None = 0.8,
) -> float:
    """The gap detected with probability ``power``: (z_{1−a/2} + z_{power})·sqrt(2·Var).

    statistics.md §1.5: ≈ 1.43 × :func:`measurable_difference` at 95 % / 80 %.
    ``power=None`` gives :func:`measurable_difference` itself.
    """
    if n_human <= 0 and n_metric <= 0:
        return 1.0
    return measurable_difference(
        n_human, n_metric, rho, eta, alpha, n_calibration, level
    ) * _power_factor(level, power)


def _power_factor(level: float, power: float | None) -> float:
    if power is None:
        return 1.0
    z = critical_value(level)
    return (z + float(stats.norm.ppf(power))) / z


def human_labels_needed(
    target: float,
    n_metric: float,
    rho: float,
    eta: float,
    alpha: float,
    n_calibration: float | None = None,
    level: float = 0.95,
    power: float | None = None,
    max_labels: int = 10_000_000,
) -> int | None:
    """Smallest number of human labels per system with ε ≤ ``target`` given ``n_metric``.

    ``power=None`` solves for the measurable difference ε, ``power=0.8`` for the 80 %-power
    detectable difference. Returns 0 when the metric ratings alone suffice and ``None``
    when even ``max_labels`` labels do not reach the target.
    """
    factor = _power_factor(level, power)

    def eps(n_h: int) -> float:
        return factor * measurable_difference(n_h, n_metric, rho, eta, alpha, n_calibration, level)

    if eps(0) <= target:
        return 0
    hi = 1
    while eps(hi) > target:
        hi *= 2
        if hi > max_labels:
            return None
    lo = hi // 2  # eps(lo) > target ≥ eps(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if eps(mid) > target else (lo, mid)
    return hi


def min_metric_accuracy(
    target: float,
    n_metric: float,
    alpha: float,
    n_human: float = 0,
    level: float = 0.95,
    power: float | None = None,
) -> float | None:
    """Smallest metric accuracy ρ = η giving ε ≤ ``target`` (von Däniken et al. 2022, Fig. 1).

    With 10,000 metric ratings at α = 0.6 and ε = 0.02 this is ≈ 0.843. ``None`` when even a
    perfect metric is not enough.
    """
    factor = _power_factor(level, power)

    def gap(acc: float) -> float:
        return (
            factor * measurable_difference(n_human, n_metric, acc, acc, alpha, None, level) - target
        )

    if gap(1.0) > 0:
        return None
    lo = 0.5 + 1e-4  # ρ+η−1 → 0: the metric carries no information (ε → large)
    if gap(lo) <= 0:
        return 0.5
    return float(optimize.brentq(gap, lo, 1.0, xtol=1e-10))


def labels_still_needed(
    estimate: np.ndarray | float,
    se: np.ndarray | float,
    n_human: np.ndarray | float,
    level: float = 0.95,
    power: float = 0.8,
    fixed_var: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Live planning: more labels each undecided pair needs, from current variance estimates.

    Treat the current estimate Δ̂ as the true gap. The variance splits into a part that
    shrinks with labels and a fixed part (e.g. the PPI++ term λ²Var_U(g)/N_u):
    se² = A/n + B. To detect Δ̂ with probability ``power`` we need
    se_target = |Δ̂|/(z_{1−a/2} + z_{power}), i.e. n' = A/(se_target² − B) labels. Returns
    max(0, ⌈n' − n⌉), at least enough to reach MIN_LABELS_FOR_VERDICT, 0 for pairs already
    decided (|Δ̂| > z·se with ≥ 30 labels) and ∞ when no number of labels suffices
    (Δ̂ = 0, or the fixed part alone is too large). Vectorised over pairs.
    """
    est, se, n = (np.asarray(v, dtype=float) for v in (estimate, se, n_human))
    fixed = np.asarray(fixed_var, dtype=float)
    z = critical_value(level)
    zp = float(special.ndtri(power))
    a = np.maximum(se**2 - fixed, 0.0) * n
    target = (np.abs(est) / (z + zp)) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        room = target - fixed
        n_new = np.where(room > 0, a / np.where(room > 0, room, 1.0), np.inf)
    need = np.maximum(np.ceil(n_new - n), MIN_LABELS_FOR_VERDICT - n)
    need = np.where(np.isfinite(n_new), np.maximum(need, 0.0), np.inf)
    decided = (np.abs(est) > z * se) & (n >= MIN_LABELS_FOR_VERDICT)
    return np.where(decided, 0.0, need)


def labels_still_needed_for(result: EstimateResult, power: float = 0.8) -> float:
    """:func:`labels_still_needed` for one :class:`EstimateResult` (uses its level and the
    fixed metric variance ``diagnostics["var_metric"]`` when the estimator reports one)."""
    if result.significant():
        return 0.0
    return float(
        labels_still_needed(
            result.estimate,
            result.se,
            result.n_human,
            result.level,
            power,
            result.diagnostics.get("var_metric", 0.0),
        )
    )


# The planner's default axes: human × metric counts like von Däniken et al.'s Table 1, and
# metric accuracies × metric counts like their Figure 1.
TABLE1_HUMANS: tuple[int, ...] = (0, 50, 100, 200, 500, 1000)
TABLE1_METRIC: tuple[int, ...] = (0, 1_000, 5_000, 10_000, 50_000)
FIGURE1_METRIC: tuple[int, ...] = (1_000, 5_000, 10_000, 50_000)
FIGURE1_ACCURACY: tuple[float, ...] = tuple(round(0.55 + 0.025 * i, 3) for i in range(19))


def calibration_rates(tp: int, fn: int, tn: int, fp: int) -> tuple[float, float, int]:
    """(ρ̂, η̂, n_c) from calibration counts: ρ̂ = TP/(TP+FN), η̂ = TN/(TN+FP), n_c = their sum.

    The planner's inputs for the calibrated case (statistics.md §1.3): with ``n_calibration
    = n_c`` the planning functions spread the n_c items over the classes at the planned α
    (expected counts), so a calibration set whose positive share differs much from α is
    approximated. Raises ValueError when a class is empty (ρ or η undefined).
    """
    if min(tp, fn, tn, fp) < 0:
        raise ValueError("calibration counts must be ≥ 0")
    if tp + fn == 0:
        raise ValueError("no human-positive calibration items (TP + FN = 0): ρ is undefined")
    if tn + fp == 0:
        raise ValueError("no human-negative calibration items (TN + FP = 0): η is undefined")
    rho, eta = rates_from_counts(tp, fn, tn, fp)
    return float(rho), float(eta), int(tp + fn + tn + fp)


def epsilon_grid(
    humans: tuple[float, ...] | list[float] = TABLE1_HUMANS,
    metrics: tuple[float, ...] | list[float] = TABLE1_METRIC,
    rho: float = 0.8,
    eta: float = 0.8,
    alpha: float = 0.6,
    n_calibration: float | None = None,
    level: float = 0.95,
    power: float | None = None,
) -> np.ndarray:
    """ε for every (human count, metric count), like von Däniken et al. (2022) Table 1.

    Returns an array of shape (len(humans), len(metrics)) with cell [i, j] =
    :func:`measurable_difference` (``power=None``) or :func:`detectable_difference`
    (``power=0.8``: the 80 %-power difference) for ``humans[i]`` human and ``metrics[j]``
    metric labels per system, the metric's ρ, η (estimated from ``n_calibration`` items
    when given) and adequacy rate α. Cell [0, 0] with no labels at all is 1.
    """
    return np.array(
        [
            [
                detectable_difference(h, m, rho, eta, alpha, n_calibration, level, power)
                for m in metrics
            ]
            for h in humans
        ],
        dtype=float,
    ).reshape(len(humans), len(metrics))


def epsilon_vs_accuracy(
    accuracies: tuple[float, ...] | list[float] = FIGURE1_ACCURACY,
    metrics: tuple[float, ...] | list[float] = FIGURE1_METRIC,
    alpha: float = 0.6,
    n_human: float = 0,
    n_calibration: float | None = None,
    level: float = 0.95,
    power: float | None = None,
) -> np.ndarray:
    """ε against metric accuracy ρ = η for several metric counts, like von Däniken et al.
    (2022) Figure 1 (there: α = 0.6, no human labels, ρ and η known).

    Returns an array of shape (len(accuracies), len(metrics)) with cell [i, j] = ε (or the
    ``power`` difference) for accuracy ``accuracies[i]``, ``metrics[j]`` metric labels and
    ``n_human`` human labels per system; with ``n_calibration`` the accuracy is estimated
    from that many calibration items instead of known. Check: α = 0.6, accuracy 0.85,
    10,000 metric ratings, no humans → 0.0196.
    """
    return np.array(
        [
            [
                detectable_difference(n_human, m, a, a, alpha, n_calibration, level, power)
                for m in metrics
            ]
            for a in accuracies
        ],
        dtype=float,
    ).reshape(len(accuracies), len(metrics))


# ------------------------------------------------------------------ a campaign's inputs


@dataclass(frozen=True)
class PlanningInputs:
    """What a campaign says about the planner's inputs (medians over systems).

    ``calibration`` is (TP, FN, TN, FP) of the chosen binary metric when given; ``rho`` and
    ``eta`` are its rates (None where a class is empty).
    """

    n_human: int
    n_metric: int
    alpha_hat: float | None
    n_systems: int
    calibration: tuple[int, int, int, int] | None = None

    def _rates(self) -> tuple[float | None, float | None]:
        if self.calibration is None:
            return None, None
        rates = rates_from_counts(*self.calibration)
        return tuple(float(r) if math.isfinite(r) else None for r in rates)  # type: ignore[return-value]

    @property
    def rho(self) -> float | None:
        return self._rates()[0]

    @property
    def eta(self) -> float | None:
        return self._rates()[1]


def planning_inputs(
    data: CampaignData, calibration: tuple[int, int, int, int] | None = None
) -> PlanningInputs:
    """Per-system median of labelled outputs (n_human) and metric-only outputs (n_metric),
    and the campaign's adequacy rate (mean binary label, first judgment per output)."""
    j = data.judgments
    k = len(data.systems)
    first = data.first_judgments(LabelKind.LABEL)
    labelled = np.zeros((k, max(data.n_items, 1)), dtype=bool)
    labelled[j.system[first], j.item[first]] = True
    present = data.output_ids >= 0 if k else np.zeros((0, 0), dtype=bool)
    n_h = [int(labelled[s].sum()) for s in range(k)]
    n_m = [int((present[s] & ~labelled[s, : data.n_items]).sum()) for s in range(k)]
    return PlanningInputs(
        n_human=int(np.median(n_h)) if k else 0,
        n_metric=int(np.median(n_m)) if k else 0,
        alpha_hat=float(j.label[first].mean()) if first.size else None,
        n_systems=k,
        calibration=None if calibration is None else tuple(int(c) for c in calibration),
    )


# --------------------------------------------------------------------------------------------
# Plans that fit the pool
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolFit:
    """Does a plan fit the campaign's pool, and what can the pool settle?

    For m = k(k−1)/2 pairs of binary labels at their largest variance (adequacy 0.5), with
    every item of a pool of N labelled for each system (fixed-n paired test at Holm's first
    level α/m, the Planner's formula :func:`measurable_difference`):
    ``smallest_difference`` = the difference detected with probability ``power``,
    ``smallest_margin`` = the half-width of the α/m interval, i.e. the smallest ε an equal
    pair can be shown to be within. (At the census every pair settles exactly, but that
    spends the whole pool on every system.)
    """

    planned: int | None
    pool: int
    n_systems: int
    alpha: float
    smallest_difference: float
    smallest_margin: float

    @property
    def fits(self) -> bool:
        return self.planned is None or self.planned <= self.pool

    def sentences(self, margin: float | None = None) -> list[str]:
        """What the planner page, ``cli.py plan`` and the dashboard say about the fit."""
        m = max(self.n_systems * (self.n_systems - 1) // 2, 1)
        out = []
        if not self.fits:
            out.append(
                f"The plan asks for {self.planned:,} labels per system, more than the "
                f"{self.pool:,} items in the pool: the live verdicts are tuned to the pool "
                "instead, and pairs closer than the plan's difference may stay undecided "
                "until every item is labelled."
            )
        out.append(
            f"With all {self.pool:,} items labelled, {self.n_systems} systems ({m} pairs) at "
            f"α = {self.alpha:g}: the smallest difference this pool settles with 80 % power "
            f"before the census is {self.smallest_difference:.3f}; equal systems can be "
            f"shown within ±{self.smallest_margin:.3f}."
        )
        if margin is not None:
            if margin < self.smallest_margin:
                out.append(
                    f"ε = {margin:g} is below ±{self.smallest_margin:.3f}: no pair can settle "
                    "as 'no difference larger than ε' before the census; a larger ε lets "
                    "close pairs settle early."
                )
            else:
                out.append(
                    f"ε = {margin:g}: pairs whose difference is well inside ±{margin:g} can "
                    "settle as 'no difference larger than ε' within the pool, freeing their "
                    "labels."
                )
        return out


def pool_fit(
    n_systems: int, pool: int, planned: int | None, alpha: float = 0.05, power: float = 0.8
) -> PoolFit:
    """:class:`PoolFit` for ``n_systems`` systems on a pool of ``pool`` items."""
    if pool < 1:
        raise ValueError("the pool has no items")
    m = max(n_systems * (n_systems - 1) // 2, 1)
    level = 1 - alpha / m
    half = measurable_difference(pool, 0, 1.0, 1.0, 0.5, None, level)
    return PoolFit(
        planned=planned, pool=int(pool), n_systems=int(n_systems), alpha=alpha,
        smallest_difference=min(_power_factor(level, power) * half, 1.0),
        smallest_margin=min(half, 1.0),
    )  # fmt: skip
