"""Preference mode's pair policy: all pairs uniform, or adaptive — the least settled pairs
first, every pair kept at a known floor of probability.

A campaign's policy is chosen at import (``pair_policy``: ``uniform``, the default, or
``adaptive``) and recorded in ``campaigns.meta["preference"]`` with the uniform share γ and
the floor δ. Uniform: the build draws each source's pairs at once (annotation.queue.pairs).
Adaptive: the build queues every pair of every source *pending* and draw rounds
(:func:`draw_round`, from the claim path when nothing is open) visit the next
:data:`ROUND_SOURCES` pending sources in queue order; for each, one pair is drawn with

    π_i(p) = γ_i / m_i + (1 − γ_i) · s_p / Σ_{q of source i} s_q,   γ_i = min(1, δ m_i),

m_i the source's pairs and s_p the pair's unsettledness from the judgments known at the
round (:func:`pair_scores`): the closeness of its win rate to ½ in standard errors,
s_p = max(0, 1 − |Ŵ_p − ½| / (z* · se_p)), z* = 1.5 · Φ⁻¹(1 − α/(2m)), 1 for a pair with
fewer than :data:`FRESH` judgments, and uniform when every score is 0. So π_i(p) ≥ δ =
γ/m (m the pairs of all the campaign's systems at the first round): the known floor the
inverse-probability-weighted verdicts need (estimators.preference.adaptive,
docs/statistics-notes.md §30). The drawn pair's slot opens with its π; the source's other
pair slots are passed. An adaptive campaign has no overlap slots and one pair per source.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.stats import norm

UNIFORM, ADAPTIVE = "uniform", "adaptive"
POLICIES = (UNIFORM, ADAPTIVE)
KEY = "preference"  # campaigns.meta[KEY]: {"policy", "gamma", "floor", "pairs_per_source"}
#: γ: the uniform share mixed into every adaptive draw (the floor is γ/m).
DEFAULT_GAMMA = 0.3
#: Sources an adaptive draw round visits (small rounds follow the judgments closely).
ROUND_SOURCES = 10
#: Pending slots a round reads at most (a source's pairs are never split across rounds).
ROUND_SLOTS = 4_000
#: A pair with fewer judgments counts as wholly unsettled.
FRESH = 5
#: Why tasks are not cut from an adaptive campaign (annotation.tasks.batches).
NO_TASKS = (
    "an adaptive preference campaign draws each source's pair as annotators reach it (its "
    "slots wait pending): tasks are cut from a uniform campaign's queue"
)
#: The level the scores read "settled" at (the policy's own; the verdicts keep theirs).
ALPHA = 0.05


def policy_of(meta: dict[str, Any] | None) -> str:
    """The campaign's pair policy (``uniform`` unset)."""
    return str(((meta or {}).get(KEY) or {}).get("policy") or UNIFORM)


def checked_policy(policy: object) -> str:
    """``policy`` if it names one; ValueError naming the choices otherwise."""
    if policy not in POLICIES:
        raise ValueError(f"pair policy {policy!r}: use {' or '.join(POLICIES)}")
    return str(policy)


def gamma_of(meta: dict[str, Any] | None) -> float:
    return float(((meta or {}).get(KEY) or {}).get("gamma") or DEFAULT_GAMMA)


def policy_settings(policy: str, gamma: float = DEFAULT_GAMMA) -> dict[str, Any]:
    """What ``meta[KEY]`` records for a new campaign (the floor is fixed at the build)."""
    policy = checked_policy(policy)
    if not 0.0 < gamma <= 1.0:
        raise ValueError(f"the uniform share γ is in (0, 1], not {gamma!r}")
    return {"policy": policy, **({"gamma": gamma} if policy == ADAPTIVE else {})}


