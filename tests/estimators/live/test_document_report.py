"""The document-unit betting e-process (estimators.live.document_report.document_eprocess) and e-BH
on it, against known truth (tests.support.doc_simulation pools, fixed seeds): a true null is
claimed at most α of the time however often it is read (test-set estimand without
replacement, and the superpopulation of documents), e-BH's false discovery rate at a
data-dependent stopping time is ≤ α, a real difference is found, and the monitor's e-BH
option reads these e-values."""

from __future__ import annotations

import numpy as np

from estimators.base.verdicts import ErrorRate, e_bh
from estimators.documents import clustered as cl
from estimators.live.document_report import document_eprocess
from tests.estimators.documents.test_clustered import _monitor, _sums
from tests.support.doc_simulation import document_pool, queue_order

ALPHA, SEED = 0.05, 20261125
SPAN = (-1.0, 1.0)  # one paired difference of binary labels


def _path(pool, rng, finite: bool) -> np.ndarray:  # type: ignore[no-untyped-def]
    """K after each completed document, the pool's documents in a random queue order."""
    sums = _sums(pool, queue_order(rng, pool))
    n_max = float(np.bincount(pool.item_doc).max())
    return document_eprocess(sums.total, sums.size, theta0=0.0, label_span=SPAN, n_max=n_max,
                             pool_docs=sums.pool_docs if finite else None)  # fmt: skip


def _ever(path: np.ndarray) -> bool:
    """A claim at any reading from the document floor on."""
    return bool(np.any(path[cl.MIN_DOCUMENTS - 1 :] >= 1 / ALPHA))


def test_true_null_is_claimed_at_most_alpha_of_the_time() -> None:
    rng = np.random.default_rng(SEED)
    runs = 400
    # test-set estimand: mirrored pools (the pool's difference exactly 0), strong correlation
    wor = [_ever(_path(document_pool(rng, 120, sd_sys_doc=0.8, mirror=True), rng, True))
           for _ in range(runs)]  # fmt: skip
    # superpopulation: fresh documents of two equal systems (θ = 0 by symmetry)
    sup = [_ever(_path(document_pool(rng, 120, sd_sys_doc=0.8), rng, False))
           for _ in range(runs)]  # fmt: skip
    bound = ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / runs)
    print(f"false claims, ever read: test-set {np.mean(wor):.3f}, superpopulation "
          f"{np.mean(sup):.3f} (bound {bound:.3f})")  # fmt: skip
    assert np.mean(wor) <= bound and np.mean(sup) <= bound


def test_a_real_difference_is_found() -> None:
    rng = np.random.default_rng(SEED + 1)
    found = [_ever(_path(document_pool(rng, 150, gap=0.5), rng, True)) for _ in range(100)]
    print(f"power, gap 0.5 on the probit scale, 150 documents: {np.mean(found):.2f}")
    assert np.mean(found) >= 0.7


def test_ebh_false_discovery_rate_at_a_stopping_time() -> None:
    """Six pairs, four true nulls: read after every document from the floor on and stop at
    the first reading where e-BH claims anything (or at the end): FDR ≤ α."""
    rng = np.random.default_rng(SEED + 2)
    runs, fdp, any_true = 300, [], 0
    for _ in range(runs):
        paths = [_path(document_pool(rng, 100, mirror=True), rng, True) for _ in range(4)]
        paths += [_path(document_pool(rng, 100, gap=0.4), rng, True) for _ in range(2)]
        j_max = min(p.size for p in paths)
        reject = np.zeros(6, bool)
        for j in range(cl.MIN_DOCUMENTS - 1, j_max):
            reject = e_bh(np.array([p[j] for p in paths]), ALPHA)
            if reject.any():
                break
        fdp.append(reject[:4].sum() / max(reject.sum(), 1))
        any_true += bool(reject[4:].any())
    se = np.std(fdp) / np.sqrt(runs)
    print(f"e-BH FDR {np.mean(fdp):.3f} (MC-SE {se:.3f}); runs with a true discovery "
          f"{any_true / runs:.2f}")  # fmt: skip
    assert np.mean(fdp) <= ALPHA + 2 * se and any_true / runs >= 0.5


def test_the_monitor_reads_ebh_on_document_e_values() -> None:
    rng = np.random.default_rng(SEED + 3)
    pool = document_pool(rng, 120, gap=0.8)
    order = queue_order(rng, pool)
    kw = {"finite_pool": True, "documents": pool.item_doc}
    ebh = _monitor(pool, order[: order.size // 2], error_rate="ebh", **kw).report()
    holm = _monitor(pool, order[: order.size // 2], **kw).report()
    assert ebh.error_rate == ErrorRate.FDR and holm.error_rate == ErrorRate.FWER
    assert any("e-BH reads each pair's betting e-value" in n for n in ebh.notes), ebh.notes
    pair = ebh.pairs[0]
    sums = _sums(pool, order[: order.size // 2])
    path = document_eprocess(sums.total, sums.size, theta0=0.0, label_span=SPAN,
                             n_max=float(np.bincount(pool.item_doc).max()),
                             pool_docs=sums.pool_docs)  # fmt: skip
    assert pair.e_value == path[-1] and pair.e_value >= 1 / ALPHA, pair.e_value
    assert pair.verdict == "A better"
    few = _monitor(pool, order[:40], error_rate="ebh", **kw).report().pairs[0]
    assert few.e_value == 0.0 and few.verdict == "not yet"  # below the document floor
