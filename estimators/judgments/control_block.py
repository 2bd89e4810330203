"""The shared control block's statistics: every annotator judged the same outputs once, so
their judgments form a complete annotators × outputs matrix X (NaN where one is missing).

docs/statistics-notes.md §27.

- **Per-annotator z-score parameters** (WMT's standardisation; Graham et al. 2017, "Can
  machine translation systems be evaluated by the crowd alone", NLE): annotator a's mean
  μ_a and standard deviation σ_a (ddof = 1) over the block. On the same outputs these differ
  only by the annotator's own scale use, not by which outputs they happened to get; a
  judgment x becomes z = (x − μ_a) / σ_a.
- **Agreement**: Krippendorff's α on X (the ``krippendorff`` package; interval level for
  scores, nominal for binary labels; Krippendorff 2011, "Computing Krippendorff's
  Alpha-Reliability").
- **Drift**: each judgment's residual r = x − (the mean of the other annotators on that
  output), against the order in which the annotator gave their block judgments (1, 2, …);
  the least-squares slope b_a of r on the order and its two-sided p-value
  (``scipy.stats.linregress``, H0: b = 0). A slope far from 0 says the annotator grew
  stricter (b < 0) or more lenient over the block; with few block outputs the test has little
  power. A fixed-n reading per annotator, no multiplicity correction.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import krippendorff
import numpy as np
from scipy import stats

__all__ = ["AnnotatorBlock", "BlockStats", "block_stats"]


@dataclass(frozen=True)
class AnnotatorBlock:
    annotator: str
    n: int
    mean: float
    sd: float
    drift_slope: float
    drift_p: float


@dataclass(frozen=True)
class BlockStats:
    annotators: list[AnnotatorBlock]
    n_outputs: int
    alpha: float | None
    level: str
    note: str = ""


def block_stats(x: np.ndarray, order: np.ndarray, annotators: list[str],
                binary: bool = False) -> BlockStats:  # fmt: skip
    """``x``: (annotators, outputs) judgments, NaN where missing; ``order``: the same shape,
    the rank of each judgment in its annotator's time order (any increasing numbers)."""
    x = np.asarray(x, dtype=float)
    order = np.asarray(order, dtype=float)
    level = "nominal" if binary else "interval"
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for a, name in enumerate(annotators):
            mine = np.isfinite(x[a])
            vals = x[a, mine]
            others = np.delete(x, a, axis=0)
            consensus = np.nanmean(others, axis=0) if len(others) else np.full(x.shape[1], np.nan)
            keep = mine & np.isfinite(consensus)
            slope, p = math.nan, math.nan
            if keep.sum() >= 3 and np.ptp(order[a, keep]) > 0:
                fit = stats.linregress(order[a, keep], x[a, keep] - consensus[keep])
                slope, p = float(fit.slope), float(fit.pvalue)
            rows.append(AnnotatorBlock(
                name, int(vals.size), float(vals.mean()) if vals.size else math.nan,
                float(vals.std(ddof=1)) if vals.size > 1 else math.nan, slope, p,
            ))  # fmt: skip
    alpha, note = None, ""
    pairable = (np.isfinite(x).sum(axis=0) >= 2).sum()
    values = x[np.isfinite(x)]
    if len(annotators) < 2 or pairable < 2:
        note = "Krippendorff's α needs two annotators on at least two block outputs"
    elif np.unique(values).size < 2:
        note = "every block judgment is the same: Krippendorff's α is undefined"
    else:
        alpha = float(krippendorff.alpha(reliability_data=x, level_of_measurement=level))
    return BlockStats(rows, int(x.shape[1]), alpha, level, note)
