"""Position bias on comparative screens, in simulation with known truth: items of varying
difficulty, four systems of different quality put in a random order per screen. A bias at
the first place is detected; without one, the tests reject at about the nominal rate."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.judgments.position_bias import (
    cochran_q,
    permutation_p,
    position_bias,
    screens_matrix,
)

K = 4
SYSTEM_P = np.array([0.55, 0.6, 0.7, 0.75])


def probabilities(rng: np.random.Generator, n: int, bias: float) -> np.ndarray:
    """n screens × K P(adequate) in screen order; ``bias`` added at place 0."""
    difficulty = rng.normal(0, 0.15, size=(n, 1))
    order = np.argsort(rng.random((n, K)), axis=1)  # which system sits at each place
    p = SYSTEM_P[order] + difficulty
    p[:, 0] += bias
    return np.clip(p, 0.01, 0.99)


def simulate(rng: np.random.Generator, n: int, bias: float) -> np.ndarray:
    """n screens × K labels in screen order."""
    return (rng.random((n, K)) < probabilities(rng, n, bias)).astype(float)


def test_known_bias_is_detected_and_measured() -> None:
    rng = np.random.default_rng(1)
    hits = 0
    for _ in range(20):
        res = position_bias(simulate(rng, 400, 0.12), binary=True, draws=500)
        assert res is not None
        hits += res.detected
    assert hits >= 18  # power well above 90 % at 400 screens and a 12-point bias
    res = position_bias(simulate(np.random.default_rng(2), 4000, 0.12), binary=True, draws=200)
    # the true effect at place 0: ≈ 0.12 · (1 − 1/K) (the bias raises the screen mean by
    # 0.12 / K too), a little less where the probability is clipped at 0.99
    p = probabilities(np.random.default_rng(9), 1_000_000, 0.12)
    truth = float(np.mean(p[:, 0] - p.mean(axis=1)))
    assert 0.08 < truth < 0.09
    assert res.effect_low[0] < truth < res.effect_high[0]
    assert res.p_cochran < 0.001 and res.p_permutation < 0.01


@pytest.mark.parametrize("binary", [True, False])
def test_no_bias_rejects_at_about_alpha(binary: bool) -> None:
    rng = np.random.default_rng(3)
    sims, perm, coch = 300, 0, 0
    for _ in range(sims):
        y = simulate(rng, 150, 0.0)
        if not binary:  # scores: a continuous judgment with the same structure
            y = y * 60 + rng.normal(20, 10, size=y.shape)
        perm += permutation_p(y, draws=199, seed=int(rng.integers(1 << 30))) <= 0.05
        if binary:
            coch += cochran_q(y)[1] <= 0.05
    assert 0.02 <= perm / sims <= 0.085
    if binary:
        assert 0.02 <= coch / sims <= 0.085


def test_cochran_q_known_value() -> None:
    # a textbook table (3 treatments, 4 blocks): C = (3, 1, 0), R = (1, 1, 1, 1), N = 4
    # Q = 2 · (3 · (9 + 1 + 0) − 16) / (3 · 4 − 4) = 2 · 14 / 8 = 3.5
    y = np.array([[1, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=float)
    q, p = cochran_q(y)
    assert q == pytest.approx(3.5)
    assert p == pytest.approx(np.exp(-3.5 / 2))  # χ²₂ survival function


def test_screens_matrix_keeps_complete_screens_only() -> None:
    screen = np.array(["a", "a", "b", "b", "c"])
    position = np.array([1, 0, 0, 1, 0])
    value = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    assert screens_matrix(screen, position, value, 2).tolist() == [[0.0, 1.0], [1.0, 1.0]]
    assert position_bias(np.ones((1, 4)), binary=True) is None
