"""Live campaign monitor: anytime-valid intervals and verdicts after every label.

statistics.md §4–§5. Built from plain arrays — per system the metric scores of every output
in the fixed pool, and the human labels in the order the annotation queue assigned them —
the monitor returns for each system its confidence sequence and rank set, and for each pair
its confidence sequence, anytime p-value (Holm-adjusted across pairs), verdict and a forecast
of the labels still needed.

Validity rests on the random order (statistics.md, Notation): the items that get labels must
be drawn at random by the queue, which records each assignment's position and inclusion
probability. The monitor refuses labels without them, with positions out of order, or with
unequal inclusion probabilities within a system — unless the queue's active-sampling visits
are given (``visits``): then every stream is the weighted visit stream of
:mod:`estimators.active` (statistics.md §9), whose increments stay a martingale difference
sequence because each π and ŷ was fixed before its draw.

Paired differences use the items labelled for both systems, in the order the pair was
completed (the later of the two positions).

Gaps degrade only the items they touch. A system without an output for some items is judged
on the items it answered, and a pair on the items both answered (its fixed pool: the queue's
random item order restricted to those items is still uniformly random). A pool item whose
chosen metric score is missing keeps its label but gets no control (see
:func:`estimators.sequential.pool_controls`); every status carries a :class:`PoolCoverage`
with these counts. The pool sizes — and so t* and the p-value path — come from the known
item set (``present``), never from the labels seen so far, so the reported anytime p-values
(running minima along a path that only grows) never increase as labels arrive in queue
order. A label submitted after labels at later positions (annotators working in parallel)
is placed at its own position — the random order validity rests on — so the path can change
from that point, so the caller holds back labels beyond the lowest still-open position
(:attr:`estimators.campaign.CampaignData.open_from`, applied in
:func:`estimators.report.campaign_report`).

Per-system intervals are Bonferroni-simultaneous over the k systems, pair intervals over the
k(k−1)/2 pairs; pair verdicts come from Holm on the anytime p-values, which is valid at
whatever moment the dashboard is read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from estimators import active, betting, planning, verdicts
from estimators import group_sequential as gsd
from estimators import sequential as seq
from estimators.live_designs import LiveDesign, design_paths
from estimators.multiple import RankSet, bonferroni_alpha, holm, pairs, rank_sets
from estimators.result import MIN_LABELS_FOR_VERDICT, EstimateResult
from estimators.verdicts import ErrorRate, Outcome, PairVerdict

#: Rounding slack of the known part of the pool: sums of labels that are equal in exact
#: arithmetic can differ by a few ulps, so a Δ within 1e-12 of 0 counts as 0.
KNOWN_TOL = 1e-12

Verdict = str  # "A better" | "B better" | "not yet" | "no difference larger than x"


@dataclass(frozen=True)
class PoolCoverage:
    """What the monitor could use of one system's or one pair's pool of items."""

    #: items in the pool: the system's outputs, or the items both systems of a pair answered
    pool: int
    #: items of the campaign left out because an output is missing
    no_output: int
    #: pool items lacking a chosen metric score: their labels count, without the control
    no_metric: int


@dataclass(frozen=True)
class SystemStatus:
    name: str
    result: EstimateResult
    rank: RankSet
    coverage: PoolCoverage | None = None


def is_decided(verdict: Verdict) -> bool:
    """ "A better" or "B better": the pair has a significant winner."""
    return verdict.endswith("better")


@dataclass(frozen=True)
class PairStatus:
    a: str
    b: str
    result: EstimateResult
    p_value: float
    p_holm: float
    verdict: Verdict
    #: More items to label for both systems until the confidence sequence is forecast to
    #: exclude 0: smallest t with CS half-width(σ̂, t) < |Δ̂| (:func:`forecast_labels_needed`);
    #: 0 when decided, ``None`` when the pool cannot get there. It predicts the monitor's own
    #: decision time (median realised / forecast 1.42 in tests/estimators/test_monitor.py).
    labels_needed: int | None
    #: The planner's fixed-n forecast (:func:`estimators.planning.labels_still_needed`, 80 %
    #: power at level 1 − α/m, se = σ̂/√n): what a fixed-n test would need. 0 can mean "a
    #: fixed-n test would already call it" while the anytime-valid verdict still waits.
    labels_needed_planner: int | None = None
    forecast_method: str = "cs_width"
    coverage: PoolCoverage | None = None
    #: what ``labels_needed`` is: "forecast" (under the design in force), "floor" (labels to
    #: the 30-label floor, below which no forecast is made), "decided", "pool exhausted"
    #: (every item of the pair's pool is labelled) or "plan spent" (group-sequential design
    #: past its planned maximum: no α left)
    needed_basis: str = "forecast"
    #: the three-way outcome (:class:`estimators.verdicts.Outcome`)
    outcome: Outcome = Outcome.UNDECIDED
    #: ε, the smallest difference that matters (equivalence margin of the plan)
    margin: float = 0.05
    #: the betting design's e-value K_t(0) (1 for other designs; ∞ when the labelled part
    #: alone excludes 0)
    e_value: float = 1.0
    #: the level the procedure in force reads this pair at next (α/(m − r) under Holm)
    read_level: float = float("nan")

    @property
    def settled(self) -> bool:
        """A better, B better, or no difference larger than ε: nothing left to learn."""
        return self.outcome != Outcome.UNDECIDED

    def pair_verdict(self) -> PairVerdict:
        """The outcome as a :class:`estimators.verdicts.PairVerdict` (for the queue)."""
        lo, hi = self.result.ci
        return PairVerdict(self.a, self.b, self.outcome, self.margin, exact=lo == hi)

    @property
    def decided(self) -> bool:
        """One system is significantly better ("no difference larger than x" is not a win)."""
        return is_decided(self.verdict)

    @property
    def verdict_text(self) -> str:
        return self.verdict.replace("A better", f"{self.a} better").replace(
            "B better", f"{self.b} better"
        )


@dataclass(frozen=True)
class MonitorReport:
    systems: list[SystemStatus]
    pairs: list[PairStatus]
    alpha: float
    mode: str
    notes: list[str] = field(default_factory=list)
    #: the live design in force (:class:`estimators.live_designs.LiveDesign`)
    design: str = LiveDesign.ASYMPCS
    #: the planned labels per system the sequences are tuned to (``None``: each pool's size)
    planned_labels: int | None = None
    #: True: estimand = the campaign's own items (finite pool); False: μ over annotators
    finite_pool: bool = False
    #: Active sampling: per system / pair name, the design's ESS and measured saving.
    designs: dict[str, active.DesignSummary] = field(default_factory=dict)
    #: the error rate the pair verdicts control (Holm's FWER or e-BH's FDR)
    error_rate: ErrorRate = ErrorRate.FWER
    #: ε, the smallest difference that matters
    margin: float = 0.05
    #: set when the plan's labels per system exceed the pool (what that means, in words)
    plan_note: str | None = None

    def pair_verdicts(self) -> list[PairVerdict]:
        """Every pair's three-way outcome (:class:`estimators.verdicts.PairVerdict`)."""
        return [p.pair_verdict() for p in self.pairs]

    @property
    def items_without_metric(self) -> dict[str, int]:
        """System name → outputs lacking a chosen metric score (used without the control)."""
        return {
            s.name: s.coverage.no_metric
            for s in self.systems
            if s.coverage is not None and s.coverage.no_metric
        }

    def rows(self) -> list[dict]:
        """One flat dict per pair, for tables and exports."""
        out = []
        for p in self.pairs:
            r = p.result
            out.append(
                {
                    "a": p.a,
                    "b": p.b,
                    "estimate": r.estimate,
                    "low": r.low,
                    "high": r.high,
                    "n": r.n_human,
                    "p_value": p.p_value,
                    "p_holm": p.p_holm,
                    "verdict": p.verdict_text,
                    "outcome": str(p.outcome),
                    "margin": p.margin,
                    "error_rate": str(self.error_rate),
                    "labels_needed": p.labels_needed,
                    "labels_needed_basis": p.needed_basis,
                    "labels_needed_planner": p.labels_needed_planner,
                    "pool": None if p.coverage is None else p.coverage.pool,
                    "no_metric": None if p.coverage is None else p.coverage.no_metric,
                    "design": self.design,
                    "t_star": r.diagnostics.get("t_star"),
                    "estimand": "test set" if self.finite_pool else "superpopulation",
                }
            )
        return out


