"""The betting capital K_t(m) of one stream for a grid of null means (its arithmetic).

docs/statistics-notes.md §5, §25; Waudby-Smith & Ramdas (2024), "Estimating means of bounded random
variables by betting", JRSS-B, §4 (the hedged capital, Thm 3) and §5.1 (aGRAPA). For labels
x_i ∈ [0, 1] and a null mean m:

    K_t(m) = Σ_j w_j Π_{i≤t} (1 + λ_{j,i} (x_i − m)),

a weighted average of capitals with predictable bets λ_{j,i} (functions of x_1..x_{i−1}):
the plan-sized hedged bets min(λ̇_i, c/m) and −min(λ̇_i, c/(1 − m)) (weight w/2 each) and
the aGRAPA bet (μ̂_{i−1} − m)/(σ̂²_{i−1} + (μ̂_{i−1} − m)²) clipped to [−c/(1 − m), c/m] with
two caps c (:data:`PARTS`; the plug-ins μ̂, σ̂² and λ̇ in :mod:`estimators.sequences.betting`). Each
term is kept as its running log sum Σ log(1 + λ_i(x_i − m)) and the terms are combined in
one log-sum-exp pass. The pieces the terms share (x − m, the caps' bounds, the unclipped
aGRAPA bet) are computed once per stream, and the (means × labels) temporaries are scratch
arrays (:mod:`estimators.base.scratch`): the monitor's cold start computes this for every pair.
"""

from __future__ import annotations

import math

import numpy as np

from estimators.base.scratch import SCRATCH

#: Cap on each bet as a share of the largest bet that keeps the capital positive.
C_TRUNC = 0.5


def running_moments(x01: np.ndarray, start=None):  # type: ignore[no-untyped-def]
    """The predictable plug-in mean and variance before each label: (μ̂_{i−1}, σ̂²_{i−1}, i)
    along the last axis, μ̂_t = (1/2 + Σ_{i≤t} x_i)/(t + 1), σ̂²_t = (1/4 + Σ_{i≤t}(x_i −
    μ̂_i)²)/(t + 1) (module docstring), and the end state (t, Σx, Σ(x − μ̂)², μ̂_t, σ̂²_t).
    ``start``: the end state of the labels before ``x01`` (None: no labels yet), so a stream
    extended in pieces gets the very numbers of the whole (sums are accumulated in order)."""
    t0, s0, q0, mu0, v0 = (0, None, None, 0.5, 0.25) if start is None else start
    t = np.arange(t0 + 1, t0 + x01.shape[-1] + 1, dtype=float)
    sx = _cum(x01, s0)
    mu = (0.5 + sx) / (t + 1.0)
    q = _cum_in_place((x01 - mu) ** 2, q0)
    s2 = (0.25 + q) / (t + 1.0)
    end = (t0 + x01.shape[-1], sx[..., -1:], q[..., -1:], mu[..., -1:], s2[..., -1:])
    return _shifted(mu, mu0), _shifted(s2, v0), t, end


def _shifted(a: np.ndarray, first) -> np.ndarray:  # type: ignore[no-untyped-def]
    """``a`` one step later along the last axis, ``first`` in front: the value before each."""
    out = np.empty_like(a)
    out[..., :1] = first
    out[..., 1:] = a[..., :-1]
    return out


