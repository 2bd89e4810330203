"""The ESA 0–100 score as a human signal: simulations with known truth.

The ESA score is integer, skewed toward the top and has a point mass at 100 (annotators who
find no error give 100; Kocmi et al. 2024). The estimators read it ÷ 100, in [0, 1]
(:class:`estimators.data.campaign.LabelKind.ESA`), the range the bounded machinery needs.

1. Coverage of the fixed-n estimators the dashboard and `cli.py evaluate` show on it (t
   interval of a system mean, paired t interval of a difference, PPI++ with a metric
   control), at n = 60 labels, 2,000 replications each: within [0.94, 0.96]. Truth: the
   means of a finite population of 100,000 items sampled with replacement, so i.i.d.
   sampling holds exactly and the truth is known to the last digit.
2. Anytime false claims through the live monitor (the app's default betting design, the
   test-set estimand) at an exact null on a 0–100 score: ≤ α + 2 MC-SE.
"""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import pytest

from estimators.data.campaign import (
    ESA_MAX,
    Judgments,
    LabelKind,
    default_label_kind,
    display_scale,
    kind_range,
)
from estimators.fixed_n import control_variates as cv
from estimators.fixed_n import human
from estimators.fixed_n.controls import label_bounds
from estimators.live.monitor import CampaignMonitor

ALPHA = 0.05
REPS, N_LABELS, POP = 2000, 60, 100_000


def esa_scale(x: np.ndarray) -> np.ndarray:
    """A quality in ~[0, 1] as an ESA score: integer 0–100."""
    return np.clip(np.round(ESA_MAX * x), 0, ESA_MAX)


def esa_population(rng: np.random.Generator, n: int):  # type: ignore[no-untyped-def]
    """(y_A, y_B, g) per item: two systems' ESA scores on the same items (paired through the
    item's difficulty q), ÷ 100, with ~12 % "no error" 100s, and a metric g."""
    q = rng.beta(4.0, 1.6, n)
    y_a = esa_scale(q + rng.normal(0, 0.12, n))
    y_a[rng.random(n) < 0.12] = ESA_MAX
    y_b = esa_scale(q - 0.04 + rng.normal(0, 0.12, n))
    y_b[rng.random(n) < 0.10] = ESA_MAX
    return y_a / ESA_MAX, y_b / ESA_MAX, q + rng.normal(0, 0.15, n)


def test_esa_kind_reads_the_score_divided_by_100_with_its_known_range() -> None:
    nan = np.full(3, np.nan)
    j = Judgments(
        annotation_id=np.arange(3), item=np.arange(3), system=np.zeros(3, int),
        annotator=np.zeros(3, int), label=np.array([1.0, 0.0, 1.0]), score=np.array(
            [-1.0, -5.0, 0.0]), hter=nan, seconds=nan, position=np.arange(3.0),
        inclusion_prob=nan, created_at=np.zeros(3, dtype="datetime64[us]"),
        esa_score=np.array([73.0, np.nan, 100.0]),
    )  # fmt: skip
    np.testing.assert_array_equal(j.values(LabelKind.ESA), [0.73, np.nan, 1.0])
    assert kind_range(LabelKind.ESA) == label_bounds(LabelKind.ESA) == (0.0, 1.0)
    assert kind_range(LabelKind.SCORE) is None and display_scale(LabelKind.ESA) == 100.0
    assert display_scale(LabelKind.LABEL) == 1.0
    # an ESA campaign (spans, score asked) defaults to the ESA score; without it, the label
    assert default_label_kind("spans", j) == LabelKind.ESA
    without = Judgments(**{f: getattr(j, f) for f in j.__dataclass_fields__ if f != "esa_score"})
    assert default_label_kind("spans", without) == LabelKind.LABEL
    assert np.isnan(without.values(LabelKind.ESA)).all()
    # post-edit campaigns keep 1 − HTER first
    pe = Judgments(**{**j.__dict__, "hter": np.array([0.1, 0.2, 0.3])})
    assert default_label_kind("post_edit", pe) == LabelKind.ONE_MINUS_HTER


