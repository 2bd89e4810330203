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
:mod:`estimators.sampling.active` (statistics.md §9), whose increments stay a martingale difference
sequence because each π and ŷ was fixed before its draw.

Paired differences use the items labelled for both systems, in the order the pair was
completed (the later of the two positions).

Gaps degrade only the items they touch. A system without an output for some items is judged
on the items it answered, and a pair on the items both answered (its fixed pool: the queue's
random item order restricted to those items is still uniformly random). A pool item whose
chosen metric score is missing keeps its label but gets no control (see
:func:`estimators.sequences.sequential.pool_controls`); every status carries a :class:`PoolCoverage`
with these counts. The pool sizes — and so t* and the p-value path — come from the known
item set (``present``), never from the labels seen so far, so the reported anytime p-values
(running minima along a path that only grows) never increase as labels arrive in queue
order. A label submitted after labels at later positions (annotators working in parallel)
is placed at its own position — the random order validity rests on — so the path can change
from that point, so the caller holds back labels beyond the lowest still-open position
(:attr:`estimators.data.campaign.CampaignData.open_from`, applied in
:func:`estimators.report.campaign_report.campaign_report`).

Per-system intervals are Bonferroni-simultaneous over the k systems, pair intervals over the
k(k−1)/2 pairs; pair verdicts come from Holm on the anytime p-values, which is valid at
whatever moment the dashboard is read.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Literal

import numpy as np

from estimators.base import verdicts
from estimators.base.multiple import bonferroni_alpha, pairs, rank_sets
from estimators.base.result import MIN_LABELS_FOR_VERDICT, EstimateResult
from estimators.base.verdicts import ErrorRate, Outcome
from estimators.caches.monitor import MonitorCache
from estimators.live.analysis import KNOWN_TOL, MonitorAnalysis
from estimators.live.carry import MonitorCarry
from estimators.live.document_report import document_report
from estimators.live.forecast import MonitorForecast
from estimators.live.pools import MonitorData
from estimators.live.status import (
    MonitorReport,
    PairStatus,
    PoolCoverage,
    SystemStatus,
    Verdict,
)
from estimators.live.streams import MonitorStreams
from estimators.sampling import active
from estimators.sequences import confidence_sequences as csq
from estimators.sequences.designs import LiveDesign


