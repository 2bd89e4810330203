"""Per pair of systems: the win rate, the tie rate, and an anytime-valid verdict.

docs/statistics-notes.md §28. For the pair (a, b) the judgments x_1, x_2, … ∈ {0, ½, 1}
(1: a's output preferred, ½: a tie) estimate the win rate of a with ties counted half,

    W_ab = P(a preferred) + ½ P(tie),   Ŵ = Σ w_i x_i / Σ w_i  (w = 1/π; Hájek),

and the tie rate τ_ab = P(tie). W_ab = ½ is "no preference". The increments
z_i = x_i − ½ ∈ [−½, ½] have conditional mean Δ = W_ab − ½ whenever the queue drew the
judged source of the pair at random and its choice of *which pair* to show next depended only
on the past (uniform or adaptive pair sampling alike): the pair's own stream is then an
i.i.d.-in-mean sequence, so the betting capital of Waudby-Smith & Ramdas (2024, JRSS-B, §4,
:mod:`estimators.sequences.betting`) is a nonnegative martingale under H0: Δ = 0 and

- p_t = min(1, min_{s≤t} 1/K_s(0)) is an anytime-valid p-value,
- K_t(0) is an e-value at any stopping time,
- {Δ : max_{s≤t} K_s(Δ) < 1/a} is a confidence sequence at level a.

The capital, its bets and the verdict's reading are those of every other label kind
(docs/statistics-notes.md §1, §3, §4; :mod:`estimators.base.verdicts`): tuned for α/m (m the
number of pairs of the campaign's systems, judged or not), Holm (1979) on the p-values or
e-BH (Wang & Ramdas 2022) on the e-values, the side read from the interval at the level the
pair is rejected at, and "within ε" when the Bonferroni-level (α/m) interval lies inside
[−ε, ε] on the Δ scale, i.e. the win rate within ½ ± ε. A verdict says "not yet" before the burn-in
(:data:`estimators.sequences.sequential.BURN_IN` judgments of the pair).

When the queue chose the pairs adaptively (``prefs.floor`` set), the pair's own stream is
no longer enough: the policy's π depends on the source's set of systems, so a pair's judged
sources are not a random sample of its sources. The p-values, e-values and intervals are
then those of the inverse-probability-weighted increments over every eligible step
(:mod:`estimators.preference.adaptive`, docs/statistics-notes.md §30); the read is the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from estimators.base import verdicts
from estimators.base.multiple import holm, pairs
from estimators.base.verdicts import ErrorRate, Outcome
from estimators.preference import adaptive, judge_live
from estimators.preference.data import Preferences
from estimators.preference.judge_live import JudgeStreams
from estimators.sequences import betting
from estimators.sequences import sequential as seq

#: The Δ scale's bounds: z = x − ½ with x ∈ [0, 1].
BOUNDS = (-0.5, 0.5)

#: The words of each outcome, seen from the pair's first system.
VERDICT_WORDS = {
    Outcome.A_BETTER: "a better",
    Outcome.B_BETTER: "b better",
    Outcome.EQUIVALENT: "within ε",
    Outcome.UNDECIDED: "not yet",
}


@dataclass(frozen=True)
class PairPreference:
    """One pair's numbers (module docstring); ``a`` and ``b`` are system names."""

    a: str
    b: str
    n: int
    wins_a: int
    ties: int
    wins_b: int
    win_rate: float  # Ŵ, a's win rate with ties counted half
    tie_rate: float
    low: float  # the anytime interval for W_ab (shown: Bonferroni level, compatible)
    high: float
    p_value: float  # anytime p-value of H0: W_ab = ½ (unadjusted)
    p_adjusted: float  # Holm-adjusted (also shown under e-BH)
    e_value: float  # K_t(0)
    outcome: Outcome
    read_level: float  # the level the pair is read at next
    control: str = ""  # the judge whose preferences were the verdict's control ("": none)

    @property
    def verdict(self) -> str:
        """One of "a better", "b better", "within ε", "not yet"."""
        return VERDICT_WORDS[self.outcome]

    def text(self) -> str:
        """The verdict with the system names."""
        if self.outcome == Outcome.A_BETTER:
            return f"{self.a} better"
        if self.outcome == Outcome.B_BETTER:
            return f"{self.b} better"
        if self.outcome == Outcome.EQUIVALENT:
            return "within ε"
        return "not yet"


def pair_streams(prefs: Preferences) -> dict[int, np.ndarray]:
    """Each judged pair's judgments in order: pair index (:func:`pairs` order) → positions."""
    idx = prefs.pair_index()
    if idx.size == 0:
        return {}
    order = np.argsort(idx, kind="stable")
    keys, starts = np.unique(idx[order], return_index=True)
    parts = np.split(order, starts[1:])
    return {int(k): p for k, p in zip(keys, parts, strict=True)}


def _tuning(alpha: float, m: int) -> float:
    return alpha / max(m, 1)


def pvalue_paths(
    outcomes: np.ndarray, alpha_tuning: float, t_star: float | None = None
) -> np.ndarray:
    """Anytime p-value paths p_t of H0: W = ½ for a batch of streams (..., T) of outcomes
    in {0, ½, 1} (module docstring): what the simulations read after every judgment."""
    z = np.asarray(outcomes, dtype=float) - 0.5
    return betting.betting_pvalue(z, 0.0, bounds=BOUNDS, alpha_tuning=alpha_tuning,
                                  t_star=t_star)  # fmt: skip


