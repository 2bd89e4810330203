"""Simulated document pools with known truth, for the document-unit bench and tests.

Two systems' binary labels on a pool of documents, correlated within a document the way
real ones are: a latent-threshold model (Agresti 2013, §13.4, a random-intercept probit)

    y_{s,i} = 1{ μ_s + a_j + b_{j,s} + c_i + e_{i,s} > 0 },   i in document j,

a_j ~ N(0, σ_a²) the document's difficulty (shared by both systems: correlates the labels,
not the differences), b_{j,s} ~ N(0, σ_b²) how system s copes with document j (correlates
the paired differences within a document), c_i ~ N(0, σ_c²) the segment's difficulty
(shared, makes the design paired), e_{i,s} ~ N(0, 1). σ_b sets the intra-document
correlation of the differences (:func:`difference_icc` measures it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from estimators.documents.clustered import icc_anova


@dataclass(frozen=True)
class DocPool:
    """A pool: per item its document (items of a document are contiguous, in order) and
    the labels of the two systems, shape (2, N)."""

    item_doc: np.ndarray
    y: np.ndarray

    @property
    def n_docs(self) -> int:
        return int(self.item_doc.max()) + 1

    @property
    def delta(self) -> float:
        """The pool's paired difference (the segment mean of y_A − y_B)."""
        return float(np.mean(self.y[0] - self.y[1]))


def document_pool(
    rng: np.random.Generator,
    n_docs: int,
    *,
    sd_doc: float = 0.7,
    sd_sys_doc: float = 0.3,
    sd_seg: float = 0.7,
    gap: float = 0.0,
    sizes: tuple[int, int] = (5, 30),
    mirror: bool = False,
) -> DocPool:
    """A pool of ``n_docs`` documents with sizes uniform on ``sizes`` (inclusive), system A's
    latent mean ``gap`` above B's (0.3 above 0 on the probit scale). ``mirror``: the second
    half of the pool repeats the first with the systems swapped, so the pool's difference
    is exactly 0 (a true null for the test-set estimand), documents still correlated."""
    half = n_docs // 2 if mirror else n_docs
    size = rng.integers(sizes[0], sizes[1] + 1, size=half)
    doc = np.repeat(np.arange(half), size)
    n = doc.size
    a = rng.normal(0, sd_doc, half)[doc]
    b = rng.normal(0, sd_sys_doc, (2, half))[:, doc]
    c = rng.normal(0, sd_seg, n)
    e = rng.normal(0, 1, (2, n))
    mu = np.array([0.3 + gap / 2, 0.3 - gap / 2])[:, None]
    y = (mu + a + b + c + e > 0).astype(float)
    if mirror:
        y = np.concatenate([y, y[::-1]], axis=1)
        doc = np.concatenate([doc, doc + half])
    return DocPool(item_doc=doc, y=y)


def queue_order(rng: np.random.Generator, pool: DocPool) -> np.ndarray:
    """Item order of a document-ordered queue: documents in uniformly random order, each
    document's segments in document order."""
    docs = rng.permutation(pool.n_docs)
    starts = np.flatnonzero(np.r_[True, np.diff(pool.item_doc) != 0])
    ends = np.r_[starts[1:], pool.item_doc.size]
    return np.concatenate([np.arange(starts[d], ends[d]) for d in docs])


def difference_icc(rng: np.random.Generator, n_docs: int = 4000, **kw) -> tuple[float, float]:
    """(ICC of the labels, ICC of the paired differences) of the model, measured on one
    large pool (ANOVA estimator, :func:`estimators.documents.clustered.icc_anova`)."""
    pool = document_pool(rng, n_docs, **kw)
    lab = icc_anova(pool.y[0], pool.item_doc).icc
    diff = icc_anova(pool.y[0] - pool.y[1], pool.item_doc).icc
    return lab, diff
