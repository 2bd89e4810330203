"""Documents as the sampling unit: ratio estimator, cluster-robust intervals, live sequences.

When a campaign judges documents in order, the queue draws whole documents (one system's
document, or one document with every system's outputs in the paired design), so the labels
of one document are not independent draws: the randomly drawn unit is the document. Here
document j of a system (or pair) contributes its sum D_j = Σ_{i∈j} y_i (for a pair the sum
of the paired differences) and its size n_j (outputs, or items both systems answered).

- **Estimate** (the segment mean over the pool, θ = Σ_pool D / Σ_pool n): the ratio
  estimator θ̂ = Σ_{j≤J} D_j / Σ_{j≤J} n_j over the J completed documents (Cochran 1977,
  §6.2 and §9A.5 "cluster sampling, ratio to size"; Lohr 2022, §5.3).
- **Fixed-n interval** (:func:`ratio_interval`): the linearised (Taylor) variance with the
  finite-population correction over the M documents of the pool,
  v(θ̂) = (1 − J/M) · s_e² / (J · n̄²), e_j = D_j − θ̂ n_j, s_e² = Σ e_j² / (J − 1),
  n̄ = Σ_{j≤J} n_j / J, and θ̂ ± t_{J−1, 1−α/2} √v (Cochran 1977, eq. 6.13 and §9A.5;
  the t quantile with J − 1 degrees of freedom as in Lohr 2022, §5.2). With singleton
  documents (n_j = 1) it is exactly the segment formula s²/n · (1 − n/N).
- **Live sequence** (:func:`document_increments`, :func:`document_paths`): one increment per
  completed document, z_j = D_j / n̄_pool − λ_{j−1}(n_j − n̄_pool), with n̄_pool = N/M the
  known mean document size of the pool and λ_{j−1} the least-squares slope of D/n̄_pool on n
  from documents 1..j−1 only (predictable). Documents are drawn uniformly, so
  E[D_j]/n̄_pool = θ and E[n_j] = n̄_pool: E[z_j | past] = θ exactly, a martingale difference
  sequence whose mean is the ratio estimand — the size n_j is a control variate with a known
  pool mean (Chaganty et al. 2018's predictable control variate with the document size as
  the control). As λ → θ/n̄_pool, z_j → θ + (D_j − θ n_j)/n̄_pool: the ratio estimator's
  linearised residual, so the sequence is as narrow as the ratio estimator allows. The
  asymptotic confidence sequence and its dual anytime p-value (Waudby-Smith, Arbour, Sinha,
  Kennedy & Ramdas 2024; :mod:`estimators.sequences.sequential`) run on these increments, so every
  interval, p-value and verdict counts documents, not labels.
  Why the asymptotic sequence rather than betting: document sums have no useful known bound
  (a bound must cover the longest document, which would make the bets tiny for the typical
  one), while the AsympCS needs only a finite variance; it is the existing fallback design.

Partial documents: only **completed** documents count. A prefix of a document judged in
order is not a random sample of it (later segments differ systematically: the end of a talk
is not like its opening), so a partial document would bias θ̂ towards early segments; its
labels wait until the document is complete. (Known bounds of the pool mean, which hold for
sure, still use every label.)

Minimum documents: :data:`MIN_DOCUMENTS` completed documents before any verdict (see the
bench ``bench/document_unit_bench.py`` and ``docs/statistics-notes.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from estimators.sequences import sequential as seq
from estimators.sequences.designs import LiveDesign, design_paths

#: Completed documents before a verdict: below it the t interval's coverage is not reliable
#: at intra-document correlations seen in WMT data (bench/document_unit_bench.py), and the
#: asymptotic sequence is still in its burn-in (it is (−∞, ∞) before 30 increments).
MIN_DOCUMENTS = seq.BURN_IN


@dataclass(frozen=True)
class DocumentSums:
    """Completed documents of one system or pair, in the order they were completed."""

    doc: np.ndarray  # document index (into the pool's documents)
    total: np.ndarray  # D_j: sum of labels (or paired differences) in document j
    size: np.ndarray  # n_j: outputs (or items both systems answered) in document j
    position: np.ndarray  # the queue position at which document j was completed
    partial: int  # documents with some but not all of their labels
    pool_docs: int  # M: documents in the pool
    pool_items: int  # N: outputs (or shared items) in the pool

    @property
    def completed(self) -> int:
        return int(self.doc.size)

    @property
    def mean_size(self) -> float:
        """n̄_pool = N / M, the pool's mean document size (known before any label)."""
        return self.pool_items / self.pool_docs if self.pool_docs else float("nan")


