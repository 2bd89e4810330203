"""The live monitor's per-read pass over systems and pairs, with the campaign's cache.

A system's analysis depends on its own label stream and the monitor's settings; a pair's on
the two systems' streams and the settings (its stream, pool, controls and known bounds are
functions of them). So a read digests the settings once and each system's stream once, and
a pair whose two systems' streams are unchanged reuses its row without building its stream
(:mod:`estimators.caches.monitor`); a pair a new label touched is analysed again — under
the betting design by extending its carried state (:mod:`estimators.live.carry`). Holm or
e-BH over all pairs (docs/statistics-notes.md §4), the sides (§1), forecasts and rank sets
are recomputed at every read (they depend on every pair).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from estimators.base import verdicts
from estimators.base.multiple import holm
from estimators.base.result import MIN_LABELS_FOR_VERDICT, EstimateResult
from estimators.base.verdicts import ErrorRate, Outcome
from estimators.caches.monitor import MonitorCache, digest
from estimators.live.analysis import KNOWN_TOL, MonitorAnalysis
from estimators.live.forecast import MonitorForecast
from estimators.live.pools import CampaignPool, Known, PairStream, Pool, Stream, known_bounds
from estimators.live.settings import MonitorSettings
from estimators.live.status import PairStatus, PoolCoverage, Verdict
from estimators.sequences import confidence_sequences as csq
from estimators.sequences.designs import LiveDesign


class PairRow(NamedTuple):
    """A pair's analysis at this read, as the cache keeps it: the result, last p-value,
    σ̂, t*, e-value, coverage, known bounds, pool size, sequence and the row's key."""

    result: EstimateResult
    p_value: float
    sigma: float
    t_star: int
    e_value: float
    coverage: PoolCoverage
    known: Known
    pool_size: int
    sequence: csq.ConfidenceSequence | None
    key: tuple  # what the row depends on (the settings' and both streams' digests, …)


