"""What the estimators read: a campaign as arrays (pure numpy; db.reads.campaign fills it).

A campaign is a fixed pool: ``systems × items`` outputs (``output_ids``, −1 where a system
has no output), a metric-score grid of the same shape per metric signature, and the human
judgments in arrival order (:class:`Judgments`). Two rules every estimator shares are
written here once:

- which judgment of an output the estimators use: the first one in arrival order among the
  judgments that carry the chosen kind (:meth:`CampaignData.first_judgments`); repeats of
  an already-judged output feed agreement only;
- a thresholded metric: m = 1{g ≥ t}, or 1{g ≤ t} for TER-like metrics (:func:`binarise`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from estimators.sampling.active import Visits
from estimators.sequences.designs import LivePlan

__all__ = [
    "BINARY_KINDS",
    "DA_MAX",
    "ERROR_FREE_THRESHOLD",
    "ESA_MAX",
    "HUNDRED_SCALE",
    "LABEL_KINDS",
    "CampaignData",
    "Judgments",
    "LabelKind",
    "MetricInfo",
    "available_label_kinds",
    "binarise",
    "default_label_kind",
    "display_scale",
    "document_index",
    "error_free",
    "kind_range",
]


class LabelKind(StrEnum):
    """The human judgment an analysis uses."""

    LABEL = "label"  # binary, 1 = adequate
    ONE_MINUS_HTER = "one_minus_hter"  # post-edit quality, clipped to [0, 1]
    SCORE = "score"  # as imported, or the MQM score derived from error spans
    ESA = "esa"  # the ESA 0–100 overall score of an error-span judgment, analysed ÷ 100
    DA = "da"  # the DA / SQM 0–100 slider score (a Likert point p of n: 100·(p−1)/(n−1)), ÷ 100
    ERROR_FREE = "error_free"  # 1 = ESA score ≥ the campaign's threshold and no error span


#: The top of the ESA scale (Kocmi et al. 2024, "Error Span Annotation", WMT24): the
#: annotator's overall score is 0–100; the estimators read it as score / ESA_MAX ∈ [0, 1].
ESA_MAX = 100.0
#: The top of the DA slider (Graham et al. 2013/2017; WMT's DA and SQM, Freitag et al. 2021):
#: read as score / DA_MAX ∈ [0, 1], like the ESA score.
DA_MAX = 100.0
#: The ESA score from which an output with no error span is error-free (WMT26's binary
#: reading of ESA); a campaign may set its own (``meta["spans"]["error_free_threshold"]``).
ERROR_FREE_THRESHOLD = 85.0

#: Judgment kind → display name.
LABEL_KINDS: dict[LabelKind, str] = {
    LabelKind.LABEL: "binary label (1 = adequate)",
    LabelKind.ONE_MINUS_HTER: "1 − HTER (post-edit quality, clipped to [0, 1])",
    LabelKind.SCORE: "human score (as imported; the MQM score in error-span campaigns)",
    LabelKind.ESA: "ESA score ÷ 100 (the annotator's 0–100 score on a 0–1 scale)",
    LabelKind.DA: "DA / SQM / Likert score ÷ 100 (the 0–100 slider score on a 0–1 scale; a "
    "Likert point p of n is (p − 1)/(n − 1))",
    LabelKind.ERROR_FREE: "error-free (1 = ESA score ≥ the threshold and no error span)",
}
#: Kinds whose judgment is 0/1: the binary machinery (von Däniken, ρ/η) applies.
BINARY_KINDS = (LabelKind.LABEL, LabelKind.ERROR_FREE)

#: Known range of one judgment of a kind, on the scale the estimators read (``values``).
#: Bounded-range machinery (betting sequences, known pool bounds, clipped intervals) needs
#: it; an imported score has none (``None``).
_KIND_RANGES: dict[str, tuple[float, float]] = {
    LabelKind.LABEL: (0.0, 1.0),
    LabelKind.ONE_MINUS_HTER: (0.0, 1.0),
    LabelKind.ESA: (0.0, 1.0),
    LabelKind.DA: (0.0, 1.0),
    LabelKind.ERROR_FREE: (0.0, 1.0),
}
#: Kinds read off a 0–100 scale (÷ 100 for the estimators, × 100 to show).
HUNDRED_SCALE = (LabelKind.ESA, LabelKind.DA)


def kind_range(kind: str) -> tuple[float, float] | None:
    """Known (low, high) of one judgment of ``kind`` as :meth:`Judgments.values` gives it:
    [0, 1] for binary labels, 1 − HTER (clipped) and the ESA and DA scores (÷ 100); ``None`` for
    imported scores, whose range is unknown."""
    return _KIND_RANGES.get(kind)


def display_scale(kind: str) -> float:
    """Factor from the analysed scale to the one the user reads: 100 for ESA and DA (an
    estimate 0.734 is an ESA score of 73.4, an interval half-width 0.02 is 2 points), else
    1. Multiply estimates, bounds, standard errors and ε by it; not p-values."""
    return ESA_MAX if kind in HUNDRED_SCALE else 1.0


def error_free(esa_score: Any, n_spans: Any, threshold: Any = ERROR_FREE_THRESHOLD) -> np.ndarray:
    """1.0 where an output is error-free — its ESA score is ≥ ``threshold`` and it has no
    error span (every stored span counts: output spans and omissions marked in the source) —
    0.0 where not, NaN where the judgment has no ESA score or no span list. ``threshold``: one
    for all, or one per judgment."""
    esa = np.asarray(esa_score, dtype=float)
    spans = np.asarray(n_spans, dtype=float)
    least = np.broadcast_to(np.asarray(threshold, dtype=float), esa.shape)
    known = np.isfinite(esa) & np.isfinite(spans)
    out = np.full(esa.shape, np.nan)
    out[known] = ((esa[known] >= least[known]) & (spans[known] == 0)).astype(float)
    return out


def binarise(values: Any, threshold: float, higher_is_better: bool = True) -> np.ndarray:
    """Binary metric m = 1{g ≥ threshold} (or g ≤ threshold for TER-like metrics), as bools."""
    values = np.asarray(values, dtype=float)
    return (values >= threshold) if higher_is_better else (values <= threshold)


@dataclass(frozen=True)
class MetricInfo:
    """One stored metric signature of a campaign and its chosen threshold (if any)."""

    signature: str
    metric: str
    n_scores: int
    threshold: float | None = None
    higher_is_better: bool | None = None
    threshold_method: str | None = None


@dataclass(frozen=True)
class Judgments:
    """Current judgments, one entry per annotation row, sorted by arrival order.

    Arrival order is the assignment position (the queue's recorded random order); rows
    without an assignment come last (``position`` NaN) and cannot drive sequential
    verdicts. All arrays have the same length.
    """

    annotation_id: np.ndarray  # int
    item: np.ndarray  # int, index into CampaignData.item_ids
    system: np.ndarray  # int, index into CampaignData.systems
    annotator: np.ndarray  # int, index into CampaignData.annotators
    label: np.ndarray  # float: 0/1, NaN when the judgment has no binary label
    score: np.ndarray  # float, NaN when absent
    hter: np.ndarray  # float, NaN when absent
    seconds: np.ndarray  # float, NaN when not timed
    position: np.ndarray  # float, NaN without an assignment
    inclusion_prob: np.ndarray  # float, NaN without an assignment
    created_at: np.ndarray  # datetime64[us] (UTC)
    #: float, the ESA 0–100 score as stored (NaN when absent); ``None`` = none at all
    esa_score: np.ndarray | None = None
    #: float, the DA / SQM 0–100 slider score as stored (NaN when absent); ``None`` = none
    da_score: np.ndarray | None = None
    #: float, the number of error spans as stored (NaN for a judgment without a span list);
    #: ``None`` = none at all
    n_spans: np.ndarray | None = None
    #: float, the campaign's ESA score from which an output without spans is error-free, per
    #: judgment like every field (so a cut of the judgments keeps it); ``None`` = the default
    error_free_threshold: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.annotation_id.size)

    @staticmethod
    def empty() -> Judgments:
        i, f = np.zeros(0, dtype=int), np.zeros(0, dtype=float)
        return Judgments(i, i, i, i, f, f, f, f, f, f, np.zeros(0, dtype="datetime64[us]"))

    def values(self, kind: str) -> np.ndarray:
        """The judgment of ``kind`` per row (NaN where a row has none)."""
        if kind == LabelKind.LABEL:
            return np.asarray(self.label, dtype=float)
        if kind == LabelKind.ONE_MINUS_HTER:
            return np.clip(1.0 - np.asarray(self.hter, dtype=float), 0.0, 1.0)
        if kind == LabelKind.SCORE:
            return np.asarray(self.score, dtype=float)
        if kind == LabelKind.ESA:
            if self.esa_score is None:
                return np.full(len(self), np.nan)
            return np.clip(np.asarray(self.esa_score, dtype=float) / ESA_MAX, 0.0, 1.0)
        if kind == LabelKind.DA:
            if self.da_score is None:
                return np.full(len(self), np.nan)
            return np.clip(np.asarray(self.da_score, dtype=float) / DA_MAX, 0.0, 1.0)
        if kind == LabelKind.ERROR_FREE:
            if self.esa_score is None or self.n_spans is None:
                return np.full(len(self), np.nan)
            threshold = self.error_free_threshold
            return error_free(
                self.esa_score,
                self.n_spans,
                ERROR_FREE_THRESHOLD if threshold is None else threshold,
            )
        raise ValueError(f"unknown judgment kind {kind!r}; use one of {sorted(LABEL_KINDS)}")

    def output_key(self, n_items: int) -> np.ndarray:
        """One integer per (system, item) output, for grouping the rows of an output."""
        return self.system.astype(np.int64) * max(n_items, 1) + self.item


def available_label_kinds(judgments: Judgments) -> list[LabelKind]:
    """The judgment kinds present in ``judgments``, in :class:`LabelKind` order."""
    return [k for k in LabelKind if np.isfinite(judgments.values(k)).any()]


def default_label_kind(mode: str, judgments: Judgments) -> LabelKind | None:
    """Post-edit campaigns default to 1 − HTER; an ESA campaign (error spans with the 0–100
    score asked, so ESA scores are present) to the ESA score, the signal WMT ranks by; a DA
    or SQM campaign to its slider score; others to the binary label; else scores."""
    kinds = available_label_kinds(judgments)
    first = [LabelKind.ONE_MINUS_HTER, LabelKind.LABEL]
    preferred = first if mode == "post_edit" else [LabelKind.ESA, *first[::-1]]
    if mode in ("da", "sqm"):
        preferred = [LabelKind.DA]
    return next((k for k in [*preferred, LabelKind.SCORE] if k in kinds), None)


@dataclass(frozen=True)
class CampaignData:
    """A campaign as arrays: the fixed pool, metric scores and the human judgments."""

    campaign_id: int
    name: str
    mode: str
    systems: list[str]
    is_human: np.ndarray  # bool per system
    item_ids: list[str]  # external ids; column j of every grid
    output_ids: np.ndarray  # (k, N) int, −1 where a system has no output for an item
    metrics: list[MetricInfo]
    #: signature → (k, N) float grid of metric scores, NaN where missing.
    scores: dict[str, np.ndarray]
    judgments: Judgments
    annotators: list[str]
    #: Calibration sets imported into this campaign as the "ρ, η provided" prior.
    provided_calibration: list[dict[str, Any]] = field(default_factory=list)
    #: The queue's frontier: the smallest position of a slot that may still bring a label
    #: the monitor would use (open or claimed, not yet answered); inf when none. Labels at
    #: later positions arrived early (annotators work in parallel) and wait for it.
    open_from: float = math.inf
    #: The live verdicts' plan in force (planned size, design, estimand; changes made after
    #: labels existed are listed, not applied).
    #: the plan in force; none stored: every setting its default, the design the judgment
    #: kind's (:meth:`LivePlan.design_for`)
    live_plan: LivePlan = field(default_factory=lambda: LivePlan(design_set=False))
    #: Active sampling: every visit of the queue's draw rounds (None for a uniform
    #: campaign); the monitor weights the labels by their recorded π.
    visits: Visits | None = None
    #: Documents judged in order (the queue draws whole documents): each item's document
    #: index, so the estimators take the document as the unit; ``None`` when segments are
    #: drawn one at a time. Items without a document id are documents of their own.
    documents: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    def metric(self, signature: str) -> MetricInfo | None:
        return next((m for m in self.metrics if m.signature == signature), None)

    def first_judgments(self, kind: str) -> np.ndarray:
        """Rows the estimators use: per output, its first judgment of ``kind`` in arrival
        order (rows without a value of ``kind`` are skipped). Sorted row indices."""
        idx = np.flatnonzero(np.isfinite(self.judgments.values(kind)))
        key = self.judgments.output_key(self.n_items)[idx]
        _, first = np.unique(key, return_index=True)
        return idx[np.sort(first)]


def document_index(doc_ids: list[str | None]) -> np.ndarray:
    """Each item's document as an index 0..M−1, in first-appearance order; an item without
    a document id is a document of its own."""
    codes: dict[object, int] = {}
    out = np.empty(len(doc_ids), dtype=int)
    for i, d in enumerate(doc_ids):
        key = ("item", i) if d is None or d == "" else d
        out[i] = codes.setdefault(key, len(codes))
    return out
