"""Plans in documents (estimators.planning.documents) against known truth: simulated
document pools (tests.support.doc_simulation, labels correlated within a document) whose
intra-document correlation and difference are measured on one large pool; the planned
number of complete documents gives about the planned 80 % power, while the same labels
planned as independent draws fall well short. Also the pool fit counted in documents."""

from __future__ import annotations

import math

import numpy as np
import pytest

from estimators.documents import clustered as cl
from estimators.planning.documents import ASSUMED_ICC, DocumentPlan, document_pool_fit
from estimators.planning.labels_needed import PERFECT_METRIC, human_labels_needed
from estimators.planning.pool_fit import pool_fit
from tests.support.doc_simulation import document_pool

SEED, REPS = 20261125, 1000
MODEL = {"sd_doc": 0.0, "sd_sys_doc": 0.5, "sd_seg": 0.0, "gap": 0.3, "sizes": (5, 30)}


def _truth(rng: np.random.Generator) -> tuple[float, float, float, DocumentPlan]:
    """(Δ, adequacy rate, ICC, plan) of the model, measured on one large pool. The systems
    share no document or segment effect: independent, as the planner's sqrt(2·Var) has it."""
    big = document_pool(rng, 4000, **MODEL)
    iccs = [cl.icc_anova(big.y[s], big.item_doc).icc for s in (0, 1)]
    sizes = np.bincount(big.item_doc).astype(float)
    plan = DocumentPlan(
        pool_docs=10**6, mean_size=float(sizes.mean()),
        weighted_size=float(np.sum(sizes**2) / np.sum(sizes)),
        icc=float(np.median(iccs)), icc_high=None,
    )  # fmt: skip
    return big.delta, float(big.y.mean()), plan.icc, plan  # type: ignore[return-value]


def _power(rng: np.random.Generator, docs: int) -> float:
    """Share of REPS campaigns of ``docs`` fresh documents whose 95 % ratio interval of the
    paired difference excludes 0 on the right side."""
    hits = 0
    for _ in range(REPS):
        pool = document_pool(rng, docs, **MODEL)
        d = np.bincount(pool.item_doc, weights=pool.y[0] - pool.y[1])
        n = np.bincount(pool.item_doc).astype(float)
        hits += cl.ratio_interval(d, n).low > 0
    return hits / REPS


def test_planned_documents_reach_the_planned_power() -> None:
    rng = np.random.default_rng(SEED)
    delta, rate, icc, plan = _truth(rng)
    assert 0.08 < delta < 0.16 and 0.03 < icc < 0.2, (delta, icc)  # a real design effect
    labels = human_labels_needed(delta, 0, PERFECT_METRIC, rate, power=0.8)
    assert labels is not None
    docs = plan.documents_for(labels)
    naive = math.ceil(labels / plan.mean_size)  # the labels as if drawn one at a time
    assert plan.deff() > 1.8 and docs > 1.8 * naive, (plan.deff(), docs, naive)
    got, under = _power(rng, docs), _power(rng, naive)
    print(f"ICC {icc:.3f} deff {plan.deff():.2f}: {docs} documents → power {got:.3f}; "
          f"{naive} documents (labels as independent) → {under:.3f}")  # fmt: skip
    assert abs(got - 0.8) <= 0.05, got  # MC-SE ≈ 0.013
    assert under < 0.65, under


def test_pool_fit_counts_documents() -> None:
    plan = DocumentPlan(pool_docs=60, mean_size=20.0, weighted_size=25.0, icc=0.1, icc_high=0.2)
    fit = document_pool_fit(plan, 3, planned_docs=80)
    assert not fit.fits and "80 complete documents per system" in fit.sentences()[0]
    assert math.isclose(fit.deff, 1 + 24 * 0.1)
    # the pool's 60 documents hold 60·20/3.4 independent labels' worth
    same = pool_fit(3, round(60 * 20 / 3.4), None)
    assert fit.smallest_difference == pytest.approx(same.smallest_difference, rel=2e-3)
    assert fit.smallest_difference > pool_fit(3, 60 * 20, None).smallest_difference
    assert document_pool_fit(plan, 3, planned_docs=60).fits


def test_before_any_label_the_icc_is_assumed_and_said() -> None:
    plan = DocumentPlan(pool_docs=40, mean_size=10.0, weighted_size=12.0, icc=None, icc_high=None)
    assert math.isclose(plan.deff(), 1 + 11 * ASSUMED_ICC)
    assert plan.documents_for(100) == math.ceil(100 * plan.deff() / 10)
    fit = document_pool_fit(plan, 2, None)
    assert fit.fits and not fit.icc_measured and "assumed" in fit.sentences()[0]
    assert plan.labels_in(7) == 70
