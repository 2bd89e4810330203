"""The live monitor's settings: level, design, plan, estimand and error rate, fixed before
the first label and shared, read-only, by every part of the monitor.

The rules that follow from the settings alone live here too: the level the sequences are
tuned at (docs/statistics-notes.md §1), the error rate in force (§4), what the estimand can
be and when the known part of the pool bounds it (§2).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from estimators.base.verdicts import ErrorRate
from estimators.sequences import confidence_sequences as csq
from estimators.sequences import group_sequential as gsd
from estimators.sequences.designs import LiveDesign


@dataclass(frozen=True)
class MonitorSettings:
    """What :class:`estimators.live.monitor.CampaignMonitor` was asked for (its parameters
    of the same names); ``systems``: k, the number of systems; ``uniform_draws`` is False
    under active sampling."""

    alpha: float
    mode: str
    design: LiveDesign
    t_star: float | None
    margin: float
    error_rate: ErrorRate
    higher_is_better: bool
    pair_controls: str
    label_range: tuple[float, float] | None
    finite_pool: bool
    uniform_draws: bool
    systems: int

    @property
    def pairs_adjusted(self) -> int:
        """m, the number of pairs Holm adjusts over (at least 1)."""
        return max(self.systems * (self.systems - 1) // 2, 1)

    def planned_size(self, pool_size: int) -> int:
        """The planned size for one system or pair: min(t*, its pool), fixed in advance.
        The group-sequential design needs at least one label per look."""
        t = pool_size if self.t_star is None else min(int(self.t_star), pool_size)
        return max(t, gsd.LOOKS) if self.design == LiveDesign.GSD_OBF else max(t, 1)

    def error_rate_in_force(self) -> ErrorRate:
        """e-BH needs the betting design's e-values; otherwise Holm is in force."""
        if self.error_rate == ErrorRate.FDR and self.design.bets:
            return ErrorRate.FDR
        return ErrorRate.FWER

    def tuning(self, alpha_cs: float) -> float:
        """The level the p-values and sequences are tuned for: the level at which the
        verdict is first read (α/m for a pair, α/k for a system). The group-sequential
        design spends the family-wise α over its own level grid (α/j, j ≤ m)."""
        return self.alpha if self.design == LiveDesign.GSD_OBF else alpha_cs

    @property
    def known_applies(self) -> bool:
        """The known part of a pool bounds its mean: finite-pool estimand, uniform draws and
        a known label range."""
        return self.finite_pool and self.uniform_draws and self.label_range is not None

    @property
    def finite_increments(self) -> bool:
        """The increments are the finite-pool (without-replacement) ones: test-set estimand
        under uniform draws."""
        return self.finite_pool and self.uniform_draws

    def estimand_range(self, pair: bool) -> tuple[float, float]:
        """What the estimand can be: [lo, hi] for a system with labels in [lo, hi],
        [lo − hi, hi − lo] for a difference. Needs the label range."""
        if self.label_range is None:
            raise ValueError("the estimand's range needs the known label range")
        lo, hi = self.label_range
        return (lo - hi, hi - lo) if pair else (lo, hi)

    def clip(self, cs: csq.ConfidenceSequence, pair: bool) -> csq.ConfidenceSequence:
        """Intervals clipped to what the estimand can be (clipping keeps validity); as they
        are without a known label range."""
        if self.label_range is None:
            return cs
        lo, hi = self.estimand_range(pair)
        return replace(cs, lower=np.clip(cs.lower, lo, hi), upper=np.clip(cs.upper, lo, hi))


def monitor_settings(
    *, alpha: float, mode: str, design: str | None, t_star: float | None, margin: float,
    error_rate: str, higher_is_better: bool, pair_controls: str,
    label_range: tuple[float, float] | None, finite_pool: bool, uniform_draws: bool,
    systems: int,
) -> MonitorSettings:  # fmt: skip
    """The settings, refused when they contradict each other or are out of range."""
    live = live_design(mode, design, label_range)
    if t_star is not None and not t_star >= 1:
        raise ValueError(f"the planned size t* must be a positive number, not {t_star}")
    if error_rate not in tuple(ErrorRate):
        raise ValueError(f"error_rate must be one of {', '.join(ErrorRate)}, not {error_rate!r}")
    if not margin > 0:
        raise ValueError(f"the equivalence margin ε must be positive, not {margin}")
    if not uniform_draws and live != LiveDesign.ASYMPCS:
        raise ValueError(
            f"strict mode needs uniform draws; active sampling is monitored in asymptotic "
            f"mode with the asympcs design (not {live})"
        )
    return MonitorSettings(
        alpha=alpha, mode=mode, design=live, t_star=t_star, margin=margin,
        error_rate=ErrorRate(error_rate), higher_is_better=higher_is_better,
        pair_controls=pair_controls, label_range=label_range, finite_pool=finite_pool,
        uniform_draws=uniform_draws, systems=systems,
    )  # fmt: skip


def live_design(
    mode: str, design: str | None, label_range: tuple[float, float] | None
) -> LiveDesign:
    """The live design in force: ``design``, else the mode's default (asympcs for
    "asymptotic", eb_strict for "strict"); bounded designs need the known label range."""
    if mode not in ("asymptotic", "strict"):
        raise ValueError(f"mode must be 'asymptotic' or 'strict', not {mode!r}")
    if design is None:
        design = LiveDesign.ASYMPCS if mode == "asymptotic" else LiveDesign.EB_STRICT
    if design not in tuple(LiveDesign):
        raise ValueError(f"design must be one of {', '.join(LiveDesign)}, not {design!r}")
    live = LiveDesign(design)
    if live.bounded and label_range is None:
        raise ValueError(
            f"the {live} design (strict mode) needs the known label_range: use "
            "binary labels or 1 − HTER, or the asympcs / gsd_obf design"
        )
    return live
