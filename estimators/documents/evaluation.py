"""Fixed-n results with documents as the sampling unit (`cli.py evaluate` in document order).

When documents are judged in order the randomly drawn unit is the document, so the
segment formulas (labels as independent draws) are too narrow. Per system and per pair the
estimate is the ratio estimator over the completed documents,

    θ̂ = Σ_j D_j / Σ_j n_j,  v(θ̂) = (1 − J/M) Σ_j (D_j − θ̂ n_j)² / (J − 1) / (J n̄²),

with the t_{J−1} interval (:func:`estimators.documents.clustered.ratio_interval`; Cochran 1977,
§6.2;
Lohr 2022, §5.3) — the dashboard's human-only column in this mode. For a pair D_j sums the
paired differences y_A − y_B over the document's items both systems answered. Each pair's
p-value is the two-sided t test of Δ = 0 on the same t_{J−1} reference, Holm across the
pairs (Holm 1979); a verdict needs :data:`estimators.documents.clustered.MIN_DOCUMENTS` completed
documents. Partial documents are left out (a prefix of a document is not a random sample
of it). PPI++ and the von Däniken columns assume labels drawn one at a time and have no
document-unit version here. Statistics notes: ``docs/statistics-notes.md`` §9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

from estimators.base.multiple import holm, pairs
from estimators.base.result import EstimateResult, within
from estimators.base.verdicts import fixed_n_words
from estimators.data.campaign import CampaignData
from estimators.documents import clustered as cl
from estimators.fixed_n.controls import label_bounds, label_grid


@dataclass(frozen=True)
class DocumentRow:
    """One system's or pair's ratio estimate over its completed documents."""

    name: str
    result: EstimateResult  # method "ratio_documents"; diagnostics carry the document counts
    documents: int
    pool_documents: int
    p_value: float = float("nan")  # pairs: two-sided t test of Δ = 0
    p_holm: float = float("nan")
    verdict: str = ""


@dataclass(frozen=True)
class DocumentEvaluation:
    systems: list[DocumentRow]
    pairs: list[DocumentRow]


def documents_result(sums: cl.DocumentSums, level: float, bounds) -> EstimateResult:  # type: ignore[no-untyped-def]
    """The ratio estimate θ̂ = Σ_j D_j / Σ_j n_j over the completed documents with its t_{J−1}
    interval (:func:`estimators.documents.clustered.ratio_interval`; Cochran 1977, §6.2), method
    "ratio_documents", clipped to ``bounds``; a verdict needs
    :data:`estimators.documents.clustered.MIN_DOCUMENTS` documents."""
    r = cl.ratio_interval(sums.total, sums.size, level=level, pool_docs=sums.pool_docs)
    res = EstimateResult(
        estimate=r.estimate, ci=(r.low, r.high), se=r.se, n_human=int(sums.size.sum()),
        n_metric=0, method="ratio_documents", level=level, df=r.df,
        diagnostics={"documents": r.documents, "pool_documents": sums.pool_docs},
        valid_for_verdict=r.documents >= cl.MIN_DOCUMENTS,
    )  # fmt: skip
    return within(res, bounds)


def _row(name: str, sums: cl.DocumentSums, level: float, bounds) -> DocumentRow:  # type: ignore[no-untyped-def]
    res = documents_result(sums, level, bounds)
    return DocumentRow(name, res, res.diagnostics["documents"], sums.pool_docs)


def _t_p_value(res: EstimateResult) -> float:
    """Two-sided p of Δ = 0 on t_{J−1}; a zero standard error (census) is exact."""
    est, se, df = res.estimate, res.se, res.df or 0
    if not math.isfinite(est) or df < 1 or not math.isfinite(se):
        return float("nan")
    if se == 0:
        return 0.0 if est != 0 else 1.0
    return float(2 * stats.t.sf(abs(est) / se, df))


def document_evaluation(
    data: CampaignData, kind: str, *, alpha: float = 0.05, margin: float, level: float = 0.95
) -> DocumentEvaluation:
    """Per system and per pair, the ratio estimate over completed documents (module
    docstring); pair verdicts in the live verdicts' three words with Holm across pairs."""
    assert data.documents is not None, "documents are not the sampling unit"
    y_grid, labelled = label_grid(data, kind)
    bounds = label_bounds(kind)
    present = data.output_ids >= 0
    systems = []
    for s, name in enumerate(data.systems):
        items = np.flatnonzero(labelled[s] & present[s])
        sums = cl.document_sums(
            data.documents, present[s], items, y_grid[s, items], np.zeros(items.size)
        )
        if sums.completed >= 2:
            systems.append(_row(name, sums, level, bounds))
    found = []
    pair_bounds = None if bounds is None else (bounds[0] - bounds[1], bounds[1] - bounds[0])
    for a, b in pairs(len(data.systems)):
        both = present[a] & present[b]
        items = np.flatnonzero(labelled[a] & labelled[b] & both)
        diff = y_grid[a, items] - y_grid[b, items]
        sums = cl.document_sums(data.documents, both, items, diff, np.zeros(items.size))
        if sums.completed >= 2:
            names = (data.systems[a], data.systems[b])
            found.append((names, _row(" – ".join(names), sums, level, pair_bounds)))
    p = np.array([_t_p_value(row.result) for _, row in found])
    adjusted = holm(p, alpha).adjusted if found else np.array([])
    m = max(len(pairs(len(data.systems))), 1)
    rows = []
    for ((a, b), row), pv, ph in zip(found, p, adjusted, strict=True):
        r = row.result
        words = fixed_n_words(
            a, b, r.estimate, r.se, float(ph), alpha=alpha, m=m, margin=margin,
            n=row.documents, min_labels=cl.MIN_DOCUMENTS,
        )  # fmt: skip
        rows.append(replace(row, p_value=float(pv), p_holm=float(ph), verdict=words))
    return DocumentEvaluation(systems, rows)
