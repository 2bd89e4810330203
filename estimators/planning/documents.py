"""Plans in documents, when documents are judged in order (docs/statistics-notes.md,
"Documents as the sampling unit").

The planner's formulas (:mod:`estimators.planning.labels_needed`) count independent labels. With
documents as the sampling unit the ratio estimate over J documents of mean size n̄ has
about deff times the variance of J·n̄ independent labels, deff = 1 + (n̄_w − 1)·ICC
(Kish 1965, §5.4; n̄_w = Σn²/Σn), so n independent labels' precision takes ⌈n·deff/n̄⌉
complete documents (:class:`DocumentPlan`), and a pool of M documents holds the
information of M·n̄/deff independent labels (:func:`document_pool_fit`). The ICC is
measured on the campaign's labels (ANOVA, Donner 1986) or, before any label, assumed
:data:`ASSUMED_ICC` (said so wherever it is used).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from estimators.data.campaign import CampaignData, LabelKind
from estimators.planning.labels_needed import PERFECT_METRIC, measurable_difference, power_factor

#: The intra-document correlation planned with before the campaign has labels (the shipped
#: WMT21 TED talks measure 0.035 for labels, 0.020 for paired differences: statistics-notes §9)
ASSUMED_ICC = 0.05


@dataclass(frozen=True)
class DocumentPlan:
    """Labels and documents when documents are judged in order (docs/statistics-notes.md,
    "Documents as the sampling unit").

    The variance of the ratio estimate over J documents is about deff times that of n = J·n̄
    independent labels, deff = 1 + (n̄_w − 1)·ICC (Kish 1965, §5.4), so a plan made in
    labels for independent draws needs deff times the labels: ⌈n·deff / n̄⌉ documents.
    ``icc`` is measured on the campaign's labels when it has any (ANOVA, median over the
    systems, :func:`estimators.documents.clustered.icc_anova`), with its upper limit
    ``icc_high``."""

    pool_docs: int
    mean_size: float  # n̄: outputs per document and system
    weighted_size: float  # n̄_w = Σ n²/Σ n
    icc: float | None
    icc_high: float | None

    def deff(self, icc: float | None = None) -> float:
        """1 + (n̄_w − 1)·ICC at ``icc``, else the measured ICC, else :data:`ASSUMED_ICC`."""
        icc = self.planning_icc if icc is None else icc
        return 1.0 + (self.weighted_size - 1.0) * max(icc, 0.0)

    @property
    def planning_icc(self) -> float:
        return ASSUMED_ICC if self.icc is None else self.icc

    def labels_in(self, documents: int) -> int:
        """The labels per system ``documents`` complete documents hold (n̄ each on average):
        what a plan in documents stores as its planned labels."""
        return math.ceil(documents * self.mean_size)

    def documents_for(self, labels: int, icc: float | None = None) -> int:
        """Documents for the precision ``labels`` independent labels per system would give."""
        return math.ceil(labels * self.deff(icc) / self.mean_size) if labels > 0 else 0

    def sentence(self, labels: int) -> str:
        if self.icc is None:
            return (
                f"Documents are judged in order ({self.pool_docs:,} documents, "
                f"{self.mean_size:.1f} outputs each on average): with no labels yet the "
                f"intra-document correlation is unknown; at ICC {ASSUMED_ICC:g} the labels "
                f"above take {self.documents_for(labels):,} documents."
            )
        return (
            f"Documents are judged in order ({self.pool_docs:,} documents, "
            f"{self.mean_size:.1f} outputs each on average). Intra-document correlation of "
            f"the labels so far {self.icc:.3f} (up to {self.icc_high:.3f}): design effect "
            f"{self.deff():.2f}, so {labels:,} labels per system become "
            f"{self.documents_for(labels):,} documents "
            f"({self.documents_for(labels, self.icc_high):,} at the upper limit)."
        )


def document_plan(data: CampaignData, kind: str = LabelKind.LABEL) -> DocumentPlan | None:
    """The campaign's :class:`DocumentPlan` (``None`` when segments are the unit)."""
    if data.documents is None:
        return None
    from estimators.documents.clustered import icc_anova

    present = data.output_ids >= 0
    sizes = np.concatenate(
        [np.bincount(data.documents[present[s]]) for s in range(len(data.systems))]
    )
    sizes = sizes[sizes > 0].astype(float)
    first = data.first_judgments(kind)
    j, y = data.judgments, data.judgments.values(kind)
    iccs = []
    for s in range(len(data.systems)):
        rows = first[j.system[first] == s]
        groups = data.documents[j.item[rows]]
        if np.unique(groups).size >= 2 and rows.size > np.unique(groups).size:
            iccs.append(icc_anova(y[rows], groups))
    ok = [r for r in iccs if math.isfinite(r.icc)]
    mid = sorted(ok, key=lambda r: r.icc)[len(ok) // 2] if ok else None
    return DocumentPlan(
        pool_docs=int(np.unique(data.documents).size),
        mean_size=float(sizes.mean()) if sizes.size else 1.0,
        weighted_size=float(np.sum(sizes**2) / np.sum(sizes)) if sizes.size else 1.0,
        icc=None if mid is None else mid.icc,
        icc_high=None if mid is None else mid.high,
    )


@dataclass(frozen=True)
class DocumentPoolFit:
    """Does a plan in documents fit the pool, and what can the pool's documents settle?

    As :class:`estimators.planning.pool_fit.PoolFit` (m = k(k−1)/2 pairs, binary labels at their
    largest variance, Holm's first level α/m) with the pool's information counted in
    documents: all M documents hold M·n̄/deff independent labels' worth."""

    planned_docs: int | None
    pool_docs: int
    n_systems: int
    alpha: float
    deff: float
    icc: float
    icc_measured: bool
    smallest_difference: float
    smallest_margin: float

    @property
    def fits(self) -> bool:
        return self.planned_docs is None or self.planned_docs <= self.pool_docs

    def sentences(self, margin: float | None = None) -> list[str]:
        """What the planner page and ``cli.py plan`` say about the fit, in documents."""
        m = max(self.n_systems * (self.n_systems - 1) // 2, 1)
        source = "measured" if self.icc_measured else "assumed (no labels yet)"
        out = []
        if not self.fits:
            out.append(
                f"The plan asks for {self.planned_docs:,} complete documents per system, more "
                f"than the {self.pool_docs:,} documents in the pool: the live verdicts are "
                "tuned to the pool instead, and pairs closer than the plan's difference may "
                "stay undecided until every document is judged."
            )
        out.append(
            f"Documents are the sampling unit: with all {self.pool_docs:,} documents judged "
            f"(intra-document correlation {self.icc:.3f}, {source}; design effect "
            f"{self.deff:.2f}), {self.n_systems} systems ({m} pairs) at error rate "
            f"α = {self.alpha:g}: the smallest measurable difference this pool settles with "
            f"80 % power before the census is {self.smallest_difference:.3f}; equal systems "
            f"can be shown within "
            f"±{self.smallest_margin:.3f}."
        )
        if margin is not None and margin < self.smallest_margin:
            out.append(
                f"The equivalence margin ε = {margin:g} is below "
                f"±{self.smallest_margin:.3f}: no pair can settle as "
                "'no difference larger than ε' before every document is judged."
            )
        return out


def document_pool_fit(
    plan: DocumentPlan,
    n_systems: int,
    planned_docs: int | None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> DocumentPoolFit:
    """:class:`DocumentPoolFit`: the pool's M documents count as M·n̄/deff labels."""
    if plan.pool_docs < 1:
        raise ValueError("the pool has no documents")
    m = max(n_systems * (n_systems - 1) // 2, 1)
    level = 1 - alpha / m
    deff = plan.deff()
    half = measurable_difference(plan.pool_docs * plan.mean_size / deff, 0, PERFECT_METRIC,
                                 0.5, level)  # fmt: skip
    return DocumentPoolFit(
        planned_docs=planned_docs, pool_docs=plan.pool_docs, n_systems=int(n_systems),
        alpha=alpha, deff=deff, icc=plan.planning_icc, icc_measured=plan.icc is not None,
        smallest_difference=min(power_factor(level, power) * half, 1.0),
        smallest_margin=min(half, 1.0),
    )  # fmt: skip