def document_sums(
    item_doc: np.ndarray,
    in_pool: np.ndarray,
    item: np.ndarray,
    value: np.ndarray,
    position: np.ndarray,
) -> DocumentSums:
    """Sum the labelled values per document and keep the completed documents.

    ``item_doc`` (N,) gives each item's document index; ``in_pool`` (N,) the items of this
    system's (or pair's) pool; ``item``, ``value``, ``position`` one entry per labelled
    output (for a pair: per item both systems labelled, position = when the pair completed
    it). A document is complete when every pool item of it is labelled; it enters at the
    position its last label took in the queue's random order.
    """
    item_doc = np.asarray(item_doc, dtype=int)
    in_pool = np.asarray(in_pool, dtype=bool)
    item = np.asarray(item, dtype=int)
    keep = in_pool[item]
    item, value, position = item[keep], np.asarray(value, float)[keep], np.asarray(position)[keep]
    docs_in_pool = np.unique(item_doc[in_pool])
    n_docs = int(item_doc.max()) + 1 if item_doc.size else 0
    size = np.bincount(item_doc[in_pool], minlength=n_docs)
    d = item_doc[item]
    total = np.bincount(d, weights=value, minlength=n_docs)
    seen = np.bincount(d, minlength=n_docs)
    last = np.full(n_docs, -np.inf)
    np.maximum.at(last, d, np.asarray(position, dtype=float))
    done = np.flatnonzero((seen == size) & (size > 0))
    done = done[np.argsort(last[done], kind="stable")]
    return DocumentSums(
        doc=done,
        total=total[done],
        size=size[done].astype(float),
        position=last[done],
        partial=int(np.sum((seen > 0) & (seen < size))),
        pool_docs=int(docs_in_pool.size),
        pool_items=int(in_pool.sum()),
    )


@dataclass(frozen=True)
class RatioInterval:
    """The ratio estimate θ̂ = ΣD/Σn with its linearised standard error and t interval."""

    estimate: float
    se: float
    low: float
    high: float
    documents: int
    df: int


def ratio_interval(
    total: np.ndarray,
    size: np.ndarray,
    *,
    level: float = 0.95,
    pool_docs: int | None = None,
) -> RatioInterval:
    """θ̂ = Σ D_j / Σ n_j ± t_{J−1} √v, v = (1 − J/M) s_e² / (J n̄²) (module docstring).

    ``pool_docs`` M gives the finite-population correction (sampling documents without
    replacement from the pool); ``None`` omits it (superpopulation of documents). At the
    census (J = M) the interval is the exact pool mean.
    """
    total, size = np.asarray(total, float), np.asarray(size, float)
    j = int(total.size)
    if j == 0 or size.sum() <= 0:
        nan = float("nan")
        return RatioInterval(nan, nan, -math.inf, math.inf, j, 0)
    est = float(total.sum() / size.sum())
    if j < 2:
        return RatioInterval(est, float("nan"), -math.inf, math.inf, j, 0)
    e = total - est * size
    fpc = 1.0 if pool_docs is None else max(0.0, 1.0 - j / pool_docs)
    var = fpc * float(np.sum(e * e)) / (j - 1) / (j * size.mean() ** 2)
    se = math.sqrt(var)
    q = float(stats.t.ppf(0.5 + level / 2, j - 1))
    return RatioInterval(est, se, est - q * se, est + q * se, j, j - 1)


def segment_interval(
    values: np.ndarray, *, level: float = 0.95, pool_items: int | None = None
) -> RatioInterval:
    """The segment-unit formula ȳ ± t_{n−1} s/√n · √(1 − n/N): valid when segments are
    drawn one at a time, too narrow when whole documents are (used for comparison)."""
    v = np.asarray(values, dtype=float)
    return ratio_interval(v, np.ones_like(v), level=level, pool_docs=pool_items)


def document_increments(sums: DocumentSums, *, finite_pool: bool = False) -> seq.Increments:
    """z_j = D_j / n̄_pool − λ_{j−1}(n_j − n̄_pool) (module docstring), one per completed
    document in completion order; ``finite_pool`` uses the Des Raj without-replacement form
    over the M documents (exact martingale for documents drawn without replacement)."""
    nbar = sums.mean_size
    return seq.cv_increments(
        sums.total / nbar, sums.size, nbar,
        pool_size=sums.pool_docs if finite_pool else None,
    )  # fmt: skip


def document_var_prior(sums: DocumentSums, span: float) -> float:
    """Variance prior of the increments (10 pseudo-documents, :func:`seq.asymptotic_cs`):
    the largest variance of one label, span²/4 (span: the label range, ×2 for a difference),
    spread over a document of n̄_pool independent segments: Var(D/n̄) = span²/(4 n̄). It
    guards the first documents against a spuriously small σ̂ (identical labels so far) and
    fades as documents arrive; the worst case over correlations, E[n²]/n̄² · span²/4,
    would weigh on the few documents a campaign has (no false claim at all in the bench,
    at a large cost in power), while this one keeps the false-claim rate ≤ 2.5 % there.
    With singleton documents it is the segment monitor's prior."""
    return span * span / 4.0 / sums.mean_size


def document_paths(
    inc: seq.Increments,
    *,
    level: float,
    alpha_tuning: float,
    t_star: int,
    theta0: float | None,
    var_prior: float,
):  # type: ignore[no-untyped-def]
    """(asymptotic confidence sequence at ``level``, anytime p-value path vs ``theta0``)
    on the document increments, tuned at ``alpha_tuning`` with ``t_star`` planned documents
    (:func:`estimators.sequences.designs.design_paths`, asympcs design)."""
    return design_paths(
        LiveDesign.ASYMPCS, inc.z, level=level, alpha=alpha_tuning, theta0=theta0,
        t_star=t_star, var_prior=var_prior,
    )  # fmt: skip


