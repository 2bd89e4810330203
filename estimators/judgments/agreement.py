"""Inter-annotator agreement on outputs judged more than once: Krippendorff's α on any
judgment (binary label, MQM score, …) and character-level F1 between error spans."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import krippendorff
import numpy as np

from estimators.data.campaign import BINARY_KINDS, CampaignData

__all__ = ["NO_REPEATS", "Agreement", "SpanAgreement", "agreement", "agreement_note", "span_f1"]


@dataclass(frozen=True)
class Agreement:
    """Krippendorff's α over outputs with ≥ 2 current judgments."""

    alpha: float | None
    level: str
    n_units: int
    n_judgments: int
    note: str = ""


#: :attr:`Agreement.note` when too few outputs were judged twice (see :func:`agreement_note`).
NO_REPEATS = "fewer than 2 outputs have two or more judgments"


def agreement_note(a: Agreement, overlap: float | None) -> str:
    """Why α is missing, with advice that fits the campaign's overlap share: ask for an
    overlap only when there is none (with 10 % set, the second judgments are queued and
    simply not done yet)."""
    if a.note != NO_REPEATS:
        return a.note
    if overlap is not None and overlap > 0:
        return (f"{a.note} yet: the campaign's overlap share ({overlap:.0%}) queues second "
                "judgments, and α appears once annotators have done some of them")  # fmt: skip
    return f"{a.note}: set an overlap share for the campaign to measure agreement"


def agreement(data: CampaignData, y_all: np.ndarray, kind: str) -> Agreement:
    """Krippendorff's α (nominal for binary labels, interval otherwise) on outputs with
    ≥ 2 current judgments, via the ``krippendorff`` package (Krippendorff 2011).

    ``y_all`` holds the judgment of ``kind`` of every row of ``data.judgments`` (NaN: none).
    """
    j = data.judgments
    level = "nominal" if kind in BINARY_KINDS else "interval"
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
            NO_REPEATS,
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


#: One annotator's error spans of one output: (start, end, is_major) character ranges.
MarkedSpans = Sequence[tuple[int, int, bool]]


@dataclass(frozen=True)
class SpanAgreement:
    """Character-level span F1 between annotators, micro-averaged over annotator pairs."""

    f1: float | None  # None when no pair marked any character
    n_units: int  # outputs with ≥ 2 annotators
    n_pairs: int  # annotator pairs compared (over all units)
    n_both_clean: int  # pairs in which neither annotator marked anything
    severity_aware: bool


def _chars(spans: MarkedSpans) -> dict[int, bool]:
    """Each marked character → whether it is major. A character under overlapping spans of
    both classes counts once, as major (the worse error wins), so agreement never exceeds 1."""
    marked: dict[int, bool] = {}
    for s, e, is_major in spans:
        for c in range(s, e):
            marked[c] = marked.get(c, False) or bool(is_major)
    return marked


def span_f1(units: Sequence[Sequence[MarkedSpans]], severity_aware: bool = False) -> SpanAgreement:
    """Character-level F1 between the error spans of every pair of annotators of an output,
    micro-averaged: F1 = 2 Σ |A ∩ B| / Σ (|A| + |B|) over all pairs of all units, where A and
    B are the sets of output characters the two annotators marked (symmetric, so no one is
    the reference). ``severity_aware``: a character agrees only when both marked it with the
    same severity class (major/critical vs minor), i.e. |A ∩ B| = |A_maj ∩ B_maj| +
    |A_min ∩ B_min|; a character under both a major and a minor span of one annotator is
    major. Pairs in which neither marked anything agree perfectly but carry no
    characters; they are counted in ``n_both_clean`` (read them with α on the labels).

    The character-level span F1 of the WMT error-span tasks (e.g. Blain et al. 2023, "Findings
    of the WMT 2023 Shared Task on Quality Estimation"; Kocmi et al. 2024, ESA), here between
    annotators instead of between a system and gold spans.
    """
    agree = total = pairs = clean = n_units = 0
    for unit in units:
        if len(unit) < 2:
            continue
        n_units += 1
        for a, b in combinations(unit, 2):
            pairs += 1
            ca, cb = _chars(a), _chars(b)
            if not ca and not cb:
                clean += 1
                continue
            both = ca.keys() & cb.keys()
            agree += sum(ca[c] == cb[c] for c in both) if severity_aware else len(both)
            total += len(ca) + len(cb)
    f1 = 2 * agree / total if total else None
    return SpanAgreement(f1, n_units, pairs, clean, severity_aware)
