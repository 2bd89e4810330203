"""The live monitor's analysis of one system or pair: increments, confidence sequence,
anytime p-value, e-value and the interval and estimate shown.

Control-variate increments (:func:`estimators.sequences.sequential.cv_increments`; Des Raj
without replacement on a finite pool) or, with active sampling, the weighted visit
increments (:func:`estimators.sampling.active.visit_stream`); the path of the live design in
force (:func:`estimators.sequences.designs.design_paths`: AsympCS, Waudby-Smith et al. 2024;
empirical Bernstein; betting, docs/statistics-notes.md §5; O'Brien–Fleming group-sequential),
tuned at the level the verdict is read at (§1); the interval cut by the known part of the
pool (:mod:`estimators.base.verdicts`, §2); the shown estimate is the regression estimator
on a finite pool (Cochran 1977, §7.1; §2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from estimators.base import verdicts
from estimators.base.multiple import bonferroni_alpha, pairs
from estimators.base.result import MIN_LABELS_FOR_VERDICT, EstimateResult
from estimators.base.verdicts import ErrorRate
from estimators.live.carry import MonitorCarry, Paths
from estimators.live.pooled import PooledControl, pooled_control
from estimators.live.pools import CampaignPool, Known, Labels, PairStream, Pool, Stream
from estimators.live.settings import MonitorSettings
from estimators.sampling import active
from estimators.sequences import betting, betting_control, mixture_control
from estimators.sequences import confidence_sequences as csq
from estimators.sequences import sequential as seq
from estimators.sequences.designs import LiveDesign, design_paths

#: Rounding slack of the known part of the pool: sums of labels that are equal in exact
#: arithmetic can differ by a few ulps, so a Δ within 1e-12 of 0 counts as 0.
KNOWN_TOL = 1e-12


class Analysed(NamedTuple):
    """A stream's paths under the live design (the sequence cut by the known part of the
    pool) and the planned size t* they were tuned to."""

    paths: Paths
    t_star: int


@dataclass(frozen=True)
class StreamResult:
    """A system's or pair's analysis at this read: the shown result, the last anytime
    p-value, σ̂ of the increments, t*, the confidence sequence (None without labels) and
    the e-value K_t(θ0) (1 where the design has none)."""

    result: EstimateResult
    p_value: float
    sigma: float
    t_star: int
    sequence: csq.ConfidenceSequence | None
    e_value: float = 1.0


@dataclass(frozen=True)
class _Design:
    """One stream's design inputs: the increments' scale, the null, t*, the finite pool's
    size (None: with replacement), Holm's m and the level of the sequence read."""

    alpha_cs: float
    pair: bool
    theta0: float | None
    t_star: int
    pool_size: int | None
    m: int
    level: float | None
    #: the fixed pool's size: the most labels the stream can get (asympcs_mix's largest size)
    t_max: int | None = None


