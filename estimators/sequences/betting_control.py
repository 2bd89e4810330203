"""A betting capital that uses an imported metric as a control.

docs/statistics-notes.md §5, §14, §17, §25. The capital of
:func:`estimators.sequences.betting.wor_log_capital` (Waudby-Smith & Ramdas 2024, hedged and aGRAPA
bets; the without-replacement null of Waudby-Smith & Ramdas 2020) bets on the labels x_i
themselves. Here a further part bets on control-variate increments (Chaganty et al. 2018;
the PPI++ "power-tuned" increment of Angelopoulos et al. 2023 in its anytime form, cf.
Zrnic & Candès 2024):

    Z_i = x_i − c_i (g_i − ḡ_rem(i)),   ḡ_rem(i) = (Σ_pool g − Σ_{j<i} g_j)/(N − i + 1),

g_i the metric control of the i-th labelled item (for a pair, the paired difference of the
two systems' scores; standardised over the pool), ḡ_rem(i) the mean of g over the items not
yet labelled — known exactly, since the pool's scores are all known — and c_i a ridge
regression slope of x on g fitted on labels 1..i−1 only (:func:`coefficients`).

Validity. F_{i−1} = the first i − 1 items and their labels. Under the test-set estimand the
i-th item is uniform over the N − i + 1 items not yet labelled, so E[g_i | F_{i−1}] =
ḡ_rem(i) and, under the null "the pool mean is θ", E[x_i | F_{i−1}] = m_i(θ) =
(Nθ − S_{i−1})/(N − i + 1). c_i is F_{i−1}-measurable, hence E[Z_i | F_{i−1}] = m_i(θ):
the control leaves the null mean unchanged. It does NOT leave E[x_i | F_{i−1}, g_i]
unchanged (that is the control's whole use: g_i predicts x_i), so the bet λ_i may not look
at g_i — neither its size nor its cap. λ_i is a function of F_{i−1} only and is capped by
the range of Z_i − m_i over every item still unlabelled, bounded by the pool's extreme
controls g_lo ≤ g ≤ g_hi (a superset of the remaining items', so still a bound):

    Z_i − m_i ∈ [−m_i − h⁺_i, 1 − m_i − h⁻_i],  h^±_i = max/min of c_i (g − ḡ_rem(i)) over
    g ∈ {g_lo, g_hi};   λ_i ∈ [−C/(1 − m_i − h⁻_i), C/(m_i + h⁺_i)],

so every factor 1 + λ_i(Z_i − m_i) ≥ 1 − C > 0 and E[1 + λ_i(Z_i − m_i) | F_{i−1}] = 1:
the controlled capital is a nonnegative martingale with initial value 1 under the null, and
so is any fixed-weight average of it with the label capital (Ville's inequality as before).
The bet is the aGRAPA bet of :func:`estimators.sequences.betting.kelly_bet` on the Z's running mean
and variance: where g predicts x, Var(Z) ≈ (1 − ρ²) Var(x), so the growth rate
gap²/(2σ²) of that part rises by 1/(1 − ρ²); where it does not, c_i stays near 0 (the
ridge keeps it there) and the part is a copy of the label Kelly bets.

Without the test-set estimand (``pool_size`` None: i.i.d. draws of mean θ) ḡ_rem is replaced
by the pool mean of g, the expectation of g_i under uniform draws with replacement.

The campaign's capital (:func:`log_capital_from`) is (1 − w) × the label capital of
:func:`estimators.sequences.betting.wor_log_capital_from` + w × this controlled capital (w =
:data:`WEIGHT`; the controlled part is itself ½ Kelly(C = ½) + ½ Kelly(C = 0.9), as the
label capital's Kelly parts). Where the control does not help the capital is at least
(1 − w) × the label capital: at most log(1/(1 − w)) nats are lost, and in practice far less,
since with c_i ≈ 0 the controlled part nearly copies the label capital's Kelly parts.

Why half, and not all. The control term widens the Z's predictable range by h^±, so it
lowers every cap; where the Kelly bet gap/σ² already sits at its cap (continuous labels that
spread little within their range) the controlled bets grow more slowly than the label bets,
whatever ρ. Measured (bench/controls_default_bench.py, 20 orders): the controlled capital
alone (w = 1, the label capital's parts on the Z's) cost 5.5 % labels on Chaganty 1 − HTER
with chrF and 1.2 % on newstest2020 MQM with a ρ = 0.3 control; w = ½ keeps the label
capital's growth there (≤ 0.5 % at p80 with a useless control) and takes most of the gain
where the control counts (binary labels, ρ = 0.7, 100 orders: 0.82 – 0.91× the labels in
sums; w = ¼: 0.86 – 0.93×).

Sources: Waudby-Smith & Ramdas (2024) betting; Waudby-Smith & Ramdas (2020) the
without-replacement null; Chaganty et al. (2018), Angelopoulos et al. (2023, PPI++) and
Zrnic & Candès (2024) the control-variate / prediction-powered increment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from estimators.sequences import betting
from estimators.sequences import confidence_sequences as csq

#: The controlled part's share of the capital (the label capital keeps 1 − w).
WEIGHT = 0.5
#: The controlled part when mixed with the label capital: the aGRAPA bet with a cautious
#: and a bold cap C, half each (as :data:`estimators.sequences.betting.PARTS` weighs them).
KELLY = ((0.5, 0.5), (0.5, 0.9))
#: Pseudo-labels at c = 0 in the ridge slope: c_i = S_xg/(S_gg + RIDGE) on standardised g.
RIDGE = 10.0
#: Standardised controls are clipped to ±WINSOR (a fixed function of the pool's scores is
#: still a control with a known pool mean): the bet's cap falls with the control term's
#: range, so a few extreme scores would otherwise cap every bet.
WINSOR = 2.0
#: |c_i| ≤ C_MAX on standardised g: the largest slope labels in [0, 1] (sd ≤ ½) can have.
C_MAX = 0.5


@dataclass(frozen=True)
class ControlPool:
    """The control over the whole pool, standardised: g ↦ (g − mean)/sd (sd 1 when the pool's
    control is constant). ``total``, ``low``, ``high``: sum, min, max of the standardised
    pool values; ``size`` N."""

    mean: float
    sd: float
    total: float
    low: float
    high: float
    size: int

    @classmethod
    def of(cls, g_pool: np.ndarray) -> ControlPool:
        g = np.asarray(g_pool, dtype=float)
        mean, sd = float(g.mean()), float(g.std())
        sd = sd if sd > 0 else 1.0
        z = np.clip((g - mean) / sd, -WINSOR, WINSOR)
        return cls(mean, sd, float(z.sum()), float(z.min()), float(z.max()), int(g.size))

    def scaled(self, g: np.ndarray) -> np.ndarray:
        """Controls of labelled items on the standardised scale."""
        return np.clip((np.asarray(g, dtype=float) - self.mean) / self.sd, -WINSOR, WINSOR)


def _cum(a, start):  # type: ignore[no-untyped-def]
    return betting._cum(a, start)


def _prev(after: np.ndarray, first) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The value before each label from the values after each label and the one before the
    first (the end state of the previous piece)."""
    lead = np.broadcast_to(first, (*after.shape[:-1], 1))
    return np.concatenate([lead, after[..., :-1]], axis=-1)


