"""What a campaign says about the planner's inputs: labelled and metric-only outputs per
system, the adequacy rate, and a binary metric's calibration counts
(docs/statistics-notes.md §16)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from estimators.data.campaign import CampaignData, LabelKind
from estimators.fixed_n.vondaniken import rates_from_counts


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
