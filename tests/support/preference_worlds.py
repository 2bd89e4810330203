"""Bradley–Terry and Davidson worlds with known truth, for the preference simulations."""

from __future__ import annotations

import numpy as np

from estimators.preference.data import Preferences


def davidson_probabilities(theta: np.ndarray, nu: float, a: np.ndarray, b: np.ndarray):  # type: ignore[no-untyped-def]
    """(P(a preferred), P(tie)) for pairs (a, b) under Davidson (1970); ν = 0: Bradley–Terry."""
    pa, pb = np.exp(theta[a]), np.exp(theta[b])
    tie = nu * np.sqrt(pa * pb)
    d = pa + pb + tie
    return pa / d, tie / d


def true_win_rates(theta: np.ndarray, nu: float) -> np.ndarray:
    """W_ab = P(a preferred) + ½ P(tie) for every pair (a < b), in pairs() order."""
    k = theta.size
    a, b = np.triu_indices(k, 1)
    win, tie = davidson_probabilities(theta, nu, a, b)
    return win + tie / 2


def outcomes(theta, nu, a, b, rng):  # type: ignore[no-untyped-def]
    win, tie = davidson_probabilities(theta, nu, a, b)
    u = rng.random(np.shape(a))
    return np.where(u < win, 1.0, np.where(u < win + tie, 0.5, 0.0))


def uniform_pairs(k: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n pairs (a < b) drawn uniformly from the k(k−1)/2."""
    a_all, b_all = np.triu_indices(k, 1)
    pick = rng.integers(0, a_all.size, n)
    return a_all[pick], b_all[pick]


def world(theta, nu: float, n: int, rng, left_bias: float = 0.0) -> Preferences:  # type: ignore[no-untyped-def]
    """n judgments of uniformly drawn pairs; sides at random; ``left_bias`` > 0 turns that
    share of the judgments into a win for the left output."""
    theta = np.asarray(theta, dtype=float)
    k = theta.size
    a, b = uniform_pairs(k, n, rng)
    x = outcomes(theta, nu, a, b, rng)
    left = rng.random(n) < 0.5
    if left_bias:
        biased = rng.random(n) < left_bias
        x = np.where(biased, np.where(left, 1.0, 0.0), x)
    return Preferences(tuple(f"S{i}" for i in range(k)), a, b, x, left)


def true_ranks(theta: np.ndarray) -> np.ndarray:
    """Rank 1 = strongest (distinct θ assumed; ties share the best rank)."""
    theta = np.asarray(theta, dtype=float)
    return np.array([1 + int(np.sum(theta > t)) for t in theta])