def _cum(a: np.ndarray, start) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Running sum along the last axis continuing from ``start`` (None: from 0), in order."""
    return _cum_in_place(np.array(a, dtype=float), start)


def _cum_in_place(a: np.ndarray, start) -> np.ndarray:  # type: ignore[no-untyped-def]
    """:func:`_cum` overwriting ``a``: start + a_1, (start + a_1) + a_2, … — the very sums
    of the stream before ``a`` followed by ``a`` (the same additions in the same order)."""
    if start is not None:
        a[..., :1] += start
    return np.cumsum(a, axis=-1, out=a)


def plan_bet(s2_prev: np.ndarray, t: np.ndarray, alpha: float, t_star: float | None):  # type: ignore[no-untyped-def]
    """λ̇_i = sqrt(2 log(2/α) / (σ̂²_{i−1} · t*)) (t* None: i·log(1 + i)): the plan-sized
    bet, a function of the past only (predictable)."""
    denom = t * np.log1p(t) if t_star is None else np.full_like(t, float(t_star))
    return np.sqrt(2.0 * math.log(2.0 / alpha) / (s2_prev * denom))


def kelly_bet(mu_prev: np.ndarray, s2_prev: np.ndarray, m: np.ndarray, cap: float):  # type: ignore[no-untyped-def]
    """The aGRAPA bet (μ̂_{i−1} − m)/(σ̂²_{i−1} + (μ̂_{i−1} − m)²), clipped to
    [−c/(1 − m), c/m]: a function of the past only (predictable)."""
    shape = np.broadcast_shapes(np.shape(mu_prev), np.shape(m))
    return _Terms(None, np.asarray(m, dtype=float), (mu_prev, s2_prev), shape).kelly(cap)


def _kelly_log_capital(
    x01: np.ndarray, m: np.ndarray, cap: float = C_TRUNC, moments=None, start=None
) -> np.ndarray:  # type: ignore[no-untyped-def]
    """log of the aGRAPA capital (Waudby-Smith & Ramdas 2024, §5.1, approximate growth-rate
    adaptive to the particular alternative): one signed predictable bet
    λ_i = (μ̂_{i−1} − m)/(σ̂²_{i−1} + (μ̂_{i−1} − m)²), clipped to [−c/(1 − m), c/m] with
    c = ``cap`` < 1, so every factor 1 + λ_i(x_i − m) ≥ 1 − c > 0. It bets more the further
    the running mean is from m: the Kelly bet for the observed effect, whatever the plan.
    ``moments`` (:func:`running_moments`) and ``start`` (the log capital before ``x01``)
    continue a carried stream."""
    terms = _Terms(x01, m, running_moments(x01) if moments is None else moments)
    return terms.log_sums(terms.kelly(cap), start)


def _fresh(shape, dtype=float) -> np.ndarray:  # type: ignore[no-untyped-def]
    return np.empty(shape, dtype=dtype)


class _Terms:
    """What the parts share for one stream and its null means, each computed once: x − m,
    each cap's bounds −c/(1 − m) and c/m, the unclipped aGRAPA bet (the two Kelly parts
    differ only in their clip). Arrays come from ``take`` (shape → array: fresh ones, or
    scratch from :mod:`estimators.base.scratch`); :meth:`log_sums` turns a bet into
    Σ log(1 + λ_i(x_i − m)) in the bet's own array."""

    def __init__(self, x01, m, moments, shape=None, take=_fresh) -> None:  # type: ignore[no-untyped-def]
        self.m, self.moments, self.take = m, moments, take
        self.shape = np.broadcast_shapes(np.shape(x01), np.shape(m)) if shape is None else shape
        self.dev = None if x01 is None else np.subtract(x01, m, out=take(self.shape))
        self._one_minus = None
        self._bounds: dict[float, tuple[np.ndarray, np.ndarray]] = {}
        self._raw = None

    def bounds(self, cap: float):  # type: ignore[no-untyped-def]
        """(−c/(1 − m), c/m): the largest bets against and for m with factors ≥ 1 − c."""
        if cap not in self._bounds:
            m, take = self.m, self.take
            if self._one_minus is None:
                self._one_minus = np.subtract(1.0, m, out=take(m.shape))
            with np.errstate(divide="ignore"):
                low = np.divide(-cap, self._one_minus, out=take(m.shape))
                self._bounds[cap] = (low, np.divide(cap, m, out=take(m.shape)))
        return self._bounds[cap]

    def kelly(self, cap: float) -> np.ndarray:
        """The aGRAPA bet clipped to [−c/(1 − m), c/m] (:func:`kelly_bet`)."""
        if self._raw is None:
            mu_prev, s2_prev = self.moments[:2]
            gap = np.subtract(mu_prev, self.m, out=self.take(self.shape))
            den = np.multiply(gap, gap, out=self.take(self.shape))
            den += s2_prev
            with np.errstate(divide="ignore", invalid="ignore"):
                self._raw = np.divide(gap, den, out=gap)
        low, high = self.bounds(cap)
        lam = np.maximum(self._raw, low, out=self.take(self.shape))
        return np.minimum(lam, high, out=lam)

    def plan(self, alpha: float, t_star: float | None) -> tuple[np.ndarray, np.ndarray]:
        """(λ⁺, −λ⁻) of the hedged capital: λ̇ capped at c/m, and −λ̇ at −c/(1 − m)."""
        lam = plan_bet(self.moments[1], self.moments[2], alpha, t_star)
        low, high = self.bounds(C_TRUNC)
        up = np.minimum(lam, high, out=self.take(self.shape))
        return up, np.maximum(-lam, low, out=self.take(self.shape))

    def log_sums(self, lam: np.ndarray, start) -> np.ndarray:  # type: ignore[no-untyped-def]
        """Running Σ log(1 + λ_i(x_i − m)) from ``start``, in ``lam``'s array."""
        lam *= self.dev
        return _cum_in_place(np.log1p(lam, out=lam), start)


#: The capital's parts: (weight, bet) — the plan-sized hedged bets, and the Kelly bet with a
#: cautious and a bold cap c (the largest bet is c/m: c = ½ loses at most half the capital
#: on one label; c = 0.9 lets the Kelly bet grow where the labels are continuous and spread
#: little within their range, e.g. 1 − HTER differences, whose Kelly bet is ≈ 3× c = ½'s).
PARTS = ((0.25, "plan"), (0.375, 0.5), (0.375, 0.9))


