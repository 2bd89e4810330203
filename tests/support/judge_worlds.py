"""Pools of (source, pair) instances with human outcomes and a judge's preferences, for the
judge-as-a-control simulations (known truth: the pool's win rate)."""

from __future__ import annotations

import numpy as np

from tests.support.preference_worlds import davidson_probabilities


def instance_outcomes(p_win: float, p_tie: float, size: int, rng, null: bool) -> np.ndarray:  # type: ignore[no-untyped-def]
    """``size`` instance outcomes (1, ½, 0) drawn with P(win), P(tie); ``null``: mirrored
    halves, so the pool's mean is ½ exactly."""

    def draw(n: int) -> np.ndarray:
        u = rng.random(n)
        return np.where(u < p_win, 1.0, np.where(u < p_win + p_tie, 0.5, 0.0))

    if not null:
        return draw(size)
    half = draw(size // 2)
    y = np.concatenate([half, 1.0 - half])
    return y if y.size == size else np.append(y, 0.5)


def judge_of(y: np.ndarray, agree: float, rng, kind: str = "noisy") -> np.ndarray:  # type: ignore[no-untyped-def]
    """A judge's preferences for instances with outcomes ``y``: its outcome is y with
    probability ``agree``, else a uniform draw from {0, ½, 1}. ``kind`` "biased": the same,
    then every tie turned into a win for the first system and the rest shrunk towards 0.7
    (a judge biased to one side); "probability": the noisy judge's winner blurred into a
    probability in (0, 1)."""
    keep = rng.random(y.size) < agree
    g = np.where(keep, y, rng.choice([0.0, 0.5, 1.0], y.size))
    if kind == "biased":
        g = np.where(g == 0.5, 1.0, 0.7 + 0.5 * (g - 0.7))
    elif kind == "probability":
        g = np.clip(0.15 + 0.7 * g + rng.normal(0, 0.1, y.size), 0.01, 0.99)
    return g


def human(y: np.ndarray, noise: float, p_win: float, p_tie: float, rng) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Human judgments of instances with outcomes ``y``: y, or with probability ``noise`` a
    fresh draw from the pair's model (so E[x | instance] averages to the pool's win rate)."""
    fresh = instance_outcomes(p_win, p_tie, y.size, rng, null=False)
    return np.where(rng.random(y.size) < noise, fresh, y)


def pair_pools(theta: np.ndarray, nu: float, size: int, rng):  # type: ignore[no-untyped-def]
    """Per pair (pairs() order): (instance outcomes y, P(win), P(tie), is a true null)."""
    k = theta.size
    a, b = np.triu_indices(k, 1)
    win, tie = davidson_probabilities(theta, nu, a, b)
    out = []
    for j in range(a.size):
        null = bool(np.isclose(theta[a[j]], theta[b[j]]))
        win_j = (1 - tie[j]) / 2 if null else win[j]  # a null: P(win) = P(loss)
        out.append((instance_outcomes(win_j, tie[j], size, rng, null), win_j, tie[j], null))
    return out