def _require(values: np.ndarray | None, name: str, n: int) -> np.ndarray:
    if values is None:
        raise ValueError(
            f"labels without {name}: the monitor is valid only for labels drawn in a random "
            f"order recorded by the annotation queue (assignment position and inclusion "
            f"probability); refusing to compute anytime-valid verdicts"
        )
    arr = np.asarray(values, dtype=float)
    if arr.shape != (n,):
        raise ValueError(f"{name} has shape {arr.shape}, expected ({n},)")
    if not np.all(np.isfinite(arr)):
        bad = int(np.sum(~np.isfinite(arr)))
        raise ValueError(
            f"{bad} label(s) have a missing {name}: they were not drawn by the recorded random "
            f"order, so no valid sequential verdict can use them"
        )
    return arr


class CampaignMonitor:
    """Anytime-valid monitor of one campaign (statistics.md §4–§5).

    Parameters
    ----------
    pool_metrics: per system, metric scores of all N items of the fixed pool, shape (N,) or
        (N, k) (k metrics used together as controls), NaN where a score or the output is
        missing; ``None`` for a human-only system.
    present: (systems, N) bool, True where the system has an output for the item. It fixes
        the pool (and N) independently of the labels; default: every output present, N from
        ``pool_metrics`` (required when no system has metric scores).
    item, system, label, position, inclusion_prob: one entry per human label, in arrival
        order: the item index (0..N−1), system index, label y, the assignment's position in
        the queue's random order (strictly increasing) and its inclusion probability.
    names: system names (default "S0", "S1", …).
    alpha: family-wise level.
    mode: ``"asymptotic"`` (default; Waudby-Smith et al. 2024 AsympCS) or ``"strict"``
        (empirical Bernstein on bounded increments; needs ``label_range``).
    design: the live design (:class:`estimators.live_designs.LiveDesign`); overrides
        ``mode`` (default: ``asympcs`` for "asymptotic", ``eb_strict`` for "strict").
        ``betting`` and ``eb_strict`` need ``label_range``; ``betting`` runs without metric
        controls (a control would widen the increments' known bounds).
    t_star: planned number of labels per system (= items per pair in the paired design),
        fixed before the first label; each system and pair uses min(t*, its pool size) —
        the AsympCS tuning, the bets' sizing, the group-sequential maximum (default: the
        system's or pair's pool size).
    equivalence_margin: ε, the smallest difference that matters: a pair whose simultaneous
        (α/m) interval lies within ±ε settles as "no difference larger than ε".
    error_rate: ``"holm"`` (family-wise, default) or ``"ebh"`` (false discovery rate, e-BH on
        the betting e-values; other designs fall back to Holm with a note).
    higher_is_better: ``False`` for HTER-like labels (then Δ̂ < 0 means A is better).
    pair_controls: ``"difference"`` (g_A − g_B) or ``"both"`` ((g_A, g_B)).
    label_range: known (low, high) of the labels (e.g. (0, 1)); required in strict mode.
    visits: active sampling (:class:`estimators.active.Visits`, the queue's draw rounds in
        order): the streams become the weighted visit increments of
        :func:`estimators.active.visit_stream` (recorded π, predictable binned ŷ) instead of
        the uniform-draw control-variate increments; unequal π are then accepted, mixed
        histories (π = 1 visits first) included. Asymptotic mode only; ``finite_pool`` is
        not applied to them.
    finite_pool: estimand = the mean of the labels the pool's outputs get, one label each,
        taken without replacement (finite-population Des Raj increments: exact, and the
        interval shrinks to a point when the whole pool is labelled). Default ``False``:
        estimand = μ_s, the expected judgment over annotators (statistics.md, Notation),
        with the with-replacement increments (conservative under without-replacement order).
    """

    def __init__(
        self,
        pool_metrics: Sequence[np.ndarray | None],
        item: Sequence[int] | np.ndarray,
        system: Sequence[int] | np.ndarray,
        label: Sequence[float] | np.ndarray,
        position: Sequence[float] | np.ndarray | None,
        inclusion_prob: Sequence[float] | np.ndarray | None,
        *,
        names: Sequence[str] | None = None,
        alpha: float = 0.05,
        mode: Literal["asymptotic", "strict"] = "asymptotic",
        design: str | None = None,
        t_star: float | None = None,
        equivalence_margin: float = 0.05,
        error_rate: str = ErrorRate.FWER,
        higher_is_better: bool = True,
        pair_controls: Literal["difference", "both"] = "difference",
        label_range: tuple[float, float] | None = (0.0, 1.0),
        finite_pool: bool = False,
        present: np.ndarray | None = None,
        visits: active.Visits | None = None,
    ) -> None:
        self.k = len(pool_metrics)
        if self.k < 1:
            raise ValueError("need at least one system")
        self.metrics = [None if m is None else _as_2d(m) for m in pool_metrics]
        sizes = {m.shape[0] for m in self.metrics if m is not None}
        if present is not None:
            sizes.add(np.shape(present)[-1])
        if len(sizes) > 1:
            raise ValueError(f"systems have pools of different sizes {sorted(sizes)}")
        if not sizes:
            # the pool must be known in advance: sizing it from the labels seen so far would
            # move t* (and the p-value path) as labels arrive
            raise ValueError("the pool size is unknown: pass present (systems × items)")
        self.n_items = sizes.pop()
        self.present = (
            np.ones((self.k, self.n_items), dtype=bool)
            if present is None
            else np.asarray(present, dtype=bool)
        )
        if self.present.shape != (self.k, self.n_items):
            raise ValueError(f"present has shape {self.present.shape}, expected (systems, N)")
        self.names = list(names) if names is not None else [f"S{i}" for i in range(self.k)]
        if len(self.names) != self.k:
            raise ValueError("one name per system")
        if mode not in ("asymptotic", "strict"):
            raise ValueError(f"mode must be 'asymptotic' or 'strict', not {mode!r}")
        if design is None:
            design = LiveDesign.ASYMPCS if mode == "asymptotic" else LiveDesign.EB_STRICT
        if design not in tuple(LiveDesign):
            raise ValueError(f"design must be one of {', '.join(LiveDesign)}, not {design!r}")
        self.design = LiveDesign(design)
        if self.design.bounded and label_range is None:
            raise ValueError(
                f"the {self.design} design (strict mode) needs the known label_range: use "
                "binary labels or 1 − HTER, or the asympcs / gsd_obf design"
            )
        if t_star is not None and not t_star >= 1:
            raise ValueError(f"the planned size t* must be a positive number, not {t_star}")
        self.alpha, self.mode, self.t_star = alpha, mode, t_star
        self.margin, self.higher_is_better = equivalence_margin, higher_is_better
        if error_rate not in tuple(ErrorRate):
            raise ValueError(
                f"error_rate must be one of {', '.join(ErrorRate)}, not {error_rate!r}"
            )
        if not equivalence_margin > 0:
            raise ValueError(f"the equivalence margin ε must be positive, not {equivalence_margin}")
        self.error_rate = ErrorRate(error_rate)
        self._last_e = 1.0
        self.pair_controls, self.label_range = pair_controls, label_range
        self.finite_pool = finite_pool
        self.visits = visits
        if visits is not None and self.design != LiveDesign.ASYMPCS:
            raise ValueError(
                f"strict mode needs uniform draws; active sampling is monitored in asymptotic "
                f"mode with the asympcs design (not {self.design})"
            )
        #: stream name → the active design's effective sample size and measured saving
        self.designs: dict[str, active.DesignSummary] = {}
        #: pair → its confidence sequence, filled by :meth:`report` and reused by
        #: :meth:`pair_sequence` (the width chart), so a refresh computes each pair once
        self._pair_cs: dict[tuple[int, int], seq.ConfidenceSequence] = {}

        n = len(label)
        self.item = np.asarray(item, dtype=int).reshape(n)
        self.system = np.asarray(system, dtype=int).reshape(n)
        self.label = np.asarray(label, dtype=float).reshape(n)
        self.position = _require(position, "assignment position", n)
        self.inclusion_prob = _require(inclusion_prob, "inclusion probability", n)
        self._validate()

    # ---------------------------------------------------------------- validation
    def _validate(self) -> None:
        if np.any(np.diff(self.position) <= 0):
            i = int(np.argmax(np.diff(self.position) <= 0)) + 1
            raise ValueError(
                f"assignment positions must be strictly increasing in arrival order "
                f"(label {i} has position {self.position[i]} after {self.position[i - 1]})"
            )
        if np.any((self.inclusion_prob <= 0) | (self.inclusion_prob > 1)):
            raise ValueError("inclusion probabilities must lie in (0, 1]")
        if np.any((self.system < 0) | (self.system >= self.k)):
            raise ValueError("system index out of range")
        if np.any((self.item < 0) | (self.item >= self.n_items)):
            raise ValueError(f"item index out of range 0..{self.n_items - 1}")
        if not self.present[self.system, self.item].all():
            raise ValueError("labels for outputs the pool does not have (present is False)")
        if not np.all(np.isfinite(self.label)):
            raise ValueError("labels must be finite numbers (drop skipped items upstream)")
        if self.label_range is not None:
            lo, hi = self.label_range
            if np.any((self.label < lo) | (self.label > hi)):
                raise ValueError(f"labels outside the declared range {self.label_range}")
        for s in range(self.k if self.visits is None else 0):  # visits: weighted streams
            pi = self.inclusion_prob[self.system == s]
            if pi.size and not np.allclose(pi, pi[0], rtol=1e-9, atol=0):
                raise ValueError(
                    f"system {self.names[s]!r}: unequal inclusion probabilities "
                    f"({pi.min():.4g}..{pi.max():.4g}); the sequential monitor needs a "
                    f"uniformly random draw — use a fixed-n weighted estimator instead"
                )

    # ---------------------------------------------------------------- per-system streams
    def _stream(self, s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """Labels of system s in arrival order (first label per output), positions, repeats."""
        mask = self.system == s
        items, y, pos = self.item[mask], self.label[mask], self.position[mask]
        _, first = np.unique(items, return_index=True)
        keep = np.sort(first)
        return items[keep], y[keep], pos[keep], int(mask.sum() - keep.size)

    def _t_star(self, pool: _Pool) -> int:
        """The planned size for one system or pair: min(t*, its pool), fixed in advance.
        The group-sequential design needs at least one label per look."""
        t = pool.size if self.t_star is None else min(int(self.t_star), pool.size)
        return max(t, gsd.LOOKS) if self.design == LiveDesign.GSD_OBF else max(t, 1)

    def _analyse(self, y, g, pool: _Pool, alpha_cs, *, pair: bool, theta0: float | None):
        """Increments, CS at ``alpha_cs``, and the anytime p-value vs ``theta0``, both tuned
        at ``alpha_cs`` (:meth:`_tuning`); the betting design also leaves its e-value K_t(θ0)
        in ``self._last_e``.

        t* and the finite-pool N come from the size of the fixed pool and the plan, never
        from the labels seen so far: the path up to t then depends on the first t labels
        only, so a later read extends it.
        """
        t_star = self._t_star(pool)
        ctrl = pool.controls
        gbar = None if ctrl is None else ctrl.mean
        # the pool's (imputed) control values, for the strict mode's bounds
        g_all = None if ctrl is None else ctrl.values[pool.mask]
        pool_size = pool.size if self.finite_pool and self.visits is None else None
        m = max(len(pairs(self.k)), 1)
        if not self.design.bounded:
            inc = seq.cv_increments(y, g, gbar, pool_size=pool_size)
            # 10 pseudo-observations of the largest variance the labels allow: keeps the CLT
            # sequence valid at extreme adequacy rates (see seq.asymptotic_cs)
            prior = (
                0.0
                if self.label_range is None
                else (self.label_range[1] - self.label_range[0]) ** 2 / 4
            )
            prior = 4 * prior if pair else prior
            if self.visits is not None and len(self.visits):
                # a visit carries mean(π) labels: its increments' variance is ≈ 1/mean(π)
                # times a label's, so the prior is scaled alike (statistics.md §9)
                prior /= max(float(np.mean(self.visits.pi)), 1e-3)
            cs, p = design_paths(
                self.design, inc.z, level=alpha_cs, alpha=self._tuning(alpha_cs), m=m,
                theta0=theta0, t_star=t_star, var_prior=prior,
            )  # fmt: skip
            return inc, self._known_path(self._clip(cs, pair), y, pool, pair), p, t_star
        lo, hi = self.label_range
        span = hi - lo
        yr = (lo - hi, hi - lo) if pair else (lo, hi)
        wor = None  # the betting design bets on the labels themselves, without replacement
        if self.design == LiveDesign.BETTING:
            inc, wor = seq.cv_increments(y, None, label_range=yr), pool_size
        elif g is None:
            inc = seq.cv_increments(y, None, label_range=yr, pool_size=pool_size)
        else:
            sd = g_all.std(axis=0)
            sd = np.where(sd > 0, sd, 1.0)
            clip = (span if pair else 0.5 * span) / sd
            inc = seq.cv_increments(
                y,
                g,
                gbar,
                lam_clip=clip,
                label_range=yr,
                g_range=(g_all.min(axis=0), g_all.max(axis=0)),
                pool_size=pool_size,
            )
        # e-BH reads the current capital K_t(0): the pair's interval is then the current
        # capital's set, so an interval that excludes 0 is an e-value ≥ m/α (a verdict)
        ebh = pair and self._error_rate() == ErrorRate.FDR
        cs, p = design_paths(
            self.design, inc.z, level=alpha_cs, alpha=self._tuning(alpha_cs), m=m,
            theta0=theta0, t_star=t_star, bounds=inc.bounds, running=not ebh, pool_size=wor,
        )  # fmt: skip
        if theta0 is not None and self.design == LiveDesign.BETTING:
            e = betting.betting_evalue(
                inc.z, theta0, bounds=inc.bounds, alpha_tuning=alpha_cs, t_star=t_star,
                pool_size=wor,
            )
            self._last_e = float(e[-1]) if inc.z.shape[-1] >= seq.BURN_IN else 1.0
        return inc, self._known_path(self._clip(cs, pair), y, pool, pair), p, t_star

    def _known_path(self, cs, y, pool: _Pool, pair: bool):  # type: ignore[no-untyped-def]
        """The sequence cut by the known part of the pool along the path (finite pool,
        uniform draws, known label range): after t labels of sum S_t, the pool mean lies in
        [(S_t + (N − t)·lo)/N, (S_t + (N − t)·hi)/N] for sure, so the cut keeps coverage and
        the path ends at the exact mean at the census (:mod:`estimators.verdicts`)."""
        if not self.finite_pool or self.visits is not None or self.label_range is None:
            return cs
        lo, hi = self.label_range
        lo, hi = (lo - hi, hi - lo) if pair else (lo, hi)
        n, t = float(pool.size), np.arange(1, np.shape(y)[-1] + 1, dtype=float)
        s = np.cumsum(np.asarray(y, dtype=float), axis=-1)
        k_lo, k_hi = (s + (n - t) * lo) / n, (s + (n - t) * hi) / n
        low, high = np.maximum(cs.lower, k_lo), np.minimum(cs.upper, k_hi)
        empty = low > high
        return replace(cs, lower=np.where(empty, k_lo, low), upper=np.where(empty, k_hi, high))

    def _tuning(self, alpha_cs: float) -> float:
        """The level the p-values and sequences are tuned for: the level at which the
        verdict is first read (α/m for a pair, α/k for a system). The group-sequential
        design spends the family-wise α over its own level grid (α/j, j ≤ m)."""
        return self.alpha if self.design == LiveDesign.GSD_OBF else alpha_cs

    def _clip(self, cs: seq.ConfidenceSequence, pair: bool) -> seq.ConfidenceSequence:
        """Intervals clipped to what the estimand can be: [lo, hi] for a system with labels
        in [lo, hi], [lo − hi, hi − lo] for a difference (clipping keeps validity)."""
        if self.label_range is None:
            return cs
        lo, hi = self.label_range
        lo, hi = (lo - hi, hi - lo) if pair else (lo, hi)
        return replace(cs, lower=np.clip(cs.lower, lo, hi), upper=np.clip(cs.upper, lo, hi))

    def _pair_stream(self, stream_a, stream_b, a: int, b: int):  # type: ignore[no-untyped-def]
        """Paired differences D = y_A − y_B on the items both systems have, in the order
        the pair was completed (the later of the two labels), their controls and pool."""
        ia, ya, pa = stream_a
        ib, yb, pb = stream_b
        common, xa, xb = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
        order = np.argsort(np.maximum(pa[xa], pb[xb]), kind="stable")
        items = common[order]
        pool = self._pair_pool(a, b)
        g = None if pool.controls is None else pool.controls.values[items]
        return ya[xa][order] - yb[xb][order], g, pool

    def pair_sequence(self, a: int, b: int):  # type: ignore[no-untyped-def]
        """The confidence sequence of Δ = μ_a − μ_b along the pair's whole label path.

        Entry t − 1 is the interval after the pair's t-th completed item, at the same
        Bonferroni level, mode, priors and pool option that :meth:`report` uses, cut by the
        known part of the pair's completed items (finite pool); the last entry contains the
        interval the report shows (which also uses items labelled for one system only, and
        the verdict's bound at 0). ``None`` below the burn-in.
        """
        cs = self._pair_cs.get((a, b))
        if cs is None:
            d, g, pool = self._pair_stream(self._stream(a)[:3], self._stream(b)[:3], a, b)
            if self.visits is not None:
                d, g, pool, _ = self._weighted((a, b), pool)
            if d.size < seq.BURN_IN:
                return None
            a_pair = bonferroni_alpha(self.alpha, len(pairs(self.k)))
            cs = self._analyse(d, g, pool, a_pair, pair=True, theta0=None)[1]
        return cs if cs.lower.shape[-1] >= seq.BURN_IN else None

    def _system_pool(self, s: int) -> _Pool:
        """System s's pool: the items it has an output for, with its metric controls."""
        mask = self.present[s]
        m = self.metrics[s]
        return _Pool(mask, None if m is None else seq.pool_controls(m, mask))

    def _pair_pool(self, a: int, b: int) -> _Pool:
        """The pair's pool: the items both systems answered; controls g_A − g_B or (g_A, g_B),
        missing wherever either score is missing."""
        mask = self.present[a] & self.present[b]
        ma, mb = self.metrics[a], self.metrics[b]
        if ma is None or mb is None:
            return _Pool(mask, None)
        if self.pair_controls == "difference":
            g_all = ma - mb
        elif self.pair_controls == "both":
            g_all = np.concatenate([ma, mb], axis=1)
        else:
            raise ValueError(
                f"pair_controls must be 'difference' or 'both', not {self.pair_controls!r}"
            )
        return _Pool(mask, seq.pool_controls(g_all, mask))

    def _coverage(self, pool: _Pool) -> PoolCoverage:
        has_metric = any(m is not None for m in self.metrics)
        if pool.controls is not None:
            no_metric = int(pool.controls.imputed.sum())
        else:
            no_metric = pool.size if has_metric else 0
        return PoolCoverage(pool=pool.size, no_output=self.n_items - pool.size, no_metric=no_metric)

    # ---------------------------------------------------------------- report
    def report(self) -> MonitorReport:
        alpha = self.alpha
        notes: list[str] = []
        plist = pairs(self.k)
        a_sys = bonferroni_alpha(alpha, self.k)
        a_pair = bonferroni_alpha(alpha, len(plist)) if plist else alpha
        method = str(self.design)

        sys_results: list[EstimateResult] = []
        sys_cover: list[PoolCoverage] = []
        streams = []
        for s in range(self.k):
            items, y, pos, repeats = self._stream(s)
            streams.append((items, y, pos))
            if repeats:
                notes.append(f"{self.names[s]}: {repeats} repeat label(s) of an output ignored")
            pool = self._system_pool(s)
            cover = self._coverage(pool)
            sys_cover.append(cover)
            notes.extend(self._coverage_notes(self.names[s], cover))
            g = None if pool.controls is None else pool.controls.values[items]
            n_labels, kind = None, f"{method}+cv"
            known = self._known(((items, y),), pool)
            if self.visits is not None:
                y, g, pool, n_labels = self._weighted((s,), pool)
                kind = f"{method}+active"
            sys_results.append(
                self._result(
                    y, g, pool, a_sys, pair=False, method=kind, n_labels=n_labels, known=known
                )[0]
            )
        fit_notes = self._plan_fit_notes()
        notes.extend(fit_notes)
        pair_status = self._pair_statuses(plist, streams, a_pair, notes)
        sig = np.array([p.decided for p in pair_status], dtype=bool).reshape(len(plist))
        est = np.array([p.result.estimate for p in pair_status], dtype=float).reshape(len(plist))
        if not self.higher_is_better:
            est = -est
        ranks = rank_sets(self.k, sig, np.nan_to_num(est))
        systems = [
            SystemStatus(
                name=self.names[s], result=sys_results[s], rank=ranks[s], coverage=sys_cover[s]
            )
            for s in range(self.k)
        ]
        return MonitorReport(
            systems=systems, pairs=pair_status, alpha=alpha, mode=self.mode, notes=notes,
            design=self.design, planned_labels=None if self.t_star is None else int(self.t_star),
            finite_pool=self.finite_pool, designs=dict(self.designs),
            error_rate=self._error_rate(), margin=self.margin,
            plan_note=fit_notes[0] if fit_notes else None,
        )  # fmt: skip

    def _plan_fit_notes(self) -> list[str]:
        """Say so when the plan's labels per system exceed the pool (the sequences are then
        tuned to the pool: the plan as given cannot be followed)."""
        if self.t_star is None:
            return []
        biggest = max(int(self.present[s].sum()) for s in range(self.k))
        if self.t_star <= biggest:
            return []
        return [
            f"The plan asks for {int(self.t_star):,} labels per system, more than the "
            f"{biggest:,} items in the pool: the live verdicts are tuned to the pool instead, "
            "so pairs closer than the planned difference may stay undecided until every item "
            "is labelled (see the Planner for the smallest difference this pool settles)."
        ]

    def _error_rate(self) -> ErrorRate:
        """e-BH needs the betting design's e-values; otherwise Holm is in force."""
        if self.error_rate == ErrorRate.FDR and self.design == LiveDesign.BETTING:
            return ErrorRate.FDR
        return ErrorRate.FWER

    def _known(self, labelled, pool: _Pool):  # type: ignore[no-untyped-def]
        """The known set of a system's or pair's pool mean (:mod:`estimators.verdicts`):
        finite-pool estimand with uniform draws and a known label range only."""
        if not self.finite_pool or self.visits is not None or self.label_range is None:
            return None
        if pool.size == 0:
            return None
        parts = []
        for items, y in labelled:
            inside = pool.mask[items]
            parts.append((float(np.sum(y[inside])), int(inside.sum())))
        if len(parts) == 1:
            return verdicts.known_bounds(*parts[0], pool.size, self.label_range)
        return verdicts.pair_known_bounds(parts[0], parts[1], pool.size, self.label_range)

    def _pair_statuses(self, plist, streams, a_pair: float, notes: list[str]):  # type: ignore[no-untyped-def]
        """Analyse every pair, settle them together (Holm or e-BH), and word the verdicts."""
        results, pvals, evals, inputs, cover = [], [], [], [], []
        for a, b in plist:
            d, g, pool = self._pair_stream(streams[a], streams[b], a, b)
            known = self._known((streams[a][:2], streams[b][:2]), pool)
            n_labels, kind = None, f"{self.design}+cv paired"
            if self.visits is not None:
                d, g, pool, n_labels = self._weighted((a, b), pool)
                kind = f"{self.design}+active paired"
            self._last_e = 1.0
            res, p_last, sigma, t_star, cs = self._result(
                d, g, pool, a_pair, pair=True, method=kind, theta0=0.0, n_labels=n_labels,
                known=known,
            )  # fmt: skip
            if cs is not None:
                self._pair_cs[(a, b)] = cs
            e_last = math.inf if p_last == 0.0 else self._last_e
            results.append(res)
            pvals.append(p_last)
            evals.append(e_last)
            inputs.append((sigma, t_star, pool.size))
            cover.append(self._coverage(pool))
        if self.error_rate == ErrorRate.FDR and self._error_rate() != ErrorRate.FDR:
            notes.append(
                f"e-BH needs the betting design's e-values; the {self.design} design reads "
                "its verdicts with Holm (family-wise error rate)."
            )
        reject, read_at = verdicts.settle(
            np.asarray(pvals), np.asarray(evals), self.alpha, self._error_rate()
        )
        adj = holm(np.asarray(pvals), self.alpha).adjusted if plist else np.array([])
        out = []
        for i in range(len(plist)):
            status = self._pair_status(
                plist[i], results[i], pvals[i], float(adj[i]), bool(reject[i]),
                float(read_at[i]), inputs[i], cover[i], a_pair, evals[i],
            )  # fmt: skip
            out.append(status)
        return out

    def _pair_status(
        self, ab, res, p, p_holm, rejected, read_at, inputs, cover, a_pair, e_value
    ) -> PairStatus:  # type: ignore[no-untyped-def]
        """One pair's status: outcome, the interval shown, and the labels still needed."""
        a, b = ab
        sigma, t_star, pool_size = inputs
        rejected = rejected and (res.n_human >= MIN_LABELS_FOR_VERDICT or p == 0.0)
        res = res.with_(ci=verdicts.compatible_interval(res.ci, rejected, res.estimate))
        verdict, out = self._verdict(res, rejected, t_star, pool_size, exact=p == 0.0)
        decided = out != Outcome.UNDECIDED
        # active sampling: the forecasts run in visits and are reported in labels
        visits = res.diagnostics.get("visits") or res.n_human
        per_visit = res.n_human / visits if visits else 1.0
        in_visits = res.with_(n_human=visits) if per_visit != 1.0 else res
        needed, basis = (
            (0, "decided") if decided
            else self._labels_needed(in_visits, sigma, t_star, pool_size, read_at, a_pair)
        )  # fmt: skip
        planner = 0 if decided else self._planner_forecast(in_visits, sigma, 1 - read_at, pool_size)
        if per_visit != 1.0:
            needed, planner = (
                None if x is None else math.ceil(x * per_visit) for x in (needed, planner)
            )
        return PairStatus(
            a=self.names[a], b=self.names[b], result=res, p_value=float(p), p_holm=p_holm,
            verdict=verdict, labels_needed=needed, labels_needed_planner=planner,
            forecast_method=str(self.design), coverage=cover, needed_basis=basis,
            outcome=out, margin=self.margin, e_value=e_value, read_level=read_at,
        )  # fmt: skip

    def _coverage_notes(self, name: str, cover: PoolCoverage) -> list[str]:
        out = []
        if cover.no_output:
            out.append(
                f"{name} has no output for {cover.no_output} of {self.n_items} items: it is "
                "monitored, and compared, on the items it answered."
            )
        if cover.no_metric:
            out.append(
                f"{name}: {cover.no_metric} of its {cover.pool} outputs lack a chosen metric "
                "score; their labels count without the metric control."
            )
        return out

    def _weighted(self, systems: tuple[int, ...], pool: _Pool):  # type: ignore[no-untyped-def]
        """Active sampling: the visit increments of a system or pair (``g`` None: the
        control is inside them) and its label count; records its design summary."""
        assert self.visits is not None
        labels = []
        for s in systems:
            items, y = self._stream(s)[:2]
            lab = np.full(self.n_items, np.nan)
            lab[items] = y
            labels.append(lab)
        lo, hi = self.label_range if self.label_range is not None else (0.0, 1.0)
        stream = active.visit_stream(
            self.visits, labels, [self.metrics[s] for s in systems], pool.mask,
            prior_mean=(lo + hi) / 2,
        )  # fmt: skip
        self.designs[" – ".join(self.names[s] for s in systems)] = stream.summary
        return stream.z, None, pool, stream.n_labels

    def _estimate(self, y, g, inc: seq.Increments, pool: _Pool) -> float:  # type: ignore[no-untyped-def]
        """The shown estimate. Finite pool (uniform draws): the regression estimator
        ȳ_t − λ_tᵀ(ḡ_t − ḡ_pool) (Cochran 1977, §7.1; λ_t from the labels so far, 0 without
        a control) — the plain label mean without a control, unbiased for the pool mean
        under sampling without replacement, with MSE ≤ that of any weighting of the same
        labels (the Des Raj increments' mean weights early labels ≈ 2×, the last ≈ 0), and
        equal to the exact pool mean at the census (ḡ_t = ḡ_pool there). Otherwise the mean
        of the increments (with-replacement control-variate estimator)."""
        if not (self.finite_pool and self.visits is None):
            return float(np.mean(inc.z))
        est = float(np.mean(y))
        if g is not None and pool.controls is not None:
            gk = np.asarray(g, dtype=float).reshape(len(y), -1)
            lam = np.asarray(inc.lam[-1], dtype=float).reshape(-1)
            est -= float(lam @ (gk.mean(axis=0) - np.asarray(pool.controls.mean).reshape(-1)))
        return est

    def _result(
        self, y, g, pool: _Pool, alpha_cs, *, pair: bool, method: str, theta0=None, n_labels=None,
        known=None,
    ):  # type: ignore[no-untyped-def]
        n = int(y.shape[-1]) if n_labels is None else int(n_labels)
        ctrl = pool.controls
        n_metric = 0 if ctrl is None else ctrl.size - int(ctrl.imputed.sum())
        if n == 0:
            res = EstimateResult(
                estimate=float("nan"),
                ci=(-math.inf, math.inf),
                se=float("nan"),
                n_human=0,
                n_metric=n_metric,
                method=method,
                level=1 - alpha_cs,
                valid_for_verdict=False,
            )
            return res, 1.0, float("nan"), self._t_star(pool), None
        inc, cs, p, t_star = self._analyse(y, g, pool, alpha_cs, pair=pair, theta0=theta0)
        sigma = float(cs.sigma[-1])
        p_last = 1.0 if p is None else float(p[-1])
        ci = verdicts.intersect((float(cs.lower[-1]), float(cs.upper[-1])), known)
        if known is not None and theta0 is not None and not (
            known[0] - KNOWN_TOL <= theta0 <= known[1] + KNOWN_TOL
        ):
            p_last = 0.0  # the labelled part alone rules θ0 out (verdicts module)
        diagnostics = {
            "lam": inc.lam[-1].tolist() if inc.lam.shape[-1] > 1 else float(inc.lam[-1, 0]),
            "sigma": sigma,
            "t_star": t_star,
            "simultaneous_alpha": alpha_cs,
            "mode": self.mode,
            "design": str(self.design),
            "estimand": "test set" if self.finite_pool else "superpopulation",
        }
        if n_labels is not None:
            diagnostics["visits"] = int(inc.z.shape[-1])
        if p is not None:
            diagnostics["p_value"] = p_last
        if known is not None:
            diagnostics["known_bounds"] = known
        res = EstimateResult(
            estimate=float(np.clip(self._estimate(y, g, inc, pool), *ci)),
            ci=ci,
            se=sigma / math.sqrt(inc.z.shape[-1]),
            n_human=n,
            n_metric=n_metric,
            method=method,
            level=1 - alpha_cs,
            diagnostics=diagnostics,
            valid_for_verdict=n >= MIN_LABELS_FOR_VERDICT,
        )
        return res, p_last, sigma, t_star, cs

    def _planner_forecast(
        self, res: EstimateResult, sigma: float, level: float, pool_size: int
    ) -> int | None:
        """The planner's fixed-n labels-still-needed (80 % power, se = σ̂/√n)."""
        n = res.n_human
        if n < 2 or not (math.isfinite(res.estimate) and math.isfinite(sigma)):
            return None
        need = float(
            planning.labels_still_needed(res.estimate, sigma / math.sqrt(n), n, level, 0.8)
        )
        if not math.isfinite(need) or n + need > pool_size:
            return None
        return int(need)

    def _verdict(
        self, res: EstimateResult, rejected: bool, n_max: int, pool_size: int, *, exact: bool
    ) -> tuple[Verdict, Outcome]:
        """(the verdict in words, the outcome) from the settled rejection and the shown
        interval (:func:`estimators.verdicts.outcome`)."""
        lo, hi = res.ci
        census = self.finite_pool and lo == hi
        if res.n_human < MIN_LABELS_FOR_VERDICT and not (exact or census):
            return "not yet", Outcome.UNDECIDED
        out = verdicts.outcome(rejected, res.estimate, res.ci, self.margin, self.higher_is_better)
        if out in (Outcome.A_BETTER, Outcome.B_BETTER):
            return str(out), out
        if out == Outcome.EQUIVALENT:
            if census and abs(lo) <= KNOWN_TOL:
                return "exactly equal", out
            return f"no difference larger than {self.margin:g}", out
        if res.n_human >= pool_size:
            return (
                f"no significant difference at α = {self.alpha:g} with all {pool_size:,} items",
                out,
            )
        if self.design == LiveDesign.GSD_OBF and res.n_human >= n_max:
            return (
                f"no significant difference at α = {self.alpha:g} within the planned "
                f"{n_max:,} labels (the design's α is spent)",
                out,
            )
        return "not yet", out

    def _labels_needed(
        self, res: EstimateResult, sigma: float, t_star: int, pool_size: int, read_at: float,
        a_pair: float,
    ) -> tuple[int | None, str]:  # fmt: skip
        """(more items to label for the pair, what that number is) until the verdict is
        forecast — not the interval's crossing: the sign verdict comes when the interval at
        the level the procedure reads the pair at next (``read_at``: α/(m − r) for Holm,
        α(r + 1)/m for e-BH), tuned at α/m, excludes 0, or when the labelled part alone
        excludes 0 (finite pool); the equivalence verdict when the α/m interval fits inside
        ±ε. At the current Δ̂ and σ̂; ``None`` when the pool (or the plan) cannot get there."""
        n = res.n_human
        if n < MIN_LABELS_FOR_VERDICT:
            return MIN_LABELS_FOR_VERDICT - n, "floor"
        if n >= pool_size:
            return None, "pool exhausted"
        if self.design == LiveDesign.GSD_OBF:
            if n >= t_star:
                return None, "plan spent"
            need = gsd.gsd_labels_needed(
                res.estimate, sigma, n, level=read_at, alpha=self.alpha,
                m=max(len(pairs(self.k)), 1), n_max=t_star, max_labels=min(t_star, pool_size),
            )  # fmt: skip
            return need, "forecast"
        width = self._width_function(sigma, t_star, a_pair)
        est = abs(res.estimate)
        span = 2 * (self.label_range[1] - self.label_range[0]) if self.label_range else None
        finite = self.finite_pool and span is not None and self.visits is None

        def ok(t: int) -> bool:
            if width(t, read_at) < est or width(t, a_pair) < self.margin - est:
                return True
            # the labelled part alone excludes 0: t/N·|Δ̂| > (N − t)/N·span
            return finite and t * est > (pool_size - t) * span

        return _smallest_t(ok, n, pool_size), "forecast"

    def _width_function(self, sigma: float, t_star: int, a_pair: float):  # type: ignore[no-untyped-def]
        """Half-width after t labels read at level a, sequences tuned at α/m."""
        if self.design == LiveDesign.ASYMPCS:
            return lambda t, a: float(
                seq.asymptotic_half_width(sigma, t, a, t_star, alpha_tuning=a_pair)
            )
        lo, hi = self.label_range
        span = 2 * (hi - lo)  # the pair's increments lie in [lo − hi, hi − lo]
        if self.design == LiveDesign.BETTING:
            return lambda t, a: betting.betting_half_width(sigma, span, t, a, t_star, a_pair)
        return lambda t, a: betting.betting_half_width(sigma, span, t, a, None)


@dataclass(frozen=True)
class _Pool:
    """A system's or a pair's fixed pool: item mask and controls (``None``: human only)."""

    mask: np.ndarray
    controls: seq.PoolControls | None

    @property
    def size(self) -> int:
        return int(self.mask.sum())


def _as_2d(m: np.ndarray) -> np.ndarray:
    """(N,) or (N, k) metric scores; NaN (or ±inf) marks a missing score."""
    arr = np.asarray(m, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError("pool metric scores must have shape (N,) or (N, k)")
    return np.where(np.isfinite(arr), arr, np.nan)


def _smallest_t(ok, n_now: int, max_labels: int) -> int | None:  # type: ignore[no-untyped-def]
    """More labels until ``ok(t)`` (true from some t on) holds, t ≤ ``max_labels``."""
    t0 = max(int(n_now), MIN_LABELS_FOR_VERDICT)
    if max_labels < t0 or not ok(max_labels):
        return None
    if ok(t0):
        return t0 - int(n_now)
    lo, hi = t0, int(max_labels)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi - int(n_now)


def forecast_labels_needed(
    delta_hat: float,
    sigma: float,
    n_now: int,
    *,
    alpha: float = 0.05,
    t_star: float | None = None,
    max_labels: int | None = None,
) -> int | None:
    """More labels until the asymptotic CS half-width falls below |Δ̂| (statistics.md §4).

    Assumes Δ̂ and σ̂ stay at their current values and solves
    σ̂·sqrt(2(t r²+1)/(t² r²)·log(sqrt(t r²+1)/α)) < |Δ̂| for the smallest t ≥ max(n_now, 30)
    (the half-width decreases in t). Returns t − n_now, or ``None`` when Δ̂ = 0, σ̂ is
    unknown, or t would exceed ``max_labels`` (the pool cannot settle the pair).
    """
    if not (math.isfinite(delta_hat) and math.isfinite(sigma)) or delta_hat == 0:
        return None
    t0 = max(int(n_now), MIN_LABELS_FOR_VERDICT)
    hi = int(max_labels) if max_labels is not None else 10**7
    if hi < t0:
        return None

    def ok(t: int) -> bool:
        return bool(seq.asymptotic_half_width(sigma, t, alpha, t_star) < abs(delta_hat))

    if ok(t0):
        return t0 - int(n_now)
    if not ok(hi):
        return None
    lo = t0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi - int(n_now)


def settled_pairs(report: MonitorReport) -> list[PairVerdict]:
    """The pairs whose outcome is settled (A better, B better, or no difference larger
    than ε): what a racing queue may stop sampling for. Each outcome is anytime-valid, so a
    decision to stop drawing that depends only on past labels leaves every later verdict
    valid (:mod:`estimators.verdicts`)."""
    return [v for v in report.pair_verdicts() if v.settled]
