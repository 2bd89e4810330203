"""Preference campaigns simulated step by step under a pair policy (uniform or adaptive,
annotation.queue.pair_policy), with Bradley–Terry / Davidson truth: what the adaptive
policy's simulations read."""

from __future__ import annotations

import numpy as np

from annotation.queue import pair_policy as policy
from estimators.base.multiple import holm, pairs
from estimators.preference import adaptive
from estimators.preference.data import Preferences
from estimators.preference.pairs import pvalue_paths
from tests.support.preference_worlds import outcomes


def simulate(theta, nu: float, steps: int, rule: str, rng, gamma: float = 0.3,  # type: ignore[no-untyped-def]
             every: int = 10) -> Preferences:  # fmt: skip
    """``steps`` judgments, each of a fresh source with every system, its pair drawn by
    ``rule`` with π recomputed every ``every`` steps from the judgments so far (a draw
    round's ``ROUND_SOURCES``)."""
    theta = np.asarray(theta, dtype=float)
    k = theta.size
    plist = pairs(k)
    m = len(plist)
    pa = np.array([p[0] for p in plist])
    pb = np.array([p[1] for p in plist])
    key = np.zeros(steps, dtype=np.int64)
    pi = np.zeros(steps)
    x = np.zeros(steps)
    delta = policy.floor(k, gamma)
    for start in range(0, steps, every):
        stop = min(start + every, steps)
        if rule == policy.ADAPTIVE:
            done = slice(0, start)
            scores = policy.pair_scores(k, pa[key[done]], pb[key[done]], x[done], 1 / pi[done])
            probs = policy.source_probabilities(list(range(m)), scores, delta)
        else:
            probs = np.full(m, 1.0 / m)
        drawn = rng.choice(m, size=stop - start, p=probs)
        key[start:stop], pi[start:stop] = drawn, probs[drawn]
        x[start:stop] = outcomes(theta, nu, pa[drawn], pb[drawn], rng)
    return Preferences(
        tuple(f"S{i}" for i in range(k)), pa[key], pb[key], x, rng.random(steps) < 0.5,
        weight=1.0 / pi, floor=delta if rule == policy.ADAPTIVE else None,
    )  # fmt: skip


def pvalues_by_step(prefs: Preferences, alpha: float = 0.05) -> np.ndarray:
    """(steps, m): each pair's anytime p-value after every step, as the verdicts read it
    (adaptive: the IPW increments; uniform: the pair's own stream), tuned for α/m."""
    m = len(pairs(prefs.k))
    tune = alpha / m
    out = np.ones((prefs.n, m))
    key = prefs.pair_index()
    for p in range(m):
        if prefs.floor is not None:
            st = adaptive.pair_steps(prefs, p)
            out[:, p] = adaptive.pvalue_path(st.z, st.judged, tune, prefs.floor)
            continue
        own = np.flatnonzero(key == p)
        if own.size == 0:
            continue
        path = pvalue_paths(prefs.outcome[own], tune)
        count = np.cumsum(key == p)
        out[:, p] = np.concatenate([[1.0], path])[count]
    return out


def holm_rejections(p_by_step: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """(steps, m): Holm's rejections after every step."""
    return holm(p_by_step, alpha).reject


def labels_to_settle(prefs: Preferences, alpha: float = 0.05) -> int | None:
    """The first step after which Holm rejects every pair (None: not within the run)."""
    all_done = holm_rejections(pvalues_by_step(prefs, alpha), alpha).all(axis=1)
    hit = np.flatnonzero(all_done)
    return int(hit[0]) + 1 if hit.size else None
