"""Per-annotator z-scores (WMT / Appraise practice): an optional analysis of human scores.

Formula (Graham et al. 2013, "Continuous Measurement Scales in Human Evaluation of Machine
Translation", LAW; Graham et al. 2017, "Can machine translation systems be evaluated by the
crowd alone?", Natural Language Engineering 23(1); used for DA and ESA at WMT since 2016):

    z_i = (y_i − m_a) / s_a

where a is the annotator of judgment i, m_a the mean and s_a the standard deviation
(ddof = 1) of annotator a's judgments of the chosen kind (every current judgment of theirs
that carries the kind, repeats included). A system's z-score is the mean of z over its
outputs' judgments.

What it changes (docs/statistics-notes.md, "Per-annotator z-scores"): the estimand becomes
the system mean of *standardised* scores, not of raw scores — a difference in z is in units
of an annotator's spread, and it is not a rescaling of the raw difference. m_a and s_a are
estimated from the same judgments, so z is not fixed data: intervals that treat z as fixed
(the t intervals, PPI++ and the monitor run on it) are approximate; the error is of order
1/n_a per annotator. Standardising removes annotator offsets and scale differences from the
between-system comparison (useful when annotators judge different systems' outputs), and it
has no known range, so the bounded-range designs do not apply (the live monitor falls back to
the asympcs design).

Annotators with fewer than ``min_judgments`` judgments of the kind get NaN (their z is not
defined); an annotator whose judgments are all equal (s_a = 0) gets z = 0 for each.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from estimators.data.campaign import BINARY_KINDS, CampaignData

__all__ = ["MIN_JUDGMENTS", "annotator_zscores", "zscored_campaign"]

#: Fewest judgments of an annotator for a standard deviation (ddof = 1).
MIN_JUDGMENTS = 2


def annotator_zscores(
    values: np.ndarray, annotator: np.ndarray, min_judgments: int = MIN_JUDGMENTS
) -> np.ndarray:
    """z_i = (y_i − m_a) / s_a per judgment (module docstring); NaN where y_i is NaN or its
    annotator has fewer than ``min_judgments`` finite values; 0 where s_a = 0."""
    y = np.asarray(values, dtype=float).ravel()
    ann = np.asarray(annotator).ravel()
    if y.shape != ann.shape:
        raise ValueError(f"values {y.shape} and annotator {ann.shape} differ in length")
    if min_judgments < 2:
        raise ValueError(f"min_judgments must be at least 2 (ddof = 1), not {min_judgments}")
    z = np.full(y.size, np.nan)
    ok = np.isfinite(y)
    if not ok.any():
        return z
    codes, inv = np.unique(ann[ok], return_inverse=True)
    n = np.bincount(inv, minlength=codes.size).astype(float)
    s1 = np.bincount(inv, weights=y[ok], minlength=codes.size)
    mean = s1 / n
    dev = y[ok] - mean[inv]
    ss = np.bincount(inv, weights=dev * dev, minlength=codes.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(ss / (n - 1))
    enough = n >= min_judgments
    # all equal up to rounding (1e-12 of the scale): sd 0, z 0
    spread = sd > 1e-12 * np.maximum(np.abs(mean), 1e-300)
    zz = np.where(spread[inv], dev / np.where(spread[inv], sd[inv], 1.0), 0.0)
    z[ok] = np.where(enough[inv], zz, np.nan)
    return z


def zscored_campaign(data: CampaignData, kind: str) -> CampaignData:
    """``data`` with its judgments of ``kind`` replaced by their per-annotator z-scores, as
    the ``score`` kind (:attr:`LabelKind.SCORE`, no known range): run any estimator on the
    result with ``LabelKind.SCORE``. Rows without ``kind`` (or whose annotator has too few
    judgments) carry no score. A binary label is refused: its z-score is a relabelling of
    0/1 per annotator, not a standardised quality."""
    if kind in BINARY_KINDS:
        raise ValueError("z-scores standardise graded scores; a binary label has none")
    j = data.judgments
    z = annotator_zscores(j.values(kind), j.annotator)
    return replace(data, judgments=replace(j, score=z))