def coefficients(x01, g, start=None):  # type: ignore[no-untyped-def]
    """(c_i before each label, end state): the ridge slope of x on g over the labels before
    i, c = S_xg/(S_gg + RIDGE) with S the centred sums, clipped to ±C_MAX; c_1 = 0. A
    function of labels 1..i−1 only (predictable). ``start``: the sums (n, Σx, Σg, Σxg, Σg²)
    and the last c of the labels before ``x01``."""
    n0, sx0, sg0, sxg0, sgg0, c0 = (0, None, None, None, None, 0.0) if start is None else start
    n = np.arange(n0 + 1, n0 + x01.shape[-1] + 1, dtype=float)
    sx, sg = _cum(x01, sx0), _cum(g, sg0)
    sxg, sgg = _cum(x01 * g, sxg0), _cum(g * g, sgg0)
    cov = sxg - sx * sg / n
    var = np.maximum(sgg - sg * sg / n, 0.0)
    c_after = np.clip(cov / (var + RIDGE), -C_MAX, C_MAX)
    # copies, not views: a view would keep the stream's whole arrays alive in the state
    end = (n0 + x01.shape[-1], *(a[..., -1:].copy() for a in (sx, sg, sxg, sgg, c_after)))
    return _prev(c_after, c0), end


def controlled_increments(x01, g, ctrl: ControlPool, pool_size, start=None):  # type: ignore[no-untyped-def]
    """(Z_i, h⁺_i, h⁻_i, end state) along ``x01`` with standardised controls ``g`` (module
    docstring): Z_i = x_i − c_i(g_i − ḡ_rem(i)) and the predictable extremes h^± of the
    control term over the pool's control range. ``pool_size`` None: ḡ = the pool mean."""
    coef_start, sg0 = (None, None) if start is None else start
    c, coef_end = coefficients(x01, g, coef_start)
    t = np.arange(
        (0 if coef_start is None else coef_start[0]) + 1,
        (0 if coef_start is None else coef_start[0]) + x01.shape[-1] + 1, dtype=float,
    )  # fmt: skip
    sg = _cum(g, sg0)
    if pool_size is None:
        g_rem = np.full_like(sg, ctrl.total / ctrl.size)
    else:
        g_rem = (ctrl.total - _prev(sg, 0.0 if sg0 is None else sg0)) / (float(pool_size) - t + 1.0)
    z = x01 - c * (g - g_rem)
    at_lo, at_hi = c * (ctrl.low - g_rem), c * (ctrl.high - g_rem)
    h_plus = np.maximum(np.maximum(at_lo, at_hi), 0.0)
    h_minus = np.minimum(np.minimum(at_lo, at_hi), 0.0)
    return z, h_plus, h_minus, (coef_end, sg[..., -1:].copy())


