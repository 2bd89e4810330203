"""Inter-annotator agreement: Krippendorff's α on outputs judged more than once."""

from __future__ import annotations

from dataclasses import dataclass

import krippendorff
import numpy as np

from estimators.campaign import CampaignData, LabelKind

__all__ = ["Agreement", "agreement"]


@dataclass(frozen=True)
class Agreement:
    """Krippendorff's α over outputs with ≥ 2 current judgments."""

    alpha: float | None
    level: str
    n_units: int
    n_judgments: int
    note: str = ""


def agreement(data: CampaignData, y_all: np.ndarray, kind: str) -> Agreement:
    """Krippendorff's α (nominal for binary labels, interval otherwise) on outputs with
    ≥ 2 current judgments, via the ``krippendorff`` package (Krippendorff 2011).

    ``y_all`` holds the judgment of ``kind`` of every row of ``data.judgments`` (NaN: none).
    """
    j = data.judgments
    level = "nominal" if kind == LabelKind.LABEL else "interval"
    ok = np.isfinite(y_all)
    if not ok.any():
        return Agreement(None, level, 0, 0, "no judgments")
    unit = j.output_key(data.n_items)[ok]
    _, inverse, counts = np.unique(unit, return_inverse=True, return_counts=True)
    multi = counts[inverse] >= 2
    n_units = int((counts >= 2).sum())
    if n_units < 2:
        return Agreement(
            None, level, n_units, int(multi.sum()),
            "fewer than 2 outputs have two or more judgments: set an overlap share for the "
            "campaign to measure agreement",
        )  # fmt: skip
    col = np.searchsorted(np.flatnonzero(counts >= 2), inverse[multi])
    ann = j.annotator[ok][multi]
    annotators, row = np.unique(ann, return_inverse=True)
    matrix = np.full((annotators.size, n_units), np.nan)
    matrix[row, col] = y_all[ok][multi]
    if np.unique(matrix[np.isfinite(matrix)]).size < 2:
        return Agreement(None, level, n_units, int(multi.sum()), "all judgments are identical")
    alpha = float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))
    return Agreement(alpha, level, n_units, int(multi.sum()))
