"""The DA / SQM 0–100 slider score as a human signal: simulations with known truth.

A DA score is a continuous slider position with strong per-annotator offsets and scale
differences (Graham et al. 2017: why WMT standardises per annotator). The estimators read it
÷ 100, in [0, 1] (:class:`estimators.data.campaign.LabelKind.DA`). The generator
(:func:`da_population`): item quality q ~ Beta(3, 1.8) shared by the systems (paired),
annotator a with offset b_a ~ N(0, 0.08) and scale c_a ~ U(0.7, 1.3), a judgment
y = clip(round(100·(0.5 + c_a·(q + δ_s − 0.6) + b_a + N(0, 0.1))), 0, 100) / 100.

Checks (lighter than bench/da_score_bench.py, which runs ≥ 2,000 replications):
1. fixed-n coverage of a system mean and of a paired difference at n = 60 (truth: the mean
   of a finite population of 100,000 judgments sampled with replacement, so i.i.d. holds);
2. with per-annotator z-scores, at a null (the systems exchangeable, so the true difference
   of mean z is exactly 0): coverage of the paired difference;
3. anytime false claims of the live monitor at a null, raw (betting design, range [0, 1])
   and z-scored (asympcs, no known range): ≤ α + 2 MC-SE.
4. the score planner (estimators.planning.labels_needed.score_labels_needed): at its planned n, the
power
   of the level-α test at the planned difference is 0.8 ± 3 MC-SE.
"""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np

from estimators.data.campaign import LabelKind, kind_range
from estimators.fixed_n import human
from estimators.judgments.zscores import annotator_zscores
from estimators.live.monitor import CampaignMonitor
from estimators.planning.labels_needed import score_labels_needed

ALPHA = 0.05
N_ANNOTATORS = 6


def da_population(rng: np.random.Generator, n: int, deltas=(0.0, -0.04)):  # type: ignore[no-untyped-def]
    """(y per system (k, n), annotator per judgment (k, n)): one judgment per output, each
    by a random annotator, on the 0–1 scale (a slider position ÷ 100)."""
    q = rng.beta(3.0, 1.8, n)
    offset = rng.normal(0, 0.08, N_ANNOTATORS)
    scale = rng.uniform(0.7, 1.3, N_ANNOTATORS)
    ann = rng.integers(0, N_ANNOTATORS, (len(deltas), n))
    y = np.empty((len(deltas), n))
    for s, d in enumerate(deltas):
        a = ann[s]
        raw = 0.5 + scale[a] * (q + d - 0.6) + offset[a] + rng.normal(0, 0.1, n)
        y[s] = np.clip(np.round(100 * raw), 0, 100) / 100
    return y, ann


def fixed_n_coverage(seed: int, reps: int, n_labels: int = 60, pop: int = 100_000):  # type: ignore[no-untyped-def]
    """(coverage of mean_t for system 0, of the paired difference) over ``reps``."""
    rng = np.random.default_rng(seed)
    y, _ = da_population(rng, pop)
    truth_a, truth_d = y[0].mean(), (y[0] - y[1]).mean()
    bounds = kind_range(LabelKind.DA)
    hit = np.zeros((2, reps), dtype=bool)
    for r in range(reps):
        idx = rng.integers(0, pop, n_labels)
        m = human.mean_t(y[0, idx], bounds=bounds)
        d = human.paired_difference(y[0, idx], y[1, idx], bounds=bounds)
        hit[0, r] = m.low <= truth_a <= m.high
        hit[1, r] = d.low <= truth_d <= d.high
    return hit.mean(axis=1)


def zscore_null_coverage(seed: int, reps: int, n_items: int = 60) -> float:
    """Coverage of Δz = 0 by the paired t interval on per-annotator z-scores, at a null:
    each campaign's annotators standardised over their own judgments (as the app does)."""
    rng = np.random.default_rng(seed)
    hit = 0
    for _ in range(reps):
        y, ann = da_population(rng, n_items, deltas=(0.0, 0.0))
        z = annotator_zscores(y.ravel(), ann.ravel()).reshape(y.shape)
        d = human.paired_difference(z[0], z[1])
        hit += d.low <= 0.0 <= d.high
    return hit / reps