class MonitorAnalysis:
    """Each system's or pair's increments, sequence, p-value and shown result under the
    live design in force. ``carry``: the campaign's carried betting states (None: every
    stream is analysed from its first label); ``designs`` collects, under active sampling,
    each stream's design summary as it is built."""

    def __init__(
        self, settings: MonitorSettings, pool: CampaignPool, labels: Labels,
        visits: active.Visits | None, carry: MonitorCarry | None,
    ) -> None:  # fmt: skip
        self.settings = settings
        self.pool = pool
        self.labels = labels
        self.visits = visits
        self.carry = carry
        #: stream name → the active design's effective sample size and measured saving
        self.designs: dict[str, active.DesignSummary] = {}
        self._pooled: PooledControl | bool | None = None  # False: none applies

    def pair_slopes(
        self, stream_a: Stream, stream_b: Stream, g: np.ndarray | None
    ) -> np.ndarray | None:
        """A pair's pooled control slopes (:mod:`estimators.live.pooled`; None: none)."""
        if self._pooled is None:
            self._pooled = pooled_control(self.settings, self.pool, self.labels, self.visits)
        return None if self._pooled is False else self._pooled.pair_slopes(stream_a, stream_b, g)

    def pooled_key(self, stream_a: Stream, stream_b: Stream) -> bytes:
        """What a pair's pooled slopes depend on besides its own streams (b"" if none)."""
        self.pair_slopes(stream_a, stream_b, None)
        if self._pooled is False or not (stream_a.pos.size and stream_b.pos.size):
            return b""
        return self._pooled.key_before(max(stream_a.pos[-1], stream_b.pos[-1]))

    def analyse(
        self, y: np.ndarray, g: np.ndarray | None, pool: Pool, alpha_cs: float, *, pair: bool,
        theta0: float | None, level: float | None = None, stream: Any = None,
        lam: np.ndarray | None = None,
    ) -> Analysed:  # fmt: skip
        """Increments, CS at ``alpha_cs``, the anytime p-value vs ``theta0`` and the betting
        e-value, all tuned at ``alpha_cs`` (:meth:`MonitorSettings.tuning`). ``level``: the
        CS at that level instead, same tuning (the interval a rejected pair is read at,
        :func:`estimators.base.verdicts.read_level`). ``lam``: the pair's pooled control
        slopes (:meth:`pair_slopes`; ``asympcs_mix`` only).

        t* and the finite-pool N come from the size of the fixed pool and the plan, never
        from the labels seen so far: the path up to t then depends on the first t labels
        only, so a later read extends it. ``stream`` (a name in the campaign's cache): the
        betting design's paths from the state carried between reads
        (:mod:`estimators.live.carry`) — the p-value path is then its last entry only.
        """
        settings = self.settings
        t_star = settings.planned_size(pool.size)
        pool_size = pool.size if settings.finite_increments else None
        if stream is not None and self.carry is not None:
            out = self.carry.paths(y, g, pool, alpha_cs, pair=pair, theta0=theta0,
                                   t_star=t_star, pool_size=pool_size, stream=stream)  # fmt: skip
        else:
            design = _Design(alpha_cs, pair, theta0, t_star, pool_size,
                             settings.pairs_adjusted, level, pool.size)  # fmt: skip
            if settings.design.bounded:
                out = self._bounded_paths(y, g, pool, design)
            else:
                out = self._clt_paths(y, g, pool, design, lam)
        cut = self._known_path(settings.clip(out.cs, pair), y, pool, pair)
        return Analysed(out._replace(cs=cut), t_star)

    def _clt_paths(
        self, y: np.ndarray, g: np.ndarray | None, pool: Pool, d: _Design,
        lam: np.ndarray | None = None,
    ) -> Paths:  # fmt: skip
        """Unbounded designs: control-variate increments with replacement (or Des Raj,
        finite pool) and the design's CS and p-value path, with a variance prior; with
        ``lam`` the increments take those (pooled, predictable) slopes
        (:func:`estimators.sequences.mixture_control.increments`)."""
        settings = self.settings
        gbar = None if pool.controls is None else pool.controls.mean
        if lam is not None and g is not None and gbar is not None:
            inc = mixture_control.increments(y, g, gbar, lam, d.pool_size)
        else:
            inc = seq.cv_increments(y, g, gbar, pool_size=d.pool_size)
        # 10 pseudo-observations of the largest variance the labels allow: keeps the CLT
        # sequence valid at extreme adequacy rates (see csq.asymptotic_cs)
        span = settings.label_range
        prior = 0.0 if span is None else (span[1] - span[0]) ** 2 / 4
        prior = 4 * prior if d.pair else prior
        if self.visits is not None and len(self.visits):
            # a visit carries mean(π) labels: its increments' variance is ≈ 1/mean(π)
            # times a label's, so the prior is scaled alike
            prior /= max(float(np.mean(self.visits.pi)), 1e-3)
        cs, p = design_paths(
            settings.design, inc.z, level=d.level or d.alpha_cs,
            alpha=settings.tuning(d.alpha_cs), m=d.m, theta0=d.theta0, t_star=d.t_star,
            var_prior=prior, t_max=d.t_max,
        )  # fmt: skip
        return Paths(inc, cs, p)

    def _bounded_paths(self, y: np.ndarray, g: np.ndarray | None, pool: Pool, d: _Design) -> Paths:
        """Bounded designs (strict, betting): increments with known bounds, clipped
        control coefficients, the design's CS and p-value path, and the betting design's
        e-value K_t(θ0)."""
        settings = self.settings
        ctrl = pool.controls
        yr = settings.estimand_range(d.pair)
        if settings.design == LiveDesign.BETTING_CV and g is not None and ctrl is not None:
            return self._controlled_paths(y, g, ctrl.values[pool.mask], yr, d)
        wor = None  # the betting design bets on the labels themselves, without replacement
        if settings.design.bets:
            inc, wor = seq.cv_increments(y, None, label_range=yr), d.pool_size
        elif g is None or ctrl is None:
            inc = seq.cv_increments(y, None, label_range=yr, pool_size=d.pool_size)
        else:
            lo, hi = settings.estimand_range(pair=False)  # one label's range
            inc = _clipped_cv_increments(y, g, ctrl, pool, (yr, hi - lo), d)
        # e-BH reads the current capital K_t(0): the pair's interval is then the current
        # capital's set, so an interval that excludes 0 is an e-value ≥ m/α (a verdict)
        ebh = d.pair and settings.error_rate_in_force() == ErrorRate.FDR
        cs, p = design_paths(
            settings.design, inc.z, level=d.level or d.alpha_cs,
            alpha=settings.tuning(d.alpha_cs), m=d.m, theta0=d.theta0, t_star=d.t_star,
            bounds=inc.bounds, running=not ebh, pool_size=wor,
        )  # fmt: skip
        if d.theta0 is None or not settings.design.bets or d.level is not None:
            return Paths(inc, cs, p)
        e = betting.betting_evalue(
            inc.z, d.theta0, bounds=inc.bounds, alpha_tuning=d.alpha_cs, t_star=d.t_star,
            pool_size=wor,
        )  # fmt: skip
        return Paths(inc, cs, p, float(e[-1]) if inc.z.shape[-1] >= seq.BURN_IN else 1.0)

    def _controlled_paths(
        self, y: np.ndarray, g: np.ndarray, g_all: np.ndarray, yr: tuple[float, float],
        d: _Design,
    ) -> Paths:  # fmt: skip
        """The ``betting_cv`` design with a control: the capital of
        :mod:`estimators.sequences.betting_control` (half the label capital, half bets on the
        labels less the predictable control term; docs/statistics-notes.md §14), the
        stream's first control column, its CS, the p-value path and the e-value K_t(θ0)."""
        ebh = d.pair and self.settings.error_rate_in_force() == ErrorRate.FDR
        inc = seq.cv_increments(y, None, label_range=yr)
        gi, gp = np.asarray(g, dtype=float).reshape(len(y), -1)[:, 0], g_all[:, 0]
        kw: dict[str, Any] = dict(bounds=inc.bounds, t_star=d.t_star, pool_size=d.pool_size)
        cs = betting_control.controlled_cs(
            inc.z, gi, gp, d.level or d.alpha_cs, alpha_tuning=d.alpha_cs,
            burn_in=seq.BURN_IN, running=not ebh, **kw,
        )  # fmt: skip
        if d.theta0 is None:
            return Paths(inc, cs, None)
        p = betting_control.pvalue_path(
            inc.z, gi, gp, d.theta0, alpha_tuning=d.alpha_cs, burn_in=seq.BURN_IN, **kw
        )
        if d.level is not None:
            return Paths(inc, cs, p)
        e = betting_control.evalue(inc.z, gi, gp, d.theta0, alpha_tuning=d.alpha_cs, **kw)
        return Paths(inc, cs, p, float(e[-1]) if inc.z.shape[-1] >= seq.BURN_IN else 1.0)

    def _known_path(
        self, cs: csq.ConfidenceSequence, y: np.ndarray, pool: Pool, pair: bool
    ) -> csq.ConfidenceSequence:
        """The sequence cut by the known part of the pool along the path (finite pool,
        uniform draws, known label range): after t labels of sum S_t, the pool mean lies in
        [(S_t + (N − t)·lo)/N, (S_t + (N − t)·hi)/N] for sure, so the cut keeps coverage and
        the path ends at the exact mean at the census (:mod:`estimators.base.verdicts`)."""
        if not self.settings.known_applies:
            return cs
        lo, hi = self.settings.estimand_range(pair)
        n, t = float(pool.size), np.arange(1, np.shape(y)[-1] + 1, dtype=float)
        s = np.cumsum(np.asarray(y, dtype=float), axis=-1)
        k_lo, k_hi = (s + (n - t) * lo) / n, (s + (n - t) * hi) / n
        low, high = np.maximum(cs.lower, k_lo), np.minimum(cs.upper, k_hi)
        empty = low > high
        return replace(cs, lower=np.where(empty, k_lo, low), upper=np.where(empty, k_hi, high))

    def pair_sequence(self, a: int, b: int) -> csq.ConfidenceSequence | None:
        """The pair's confidence sequence along its whole label path, from its labels, at
        its Bonferroni level; ``None`` below the burn-in."""
        stream_a, stream_b = self.labels.stream(a)[0], self.labels.stream(b)[0]
        d, g, pool = self.pool.pair_stream(stream_a, stream_b, a, b)
        if self.visits is not None:
            d, g, pool, _ = self.weighted((a, b), pool)
        if d.size < seq.BURN_IN:
            return None
        a_pair = bonferroni_alpha(self.settings.alpha, len(pairs(self.pool.k)))
        lam = None if self.visits is not None else self.pair_slopes(stream_a, stream_b, g)
        return self.analyse(d, g, pool, a_pair, pair=True, theta0=None, lam=lam).paths.cs

    def weighted(self, systems: tuple[int, ...], pool: Pool) -> tuple[np.ndarray, None, Pool, int]:
        """Active sampling: the visit increments of a system or pair (``g`` None: the
        control is inside them) and its label count; records its design summary."""
        if self.visits is None:
            raise ValueError("weighted streams need the queue's visits (active sampling)")
        labels = []
        for s in systems:
            items, y, _ = self.labels.stream(s)[0]
            lab = np.full(self.pool.n_items, np.nan)
            lab[items] = y
            labels.append(lab)
        span = self.settings.label_range
        lo, hi = span if span is not None else (0.0, 1.0)
        stream = active.visit_stream(
            self.visits, labels, [self.pool.metrics[s] for s in systems], pool.mask,
            prior_mean=(lo + hi) / 2,
        )  # fmt: skip
        self.designs[" – ".join(self.pool.names[s] for s in systems)] = stream.summary
        return stream.z, None, pool, stream.n_labels

    def _estimate(
        self, y: np.ndarray, g: np.ndarray | None, inc: seq.Increments, pool: Pool
    ) -> float:
        """The shown estimate. Finite pool (uniform draws): the regression estimator
        ȳ_t − λ_tᵀ(ḡ_t − ḡ_pool) (Cochran 1977, §7.1; λ_t from the labels so far, 0 without
        a control) — the plain label mean without a control, unbiased for the pool mean
        under sampling without replacement, with MSE ≤ that of any weighting of the same
        labels (the Des Raj increments' mean weights early labels ≈ 2×, the last ≈ 0), and
        equal to the exact pool mean at the census (ḡ_t = ḡ_pool there). Otherwise the mean
        of the increments (with-replacement control-variate estimator)."""
        if not self.settings.finite_increments:
            return float(np.mean(inc.z))
        est = float(np.mean(y))
        if g is not None and pool.controls is not None:
            gk = np.asarray(g, dtype=float).reshape(len(y), -1)
            lam = np.asarray(inc.lam[-1], dtype=float).reshape(-1)
            est -= float(lam @ (gk.mean(axis=0) - np.asarray(pool.controls.mean).reshape(-1)))
        return est

    def result(
        self, y: np.ndarray, g: np.ndarray | None, pool: Pool, alpha_cs: float, *, pair: bool,
        method: str, theta0: float | None = None, n_labels: int | None = None,
        known: Known = None, stream: Any = None, lam: np.ndarray | None = None,
    ) -> StreamResult:  # fmt: skip
        """The stream's analysis at this read (:class:`StreamResult`): its interval cut by
        the ``known`` set, the p-value 0 when the known set alone rules ``theta0`` out.
        ``n_labels``: the labels behind a weighted stream of visits; ``lam`` a pair's pooled
        control slopes (:meth:`pair_slopes`)."""
        n = int(y.shape[-1]) if n_labels is None else int(n_labels)
        ctrl = pool.controls
        n_metric = 0 if ctrl is None else ctrl.size - int(ctrl.imputed.sum())
        if n == 0:
            empty = EstimateResult(
                estimate=float("nan"), ci=(-math.inf, math.inf), se=float("nan"), n_human=0,
                n_metric=n_metric, method=method, level=1 - alpha_cs, valid_for_verdict=False,
            )  # fmt: skip
            t_star = self.settings.planned_size(pool.size)
            return StreamResult(empty, 1.0, float("nan"), t_star, None)
        (inc, cs, p, e), t_star = self.analyse(
            y, g, pool, alpha_cs, pair=pair, theta0=theta0, stream=stream, lam=lam
        )
        sigma = float(cs.sigma[-1])
        p_last = 1.0 if p is None else float(p[-1])
        ci = verdicts.intersect((float(cs.lower[-1]), float(cs.upper[-1])), known)
        if (
            known is not None
            and theta0 is not None
            and not (known[0] - KNOWN_TOL <= theta0 <= known[1] + KNOWN_TOL)
        ):
            p_last = 0.0  # the labelled part alone rules θ0 out (verdicts module)
        diagnostics = self._diagnostics(inc, sigma, t_star, alpha_cs)
        if n_labels is not None:
            diagnostics["visits"] = int(inc.z.shape[-1])
        if p is not None:
            diagnostics["p_value"] = p_last
        if known is not None:
            diagnostics["known_bounds"] = known
        # the sequence's own interval, before the cut and the estimate widen it
        diagnostics["interval"] = (float(cs.lower[-1]), float(cs.upper[-1]))
        estimate, ci = verdicts.shown(ci, float(self._estimate(y, g, inc, pool)))
        res = EstimateResult(
            estimate=estimate, ci=ci, se=sigma / math.sqrt(inc.z.shape[-1]), n_human=n,
            n_metric=n_metric, method=method, level=1 - alpha_cs, diagnostics=diagnostics,
            valid_for_verdict=n >= MIN_LABELS_FOR_VERDICT,
        )  # fmt: skip
        return StreamResult(res, p_last, sigma, t_star, cs, e)

    def _diagnostics(
        self, inc: seq.Increments, sigma: float, t_star: int, alpha_cs: float
    ) -> dict[str, Any]:
        """What every result records of how it was computed."""
        return {
            "lam": inc.lam[-1].tolist() if inc.lam.shape[-1] > 1 else float(inc.lam[-1, 0]),
            "sigma": sigma,
            "t_star": t_star,
            "simultaneous_alpha": alpha_cs,
            "mode": self.settings.mode,
            "design": str(self.settings.design),
            "estimand": "test set" if self.settings.finite_pool else "superpopulation",
        }

    def read_interval(
        self, stream: PairStream, known: Known, level: float, lam: np.ndarray | None = None,
        name: Any = None,
    ) -> Known:  # fmt: skip
        """A pair's last interval at ``level`` (same tuning as its Bonferroni interval), cut
        by the known part of its pool: the interval its side is read from when it is
        rejected at ``level`` (:func:`estimators.base.verdicts.read_level`); ``lam`` the
        pair's pooled control slopes, as its row used. ``name``: the pair's stream in the
        campaign's cache, whose carried state (the betting designs) gives the interval
        without analysing the pair again."""
        d, g, pool = stream
        a_pair = bonferroni_alpha(self.settings.alpha, len(pairs(self.pool.k)))
        if name is not None and self.carry is not None:
            cs = self._carried_at(d, g, pool, a_pair, level, name)
        else:
            cs = self.analyse(d, g, pool, a_pair, pair=True, theta0=None, level=level,
                              lam=lam).paths.cs  # fmt: skip
        return verdicts.intersect((float(cs.lower[-1]), float(cs.upper[-1])), known)

    def _carried_at(
        self, d: np.ndarray, g: np.ndarray | None, pool: Pool, a_pair: float, level: float,
        name: Any,
    ) -> csq.ConfidenceSequence:  # fmt: skip
        """The pair's sequence at ``level`` as :meth:`analyse` gives it — clipped, cut by the
        known part of the pool — with its last interval from the state carried for the
        pair's row (theta0 0, as the row reads it; the further means read off carried
        capitals) and its earlier entries left open: only the last is read."""
        settings = self.settings
        low, high = self.carry.last_interval_at(
            d, g, pool, a_pair, level, pair=True, theta0=0.0,
            t_star=settings.planned_size(pool.size),
            pool_size=pool.size if settings.finite_increments else None, stream=name,
        )  # fmt: skip
        t = np.shape(d)[-1]
        lower, upper = np.full(t, -np.inf), np.full(t, np.inf)
        lower[-1], upper[-1] = low, high
        cs = csq.ConfidenceSequence(center=np.zeros(t), lower=lower, upper=upper,
                                    sigma=np.zeros(t), alpha=level, t_star=math.nan,
                                    method="betting")  # fmt: skip
        return self._known_path(settings.clip(cs, True), d, pool, True)


def _clipped_cv_increments(
    y: np.ndarray, g: np.ndarray, ctrl: seq.PoolControls, pool: Pool,
    ranges: tuple[tuple[float, float], float], d: _Design,
) -> seq.Increments:  # fmt: skip
    """Strict mode with a control: control-variate increments whose coefficient is clipped
    (to a label's span, half of it for a system, per unit of the control's spread over the
    pool) so that every increment keeps known bounds. ``ranges``: (the estimand's range,
    hi − lo of one label)."""
    yr, span = ranges
    g_all = ctrl.values[pool.mask]  # the pool's (imputed) control values, for the bounds
    sd = g_all.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    clip = (span if d.pair else 0.5 * span) / sd
    return seq.cv_increments(
        y, g, ctrl.mean, lam_clip=clip, label_range=yr,
        g_range=(g_all.min(axis=0), g_all.max(axis=0)), pool_size=d.pool_size,
    )  # fmt: skip
