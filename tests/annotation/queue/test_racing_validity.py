"""Racing keeps the live verdicts valid (docs/statistics-notes.md, "Racing"): a fixed-seed
simulation with known truth. Each campaign is a fresh pool of 4 systems × 200 items with
binary labels (a shared item difficulty, so pairs are correlated): one clearly better
system, whose pairs settle early and which racing then drops, and three close ones. The
queue is replayed with and without racing (tests.support.racing_replay), reading the monitor
(the app's default betting design, test-set estimand) every 12 items to the end of the pool.
At every read, for every pair, against the exact pool difference:

- miss: the pair's simultaneous interval excludes the true Δ;
- false claim: "A better" with Δ ≤ 0, "B better" with Δ ≥ 0, or "no difference larger than
  x" with |Δ| > x.

A campaign errs when any pair errs at any read (family-wise, anytime). Both rates must stay
≤ α within Monte-Carlo error (3 standard errors), with racing as with uniform; and racing
must actually drop the strong system and save labels (else the check would be vacuous).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from estimators.live.status import MonitorReport, is_decided
from tests.support.racing_replay import replay

K, N, EVERY, REPS = 4, 200, 12, 100
ALPHA, EPSILON = 0.2, 0.15  # a large α makes the error rate measurable with few runs
SHIFT = np.array([1.4, 0.35, 0.2, 0.2])  # latent shifts: adequacy ≈ .86, .6, .56, .56


def pool(rng: np.random.Generator) -> np.ndarray:
    difficulty = rng.normal(0, 1, N)
    return (difficulty[None, :] + SHIFT[:, None] + rng.normal(0, 1, (K, N)) > 0).astype(float)


def errors(report: MonitorReport, truth: dict[tuple[str, str], float]) -> tuple[bool, bool]:
    """(some pair's interval misses its Δ, some pair's verdict is false) at this read."""
    miss = claim = False
    for p in report.pairs:
        delta = truth[(p.a, p.b)]
        lo, hi = p.result.ci
        miss |= not lo <= delta <= hi
        if is_decided(p.verdict):
            claim |= (delta <= 0) if p.verdict == "A better" else (delta >= 0)
        elif p.verdict.startswith("no difference larger than"):
            claim |= abs(delta) > float(p.verdict.rsplit(" ", 1)[1])
    return miss, claim


def run(racing: bool) -> dict[str, float]:
    rng = np.random.default_rng(2024)
    names = [f"S{s}" for s in range(K)]
    missed = claimed = dropped = 0
    labels = 0
    for _ in range(REPS):
        y = pool(rng)
        mean = y.mean(axis=1)
        truth = {(names[a], names[b]): mean[a] - mean[b] for a in range(K) for b in range(K)}
        seen = [False, False]

        def on_read(rep: MonitorReport, _labels: int, truth=truth, seen=seen) -> None:
            miss, claim = errors(rep, truth)
            seen[0] |= miss
            seen[1] |= claim

        out = replay(
            y, rng.permutation(N), racing=racing, every=EVERY, stop_when_settled=False,
            names=names, on_read=on_read, design="betting", finite_pool=True, alpha=ALPHA,
            equivalence_margin=EPSILON,
        )  # fmt: skip
        missed += seen[0]
        claimed += seen[1]
        dropped += "S0" in out.dropped
        labels += out.labels[-1]
    return {"miss": missed / REPS, "claim": claimed / REPS, "dropped": dropped / REPS,
            "labels": labels / REPS}  # fmt: skip


@pytest.mark.slow
def test_racing_keeps_anytime_error_rates_within_alpha() -> None:
    uniform, raced = run(False), run(True)
    bound = ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / REPS)
    print(f"uniform {uniform}\nracing  {raced}\nbound {bound:.3f}")
    for rates in (uniform, raced):
        assert rates["miss"] <= bound and rates["claim"] <= bound, (rates, bound)
    # not vacuous: racing drops the strong system in most campaigns and saves labels
    assert raced["dropped"] >= 0.8
    assert raced["labels"] < 0.9 * uniform["labels"] == 0.9 * K * N