def evalue_paths(
    outcomes: np.ndarray, alpha_tuning: float, t_star: float | None = None
) -> np.ndarray:
    """The e-process K_t(0) along streams (..., T) of outcomes (for e-BH)."""
    z = np.asarray(outcomes, dtype=float) - 0.5
    e = betting.betting_evalue(z, 0.0, bounds=BOUNDS, alpha_tuning=alpha_tuning, t_star=t_star)
    t = np.arange(1, e.shape[-1] + 1)
    return np.where(t < seq.BURN_IN, 1.0, e)


def _interval(z: np.ndarray, level: float, tuning: float, t_star, running: bool):  # type: ignore[no-untyped-def]
    if z.size < seq.BURN_IN:
        return BOUNDS
    cs = betting.betting_cs(z, level, bounds=BOUNDS, t_star=t_star, alpha_tuning=tuning,
                            running=running)  # fmt: skip
    return float(cs.lower[-1]), float(cs.upper[-1])


def pair_preferences(
    prefs: Preferences,
    *,
    alpha: float = 0.05,
    epsilon: float = 0.0,
    correction: str = "holm",
    t_star: float | None = None,
    judge: JudgeStreams | None = None,
) -> list[PairPreference]:
    """Every judged pair's win rate, tie rate, interval, p-value and verdict, settled
    together under ``correction`` ("holm" or "ebh"; module docstring). ``t_star``: the
    planned judgments per pair the bets are sized for (None: t·log(1 + t); validity does
    not depend on it, but it must be fixed before the judgments are seen). ``judge``: a
    judge's preferences, the control of every pair it covers
    (:mod:`estimators.preference.judge_live`)."""
    rate = ErrorRate(correction)
    streams = pair_streams(prefs)
    plist = pairs(prefs.k)
    m = len(plist)  # the family: every pair of the campaign's systems, judged or not
    keys = sorted(streams)
    if not keys:
        return []
    tune = _tuning(alpha, m)
    w_all = prefs.weights
    zs = {key: prefs.outcome[streams[key]] - 0.5 for key in keys}
    # a judge is a control under uniform pair sampling only (its increments assume each
    # judged source a uniform draw from the pair's pool; adaptive draws are weighted instead)
    usable = judge is not None and not prefs.floor
    controls = {key: (judge.items[streams[key]], judge.pools[key]) for key in keys
                if usable and judge.covers(key, streams[key])}  # type: ignore[union-attr]  # fmt: skip
    p, e = np.ones(m), np.ones(m)
    steps = {key: adaptive.pair_steps(prefs, key) for key in keys} if prefs.floor else {}
    for key in keys:
        if steps:
            st, fl = steps[key], float(prefs.floor)  # type: ignore[arg-type]
            p[key] = float(adaptive.pvalue_path(st.z, st.judged, tune, fl)[-1])
            e[key] = float(adaptive.evalue_path(st.z, st.judged, tune, fl)[-1])
        elif key in controls:
            p[key] = float(judge_live.pvalue_paths(zs[key] + 0.5, *controls[key], tune, t_star)[-1])
            e[key] = float(judge_live.evalue_paths(zs[key] + 0.5, *controls[key], tune, t_star)[-1])
        else:
            p[key] = float(pvalue_paths(zs[key] + 0.5, tune, t_star)[-1])
            e[key] = float(evalue_paths(zs[key] + 0.5, tune, t_star)[-1])
    reject, read_at = verdicts.settle(p, e, alpha, rate)
    level = verdicts.read_level(reject, alpha, rate)
    adjusted = holm(p, alpha).adjusted
    running = rate != ErrorRate.FDR  # e-BH reads the current capital's set (§4)
    rows = []
    for key in keys:
        i, z = key, zs[key]
        w = w_all[streams[key]]
        est = float(np.sum(w * z) / np.sum(w))

        cap = adaptive.capital(steps[key].z, tune, prefs.floor) if steps else None  # type: ignore[arg-type]
        ctrl = controls.get(key)

        def at(lvl: float, z: np.ndarray = z, cap: object = cap, ctrl=ctrl) -> tuple[float, float]:  # type: ignore[no-untyped-def]
            if cap is not None and z.size >= seq.BURN_IN:
                return adaptive.interval(z, lvl, tune, 1.0, running, capital=cap)  # type: ignore[arg-type]
            if ctrl is not None:
                return judge_live.interval(z, *ctrl, lvl, tune, t_star, running)
            return _interval(z, lvl, tune, t_star, running)

        ci = at(tune)
        sign = 0
        if reject[i] and z.size >= seq.BURN_IN:
            sign = verdicts.side(at(level))
        shown_est, ci = verdicts.shown(ci, est)
        ci = verdicts.compatible_interval(ci, sign, shown_est)
        outcome = verdicts.read_outcome(sign, shown_est, ci, epsilon, higher_is_better=True)
        if z.size < seq.BURN_IN:
            outcome = Outcome.UNDECIDED
        x = z + 0.5
        a, b = plist[key]
        rows.append(PairPreference(
            a=prefs.systems[a], b=prefs.systems[b], n=int(z.size),
            wins_a=int(np.sum(x == 1.0)), ties=int(np.sum(x == 0.5)),
            wins_b=int(np.sum(x == 0.0)), win_rate=shown_est + 0.5,
            tie_rate=float(np.sum(w * (x == 0.5)) / np.sum(w)),
            low=ci[0] + 0.5, high=ci[1] + 0.5, p_value=float(p[i]),
            p_adjusted=float(adjusted[i]), e_value=float(e[i]), outcome=outcome,
            read_level=float(read_at[i]), control=judge.name if key in controls else "",
        ))  # fmt: skip
    return rows
