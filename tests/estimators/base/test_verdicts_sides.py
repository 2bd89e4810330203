"""A verdict's side comes from its interval at the level it is read, never from the
estimate's sign or a tie-break, and the estimate shown lies in the interval shown
(estimators.base.verdicts.side / read_outcome / shown; issue 29).

Each case failed before: the item-level case showed "A better" with estimate 0.0 and
interval [0, 0.03] at 194 of 200 items (true Δ = −0.005; the estimate's tie-break), after
"B better" at 150 (a flip); the document cases showed "A better" beside an estimate below 0
near the census (the running mean's old sign), and "no difference larger than 0.05" beside
an estimate of −0.057 clipped to −0.028.
"""

from __future__ import annotations

import numpy as np

from estimators.base import verdicts
from estimators.base.verdicts import Outcome
from estimators.live.monitor import CampaignMonitor

N = 200


def _null_ish_pool(seed: int) -> np.ndarray:
    """Two binary systems over N items whose pool difference is exactly −1/N."""
    rng = np.random.default_rng(seed)
    a = (rng.random(N) < 0.5).astype(float)
    b = (rng.random(N) < 0.5).astype(float)
    need = round((a.mean() + 1 / N) * N - b.sum())
    idx = np.where(b == (0 if need > 0 else 1))[0][: abs(need)]
    b[idx] = 1 if need > 0 else 0
    return np.vstack([a, b]), rng.permutation(N)


def _paired(y: np.ndarray, order: np.ndarray, n_read: int, **kw) -> CampaignMonitor:
    k, n = y.shape
    items = np.repeat(order[:n_read], k)
    sys = np.tile(np.arange(k), n_read)
    return CampaignMonitor(
        [None] * k, items, sys, y[sys, items], np.arange(items.size, dtype=float),
        np.ones(items.size), present=np.ones((k, n), dtype=bool), design="betting",
        finite_pool=True, **kw,
    )  # fmt: skip


def _check_shown(p) -> None:  # type: ignore[no-untyped-def]
    """The estimate lies in the interval shown; a side agrees with interval and estimate."""
    lo, hi = p.result.ci
    est = p.result.estimate
    assert lo <= est <= hi, (p.verdict, est, p.result.ci)
    if p.outcome == Outcome.A_BETTER:
        assert lo >= 0 and est > 0, (p.verdict, est, p.result.ci)
    if p.outcome == Outcome.B_BETTER:
        assert hi <= 0 and est < 0, (p.verdict, est, p.result.ci)
    if p.outcome == Outcome.EQUIVALENT:
        assert -p.margin <= lo and hi <= p.margin, (p.verdict, est, p.result.ci)


def test_the_minimal_case_never_shows_the_wrong_side_nor_flips():
    y, order = _null_ish_pool(37)
    assert np.isclose(y[0].mean() - y[1].mean(), -1 / N)
    sides = {}
    for n in range(150, N + 1):
        p = _paired(y, order, n).report().pairs[0]
        _check_shown(p)
        if p.decided:
            sides[n] = p.outcome
    # the census settles it on the true side, and no read ever showed the other one
    assert sides[N] == Outcome.B_BETTER
    assert set(sides.values()) == {Outcome.B_BETTER}, sides


def _documents(y: np.ndarray, doc: np.ndarray, size: int, n_docs: int):  # type: ignore[no-untyped-def]
    n = n_docs * size
    item = np.repeat(np.arange(n), 2)
    sys = np.tile([0, 1], n)
    return CampaignMonitor(
        [None, None], item, sys, y[sys, item], np.arange(2 * n, dtype=float), np.ones(2 * n),
        present=np.ones((2, y.shape[1]), dtype=bool), documents=doc, finite_pool=True,
    ).report()  # fmt: skip


def test_document_mode_near_the_census_claims_no_side_against_the_labels():
    # 40 documents of 5 items: A better on one item of each of the first 30 documents
    # (a verdict "A better" at 30), B better on 31 items of documents 30–38: the pool Δ is
    # −0.005. The running intersection keeps its early side; the labels say otherwise.
    d, s = 40, 5
    a, b = np.ones(d * s), np.ones(d * s)
    b[np.arange(30) * s] = 0
    a[np.arange(30 * s, 39 * s)[:31]] = 0
    y, doc = np.vstack([a, b]), np.repeat(np.arange(d), s)
    assert np.isclose(a.mean() - b.mean(), -0.005)
    for j in range(30, d + 1):
        p = _documents(y, doc, s, j).pairs[0]
        _check_shown(p)
        if j >= 38:
            assert p.outcome != Outcome.A_BETTER, (j, p.result.estimate, p.result.ci)
    assert p.outcome == Outcome.B_BETTER  # the census


def test_no_difference_larger_than_eps_is_not_shown_beside_an_estimate_past_eps():
    # 200 documents of 5 items: no difference in the first 150, then B better on 75 items:
    # pool Δ = −0.075. The interval stays where the first 150 documents put it, the label
    # mean moves past −0.05 (the old display clipped it into the interval at 185).
    d, s = 200, 5
    a, b = np.ones(d * s), np.ones(d * s)
    a[np.concatenate([np.arange(150 * s, d * s, s), np.arange(150 * s + 1, d * s, 2 * s)])] = 0
    y, doc = np.vstack([a, b]), np.repeat(np.arange(d), s)
    past = 0
    for j in (150, 170, 180, 185, 190):
        p = _documents(y, doc, s, j).pairs[0]
        _check_shown(p)
        label_mean = float(np.mean(a[: j * s] - b[: j * s]))
        assert np.isclose(p.result.estimate, label_mean), (j, p.result.estimate, label_mean)
        if abs(label_mean) > p.margin:
            past += 1
            assert p.outcome != Outcome.EQUIVALENT, (j, p.result.estimate, p.result.ci)
    assert past >= 2  # the reads did reach an estimate past ε


def test_side_needs_the_interval_and_the_estimate_on_it():
    assert verdicts.side((0.01, 0.2)) == 1
    assert verdicts.side((-0.2, -0.01)) == -1
    assert verdicts.side((0.0, 0.2)) == 0  # touching 0 is no side
    assert verdicts.side((-0.01, 0.03)) == 0
    # an estimate of exactly 0 breaks no tie
    ci = verdicts.compatible_interval((-0.01, 0.03), 1, 0.0)
    assert verdicts.read_outcome(1, 0.0, ci, 0.05, True) == Outcome.EQUIVALENT
    # a rejected side whose estimate lies across 0: the interval grows to hold it, no claim
    est, ci = verdicts.shown((0.002, 0.03), -0.004)
    assert ci == (-0.004, 0.03) and est == -0.004
    assert verdicts.read_outcome(1, est, ci, 0.05, True) == Outcome.EQUIVALENT
    assert verdicts.read_outcome(1, est, ci, 0.001, True) == Outcome.UNDECIDED
    # lower is better: the side above 0 is B's
    assert verdicts.read_outcome(1, 0.02, (0.0, 0.03), 0.01, False) == Outcome.B_BETTER
    # rounding only: the estimate is set on the bound, the interval kept
    assert verdicts.shown((-0.05, -0.05), -0.05 - 1e-15) == (-0.05, (-0.05, -0.05))


def test_holm_reads_a_rejected_pair_at_its_last_step():
    reject = np.array([True, True, False, False])
    assert verdicts.read_level(reject, 0.05, "holm") == 0.05 / 3
    assert verdicts.read_level(reject, 0.05, "ebh") == 0.05 * 2 / 4
    assert np.isnan(verdicts.read_level(np.zeros(3, bool), 0.05, "holm"))
