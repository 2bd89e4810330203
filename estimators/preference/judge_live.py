"""A judge's preferences as a control for the live pair verdicts.

docs/statistics-notes.md §32. For the pair (a, b) the human judgments x_1, x_2, … ∈ {0, ½, 1}
are of (source, pair) instances drawn from the pair's pool of N instances; the judge (an LLM
or a metric) gave its preference g ∈ [0, 1] (winner 1 / ½ / 0, or its probability that a is
preferred) for every instance of the pool before the humans' judgments are read. The
verdict's capital is the one the other label kinds use with a metric control
(:mod:`estimators.sequences.betting_control`, §14): ½ × the label capital on x − ½ +
½ × a capital on the control-variate (PPI++) increments

    Z_i = x_i − c_i (g_i − ḡ),   ḡ = the judge's mean over the pair's pool,

c_i the ridge slope of x on the standardised g fitted on judgments 1..i − 1 of the pair
only (:func:`estimators.sequences.betting_control.coefficients`: learned predictably). When
each judgment's source is a uniform draw from the pool, independent of the past (the
premise of :mod:`estimators.preference.pairs`), E[g_i | F_{i−1}] = ḡ exactly, so
E[Z_i | F_{i−1}] = E[x_i | F_{i−1}] = W_ab whatever the judge's bias or accuracy: the
capital is a nonnegative martingale under H0: W_ab = w0 and Ville's inequality gives the
anytime p-value, the e-value and the confidence sequence exactly as without the judge. The
judge shortens the wait only through Var(Z) ≈ (1 − ρ²) Var(x) (ρ the correlation of judge
and human outcomes): 1 − ρ² is the floor on the ratio of human judgments.

What may not be used: the judge's g_i in the bet (only in the increment), a slope fitted
on the current judgment, or a pool chosen after seeing the human judgments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from estimators.preference.data import Preferences
from estimators.sequences import betting_control
from estimators.sequences import sequential as seq

#: The Δ scale's bounds (as :data:`estimators.preference.pairs.BOUNDS`).
BOUNDS = (-0.5, 0.5)


@dataclass(frozen=True)
class JudgeStreams:
    """A judge's preferences aligned with a campaign's human judgments: ``items[i]`` the
    judge's g for judgment i's (source, pair) instance, seen from the pair's first system
    (NaN: the judge did not judge it); ``pools[pair]`` the judge's g on every instance of the
    pair (:func:`estimators.base.multiple.pairs` order index)."""

    items: np.ndarray
    pools: Mapping[int, np.ndarray]
    name: str = "judge"
    #: pairs with a pool whose human judgments include instances the judge did not judge
    skipped: tuple[int, ...] = field(default=())

    def covers(self, key: int, positions: np.ndarray) -> bool:
        """Whether the pair ``key`` can use the judge: a pool of ≥ 2 instances with some
        spread, and the judge's g for every human judgment of the pair."""
        pool = self.pools.get(key)
        if pool is None or pool.size < 2 or float(np.ptp(pool)) == 0.0:
            return False
        return bool(np.all(np.isfinite(self.items[positions])))


def judge_streams(
    prefs: Preferences,
    items: np.ndarray,
    judged: Mapping[tuple[object, int, int], float],
    name: str = "judge",
) -> JudgeStreams:
    """The :class:`JudgeStreams` of a campaign: ``items[i]`` the source of judgment i;
    ``judged[(source, a, b)]`` the judge's g for that source's pair (a < b, system indices),
    seen from a, for every instance it judged — the pool of the pair is all of them."""
    items = np.asarray(items, dtype=object).reshape(-1)
    if items.size != prefs.n:
        raise ValueError(f"{items.size} sources for {prefs.n} judgments")
    k = prefs.k
    pools: dict[int, list[float]] = {}
    for (_source, a, b), g in judged.items():
        if not (0 <= a < b < k):
            raise ValueError(f"judge pair ({a}, {b}) is not a canonical pair of {k} systems")
        if not 0.0 <= float(g) <= 1.0:
            raise ValueError(f"judge preference {g!r} for ({a}, {b}) is not in [0, 1]")
        key = a * k - a * (a + 1) // 2 + (b - a - 1)
        pools.setdefault(key, []).append(float(g))
    g_items = np.array(
        [judged.get((s, int(a), int(b)), np.nan) for s, a, b in zip(items, prefs.a, prefs.b,
                                                                      strict=True)],
        dtype=float,
    )  # fmt: skip
    idx = prefs.pair_index()
    skipped = tuple(sorted({int(i) for i in idx[~np.isfinite(g_items)] if int(i) in pools}))
    return JudgeStreams(g_items, {key: np.array(v) for key, v in pools.items()}, name, skipped)


def pvalue_paths(x: np.ndarray, g: np.ndarray, pool: np.ndarray, alpha_tuning: float,
                 t_star: float | None = None, w0: float = 0.5) -> np.ndarray:  # fmt: skip
    """Anytime p-value paths of H0: W = w0 along streams (..., T) of outcomes ``x`` with the
    judge's ``g`` on the same instances and its ``pool`` (module docstring)."""
    return betting_control.pvalue_path(
        np.asarray(x, dtype=float) - 0.5, g, pool, w0 - 0.5, bounds=BOUNDS,
        alpha_tuning=alpha_tuning, t_star=t_star, pool_size=None, burn_in=seq.BURN_IN,
    )  # fmt: skip


def evalue_paths(x: np.ndarray, g: np.ndarray, pool: np.ndarray, alpha_tuning: float,
                 t_star: float | None = None) -> np.ndarray:  # fmt: skip
    """The e-process K_t(½) with the judge as a control (1 before the burn-in)."""
    e = betting_control.evalue(
        np.asarray(x, dtype=float) - 0.5, g, pool, 0.0, bounds=BOUNDS,
        alpha_tuning=alpha_tuning, t_star=t_star, pool_size=None,
    )  # fmt: skip
    t = np.arange(1, e.shape[-1] + 1)
    return np.where(t < seq.BURN_IN, 1.0, e)


def interval(z: np.ndarray, g: np.ndarray, pool: np.ndarray, level: float, tuning: float,
             t_star: float | None, running: bool) -> tuple[float, float]:  # fmt: skip
    """The confidence sequence's last interval for Δ = W − ½ at ``level``."""
    if z.size < seq.BURN_IN:
        return BOUNDS
    cs = betting_control.controlled_cs(z, g, pool, level, bounds=BOUNDS, t_star=t_star,
                                       burn_in=seq.BURN_IN, pool_size=None,
                                       alpha_tuning=tuning, running=running)  # fmt: skip
    return float(cs.lower[-1]), float(cs.upper[-1])


def rho(x: np.ndarray, g: np.ndarray) -> float:
    """The correlation of human outcomes and the judge's on the same instances (0 when
    either is constant)."""
    x, g = np.asarray(x, dtype=float), np.asarray(g, dtype=float)
    if x.size < 2 or x.std() == 0 or g.std() == 0:
        return 0.0
    return float(np.corrcoef(x, g)[0, 1])
