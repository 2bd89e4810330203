"""How much each metric saves: measured and limiting data efficiency.

The formulas are in docs/statistics-notes.md §17.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from estimators.base.multiple import pairs
from estimators.base.result import MIN_LABELS_METRIC_ASSISTED
from estimators.caches.report import ReportCache, cached, digest
from estimators.data.campaign import CampaignData
from estimators.fixed_n import control_variates as cv

__all__ = ["MetricEfficiency", "correlation", "finite_median", "metric_efficiency"]


@dataclass(frozen=True)
class MetricEfficiency:
    """One metric's measured and limiting data efficiency (docs/statistics-notes.md §17).

    ``de_measured`` = median over systems of se²(human)/se²(PPI++) on this campaign (needs
    unlabelled outputs: ``None`` for a census); ``de_limit`` = 1/(1 − ρ_y²), the efficiency
    with an unlimited pool, from the median per-system correlation ρ_y of a single label with
    the metric; ``de_pairs_limit`` the same for paired differences (the comparisons).
    """

    signature: str
    metric: str
    rho_y: float | None
    de_measured: float | None
    de_limit: float | None
    rho_pairs: float | None
    de_pairs_limit: float | None
    n_labelled: int
    n_unlabelled: int


def correlation(x: np.ndarray, y: np.ndarray) -> float | None:
    """Pearson r, or None with fewer than 3 values or a constant side."""
    if x.size < 3 or np.std(x) == 0 or np.std(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def finite_median(values: list[float | None]) -> float | None:
    """Median of the finite values (None when there are none)."""
    vals = [v for v in values if v is not None and math.isfinite(v)]
    return float(np.median(vals)) if vals else None


def metric_efficiency(
    data: CampaignData,
    y_grid: np.ndarray,
    labelled: np.ndarray,
    cache: ReportCache | None = None,
) -> list[MetricEfficiency]:
    """Measured and limiting data efficiency of every stored metric (docs/statistics-notes.md §17).

    ``y_grid`` (k, N): the judgment the estimators use per output; ``labelled`` where it is.
    Measured DE is :func:`estimators.fixed_n.control_variates.ppi_mean`'s ``de``; the limits are
    :func:`estimators.fixed_n.control_variates.theoretical_data_efficiency` at the median ρ.
    ``cache`` keeps each system's terms and each pair's correlation by a digest of the rows
    they read (:mod:`estimators.caches.report`): after one label, one system and its k − 1
    pairs are computed again.
    """
    out = []
    k = len(data.systems)
    for info in data.metrics:
        grid = np.asarray(data.scores[info.signature], dtype=float)
        keys = [b""] * k
        if cache is not None:
            keys = [digest(grid[s], y_grid[s], labelled[s], data.output_ids[s] >= 0)
                    for s in range(k)]  # fmt: skip
        rhos, des, n_l, n_u = [], [], 0, 0
        for s in range(k):
            rho, de, n_lab, n_unl = cached(
                cache, "efficiency", partial(bytes, keys[s]),
                partial(_system_terms, grid[s], y_grid[s], labelled[s], data.output_ids[s]),
            )  # fmt: skip
            n_l += n_lab
            n_u += n_unl
            rhos.append(rho)
            if de is not None:
                des.append(de)
        pair_rhos = []
        for a, b in pairs(k):
            compute = partial(_pair_rho, grid, y_grid, labelled, a, b)
            pair_rhos.append(cached(cache, "pair_rho", partial(bytes, keys[a] + keys[b]), compute))
        rho = finite_median(rhos)
        rho_p = finite_median(pair_rhos)
        out.append(
            MetricEfficiency(
                signature=info.signature,
                metric=info.metric,
                rho_y=rho,
                de_measured=finite_median(des),
                de_limit=None if rho is None else cv.theoretical_data_efficiency(rho, 1),
                rho_pairs=rho_p,
                de_pairs_limit=None if rho_p is None else cv.theoretical_data_efficiency(rho_p, 1),
                n_labelled=n_l,
                n_unlabelled=n_u,
            )
        )
    return out


def _system_terms(
    g: np.ndarray, y: np.ndarray, labelled: np.ndarray, output_ids: np.ndarray
) -> tuple[float | None, float | None, int, int]:
    """One system's ρ (label vs metric), measured DE (None when PPI++ cannot run), numbers
    of labelled and unlabelled scored outputs."""
    present = (output_ids >= 0) & np.isfinite(g)
    lab, unl = labelled & present, present & ~labelled
    de = None
    if lab.sum() >= MIN_LABELS_METRIC_ASSISTED and unl.sum() >= 2:
        res = cv.ppi_mean(y[lab], g[lab], g[unl])
        de = res.diagnostics.get("de", math.nan)
    return correlation(g[lab], y[lab]), de, int(lab.sum()), int(unl.sum())


def _pair_rho(
    grid: np.ndarray, y_grid: np.ndarray, labelled: np.ndarray, a: int, b: int
) -> float | None:
    """ρ of the paired differences (metric vs label) over the items both systems have."""
    both = labelled[a] & labelled[b] & np.isfinite(grid[a]) & np.isfinite(grid[b])
    return correlation(grid[a, both] - grid[b, both], y_grid[a, both] - y_grid[b, both])