def documents_needed(
    estimate: float,
    sigma: float,
    j_now: int,
    max_docs: int,
    *,
    level: float,
    alpha_tuning: float,
    t_star: int,
    margin: float | None = None,
) -> int | None:
    """More completed documents until the sequence's half-width (read at ``level``) falls
    below |θ̂|, or the interval fits inside ±``margin``, at the current θ̂ and σ̂ (σ̂: SD of
    the document increments); ``None`` when the pool's documents cannot get there."""
    if not (math.isfinite(estimate) and math.isfinite(sigma)):
        return None

    def ok(t: int) -> bool:
        w = float(seq.asymptotic_half_width(sigma, t, level, t_star, alpha_tuning=alpha_tuning))
        return w < abs(estimate) or (margin is not None and w < margin - abs(estimate))

    return seq.smallest_t(ok, int(j_now), int(max_docs), MIN_DOCUMENTS)


@dataclass(frozen=True)
class ICC:
    """Intra-document correlation with its approximate confidence interval."""

    icc: float
    low: float
    high: float
    documents: int
    n0: float  # the ANOVA's effective document size


def icc_anova(values: np.ndarray, groups: np.ndarray, *, level: float = 0.95) -> ICC:
    """One-way ANOVA estimate of the intra-document correlation (unbalanced sizes).

    ICC = (MSB − MSW) / (MSB + (n0 − 1) MSW), n0 = (N − Σ n_j²/N)/(M − 1) (Donner 1986,
    Int. Stat. Rev. 54, eq. 3.1). Interval: Searle's (1971) F-based limits with n0 in place
    of the common size, F_L = F/F_{1−a/2}(M−1, N−M), F_U = F/F_{a/2}(M−1, N−M),
    limits (F_· − 1)/(F_· + n0 − 1) — approximate for unequal sizes, and with few
    documents wide: it is the honest uncertainty of the estimate.
    """
    v = np.asarray(values, dtype=float)
    _, g = np.unique(np.asarray(groups), return_inverse=True)
    m, n = int(g.max()) + 1, v.size
    sizes = np.bincount(g, minlength=m).astype(float)
    means = np.bincount(g, weights=v, minlength=m) / sizes
    grand = v.mean()
    ssb = float(np.sum(sizes * (means - grand) ** 2))
    ssw = float(np.sum((v - means[g]) ** 2))
    msb, msw = ssb / (m - 1), ssw / (n - m)
    n0 = (n - float(np.sum(sizes**2)) / n) / (m - 1)
    icc = (msb - msw) / (msb + (n0 - 1) * msw)
    f = msb / msw
    a = 1 - level
    f_lo = f / stats.f.ppf(1 - a / 2, m - 1, n - m)
    f_hi = f / stats.f.ppf(a / 2, m - 1, n - m)
    return ICC(
        icc=float(icc),
        low=float((f_lo - 1) / (f_lo + n0 - 1)),
        high=float((f_hi - 1) / (f_hi + n0 - 1)),
        documents=m,
        n0=float(n0),
    )


def design_effect(sizes: np.ndarray, icc: float) -> float:
    """Kish's design effect for cluster sampling with unequal sizes:
    deff = 1 + (n̄_w − 1)·ICC, n̄_w = Σ n_j² / Σ n_j (Kish 1965, §5.4; Lohr 2022, §5.5).
    Labels needed with documents as the unit ≈ deff × the segment-unit number."""
    s = np.asarray(sizes, dtype=float)
    return 1.0 + (float(np.sum(s * s) / np.sum(s)) - 1.0) * icc


@dataclass(frozen=True)
class DocumentUnit:
    """What the document-unit monitor could use: completed documents against the minimum."""

    pool_docs: int  # documents in the campaign's pool
    completed: int  # fewest completed documents over the pairs (systems when only one)
    partial: int  # documents started but not finished (most over the systems)
    minimum: int = MIN_DOCUMENTS

    @property
    def too_few(self) -> bool:
        return self.completed < self.minimum

    def text(self) -> str:
        """The dashboard's sentence about the unit."""
        head = (
            "Documents are the sampling unit (judged in order): intervals, p-values, verdicts "
            f"and forecasts count completed documents — {self.completed:,} of "
            f"{self.pool_docs:,} so far"
        )
        if self.partial:
            head += f"; {self.partial:,} partly judged document(s) count once complete"
        if not self.too_few:
            return head + "."
        sure = (
            " Until then a pair is called only when its labels settle it for sure (test-set "
            "estimand, every output labelled)."
        )
        if self.pool_docs < self.minimum:
            return (
                f"{head}. Too few documents for a verdict: the campaign has only "
                f"{self.pool_docs:,} documents, and a verdict needs at least {self.minimum} "
                "completed ones (below that the interval's coverage is not reliable)." + sure
            )
        return (
            f"{head}. Too few completed documents for a verdict: {self.completed:,} of the "
            f"{self.minimum} needed (below that the interval's coverage is not reliable)." + sure
        )