def log_capital(
    x01: np.ndarray, m: float | np.ndarray, alpha: float, t_star: float | None
) -> np.ndarray:
    """log K_t(m) along the stream(s) ``x01`` (..., T) for the null mean(s) ``m`` in (0, 1):
    a scalar, or an array broadcasting against x01[..., :1] (e.g. (G, 1) for a grid).

    K_t(m) = ¼ K^plan_t(m) + ⅜ K^kelly(½)_t(m) + ⅜ K^kelly(0.9)_t(m) (:data:`PARTS`): the
    hedged capital with bets sized for the plan (module docstring) and the aGRAPA capital
    (:func:`_kelly_log_capital`) with two caps. Each is a nonnegative martingale with
    initial value 1 when the increments have mean m, so their weighted average is too
    (Ville's inequality holds as before); it is within a factor 4 (plan) or 8/3 (Kelly) of
    the best part. On the app's route (bench/ranking_route_bench.py, 200 orders) the bold
    cap cut the labels to a verdict on the Chaganty 1 − HTER pairs from 1.17× to 0.99× the
    fixed-n n80 at α/m (binary pairs and WMT21 unchanged within noise); the plan part
    keeps close pairs in big pools decided near the plan (synthetic 1,875-item pool,
    Δ = 0.10 at α/91: 647 labels, 686 without it, 625 with the plan at weight ½)."""
    return _log_capital_parts(
        np.asarray(x01, dtype=float), np.asarray(m, dtype=float), alpha, t_star
    )[0]


def _log_capital_parts(x01, m, alpha, t_star, moments=None, starts=None):  # type: ignore[no-untyped-def]
    """(log K_t(m) of :func:`log_capital`, each part's running log sums at the end):
    ``moments`` and ``starts`` (the parts' sums before ``x01``) continue a carried stream.
    The plan part's halves enter as two terms of weight w/2 (K^plan = ½K⁺ + ½K⁻), and all
    four terms are summed in one pass: log Σ_j w_j K_j = M + log Σ_j w_j exp(log K_j − M),
    M the largest log K_j. Temporaries are scratch arrays (:mod:`estimators.base.scratch`)."""
    moments = running_moments(x01) if moments is None else moments
    starts = [None] * len(PARTS) if starts is None else starts
    with SCRATCH.arrays() as take:
        terms = _Terms(x01, np.asarray(m, dtype=float), moments, take=take)
        logs, ends = [], []
        for (weight, bet), start in zip(PARTS, starts, strict=True):
            if bet == "plan":
                start = (None, None) if start is None else start
                up, down = terms.plan(alpha, t_star)
                halves = terms.log_sums(up, start[0]), terms.log_sums(down, start[1])
                ends.append(tuple(h[..., -1:].copy() for h in halves))
                logs.extend((weight / 2.0, h) for h in halves)
            else:
                part = terms.log_sums(terms.kelly(float(bet)), start)
                ends.append(part[..., -1:].copy())
                logs.append((weight, part))
        return _log_sum_exp(logs, take(terms.shape)), ends


def _log_sum_exp(logs, top: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """log Σ_j w_j exp(L_j) for the (w_j, L_j) in ``logs`` (a new array), overwriting the
    L_j and ``top`` (M = max_j L_j, so no exp overflows; terms of equal weight are summed
    before they are weighted)."""
    np.maximum(logs[0][1], logs[1][1], out=top)
    for _, log_k in logs[2:]:
        np.maximum(top, log_k, out=top)
    sums: dict[float, np.ndarray] = {}
    with np.errstate(invalid="ignore"):
        for weight, log_k in logs:
            log_k -= top
            term = np.exp(log_k, out=log_k)
            if weight in sums:
                sums[weight] += term
            else:
                sums[weight] = term
        total = None
        for weight, term in sums.items():
            if total is None:
                total = np.multiply(term, weight)
            else:
                term *= weight
                total += term
        np.log(total, out=total)
    total += top
    lo, hi = top.min(initial=0.0), top.max(initial=0.0)
    if not (np.isfinite(lo) and np.isfinite(hi)):  # every L_j −∞ (or one +∞): the sum is M
        odd = ~np.isfinite(top)
        total[odd] = top[odd]
    return total


def _plan_halves(x01, m, alpha, t_star, moments, start):  # type: ignore[no-untyped-def]
    """log K⁺_t and log K⁻_t of the plan-sized hedged capital (module docstring):
    Σ log(1 + min(λ̇_i, c/m)(x_i − m)) and Σ log(1 − min(λ̇_i, c/(1 − m))(x_i − m))."""
    terms = _Terms(x01, np.asarray(m, dtype=float), moments)
    start = (None, None) if start is None else start
    up, down = terms.plan(alpha, t_star)
    return terms.log_sums(up, start[0]), terms.log_sums(down, start[1])


def _plan_log_capital(
    x01: np.ndarray, m: np.ndarray, alpha: float, t_star: float | None
) -> np.ndarray:
    """log of the hedged capital with bets sized for the plan (module docstring)."""
    log_p, log_m = _plan_halves(x01, m, alpha, t_star, running_moments(x01), None)
    return np.logaddexp(log_p, log_m) - math.log(2.0)