class CampaignMonitor(
    MonitorData, MonitorAnalysis, MonitorCarry, MonitorStreams, MonitorForecast
):
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
    design: the live design (:class:`estimators.sequences.designs.LiveDesign`); overrides
        ``mode`` (default: ``asympcs`` for "asymptotic", ``eb_strict`` for "strict").
        ``betting`` and ``eb_strict`` need ``label_range``; ``betting`` runs without metric
        controls (a control would widen the increments' known bounds); ``betting_cv`` adds
        the first metric as a control in half the capital
        (:mod:`estimators.sequences.betting_control`;
        docs/statistics-notes.md §14 for why it is not the default).
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
    visits: active sampling (:class:`estimators.sampling.active.Visits`, the queue's draw rounds in
        order): the streams become the weighted visit increments of
        :func:`estimators.sampling.active.visit_stream` (recorded π, predictable binned ŷ) instead
        of
        the uniform-draw control-variate increments; unequal π are then accepted, mixed
        histories (π = 1 visits first) included. Asymptotic mode only; ``finite_pool`` is
        not applied to them.
    finite_pool: estimand = the mean of the labels the pool's outputs get, one label each,
        taken without replacement (finite-population Des Raj increments: exact, and the
        interval shrinks to a point when the whole pool is labelled). Default ``False``:
        estimand = μ_s, the expected judgment over annotators (statistics.md, Notation),
        with the with-replacement increments (conservative under without-replacement order).
    documents: (N,) document index of every item, given when the queue draws whole
        documents (judged in order): then every interval, p-value, verdict and forecast
        counts completed documents (:mod:`estimators.live.document_report`). Not with ``visits``.
    cache: a :class:`estimators.caches.monitor.MonitorCache` shared by the monitors built
        for one campaign, read after read: a pair or system whose stream, pool and
        settings are unchanged reuses its analysis (same result, bit for bit), so a read
        after one new label recomputes the pairs that label touched.
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
        documents: np.ndarray | None = None,
        cache: MonitorCache | None = None,
    ) -> None:
        self._init_pool(pool_metrics, present, names)
        #: analyses carried between reads (:mod:`estimators.caches.monitor`); not with
        #: active sampling (its streams record their design summaries as they are built)
        self.cache = cache if visits is None else None
        self.design = _live_design(mode, design, label_range)
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
        self._e_by_thread: dict[int, float] = {}
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
        self._pair_cs: dict[tuple[int, int], csq.ConfidenceSequence] = {}
        self._init_labels(item, system, label, position, inclusion_prob, documents)

    # ---------------------------------------------------------------- report
    def report(self) -> MonitorReport:
        if self.documents is not None:
            return document_report(self)
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
        self._read_keys(streams)
        for s in range(self.k):
            res, pool = self._system_row(s, streams[s], a_sys, method)
            cover = self._coverage(pool)
            sys_cover.append(cover)
            notes.extend(self._coverage_notes(self.names[s], cover))
            sys_results.append(res)
        fit_notes = self._plan_fit_notes()
        notes.extend(fit_notes)
        notes.extend(self._disjoint_pair_notes())
        if self.cache is not None:  # a cold read: the pairs' rows on all cores first
            self.cache.warm(
                [("pair", a, b) for a, b in plist],
                lambda pair: self._pair_row(pair[1], pair[2], streams, a_pair),
            )
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

    @property
    def _last_e(self) -> float:
        """The e-value the last stream analysed on this thread left (pairs may be analysed
        on several threads: :meth:`estimators.caches.monitor.MonitorCache.warm`)."""
        return self._e_by_thread.get(threading.get_ident(), 1.0)

    @_last_e.setter
    def _last_e(self, value: float) -> None:
        self._e_by_thread[threading.get_ident()] = value

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

    def _pair_status(
        self, ab, res, p, p_holm, sign, read_at, inputs, cover, a_pair, e_value
    ) -> PairStatus:  # type: ignore[no-untyped-def]
        """One pair's status: outcome, the interval shown, and the labels still needed
        (``sign``: the side of the interval the pair is rejected at, :meth:`_sign`)."""
        a, b = ab
        sigma, t_star, pool_size = inputs
        res = res.with_(ci=verdicts.compatible_interval(res.ci, sign, res.estimate))
        verdict, out = self._verdict(res, sign, t_star, pool_size, exact=p == 0.0)
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

    def _verdict(
        self, res: EstimateResult, sign: int, n_max: int, pool_size: int, *, exact: bool
    ) -> tuple[Verdict, Outcome]:
        """(the verdict in words, the outcome) from the side the pair is rejected on and the
        shown interval (:func:`estimators.base.verdicts.read_outcome`)."""
        lo, hi = res.ci
        census = self.finite_pool and lo == hi
        if res.n_human < MIN_LABELS_FOR_VERDICT and not (exact or census):
            return "not yet", Outcome.UNDECIDED
        out = verdicts.read_outcome(
            sign, res.estimate, res.ci, self.margin, self.higher_is_better
        )
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


def _live_design(mode: str, design: str | None, label_range) -> LiveDesign:  # type: ignore[no-untyped-def]
    """The live design in force: ``design``, else the mode's default (asympcs for
    "asymptotic", eb_strict for "strict"); bounded designs need the known label range."""
    if mode not in ("asymptotic", "strict"):
        raise ValueError(f"mode must be 'asymptotic' or 'strict', not {mode!r}")
    if design is None:
        design = LiveDesign.ASYMPCS if mode == "asymptotic" else LiveDesign.EB_STRICT
    if design not in tuple(LiveDesign):
        raise ValueError(f"design must be one of {', '.join(LiveDesign)}, not {design!r}")
    live = LiveDesign(design)
    if live.bounded and label_range is None:
        raise ValueError(
            f"the {live} design (strict mode) needs the known label_range: use "
            "binary labels or 1 − HTER, or the asympcs / gsd_obf design"
        )
    return live