def controlled_log_capital_from(x01, g, m, ctrl, pool_size, tuning, state=None, parts=KELLY):  # type: ignore[no-untyped-def]
    """(log of the controlled capital along the stream, end state) against the null means
    ``m`` (m_i(θ) clipped to (0, 1), broadcasting against x01): the weighted ``parts``
    ((weight, bet) as :data:`estimators.sequences.betting.PARTS`: "plan" the hedged plan-sized bets,
    a number C the aGRAPA bet with that cap) on the Z's, every bet capped by the Z's
    predictable range (module docstring). ``tuning`` (α, t*) sizes the plan bets;
    ``state`` continues a carried stream with the very numbers of the whole."""
    inc_start, mom0, parts0 = (None, None, None) if state is None else state
    z, h_plus, h_minus, inc_end = controlled_increments(x01, g, ctrl, pool_size, inc_start)
    moments = betting.running_moments(z, mom0)
    mu_prev, s2_prev, t = moments[0], moments[1], moments[2]
    dev = z - m
    lo_room, hi_room = m + h_plus, 1.0 - m - h_minus  # |Z − m| on each side, at most
    out, ends = None, []
    parts0 = [None] * len(parts) if parts0 is None else parts0
    for (weight, bet), start in zip(parts, parts0, strict=True):
        with np.errstate(divide="ignore", invalid="ignore"):
            if bet == "plan":
                lam = betting.plan_bet(s2_prev, t, *tuning)
                st = (None, None) if start is None else start
                log_p = _cum(np.log1p(np.minimum(lam, betting.C_TRUNC / lo_room) * dev), st[0])
                log_m = _cum(np.log1p(-np.minimum(lam, betting.C_TRUNC / hi_room) * dev), st[1])
                ends.append((log_p[..., -1:].copy(), log_m[..., -1:].copy()))
                part = np.logaddexp(log_p, log_m) - math.log(2.0)
            else:
                gap = mu_prev - m
                lam = np.clip(gap / (s2_prev + gap * gap), -bet / hi_room, bet / lo_room)
                part = _cum(np.log1p(lam * dev), start)
                ends.append(part[..., -1:].copy())
        part = part + math.log(weight)
        out = part if out is None else np.logaddexp(out, part)
    return out, (inc_end, moments[3], ends)