class StreamsPass:
    """One read's pass over the systems and pairs of the label ``streams`` (one per system,
    in arrival order), reusing from ``cache`` what the streams and settings leave
    unchanged. ``sequences`` collects each pair's confidence sequence as it is analysed."""

    def __init__(
        self, settings: MonitorSettings, pool: CampaignPool, analysis: MonitorAnalysis,
        cache: MonitorCache | None, streams: Sequence[Stream],
    ) -> None:  # fmt: skip
        self.settings = settings
        self.pool = pool
        self.analysis = analysis
        self.cache = cache
        self.streams = list(streams)
        self.forecast = MonitorForecast(settings)
        self.sequences: dict[tuple[int, int], csq.ConfidenceSequence] = {}
        self._settings_key, self._fps = self._read_keys()

    def _read_keys(self) -> tuple[bytes, list[bytes]]:
        """The digest of the settings and of each system's stream, for this read."""
        if self.cache is None:
            return b"", [b""] * self.pool.k
        s, pool = self.settings, self.pool
        settings_key = digest(
            s.alpha, str(s.design), s.mode, s.t_star, s.finite_pool,
            str(s.error_rate_in_force()), s.label_range, s.pair_controls, pool.k,
            s.margin, s.higher_is_better, tuple(pool.names),
            pool.present, *[m if m is not None else "none" for m in pool.metrics],
        )  # fmt: skip
        return settings_key, [self.cache.fingerprint(("system", i), st)
                              for i, st in enumerate(self.streams)]  # fmt: skip

    def system_row(self, s: int, a_sys: float, method: str) -> tuple[EstimateResult, Pool]:
        """System s's result and pool (the result reused while its stream and the settings
        are unchanged)."""
        items, y, _ = self.streams[s]
        pool = self.pool.system_pool(s)
        g = None if pool.controls is None else pool.controls.values[items]
        n_labels, kind = None, f"{method}+cv"
        known = known_bounds(self.settings, ((items, y),), pool)
        if not self.settings.uniform_draws:
            y, g, pool, n_labels = self.analysis.weighted((s,), pool)
            kind = f"{method}+active"
        cache = self.cache
        key = () if cache is None else (self._settings_key, self._fps[s], a_sys, kind)
        res = None if cache is None else cache.get(("system", s), key)
        if res is None:
            res = self.analysis.result(
                y, g, pool, a_sys, pair=False, method=kind, n_labels=n_labels, known=known,
                stream=None if cache is None else ("system", s),
            ).result  # fmt: skip
            if cache is not None:
                cache.put(("system", s), key, res)
        return res, pool

    def _pair_stream(self, a: int, b: int) -> PairStream:
        return self.pool.pair_stream(self.streams[a], self.streams[b], a, b)

    def pair_row(self, a: int, b: int, a_pair: float) -> PairRow:
        """The pair (a, b)'s row, reused while both systems' streams and the settings are
        unchanged."""
        active = not self.settings.uniform_draws
        kind = f"{self.settings.design}+{'active' if active else 'cv'} paired"
        key, cache = (), self.cache
        if cache is not None:
            # the pooled control slopes (asympcs_mix) also read the other systems' labels
            slopes = self.analysis.pooled_key(self.streams[a], self.streams[b])
            # a tuple, not a digest of it: 1,770 pairs' keys are built at every read
            key = (self._settings_key, self._fps[a], self._fps[b], a_pair, kind, slopes)
            hit = cache.get(("pair", a, b), key)
            if hit is not None:
                return hit
        d, g, pool = self._pair_stream(a, b)
        lam = None if active else self.analysis.pair_slopes(self.streams[a], self.streams[b], g)
        known = known_bounds(self.settings, (self.streams[a][:2], self.streams[b][:2]), pool)
        n_labels = None
        if active:
            d, g, pool, n_labels = self.analysis.weighted((a, b), pool)
        out = self.analysis.result(
            d, g, pool, a_pair, pair=True, method=kind, theta0=0.0, n_labels=n_labels,
            known=known, stream=None if cache is None else ("pair", a, b), lam=lam,
        )  # fmt: skip
        e_last = math.inf if out.p_value == 0.0 else out.e_value
        # a state resumed from storage may keep only the path's end (its head NaN): kept
        # all the same, for what reads the end only; the width chart draws the pair from
        # its whole path (CampaignMonitor.pair_sequence)
        row = PairRow(out.result, out.p_value, out.sigma, out.t_star, e_last,
                      self.pool.coverage(pool), known, pool.size, out.sequence,
                      key)  # fmt: skip
        if cache is not None:
            cache.put(("pair", a, b), key, row)
        return row

    def pair_statuses(
        self, plist: Sequence[tuple[int, int]], a_pair: float, notes: list[str]
    ) -> list[PairStatus]:
        """Analyse every pair, settle them together (Holm or e-BH), and word the verdicts."""
        settings = self.settings
        rate = settings.error_rate_in_force()
        rows = [self.pair_row(a, b, a_pair) for a, b in plist]
        for ab, row in zip(plist, rows, strict=True):
            if row.sequence is not None:
                self.sequences[ab] = row.sequence
        if settings.error_rate == ErrorRate.FDR and rate != ErrorRate.FDR:
            notes.append(
                f"e-BH needs the betting design's e-values; the {settings.design} design reads "
                "its verdicts with Holm (family-wise error rate)."
            )
        pvals = np.array([r.p_value for r in rows], dtype=float)
        evals = np.array([r.e_value for r in rows], dtype=float)
        reject, read_at = verdicts.settle(pvals, evals, settings.alpha, rate)
        adj = holm(pvals, settings.alpha).adjusted if plist else np.array([])
        level = verdicts.read_level(reject, settings.alpha, rate)
        out = []
        for i, (ab, row) in enumerate(zip(plist, rows, strict=True)):
            sign = self._sign(ab, row, bool(reject[i]), level)
            # the status (verdict, forecasts) is a function of the row and of where Holm or
            # e-BH places the pair: reused while both are unchanged
            key = (row.key, float(adj[i]), sign, float(read_at[i]))
            status = None if self.cache is None else self.cache.get(("status", *ab), key)
            if status is None:
                status = self._pair_status(ab, row, float(adj[i]), sign, float(read_at[i]), a_pair)
                if self.cache is not None:
                    self.cache.put(("status", *ab), key, status)
            out.append(status)
        return out

    def _sign(self, ab: tuple[int, int], row: PairRow, rejected: bool, level: float) -> int:
        """The side a rejected pair is read on (0: none, or not rejected): its interval at
        the level it is rejected at (:func:`estimators.base.verdicts.side`). The Bonferroni
        interval is wider, so when it already lies on one side that is the side; otherwise
        the pair's interval at the read level is computed (its stream built for it)."""
        res, p = row.result, row.p_value
        if not rejected or not (res.n_human >= MIN_LABELS_FOR_VERDICT or p == 0.0):
            return 0
        bonf = verdicts.intersect(res.diagnostics.get("interval", res.ci), row.known)
        sign = verdicts.side(bonf)
        settings = self.settings
        if sign or p == 0.0 or not level > settings.alpha / settings.pairs_adjusted:
            return sign
        key = (row.key, level)
        ci = None if self.cache is None else self.cache.get(("read", *ab), key)
        if ci is None:
            stream, lam = self._pair_stream(*ab), None
            if not settings.uniform_draws:
                stream = PairStream(*self.analysis.weighted(ab, stream.pool)[:3])
            else:
                lam = self.analysis.pair_slopes(self.streams[ab[0]], self.streams[ab[1]],
                                                stream.g)  # fmt: skip
            name = None if self.cache is None or not settings.uniform_draws else ("pair", *ab)
            ci = self.analysis.read_interval(stream, row.known, level, lam, name)
            if self.cache is not None:
                self.cache.put(("read", *ab), key, ci)
        return verdicts.side(ci)

    def _pair_status(
        self, ab: tuple[int, int], row: PairRow, p_holm: float, sign: int, read_at: float,
        a_pair: float,
    ) -> PairStatus:  # fmt: skip
        """One pair's status: outcome, the interval shown, and the labels still needed
        (``sign``: the side of the interval the pair is rejected at, :meth:`_sign`)."""
        a, b = ab
        p, sigma, t_star, pool_size = row.p_value, row.sigma, row.t_star, row.pool_size
        res = row.result
        res = res.with_(ci=verdicts.compatible_interval(res.ci, sign, res.estimate))
        verdict, out = self._verdict(res, sign, t_star, pool_size, exact=p == 0.0)
        decided = out != Outcome.UNDECIDED
        # active sampling: the forecasts run in visits and are reported in labels
        visits = res.diagnostics.get("visits") or res.n_human
        per_visit = res.n_human / visits if visits else 1.0
        in_visits = res.with_(n_human=visits) if per_visit != 1.0 else res
        forecast = self.forecast
        needed, basis = (
            (0, "decided") if decided
            else forecast.labels_needed(in_visits, sigma, t_star, pool_size, read_at, a_pair)
        )  # fmt: skip
        planner = (
            0 if decided else forecast.planner_forecast(in_visits, sigma, 1 - read_at, pool_size)
        )
        if per_visit != 1.0:
            needed, planner = (
                None if x is None else math.ceil(x * per_visit) for x in (needed, planner)
            )
        names, settings = self.pool.names, self.settings
        return PairStatus(
            a=names[a], b=names[b], result=res, p_value=float(p), p_holm=p_holm,
            verdict=verdict, labels_needed=needed, labels_needed_planner=planner,
            forecast_method=str(settings.design), coverage=row.coverage, needed_basis=basis,
            outcome=out, margin=settings.margin, e_value=row.e_value, read_level=read_at,
        )  # fmt: skip

    def _verdict(
        self, res: EstimateResult, sign: int, n_max: int, pool_size: int, *, exact: bool
    ) -> tuple[Verdict, Outcome]:
        """(the verdict in words, the outcome) from the side the pair is rejected on and the
        shown interval (:func:`estimators.base.verdicts.read_outcome`)."""
        s = self.settings
        lo, hi = res.ci
        census = s.finite_pool and lo == hi
        if res.n_human < MIN_LABELS_FOR_VERDICT and not (exact or census):
            return "not yet", Outcome.UNDECIDED
        out = verdicts.read_outcome(sign, res.estimate, res.ci, s.margin, s.higher_is_better)
        if out in (Outcome.A_BETTER, Outcome.B_BETTER):
            return str(out), out
        if out == Outcome.EQUIVALENT:
            if census and abs(lo) <= KNOWN_TOL:
                return "exactly equal", out
            return f"no difference larger than {s.margin:g}", out
        if res.n_human >= pool_size:
            return (
                f"no significant difference at α = {s.alpha:g} with all {pool_size:,} items",
                out,
            )
        if s.design == LiveDesign.GSD_OBF and res.n_human >= n_max:
            return (
                f"no significant difference at α = {s.alpha:g} within the planned "
                f"{n_max:,} labels (the design's α is spent)",
                out,
            )
        return "not yet", out