def floor(k: int, gamma: float) -> float:
    """δ = γ / m, m = k(k − 1)/2 pairs of k systems."""
    return gamma / max(k * (k - 1) // 2, 1)


def pair_scores(
    k: int, a: np.ndarray, b: np.ndarray, outcome: np.ndarray, weight: np.ndarray,
    alpha: float = ALPHA,
) -> np.ndarray:  # fmt: skip
    """s_p per pair (estimators.base.multiple.pairs order) from the judgments so far (module
    docstring): Hájek win rate (weights 1/π) and its standard error."""
    m = k * (k - 1) // 2
    key = np.asarray(a) * k - np.asarray(a) * (np.asarray(a) + 1) // 2 + (np.asarray(b) - a - 1)
    n = np.bincount(key, minlength=m).astype(float)
    sw = np.bincount(key, weights=weight, minlength=m)
    sx = np.bincount(key, weights=weight * outcome, minlength=m)
    sxx = np.bincount(key, weights=weight * outcome**2, minlength=m)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = sx / sw
        var = np.maximum(sxx / sw - w**2, 0.02)  # a floor: no pair is settled by 5 equal labels
        z = np.abs(w - 0.5) / np.sqrt(var / n)
    z_star = 1.5 * float(norm.ppf(1.0 - alpha / (2 * max(m, 1))))
    s = np.clip(1.0 - z / z_star, 0.0, 1.0)
    return np.where(n < FRESH, 1.0, np.nan_to_num(s, nan=1.0))


def source_probabilities(keys: Sequence[int], scores: np.ndarray, delta: float) -> np.ndarray:
    """π over one source's pairs (their indices ``keys``) with the floor δ (module
    docstring); sums to 1 and each π ≥ δ while δ · m_i ≤ 1."""
    m_i = len(keys)
    gamma = min(1.0, delta * m_i)
    s = np.asarray(scores, dtype=float)[list(keys)]
    share = s / s.sum() if s.sum() > 0 else np.full(m_i, 1.0 / m_i)
    return gamma / m_i + (1.0 - gamma) * share


def draw_round(s: Any, camp: Any, rng: np.random.Generator, number: int) -> int | None:
    """One adaptive round in the caller's queue transaction (the campaign row locked):
    the next :data:`ROUND_SOURCES` pending sources each get one pair opened with its π,
    their other pair slots passed; attention slots on the way open. Returns the sources
    visited (None: nothing pending)."""
    from db.queue import active_rounds as dbrounds
    from db.queue import pair_rounds as dbpairs
    from db.reads.preferences import preference_rows

    pending = dbpairs.pending_pairs(s, camp.id, ROUND_SLOTS)
    if not pending:
        return None
    systems, index = dbpairs.system_names(s, camp.id)
    k = len(systems)
    meta = dict(camp.meta or {})
    settings = dict(meta.get(KEY) or {})
    if "floor" not in settings:
        settings["floor"] = floor(k, gamma_of(meta))
        meta[KEY] = settings
        camp.meta = meta
    delta = float(settings["floor"])
    done = preference_rows(s, camp.id, with_present=False)
    scores = pair_scores(k, done.a, done.b, done.outcome, done.weight)
    by_source: dict[int, list[Any]] = {}
    rows: list[dict[str, Any]] = []
    for p in pending:
        if p.item_id is None or p.attention:
            if len(by_source) < ROUND_SOURCES:
                rows.append({"id": p.id, "state": dbrounds.OPEN, "pi": 0.0, "round": number})
            continue
        if p.item_id not in by_source and len(by_source) >= ROUND_SOURCES:
            break
        by_source.setdefault(p.item_id, []).append(p)
    if len(pending) >= ROUND_SLOTS and len(by_source) > 1:
        by_source.popitem()  # its pairs may run past the rows read: the next round's
    for slots in by_source.values():
        keys = [dbpairs.pair_key(index[x.system_a], index[x.system_b], k) for x in slots]
        pi = source_probabilities(keys, scores, delta)
        pick = int(rng.choice(len(slots), p=pi))
        for j, slot in enumerate(slots):
            state = dbrounds.OPEN if j == pick else dbrounds.PASSED
            rows.append({"id": slot.id, "state": state, "pi": float(pi[j]), "round": number})
    dbrounds.settle_visits(s, rows)
    return len(by_source)
