"""The live monitor's analysis of one system or pair: increments, confidence sequence,
anytime p-value, e-value and the interval and estimate shown.

statistics.md §4–§5, §9. Control-variate increments
(:func:`estimators.sequences.sequential.cv_increments`;
Des Raj without replacement on a finite pool) or, with active sampling, the weighted visit
increments (:func:`estimators.sampling.active.visit_stream`); the path of the live design in force
(:func:`estimators.sequences.designs.design_paths`: AsympCS, Waudby-Smith et al. 2024; empirical
Bernstein; betting; O'Brien–Fleming group-sequential); the interval cut by the known part of
the pool (:mod:`estimators.base.verdicts`); the shown estimate is the regression estimator on a
finite pool (Cochran 1977, §7.1).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from estimators.base import verdicts
from estimators.base.multiple import bonferroni_alpha, pairs
from estimators.base.result import MIN_LABELS_FOR_VERDICT, EstimateResult
from estimators.base.verdicts import ErrorRate
from estimators.live.pools import _Pool
from estimators.sampling import active
from estimators.sequences import betting, betting_control
from estimators.sequences import confidence_sequences as csq
from estimators.sequences import sequential as seq
from estimators.sequences.designs import LiveDesign, design_paths

#: Rounding slack of the known part of the pool: sums of labels that are equal in exact
#: arithmetic can differ by a few ulps, so a Δ within 1e-12 of 0 counts as 0.
KNOWN_TOL = 1e-12


class MonitorAnalysis:
    """Analysis of :class:`estimators.live.monitor.CampaignMonitor`: each stream's increments,
    sequence, p-value and shown result under the live design in force."""

    def _analyse(
        self, y, g, pool: _Pool, alpha_cs, *, pair: bool, theta0: float | None, level=None,
        stream=None,
    ):  # type: ignore[no-untyped-def]
        """Increments, CS at ``alpha_cs``, and the anytime p-value vs ``theta0``, both tuned
        at ``alpha_cs`` (:meth:`_tuning`); the betting design also leaves its e-value K_t(θ0)
        in ``self._last_e``. ``level``: the CS at that level instead, same tuning (the
        interval a rejected pair is read at, :func:`estimators.base.verdicts.read_level`).

        t* and the finite-pool N come from the size of the fixed pool and the plan, never
        from the labels seen so far: the path up to t then depends on the first t labels
        only, so a later read extends it. ``stream`` (a name in the campaign's cache): the
        betting design's paths from the state carried between reads
        (:mod:`estimators.live.carry`) — the p-value path is then its last entry only.
        """
        t_star = self._t_star(pool)
        pool_size = pool.size if self.finite_pool and self.visits is None else None
        m = max(self.k * (self.k - 1) // 2, 1)  # the pairs Holm adjusts over
        paths = self._clt_paths if not self.design.bounded else self._bounded_paths
        if stream is not None and self._carries:
            inc, cs, p = self._carried_paths(
                y, pool, alpha_cs, pair, theta0, t_star, pool_size, stream, g
            )
        else:
            inc, cs, p = paths(y, g, pool, alpha_cs, pair, theta0, t_star, pool_size, m, level)
        return inc, self._known_path(self._clip(cs, pair), y, pool, pair), p, t_star

    def _clt_paths(self, y, g, pool: _Pool, alpha_cs, pair, theta0, t_star, pool_size, m, level):  # type: ignore[no-untyped-def]
        """Unbounded designs: control-variate increments with replacement (or Des Raj,
        finite pool) and the design's CS and p-value path, with a variance prior."""
        gbar = None if pool.controls is None else pool.controls.mean
        inc = seq.cv_increments(y, g, gbar, pool_size=pool_size)
        # 10 pseudo-observations of the largest variance the labels allow: keeps the CLT
        # sequence valid at extreme adequacy rates (see csq.asymptotic_cs)
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
            self.design, inc.z, level=level or alpha_cs, alpha=self._tuning(alpha_cs), m=m,
            theta0=theta0, t_star=t_star, var_prior=prior,
        )  # fmt: skip
        return inc, cs, p

    def _bounded_paths(
        self, y, g, pool: _Pool, alpha_cs, pair, theta0, t_star, pool_size, m, level
    ):  # type: ignore[no-untyped-def]  # type: ignore[no-untyped-def]
        """Bounded designs (strict, betting): increments with known bounds, clipped
        control coefficients, the design's CS and p-value path; the betting design also
        leaves its e-value K_t(θ0) in ``self._last_e``."""
        ctrl = pool.controls
        gbar = None if ctrl is None else ctrl.mean
        # the pool's (imputed) control values, for the strict mode's bounds
        g_all = None if ctrl is None else ctrl.values[pool.mask]
        lo, hi = self.label_range
        span = hi - lo
        yr = (lo - hi, hi - lo) if pair else (lo, hi)
        wor = None  # the betting design bets on the labels themselves, without replacement
        if self.design == LiveDesign.BETTING_CV and g is not None:
            ebh = pair and self._error_rate() == ErrorRate.FDR
            return self._controlled_paths(y, g, g_all, yr, alpha_cs, theta0, t_star,
                                          pool_size, (level, not ebh))  # fmt: skip
        if self.design.bets:
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
            self.design, inc.z, level=level or alpha_cs, alpha=self._tuning(alpha_cs), m=m,
            theta0=theta0, t_star=t_star, bounds=inc.bounds, running=not ebh, pool_size=wor,
        )  # fmt: skip
        if theta0 is not None and self.design.bets and level is None:
            e = betting.betting_evalue(
                inc.z, theta0, bounds=inc.bounds, alpha_tuning=alpha_cs, t_star=t_star,
                pool_size=wor,
            )
            self._last_e = float(e[-1]) if inc.z.shape[-1] >= seq.BURN_IN else 1.0
        return inc, cs, p

    def _controlled_paths(self, y, g, g_all, yr, alpha_cs, theta0, t_star, pool_size, read):  # type: ignore[no-untyped-def]
        """The ``betting_cv`` design with a control: the capital of
        :mod:`estimators.sequences.betting_control` (half the label capital, half bets on the labels
        less the predictable control term), the stream's first control column, its CS, the
        p-value path and the e-value K_t(θ0) in ``self._last_e``. ``read``: (the level
        of the CS or None, running capital)."""
        level, running = read
        inc = seq.cv_increments(y, None, label_range=yr)
        gi, gp = np.asarray(g, dtype=float).reshape(len(y), -1)[:, 0], g_all[:, 0]
        kw = dict(bounds=inc.bounds, t_star=t_star, pool_size=pool_size)
        cs = betting_control.controlled_cs(
            inc.z, gi, gp, level or alpha_cs, alpha_tuning=alpha_cs, burn_in=seq.BURN_IN,
            running=running, **kw,
        )  # fmt: skip
        p = None
        if theta0 is not None:
            p = betting_control.pvalue_path(
                inc.z, gi, gp, theta0, alpha_tuning=alpha_cs, burn_in=seq.BURN_IN, **kw
            )
            if level is None:
                e = betting_control.evalue(inc.z, gi, gp, theta0, alpha_tuning=alpha_cs, **kw)
                self._last_e = float(e[-1]) if inc.z.shape[-1] >= seq.BURN_IN else 1.0
        return inc, cs, p

    def _known_path(self, cs, y, pool: _Pool, pair: bool):  # type: ignore[no-untyped-def]
        """The sequence cut by the known part of the pool along the path (finite pool,
        uniform draws, known label range): after t labels of sum S_t, the pool mean lies in
        [(S_t + (N − t)·lo)/N, (S_t + (N − t)·hi)/N] for sure, so the cut keeps coverage and
        the path ends at the exact mean at the census (:mod:`estimators.base.verdicts`)."""
        if not self._known_applies:
            return cs
        lo, hi = self._estimand_range(pair)
        n, t = float(pool.size), np.arange(1, np.shape(y)[-1] + 1, dtype=float)
        s = np.cumsum(np.asarray(y, dtype=float), axis=-1)
        k_lo, k_hi = (s + (n - t) * lo) / n, (s + (n - t) * hi) / n
        low, high = np.maximum(cs.lower, k_lo), np.minimum(cs.upper, k_hi)
        empty = low > high
        return replace(cs, lower=np.where(empty, k_lo, low), upper=np.where(empty, k_hi, high))

    @property
    def _carries(self) -> bool:
        """The betting design's paths are carried between reads (a campaign cache, uniform
        draws): :mod:`estimators.live.carry`."""
        return (
            self.cache is not None and self.design.bets and self.visits is None
        )

    def _tuning(self, alpha_cs: float) -> float:
        """The level the p-values and sequences are tuned for: the level at which the
        verdict is first read (α/m for a pair, α/k for a system). The group-sequential
        design spends the family-wise α over its own level grid (α/j, j ≤ m)."""
        return self.alpha if self.design == LiveDesign.GSD_OBF else alpha_cs

    def _clip(self, cs: csq.ConfidenceSequence, pair: bool) -> csq.ConfidenceSequence:
        """Intervals clipped to what the estimand can be: [lo, hi] for a system with labels
        in [lo, hi], [lo − hi, hi − lo] for a difference (clipping keeps validity)."""
        if self.label_range is None:
            return cs
        lo, hi = self._estimand_range(pair)
        return replace(cs, lower=np.clip(cs.lower, lo, hi), upper=np.clip(cs.upper, lo, hi))

    def pair_sequence(self, a: int, b: int):  # type: ignore[no-untyped-def]
        """The confidence sequence of Δ = μ_a − μ_b along the pair's whole label path.

        Entry t − 1 is the interval after the pair's t-th completed item, at the same
        Bonferroni level, mode, priors and pool option that :meth:`report` uses, cut by the
        known part of the pair's completed items (finite pool); the last entry contains the
        interval the report shows (which also uses items labelled for one system only, and
        the verdict's bound at 0). ``None`` below the burn-in.
        """
        cs = self._pair_cs.get((a, b))
        if cs is None and self.documents is not None:
            return None  # documents as the unit: no completed document, no sequence yet
        if cs is None:
            d, g, pool = self._pair_stream(self._stream(a)[:3], self._stream(b)[:3], a, b)
            if self.visits is not None:
                d, g, pool, _ = self._weighted((a, b), pool)
            if d.size < seq.BURN_IN:
                return None
            a_pair = bonferroni_alpha(self.alpha, len(pairs(self.k)))
            cs = self._analyse(d, g, pool, a_pair, pair=True, theta0=None)[1]
        return cs if cs.lower.shape[-1] >= seq.BURN_IN else None

    def _error_rate(self) -> ErrorRate:
        """e-BH needs the betting design's e-values; otherwise Holm is in force."""
        if self.error_rate == ErrorRate.FDR and self.design.bets:
            return ErrorRate.FDR
        return ErrorRate.FWER

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
        known=None, stream=None,
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
        inc, cs, p, t_star = self._analyse(
            y, g, pool, alpha_cs, pair=pair, theta0=theta0, stream=stream
        )
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
        # the sequence's own interval, before the cut and the estimate widen it
        diagnostics["interval"] = (float(cs.lower[-1]), float(cs.upper[-1]))
        estimate, ci = verdicts.shown(ci, float(self._estimate(y, g, inc, pool)))
        res = EstimateResult(
            estimate=estimate,
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

    def _read_interval(self, stream, level: float):  # type: ignore[no-untyped-def]
        """A pair's last interval at ``level`` (same tuning as its Bonferroni interval), cut
        by the known part of its pool: the interval its side is read from when it is
        rejected at ``level`` (:func:`estimators.base.verdicts.read_level`)."""
        d, g, pool, known = stream
        a_pair = bonferroni_alpha(self.alpha, len(pairs(self.k)))
        cs = self._analyse(d, g, pool, a_pair, pair=True, theta0=None, level=level)[1]
        return verdicts.intersect((float(cs.lower[-1]), float(cs.upper[-1])), known)
