"""Live campaign monitor: anytime-valid intervals and verdicts after every label.

Built from plain arrays — per system the metric scores of every output
in the fixed pool, and the human labels in the order the annotation queue assigned them —
the monitor returns for each system its confidence sequence and rank set, and for each pair
its confidence sequence, anytime p-value (Holm-adjusted across pairs), verdict and a forecast
of the labels still needed.

Validity rests on the random order (docs/statistics-notes.md §8): the items that get labels must
be drawn at random by the queue, which records each assignment's position and inclusion
probability. The monitor refuses labels without them, with positions out of order, or with
unequal inclusion probabilities within a system — unless the queue's active-sampling visits
are given (``visits``): then every stream is the weighted visit stream of
:mod:`estimators.sampling.active`, whose increments stay a martingale difference
sequence because each π and ŷ was fixed before its draw.

Paired differences use the items labelled for both systems, in the order the pair was
completed (the later of the two positions).

Gaps degrade only the items they touch. A system without an output for some items is judged
on the items it answered, and a pair on the items both answered (its fixed pool: the queue's
random item order restricted to those items is still uniformly random). A pool item whose
chosen metric score is missing keeps its label but gets no control (see
:func:`estimators.sequences.sequential.pool_controls`); every status carries a
:class:`PoolCoverage` with these counts. The pool sizes — and so t* and the p-value path —
come from the known item set (``present``), never from the labels seen so far, so the
reported anytime p-values (running minima along a path that only grows) never increase as
labels arrive in queue order. A label submitted after labels at later positions (annotators
working in parallel) is placed at its own position — the random order validity rests on — so
the path can change from that point, so the caller holds back labels beyond the lowest
still-open position (:attr:`estimators.data.campaign.CampaignData.open_from`, applied in
:func:`estimators.report.campaign_report.campaign_report`).

Per-system intervals are Bonferroni-simultaneous over the k systems, pair intervals over the
k(k−1)/2 pairs; pair verdicts come from Holm on the anytime p-values (or e-BH, §4), read at
the level they were tuned for (§1), which is valid at whatever moment the dashboard is read.

The monitor holds its parts: the settings (:mod:`estimators.live.settings`), the fixed pool
and the validated labels (:mod:`estimators.live.pools`), the analysis of one stream
(:mod:`estimators.live.analysis`, with the carried betting states of
:mod:`estimators.live.carry`), and for each read the pass over systems and pairs
(:mod:`estimators.live.streams`) or, with documents as the unit,
:func:`estimators.live.document_report.document_report`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from estimators.base.multiple import bonferroni_alpha, pairs, rank_sets
from estimators.base.result import EstimateResult
from estimators.base.verdicts import ErrorRate
from estimators.caches.monitor import MonitorCache
from estimators.live.analysis import MonitorAnalysis
from estimators.live.carry import MonitorCarry
from estimators.live.document_report import document_report
from estimators.live.pools import CampaignPool, Labels, Stream
from estimators.live.settings import MonitorSettings, monitor_settings
from estimators.live.status import MonitorReport, PoolCoverage, SystemStatus
from estimators.live.streams import StreamsPass
from estimators.sampling import active
from estimators.sequences import confidence_sequences as csq
from estimators.sequences import sequential as seq


class CampaignMonitor:
    """Anytime-valid monitor of one campaign (module docstring).

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
        (:mod:`estimators.sequences.betting_control`; docs/statistics-notes.md §14 for why
        it is not the default).
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
    visits: active sampling (:class:`estimators.sampling.active.Visits`, the queue's draw
        rounds in order): the streams become the weighted visit increments of
        :func:`estimators.sampling.active.visit_stream` (recorded π, predictable binned ŷ)
        instead of the uniform-draw control-variate increments; unequal π are then accepted, mixed
        histories (π = 1 visits first) included. Asymptotic mode only; ``finite_pool`` is
        not applied to them.
    finite_pool: estimand = the mean of the labels the pool's outputs get, one label each,
        taken without replacement (finite-population Des Raj increments: exact, and the
        interval shrinks to a point when the whole pool is labelled). Default ``False``:
        estimand = μ_s, the expected judgment over annotators, with the with-replacement
        increments (conservative under without-replacement order).
    documents: (N,) document index of every item, given when the queue draws whole
        documents (judged in order): then every interval, p-value, verdict and forecast
        counts completed documents (:mod:`estimators.live.document_report`). Not with
        ``visits``.
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
        self._pool = CampaignPool(pool_metrics, present, names, pair_controls)
        self.settings: MonitorSettings = monitor_settings(
            alpha=alpha, mode=mode, design=design, t_star=t_star, margin=equivalence_margin,
            error_rate=error_rate, higher_is_better=higher_is_better,
            pair_controls=pair_controls, label_range=label_range, finite_pool=finite_pool,
            uniform_draws=visits is None, systems=self._pool.k,
        )  # fmt: skip
        self._labels = Labels(
            self._pool, item, system, label, position, inclusion_prob,
            label_range=label_range, uniform_draws=visits is None,
        )  # fmt: skip
        self.documents = _documents(documents, self._pool.n_items, visits)
        #: analyses carried between reads (:mod:`estimators.caches.monitor`); not with
        #: active sampling (its streams record their design summaries as they are built)
        self.cache = cache if visits is None else None
        self._analysis = MonitorAnalysis(
            self.settings, self._pool, self._labels, visits, self._carry(self.cache)
        )
        #: pair → its confidence sequence, filled by :meth:`report` and reused by
        #: :meth:`pair_sequence` (the width chart), so a refresh computes each pair once
        self._pair_cs: dict[tuple[int, int], csq.ConfidenceSequence] = {}

    def _carry(self, cache: MonitorCache | None) -> MonitorCarry | None:
        """The betting design's paths are carried between reads in a campaign's cache
        (uniform draws only: ``cache`` is None under active sampling)."""
        if cache is None or not self.settings.design.bets:
            return None
        return MonitorCarry(self.settings, cache)

    @property
    def k(self) -> int:
        """The number of systems."""
        return self._pool.k

    @property
    def names(self) -> list[str]:
        """The system names, in system-index order."""
        return self._pool.names

    @property
    def designs(self) -> dict[str, active.DesignSummary]:
        """Active sampling: stream name → the design's effective sample size and saving."""
        return self._analysis.designs

    # ---------------------------------------------------------------- report
    def report(self) -> MonitorReport:
        """Every system's and pair's status on the labels given (module docstring)."""
        streams, repeats = self._streams()
        if self.documents is not None:
            read = document_report(self.settings, self._pool, streams, self.documents)
            self._pair_cs.update(read.sequences)
            return read.report
        settings, pool = self.settings, self._pool
        notes = [
            f"{pool.names[s]}: {n} repeat label(s) of an output ignored"
            for s, n in enumerate(repeats)
            if n
        ]
        plist = pairs(pool.k)
        a_sys = bonferroni_alpha(settings.alpha, pool.k)
        a_pair = bonferroni_alpha(settings.alpha, len(plist)) if plist else settings.alpha
        read = StreamsPass(settings, pool, self._analysis, self.cache, streams)
        sys_results, sys_cover = self._system_rows(read, a_sys, notes)
        fit_notes = self._plan_fit_notes()
        notes.extend(fit_notes)
        notes.extend(pool.disjoint_pair_notes())
        if self.cache is not None:  # a cold read: the pairs' rows on all cores first
            self.cache.warm(
                [("pair", a, b) for a, b in plist],
                lambda pair: read.pair_row(pair[1], pair[2], a_pair),
            )
        pair_status = read.pair_statuses(plist, a_pair, notes)
        self._pair_cs.update(read.sequences)
        sig = np.array([p.decided for p in pair_status], dtype=bool).reshape(len(plist))
        est = np.array([p.result.estimate for p in pair_status], dtype=float).reshape(len(plist))
        if not settings.higher_is_better:
            est = -est
        ranks = rank_sets(pool.k, sig, np.nan_to_num(est))
        systems = [
            SystemStatus(name=pool.names[s], result=sys_results[s], rank=ranks[s],
                         coverage=sys_cover[s])
            for s in range(pool.k)
        ]  # fmt: skip
        return MonitorReport(
            systems=systems, pairs=pair_status, alpha=settings.alpha, mode=settings.mode,
            notes=notes, design=settings.design,
            planned_labels=None if settings.t_star is None else int(settings.t_star),
            finite_pool=settings.finite_pool, designs=dict(self.designs),
            error_rate=settings.error_rate_in_force(), margin=settings.margin,
            plan_note=fit_notes[0] if fit_notes else None,
        )  # fmt: skip

    def _streams(self) -> tuple[list[Stream], list[int]]:
        """Every system's label stream and its count of repeat labels left out."""
        pairs_of = [self._labels.stream(s) for s in range(self._pool.k)]
        return [st for st, _ in pairs_of], [n for _, n in pairs_of]

    def _system_rows(
        self, read: StreamsPass, a_sys: float, notes: list[str]
    ) -> tuple[list[EstimateResult], list[PoolCoverage]]:
        """Every system's result and pool coverage; their coverage notes go to ``notes``."""
        results, covers = [], []
        method = str(self.settings.design)
        for s in range(self._pool.k):
            res, system_pool = read.system_row(s, a_sys, method)
            cover = self._pool.coverage(system_pool)
            covers.append(cover)
            notes.extend(self._pool.coverage_notes(self._pool.names[s], cover))
            results.append(res)
        return results, covers

    def _plan_fit_notes(self) -> list[str]:
        """Say so when the plan's labels per system exceed the pool (the sequences are then
        tuned to the pool: the plan as given cannot be followed)."""
        t_star = self.settings.t_star
        if t_star is None:
            return []
        biggest = self._pool.largest_system_pool()
        if t_star <= biggest:
            return []
        return [
            f"The plan asks for {int(t_star):,} labels per system, more than the "
            f"{biggest:,} items in the pool: the live verdicts are tuned to the pool instead, "
            "so pairs closer than the planned difference may stay undecided until every item "
            "is labelled (see the Planner for the smallest difference this pool settles)."
        ]

    def pair_sequence(self, a: int, b: int, *, whole: bool = True) -> csq.ConfidenceSequence | None:
        """The confidence sequence of Δ = μ_a − μ_b along the pair's whole label path.

        Entry t − 1 is the interval after the pair's t-th completed item, at the same
        Bonferroni level, mode, priors and pool option that :meth:`report` uses, cut by the
        known part of the pair's completed items (finite pool); the last entry contains the
        interval the report shows (which also uses items labelled for one system only, and
        the verdict's bound at 0). ``None`` below the burn-in. ``whole`` False: only the
        last entry is read, so a state resumed from storage with only its path's end
        (the entries before NaN) serves as it is instead of the pair analysed again from
        its first label.
        """
        cs = self._pair_cs.get((a, b))
        if whole and cs is not None and np.isnan(cs.center[0]):
            cs = None
        if cs is None and self.documents is not None:
            return None  # documents as the unit: no completed document, no sequence yet
        if cs is None:
            cs = self._analysis.pair_sequence(a, b)
        return cs if cs is not None and cs.lower.shape[-1] >= seq.BURN_IN else None


def _documents(
    documents: np.ndarray | None, n_items: int, visits: active.Visits | None
) -> np.ndarray | None:
    """The document index of every item, when documents are the unit (not with active
    sampling: it draws outputs, not documents)."""
    if documents is None:
        return None
    out = np.asarray(documents, dtype=int)
    if out.shape != (n_items,):
        raise ValueError(f"documents has shape {out.shape}, expected (N,)")
    if visits is not None:
        raise ValueError("active sampling draws outputs, not documents: no documents")
    return out
