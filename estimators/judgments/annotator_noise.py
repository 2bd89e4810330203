"""Annotator noise: how much of the human judgments' variance is disagreement between raters.

Chaganty, Mussmann & Liang (2018, "The price of debiasing automatic metrics in natural language
evaluation", ACL, §4.1 and Prop. 1; docs/statistics-notes.md §17): with γ = σ_a²/σ_f² the ratio of
annotator noise to the variance of the true item scores, no metric can give a data efficiency above
(1+γ)/γ (:func:`estimators.fixed_n.control_variates.theoretical_data_efficiency`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

from estimators.base.result import EstimateResult, critical_value


def annotator_noise_ratio(
    ratings: np.ndarray | Sequence[Sequence[float]], level: float = 0.95
) -> EstimateResult:
    """Annotator-noise ratio γ = σ_a²/σ_f² from items with ≥ 2 annotations.

    One-way random-effects ANOVA (items as groups; Chaganty et al. 2018, §4.1 and Table 2):
    σ_a² = MSW, σ_f² = (MSB − MSW)/k₀, γ̂ = σ_a²/σ_f², with k₀ the (unbalanced) mean group
    size. Interval from F = MSB/MSW ~ (1 + k₀/γ)·F(I−1, N−I) (exact for normal scores and
    balanced designs, approximate otherwise). ``ratings``: 2-D array (items × raters, NaN
    for missing) or a sequence of per-item rating lists. ``diagnostics["de_cap"]`` is the
    best DE any metric could give, (1+γ)/γ.
    """
    if isinstance(ratings, np.ndarray) and ratings.ndim == 2:
        groups = [row[~np.isnan(row)] for row in np.asarray(ratings, float)]
    else:
        groups = [np.asarray(r, float) for r in ratings]
    groups = [g for g in groups if g.size >= 2]
    n_items = len(groups)
    if n_items < 3:
        raise ValueError("need at least 3 items with >= 2 annotations")
    k = np.array([g.size for g in groups], float)
    n_tot = k.sum()
    means = np.array([g.mean() for g in groups])
    grand = sum(g.sum() for g in groups) / n_tot
    ssw = sum(((g - g.mean()) ** 2).sum() for g in groups)
    msw = ssw / (n_tot - n_items)
    msb = float((k * (means - grand) ** 2).sum() / (n_items - 1))
    k0 = (n_tot - (k**2).sum() / n_tot) / (n_items - 1)
    df1, df2 = n_items - 1, n_tot - n_items
    sigma_f2 = (msb - msw) / k0
    gamma = msw / sigma_f2 if sigma_f2 > 0 else math.inf
    tail = (1 - level) / 2
    f_stat = msb / msw if msw > 0 else math.inf
    theta_lo = (f_stat / stats.f.ppf(1 - tail, df1, df2) - 1) / k0
    theta_hi = (f_stat / stats.f.ppf(tail, df1, df2) - 1) / k0
    lo = 1 / theta_hi if theta_hi > 0 else math.inf
    hi = 1 / theta_lo if theta_lo > 0 else math.inf
    se = (hi - lo) / (2 * critical_value(level)) if math.isfinite(hi) else math.inf
    return EstimateResult(
        estimate=float(gamma),
        ci=(float(lo), float(hi)),
        se=float(se),
        n_human=int(n_tot),
        n_metric=0,
        method="annotator_noise_ratio",
        level=level,
        diagnostics={
            "sigma_a2": float(msw),
            "sigma_f2": float(sigma_f2),
            "n_items": n_items,
            "k0": float(k0),
            "f_stat": float(f_stat),
            "de_cap": float((1 + gamma) / gamma) if 0 < gamma < math.inf else math.inf,
        },
    )
