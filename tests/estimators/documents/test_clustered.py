"""Documents as the sampling unit (estimators.documents.clustered, estimators.live.document_report):
known
truth, fixed seeds, Monte-Carlo bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from estimators.documents import clustered as cl
from estimators.live.monitor import CampaignMonitor
from tests.support.doc_simulation import document_pool, queue_order


def _first_docs(pool, order, j):  # type: ignore[no-untyped-def]
    doc_seq = pool.item_doc[order]
    starts = np.flatnonzero(np.r_[True, np.diff(doc_seq) != 0])
    return order[: starts[j] if j < starts.size else order.size]


def _sums(pool, items) -> cl.DocumentSums:  # type: ignore[no-untyped-def]
    d = pool.y[0] - pool.y[1]
    return cl.document_sums(
        pool.item_doc, np.ones(pool.item_doc.size, bool), items, d[items],
        np.arange(items.size, dtype=float),
    )  # fmt: skip


def _monitor(pool, items, **kw) -> CampaignMonitor:  # type: ignore[no-untyped-def]
    """Both systems labelled on ``items`` in that order (paired design)."""
    n = items.size
    item, system = np.repeat(items, 2), np.tile([0, 1], n)
    return CampaignMonitor(
        [None, None], item, system, pool.y[system, item], np.arange(2.0 * n),
        np.full(2 * n, 0.5), present=np.ones((2, pool.item_doc.size), bool), **kw,
    )  # fmt: skip


def test_document_sums_keep_completed_documents_in_completion_order() -> None:
    item_doc = np.array([0, 0, 0, 1, 1, 2, 2])
    items = np.array([3, 0, 4, 1, 5])  # doc 1 done at position 2; doc 0 partial; doc 2 partial
    sums = cl.document_sums(item_doc, np.ones(7, bool), items, np.ones(5), np.arange(5.0))
    assert sums.doc.tolist() == [1] and sums.size.tolist() == [2.0]
    assert sums.partial == 2 and sums.pool_docs == 3 and sums.pool_items == 7
    done = cl.document_sums(item_doc, np.ones(7, bool), np.array([5, 6, 0, 1, 2, 3, 4]),
                            np.arange(7.0), np.array([0, 1, 2, 3, 4, 6, 5.0]))  # fmt: skip
    assert done.doc.tolist() == [2, 0, 1] and done.total.tolist() == [1.0, 9.0, 11.0]


def test_census_ratio_equals_the_exact_pool_mean() -> None:
    pool = document_pool(np.random.default_rng(1), 40, gap=0.3)
    sums = _sums(pool, np.arange(pool.item_doc.size))
    r = cl.ratio_interval(sums.total, sums.size, pool_docs=sums.pool_docs)
    assert abs(r.estimate - pool.delta) < 1e-12 and r.low == r.high == r.estimate
    # the live monitor, test-set estimand: the point itself at the census
    mon = _monitor(pool, queue_order(np.random.default_rng(2), pool), finite_pool=True,
                   documents=pool.item_doc)  # fmt: skip
    res = mon.report().pairs[0].result
    assert abs(res.estimate - pool.delta) < 1e-12
    assert abs(res.low - pool.delta) < 1e-12 and abs(res.high - pool.delta) < 1e-12


def test_singleton_documents_reduce_to_the_segment_formulas() -> None:
    """ICC = 0 in its exact form: one segment per document gives the segment formulas."""
    rng = np.random.default_rng(3)
    pool = document_pool(rng, 300, gap=0.2, sizes=(1, 1))
    items = rng.permutation(300)[:120]
    d = (pool.y[0] - pool.y[1])[items]
    sums = _sums(pool, items)
    doc = cl.ratio_interval(sums.total, sums.size, pool_docs=300)
    seg = cl.segment_interval(d, pool_items=300)
    s = float(np.std(d, ddof=1)) / math.sqrt(120) * math.sqrt(1 - 120 / 300)
    assert doc.estimate == pytest.approx(d.mean(), abs=1e-12)
    assert doc.se == pytest.approx(s, rel=1e-12) and seg.se == pytest.approx(s, rel=1e-12)
    # the live monitor: the same p-value and interval as the segment-unit asympcs monitor
    kw = {"design": "asympcs", "finite_pool": True}
    by_doc = _monitor(pool, items, documents=pool.item_doc, **kw).report().pairs[0]
    by_seg = _monitor(pool, items, **kw).report().pairs[0]
    assert by_doc.p_value == pytest.approx(by_seg.p_value, rel=1e-9)
    assert by_doc.result.ci == pytest.approx(by_seg.result.ci, rel=1e-9)


def test_zero_icc_documents_give_segment_widths() -> None:
    """With no intra-document correlation the document interval is as wide as the segment
    one (design effect 1), up to Monte-Carlo noise."""
    rng = np.random.default_rng(4)
    ratios = []
    for _ in range(200):
        pool = document_pool(rng, 100, sd_doc=0.0, sd_sys_doc=0.0, gap=0.2)
        items = _first_docs(pool, queue_order(rng, pool), 50)
        sums = _sums(pool, items)
        d = (pool.y[0] - pool.y[1])[items]
        ratios.append(cl.ratio_interval(sums.total, sums.size).se
                      / cl.segment_interval(d).se)  # fmt: skip
    assert abs(np.mean(ratios) - 1.0) < 0.03


def test_coverage_with_documents_as_units_and_segment_undercoverage() -> None:
    """50 documents from a pool of 100, ICC of the differences ≈ 0.1: the document interval
    covers the pool difference at 0.95 within 3 Monte-Carlo SE; the segment formula on the
    same labels does not."""
    rng = np.random.default_rng(5)
    runs, doc_hits, seg_hits = 400, 0, 0
    for _ in range(runs):
        pool = document_pool(rng, 100, sd_sys_doc=0.5, gap=0.3)
        items = _first_docs(pool, queue_order(rng, pool), 50)
        sums = _sums(pool, items)
        r = cl.ratio_interval(sums.total, sums.size, pool_docs=100)
        s = cl.segment_interval((pool.y[0] - pool.y[1])[items], pool_items=pool.item_doc.size)
        doc_hits += r.low <= pool.delta <= r.high
        seg_hits += s.low <= pool.delta <= s.high
    se = math.sqrt(0.95 * 0.05 / runs)
    assert abs(doc_hits / runs - 0.95) < 3 * se
    assert seg_hits / runs < 0.85


def test_live_document_monitor_false_claims_at_a_true_null() -> None:
    """Pool difference exactly 0 (mirrored documents), ICC ≈ 0.3: the document-unit monitor
    claims a winner at some read in ≤ 5 % (+3 MC-SE) of campaigns, the segment-unit
    monitor on the same labels far more often."""
    rng = np.random.default_rng(6)
    runs, by_doc, by_seg = 150, 0, 0
    for _ in range(runs):
        pool = document_pool(rng, 100, sd_sys_doc=1.0, mirror=True)
        items = _first_docs(pool, queue_order(rng, pool), 60)
        kw = {"design": "asympcs", "finite_pool": True}
        by_doc += _monitor(pool, items, documents=pool.item_doc, **kw).report().pairs[0].decided
        by_seg += _monitor(pool, items, **kw).report().pairs[0].decided
    assert by_doc / runs <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)
    assert by_seg / runs > 0.2


def test_too_few_documents_no_verdict_and_the_message() -> None:
    rng = np.random.default_rng(7)
    pool = document_pool(rng, 60, gap=3.0)  # A far better: decided once enough documents
    order = queue_order(rng, pool)
    few = _monitor(pool, _first_docs(pool, order, 20), documents=pool.item_doc).report()
    pair = few.pairs[0]
    assert pair.verdict == "not yet" and pair.needed_basis == "floor"
    assert pair.documents_needed == cl.MIN_DOCUMENTS - 20
    assert few.documents.too_few and "20 of the 30 needed" in few.documents.text()
    enough = _monitor(pool, _first_docs(pool, order, 40), documents=pool.item_doc).report()
    assert enough.pairs[0].verdict == "A better" and not enough.documents.too_few
    assert enough.rows()[0]["unit"] == "document" and enough.rows()[0]["documents"] == 40
    small = _monitor(document_pool(rng, 5), np.arange(60), documents=None)
    assert small.report().documents is None  # segments as the unit: no document fields


def test_icc_anova_recovers_a_known_correlation() -> None:
    rng = np.random.default_rng(8)
    sizes = rng.integers(5, 30, 400)
    g = np.repeat(np.arange(400), sizes)
    y = rng.normal(0, math.sqrt(0.2), 400)[g] + rng.normal(0, math.sqrt(0.8), g.size)
    est = cl.icc_anova(y, g)
    assert est.low < 0.2 < est.high and abs(est.icc - 0.2) < 0.04
    assert cl.design_effect(np.full(10, 11), 0.2) == pytest.approx(3.0)


def test_no_label_sequence_for_the_width_chart_before_a_document_is_complete() -> None:
    """Documents as the unit: a pair with many labels but no completed document has no
    sequence to chart (a label-by-label one would be the segment unit's)."""
    rng = np.random.default_rng(11)
    pool = document_pool(rng, 4, sizes=(60, 60))  # long documents: 40 labels finish none
    order = queue_order(rng, pool)
    mon = _monitor(pool, order[:40], documents=pool.item_doc)
    mon.report()
    assert mon.pair_sequence(0, 1) is None
    assert _monitor(pool, order[:40]).pair_sequence(0, 1) is not None  # segments: one