def log_capital_from(x01, g, th, alpha, t_star, pool_size, ctrl, state=None, weight=WEIGHT):  # type: ignore[no-untyped-def]
    """(log K_t(θ) of the campaign's capital with a control, end state): (1 − w) × the label
    capital (:func:`estimators.sequences.betting.wor_log_capital_from`) + w × the controlled capital
    (:func:`controlled_log_capital_from` with the Kelly parts :data:`KELLY`); w = 1: the
    controlled capital alone, with the label capital's parts
    (:data:`estimators.sequences.betting.PARTS`)
    on the Z's. +∞ once the labels alone rule θ out. ``x01`` labels on [0, 1] (..., T);
    ``g`` their items' standardised controls (same shape); ``th`` the null pool mean(s) on
    [0, 1] (scalar or (G, 1)); ``state`` continues a carried stream."""
    base0, ctrl0, t0, s0 = (None, None, 0, None) if state is None else state
    sx = _cum(x01, s0)
    if pool_size is None:
        m = np.broadcast_to(np.asarray(th, dtype=float), np.broadcast_shapes(
            np.shape(th), x01.shape))  # fmt: skip
        bad = np.zeros(m.shape, dtype=bool)
    else:
        t = np.arange(t0 + 1, t0 + x01.shape[-1] + 1, dtype=float)
        s_prev = _prev(sx, 0.0 if s0 is None else s0)
        m = (float(pool_size) * th - s_prev) / (float(pool_size) - t + 1.0)
        bad = (m < -betting.WOR_TOL) | (m > 1 + betting.WOR_TOL)
    m = np.clip(m, 1e-12, 1 - 1e-12)
    tuning = (alpha, t_star)
    if weight >= 1.0:
        out0 = None if base0 is None else base0
        if out0 is not None:
            bad = bad | out0
        out = np.maximum.accumulate(bad, axis=-1)
        log_k, ctrl_end = controlled_log_capital_from(
            x01, g, m, ctrl, pool_size, tuning, ctrl0, betting.PARTS
        )
        end = (out[..., -1:].copy(), ctrl_end, t0 + x01.shape[-1], sx[..., -1:].copy())
        return np.where(out, np.inf, log_k), end
    log_base, base_end = betting.wor_log_capital_from(x01, th, alpha, t_star, pool_size, base0)
    log_ctrl, ctrl_end = controlled_log_capital_from(x01, g, m, ctrl, pool_size, tuning, ctrl0)
    log_k = np.logaddexp(log_base + math.log1p(-weight), log_ctrl + math.log(weight))
    end = (base_end, ctrl_end, t0 + x01.shape[-1], sx[..., -1:].copy())
    return log_k, end


def pvalue_path(z, g_items, g_pool, theta0, *, bounds, alpha_tuning, t_star, pool_size,
                burn_in, weight=WEIGHT):  # type: ignore[no-untyped-def]  # fmt: skip
    """Anytime p-value path min(1, min_{burn_in ≤ s ≤ t} 1/K_s(θ0)) of the capital with a
    control (:func:`log_capital_from`), as :func:`estimators.sequences.betting.betting_pvalue` reads
    the label capital: ``z`` labels (..., T) in ``bounds``, ``g_items`` their items' raw
    controls, ``g_pool`` the raw controls of the whole pool (N,)."""
    x01, th = betting._unit(z, theta0, bounds)
    ctrl = ControlPool.of(g_pool)
    log_k, _ = log_capital_from(
        x01, ctrl.scaled(g_items), th, alpha_tuning, t_star, pool_size, ctrl, weight=weight
    )
    t = np.arange(1, log_k.shape[-1] + 1)
    log_k = np.where(t < burn_in, -np.inf, log_k)
    return np.minimum.accumulate(np.minimum(1.0, np.exp(-np.maximum(log_k, 0.0))), axis=-1)