def test_fixed_n_coverage_on_the_esa_score() -> None:
    rng = np.random.default_rng(30)
    y_a, y_b, g = esa_population(rng, POP)
    truth_a, truth_d = y_a.mean(), (y_a - y_b).mean()
    idx = rng.integers(0, POP, (REPS, N_LABELS))
    unl = rng.integers(0, POP, (REPS, 1000))
    bounds = label_bounds(LabelKind.ESA)
    hit = np.zeros((3, REPS), dtype=bool)
    for r in range(REPS):
        a, b = y_a[idx[r]], y_b[idx[r]]
        res = [
            human.mean_t(a, bounds=bounds),
            human.paired_difference(a, b, bounds=bounds),
            cv.ppi_mean(a, g[idx[r]], g[unl[r]], bounds=bounds),
        ]
        for m, (x, truth) in enumerate(zip(res, (truth_a, truth_d, truth_a), strict=True)):
            hit[m, r] = x.low <= truth <= x.high
    cover = hit.mean(axis=1)
    print(f"\nESA score, n = {N_LABELS}, {REPS} reps: coverage mean_t {cover[0]:.4f}, "
          f"paired {cover[1]:.4f}, PPI++ {cover[2]:.4f}")  # fmt: skip
    assert ((cover >= 0.94) & (cover <= 0.96)).all(), cover


@pytest.mark.slow
def test_live_verdicts_on_a_0_to_100_score_make_no_false_claims_at_a_null() -> None:
    """Two systems with exactly equal ESA means on the pool (each output's score is its
    own, the pool stacked under both system orders), labels in the queue's random order,
    70 % of the pool labelled; the monitor's p-values are running minima, so the last read
    says whether a "better" verdict was ever shown. P(any) ≤ α + 2 MC-SE. The same streams
    read naively (a fixed-n z test after every pair from the 30th) claim far more often,
    so the bound can fail."""
    rng = np.random.default_rng(31)
    reps, n_base, k = 200, 100, 2
    false = naive = 0
    for _ in range(reps):
        y_a, y_b, _ = esa_population(rng, n_base)
        base = np.stack([y_a, y_b])
        f = np.concatenate([base[list(p)] for p in permutations(range(k))], axis=1)
        n_pool = f.shape[1]
        n_lab = int(0.7 * k * n_pool)
        items = np.repeat(rng.permutation(n_pool), k)[:n_lab]
        systems = np.concatenate([rng.permutation(k) for _ in range(n_pool)])[:n_lab]
        mon = CampaignMonitor(
            [None] * k, items, systems, f[systems, items], np.arange(n_lab, dtype=float),
            np.full(n_lab, n_lab / (k * n_pool)), design="betting",
            label_range=kind_range(LabelKind.ESA), finite_pool=True,
            present=np.ones((k, n_pool), dtype=bool),
        )  # fmt: skip
        false += any(p.verdict.endswith("better") for p in mon.report().pairs)
        d = f[0, items[systems == 0]][: (n_lab // k)] - f[1, items[systems == 0]][: (n_lab // k)]
        t = np.arange(1, d.size + 1)
        m = np.cumsum(d) / t
        sd = np.sqrt(np.maximum(np.cumsum(d * d) / t - m * m, 1e-12) * t / np.maximum(t - 1, 1))
        naive += bool(np.any((np.abs(m) * np.sqrt(t) / sd)[29:] > 1.96))
    rate = false / reps
    print(f"\nESA score at a null, betting design, {reps} campaigns: false claims {rate:.3f}"
          f" (naive z read after every pair: {naive / reps:.3f})")  # fmt: skip
    assert rate <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
    assert naive / reps >= 2 * ALPHA