def null_false_claims(seed: int, reps: int, zscores: bool, n_base: int = 100) -> float:
    """Share of null campaigns where the live monitor ever says "better" (its p-values are
    running minima, so the last read tells). Two exchangeable systems (the pool stacked
    under both system orders), 70 % of it labelled in the queue's random order."""
    rng = np.random.default_rng(seed)
    k, false = 2, 0
    for _ in range(reps):
        y, ann = da_population(rng, n_base, deltas=(0.0, 0.0))
        f = np.concatenate([y[list(p)] for p in permutations(range(k))], axis=1)
        a = np.concatenate([ann[list(p)] for p in permutations(range(k))], axis=1)
        n_pool = f.shape[1]
        n_lab = int(0.7 * k * n_pool)
        items = np.repeat(rng.permutation(n_pool), k)[:n_lab]
        systems = np.concatenate([rng.permutation(k) for _ in range(n_pool)])[:n_lab]
        values = f[systems, items]
        if zscores:
            values = annotator_zscores(values, a[systems, items])
        mon = CampaignMonitor(
            [None] * k, items, systems, values, np.arange(n_lab, dtype=float),
            np.full(n_lab, n_lab / (k * n_pool)),
            design="asympcs" if zscores else "betting",
            label_range=None if zscores else kind_range(LabelKind.DA), finite_pool=True,
            present=np.ones((k, n_pool), dtype=bool),
        )  # fmt: skip
        false += any(p.verdict.endswith("better") for p in mon.report().pairs)
    return false / reps


def planned_power(seed: int, reps: int, sd: float = 0.2, delta: float = 0.05) -> tuple[int, float]:
    """(planned n, the share of ``reps`` two-sample Welch z tests at level α that reject)
    with scores of standard deviation ``sd`` (Beta on [0, 1]) and a true gap ``delta``."""
    n = score_labels_needed(delta, sd**2, level=1 - ALPHA, power=0.8)
    rng = np.random.default_rng(seed)

    def beta(mean: float, size: tuple[int, int]) -> np.ndarray:
        nu = mean * (1 - mean) / sd**2 - 1  # a + b for this mean and sd
        return rng.beta(mean * nu, (1 - mean) * nu, size)

    a, b = beta(0.65, (reps, n)), beta(0.60, (reps, n))
    se = np.sqrt(a.var(axis=1, ddof=1) / n + b.var(axis=1, ddof=1) / n)
    z = (a.mean(axis=1) - b.mean(axis=1)) / se
    return n, float(np.mean(np.abs(z) > 1.959963984540054))


def test_fixed_n_coverage_on_the_da_score() -> None:
    cover = fixed_n_coverage(seed=30, reps=1000)
    print(f"\nDA, n = 60, 1,000 reps: coverage mean_t {cover[0]:.3f}, paired {cover[1]:.3f}")
    assert ((cover >= 0.93) & (cover <= 0.97)).all(), cover


def test_zscored_da_covers_a_null_difference() -> None:
    cover = zscore_null_coverage(seed=32, reps=600)
    print(f"\nz-scored DA at a null, 600 reps: coverage {cover:.3f}")
    assert 0.93 <= cover <= 0.975, cover


def test_live_verdicts_on_da_make_no_false_claims_at_a_null_raw_and_zscored() -> None:
    reps = 120
    bound = ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
    raw = null_false_claims(seed=33, reps=reps, zscores=False)
    z = null_false_claims(seed=34, reps=reps, zscores=True)
    print(f"\nDA at a null, {reps} campaigns: false claims raw {raw:.3f}, z-scored {z:.3f}")
    assert raw <= bound and z <= bound, (raw, z)


def test_the_score_plan_has_its_nominal_power_and_the_binary_plan_overshoots() -> None:
    n, power = planned_power(seed=35, reps=2000)
    mc = 3 * math.sqrt(0.8 * 0.2 / 2000)
    print(f"\nscore plan: n = {n} per system, power {power:.3f}")
    assert abs(power - 0.8) <= mc, (n, power)
    # the binary worst case p(1 − p) = 0.25 would plan 0.25 / 0.04 = 6.25 × as many labels
    assert score_labels_needed(0.05, 0.25) / n > 6