def _running(x01, g, m_grid, ctrl, args):  # type: ignore[no-untyped-def]
    """(G, T) max_{burn_in ≤ s ≤ t} log K_s(m[g]) (−∞ before the burn-in), or log K_t itself
    when not ``running`` (as :func:`estimators.sequences.betting._running_log_capital`)."""
    tune, t_star, burn_in, running, pool_size = args
    log_k, _ = log_capital_from(
        x01[None, :], g[None, :], m_grid[:, None], tune, t_star, pool_size, ctrl
    )
    t = np.arange(1, x01.size + 1)
    log_k = np.where(t[None, :] < burn_in, -np.inf, log_k)
    return np.maximum.accumulate(log_k, axis=-1) if running else log_k


def controlled_cs(z, g_items, g_pool, alpha, *, bounds, t_star, burn_in, pool_size,
                  alpha_tuning=None, running=True, grid=betting.CS_GRID,
                  refine=betting.REFINE):  # type: ignore[no-untyped-def]  # fmt: skip
    """The confidence sequence of one stream ``z`` (T,) with its items' controls ``g_items``
    and the pool's ``g_pool`` (raw scores): C_t = {θ : max_{s≤t} K_s(θ) < 1/α} of the capital
    with a control (:func:`log_capital_from`; Waudby-Smith & Ramdas 2024, JRSS-B, §4, by
    Ville's inequality), read exactly as :func:`estimators.sequences.betting.betting_cs` reads
    the label capital's: the last interval's ends found exactly
    (:func:`estimators.sequences.betting.last_ends`, nested from read to read), the earlier
    path drawn by linear interpolation on the grid."""
    tune = alpha if alpha_tuning is None else alpha_tuning
    z = np.asarray(z, dtype=float)
    lo, hi = float(bounds[0]), float(bounds[1])
    span = hi - lo
    x01 = np.clip((z - lo) / span, 0.0, 1.0)
    ctrl = ControlPool.of(g_pool)
    g = ctrl.scaled(g_items)
    m = np.linspace(0.0, 1.0, grid)[1:-1]
    step = 1.0 / (grid - 1)
    thr = math.log(1.0 / alpha)
    args = (tune, t_star, burn_in, running, pool_size)
    run = _running(x01, g, m, ctrl, args)
    centre, low01, high01, _ = betting._path_interval(run, m, thr, x01, step, burn_in)
    if running:
        low01, high01 = betting._nested(low01, high01)
    if z.size >= burn_in:

        def evaluate(points: np.ndarray) -> np.ndarray:
            return _running(x01, g, points, ctrl, args)[:, -1]

        low01[-1], high01[-1] = betting.last_ends(
            run[:, -1], m, thr, evaluate, refine, float(centre[-1]), x01=x01,
            pool_size=pool_size,
        )  # fmt: skip
    _, var, _ = csq._running_mean_var(z)
    return csq.ConfidenceSequence(
        center=centre * span + lo, lower=low01 * span + lo, upper=high01 * span + lo,
        sigma=np.sqrt(var), alpha=alpha,
        t_star=float(t_star) if t_star is not None else float("nan"), method="betting_cv",
    )  # fmt: skip


def evalue(z, g_items, g_pool, theta0, *, bounds, alpha_tuning, t_star, pool_size):  # type: ignore[no-untyped-def]
    """The e-process path K_t(θ0) of the capital with a control (e-BH reads its last entry)."""
    x01, th = betting._unit(z, theta0, bounds)
    ctrl = ControlPool.of(g_pool)
    log_k, _ = log_capital_from(
        x01, ctrl.scaled(g_items), th, alpha_tuning, t_star, pool_size, ctrl
    )
    return np.exp(log_k)
