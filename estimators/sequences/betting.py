"""Betting confidence sequence for bounded increments (hedged capital process).

docs/statistics-notes.md §5, §25. Waudby-Smith & Ramdas (2024), "Estimating means of bounded random
variables by betting", JRSS-B, §4 (Thm 3, the hedged capital process with predictable
plug-in bets). Increments are mapped to x ∈ [0, 1] with their known bounds; to test the
mean m a gambler bets on both sides:

    K⁺_t(m) = Π_{i≤t} (1 + λ⁺_i (x_i − m)),   K⁻_t(m) = Π_{i≤t} (1 − λ⁻_i (x_i − m)),
    K_t(m) = ½ K⁺_t(m) + ½ K⁻_t(m),

λ⁺_i = min(λ̇_i, c/m), λ⁻_i = min(λ̇_i, c/(1 − m)) (c = 1/2 keeps every factor ≥ 1/2),
λ̇_i = sqrt(2 log(2/α) / (σ̂²_{i−1} · t*)) with σ̂²_t = (1/4 + Σ_{i≤t}(x_i − μ̂_i)²)/(t + 1),
μ̂_t = (1/2 + Σ_{i≤t} x_i)/(t + 1) — the paper's plug-in with its t·log(1 + t) replaced by
the planned size t*, so the bets are sized for the planned stopping time (validity does not
depend on t*). When the increments have conditional mean m, K_t(m) is a nonnegative
martingale with K_0 = 1 (an average of two), so by Ville's inequality
P(∃t: K_t(m) ≥ 1/α) ≤ α: the anytime p-value is p_t = min(1, min_{s≤t} 1/K_s(m)) and the
confidence sequence is C_t = {m : max_{s≤t} K_s(m) < 1/α} (on a grid of m, widened by one
grid step; its convex hull is reported). The paper reports the max of the two halves; their
average, used here, is at least as large (tighter) and still a martingale. That hedged
capital is one of three parts of the capital used (:func:`log_capital`, :data:`PARTS`);
the other two are Kelly bets for the observed effect (their arithmetic:
:mod:`estimators.sequences.betting_capital`).
"""

from __future__ import annotations

import math

import numpy as np

from estimators.base.scratch import SCRATCH
from estimators.sequences import confidence_sequences as csq
from estimators.sequences import sequential as seq
from estimators.sequences.betting_capital import C_TRUNC as C_TRUNC
from estimators.sequences.betting_capital import PARTS as PARTS
from estimators.sequences.betting_capital import _cum, _log_capital_parts, _shifted, running_moments
from estimators.sequences.betting_capital import _kelly_log_capital as _kelly_log_capital
from estimators.sequences.betting_capital import _plan_halves as _plan_halves
from estimators.sequences.betting_capital import _plan_log_capital as _plan_log_capital
from estimators.sequences.betting_capital import kelly_bet as kelly_bet
from estimators.sequences.betting_capital import log_capital as log_capital
from estimators.sequences.betting_capital import plan_bet as plan_bet

#: Grid points over the bounds: the confidence sequence's path is drawn on them and the
#: exact end search of the last (reported) interval starts from them (:func:`exact_ends`).
CS_GRID = 61
#: The hierarchy of means of the exact end search (:func:`exact_ends`): each depth cuts a
#: cell into REFINE + 1 equal parts (the cells of a pass-by-pass search testing REFINE means
#: per bracket); the ends are found at the first depth whose cells are at most END_TOL wide
#: on the [0, 1] scale.
REFINE = 3
END_TOL = 2.0**-40
#: Passes of the search for a surviving mean between grid points (each two depths deeper).
SEEK_DEPTH = 4
#: Means the search for a surviving mean tests at least in the window the labels alone leave
#: (:func:`ruled_window`) when that window is narrower than the search's two grid cells.
SEEK_WINDOW_POINTS = 8

#: Rounding slack when deciding that a null pool mean is impossible given the labels.
WOR_TOL = 1e-9


def wor_log_capital(
    x01: np.ndarray, th: np.ndarray, alpha: float, t_star: float | None, pool_size: int | None
) -> np.ndarray:
    """log K_t for the null "the mean of the whole pool is θ" (``th`` on the [0, 1] scale).

    ``pool_size`` None: the labels are i.i.d. draws (or Des Raj increments) with mean θ.
    ``pool_size`` N: the labels are the pool's own values in a uniformly random order,
    without replacement (Waudby-Smith & Ramdas 2020, "Confidence sequences for sampling
    without replacement", §3): under the null the i-th label has conditional mean
    m_i(θ) = (N θ − S_{i−1})/(N − i + 1), S_{i−1} the sum of the first i − 1 labels, and
    the capital bets on x_i − m_i(θ) — every label at full weight, late ones included (the
    Des Raj increments shrink label i by (N − i + 1)/N). When m_i(θ) leaves [0, 1] the
    labelled part alone rules θ out and the capital is +∞ from then on.
    """
    return wor_log_capital_from(x01, th, alpha, t_star, pool_size)[0]


def wor_log_capital_from(x01, th, alpha, t_star, pool_size, state=None):  # type: ignore[no-untyped-def]
    """(log K_t of :func:`wor_log_capital` along ``x01``, the end state): ``state``, the end
    state after the labels before ``x01`` (None: none yet), continues a carried stream with
    the very numbers of the whole — the bets (:func:`plan_bet`, :func:`kelly_bet`) are
    functions of the past only, so they are the same however the stream is cut."""
    mom0, starts, out0 = (None, None, None) if state is None else state
    moments = running_moments(x01, mom0)
    if pool_size is None:
        m = np.minimum(np.maximum(th, 1e-12), 1 - 1e-12)
        log_k, ends = _log_capital_parts(x01, m, alpha, t_star, moments, starts)
        return log_k, (moments[3], ends, None)
    t = moments[2]
    s0 = None if mom0 is None else mom0[1]
    s_prev = _shifted(_cum(x01, s0), 0.0 if s0 is None else s0)
    shape = np.broadcast_shapes(np.shape(th), s_prev.shape)
    with SCRATCH.arrays() as take:
        m = np.subtract(float(pool_size) * th, s_prev, out=take(shape))
        m /= float(pool_size) - t + 1.0
        bad = np.less(m, -WOR_TOL, out=take(shape, bool))
        bad |= m > 1 + WOR_TOL
        if out0 is not None:
            bad |= out0
        out = _from_first(bad)
        np.maximum(m, 1e-12, out=m)
        log_k, ends = _log_capital_parts(
            x01, np.minimum(m, 1 - 1e-12, out=m), alpha, t_star, moments, starts
        )
        if out.any():
            log_k[out] = np.inf
        return log_k, (moments[3], ends, out[..., -1:].copy())


def _from_first(flag: np.ndarray) -> np.ndarray:
    """True from each row's first True on along the last axis (a running "or")."""
    if not flag.any():
        return flag
    hit = flag.any(axis=-1, keepdims=True)
    first = np.where(hit, np.argmax(flag, axis=-1, keepdims=True), flag.shape[-1])
    return np.arange(flag.shape[-1]) >= first


def ruled_window(x01: np.ndarray, pool_size: int | None) -> tuple[float, float] | None:
    """(a, b): the null pool means outside which the labels ``x01`` alone rule the mean out
    without replacement — m_i(θ) = (N θ − S_{i−1})/(N − i + 1) leaves [0, 1] (with
    :data:`WOR_TOL`) for some i ≤ t, so log K = +∞ there (:func:`wor_log_capital`) —;
    None with replacement or before any label. Near the census the window is about
    1/(N − t + 1) wide: where :func:`exact_ends` looks for the ends and for a survivor."""
    if pool_size is None or x01.size == 0:
        return None
    n, tol = float(pool_size), WOR_TOL
    left = n - np.arange(x01.size)  # N − i + 1
    s_prev = np.concatenate([[0.0], np.cumsum(x01)[:-1]])
    low = float(np.max(s_prev - tol * left)) / n
    return low, float(np.min(s_prev + (1 + tol) * left)) / n


def _unit(z, theta0, bounds):  # type: ignore[no-untyped-def]
    """Labels and null mean(s) on the [0, 1] scale of ``bounds``."""
    lo, hi = float(bounds[0]), float(bounds[1])
    x01 = np.clip((np.asarray(z, dtype=float) - lo) / (hi - lo), 0.0, 1.0)
    th = (np.asarray(theta0, dtype=float) - lo) / (hi - lo)
    return x01, (th[..., None] if th.ndim else th)


def betting_pvalue(
    z: np.ndarray,
    theta0: float | np.ndarray,
    *,
    bounds: tuple[float, float],
    alpha_tuning: float = 0.05,
    t_star: float | None = None,
    burn_in: int = seq.BURN_IN,
    pool_size: int | None = None,
) -> np.ndarray:
    """Anytime p-value path p_t = min(1, min_{burn_in ≤ s ≤ t} 1/K_s(θ0)) (see module;
    ``pool_size``: the without-replacement null of :func:`wor_log_capital`)."""
    x01, th = _unit(z, theta0, bounds)
    log_k = wor_log_capital(x01, th, alpha_tuning, t_star, pool_size)
    t = np.arange(1, log_k.shape[-1] + 1)
    log_k = np.where(t < burn_in, -np.inf, log_k)
    p = np.minimum(1.0, np.exp(-np.maximum(log_k, 0.0)))
    return np.minimum.accumulate(p, axis=-1)


def betting_evalue(
    z: np.ndarray,
    theta0: float | np.ndarray,
    *,
    bounds: tuple[float, float],
    alpha_tuning: float = 0.05,
    t_star: float | None = None,
    pool_size: int | None = None,
) -> np.ndarray:
    """The e-process path K_t(θ0) (not its running maximum): a nonnegative martingale with
    K_0 = 1 under the null, so K_τ is an e-value at any stopping time τ (optional stopping:
    E[K_τ] ≤ 1). The e-BH procedure (Wang & Ramdas 2022) reads these at the moment of the
    read; they are valid under any dependence between the pairs."""
    x01, th = _unit(z, theta0, bounds)
    return np.exp(wor_log_capital(x01, th, alpha_tuning, t_star, pool_size))


def _running_log_capital(x01, m, alpha, t_star, burn_in, running=True, pool_size=None):  # type: ignore[no-untyped-def]
    """(G, T): max_{burn_in ≤ s ≤ t} log K_s(m[g]) (−∞ before the burn-in); with
    ``running=False`` log K_t(m[g]) itself."""
    log_k = wor_log_capital(x01[None, :], m[:, None], alpha, t_star, pool_size)
    t = np.arange(1, x01.size + 1)
    log_k = np.where(t[None, :] < burn_in, -np.inf, log_k)
    return np.maximum.accumulate(log_k, axis=-1) if running else log_k


def betting_cs(
    z: np.ndarray,
    alpha: float = 0.05,
    *,
    bounds: tuple[float, float],
    t_star: float | None = None,
    burn_in: int = seq.BURN_IN,
    grid: int = CS_GRID,
    refine: int = REFINE,
    alpha_tuning: float | None = None,
    running: bool = True,
    pool_size: int | None = None,
) -> csq.ConfidenceSequence:
    """The betting confidence sequence of one stream ``z`` (shape (T,)) at level α.

    C_t = {m : max_{burn_in ≤ s ≤ t} K_s(m) < 1/α} (Waudby-Smith & Ramdas 2024, JRSS-B,
    §4: by Ville's inequality the mean lies in every C_t with probability ≥ 1 − α). The
    running maximum never decreases, so C_t ⊂ C_{t−1}: the sequence is its own running
    intersection. ``running=False`` reports {m : K_t(m) < 1/α} (the current capital, not its
    running maximum): also a valid confidence sequence (Ville's inequality bounds the chance
    that K_t(m*) ever reaches 1/α), wider, not nested, and dual to the e-value K_t(0) that
    e-BH reads. ``pool_size`` N: a sequence for the mean of a finite pool whose values
    arrive in a uniformly random order (:func:`wor_log_capital`); it shrinks to the pool mean
    as the pool is exhausted.

    The reported (last) interval is C_t's hull with its ends found exactly
    (:func:`exact_ends`: brackets from the capital on a grid of ``grid`` means over
    ``bounds``, cut ``refine`` + 1 ways a pass down to :data:`END_TOL`), never narrower than
    C_t, and nested from one read to the next; at the census of a finite pool, the pool
    mean itself when C_t holds it (:func:`last_ends`). Earlier entries of the path (the width
    chart) place each end by linear interpolation of log K between the two grid means
    around the crossing of log(1/α), within the two grid cells around the least capital
    when no grid mean survives, and (running sets) as the running intersection of those
    drawn intervals: a drawing of the path, not an interval to act on. (lo, hi) before the
    burn-in. ``alpha_tuning`` (default α) sizes the bets: with the bets fixed, the sets are
    nested in α, and Δ = 0 (a grid mean) is outside the interval at level a exactly when
    :func:`betting_pvalue` (same tuning) is ≤ a.
    """
    tune = alpha if alpha_tuning is None else alpha_tuning
    z = np.asarray(z, dtype=float)
    if z.ndim != 1:
        raise ValueError("betting_cs takes one stream; use betting_pvalue for batches")
    lo, hi = float(bounds[0]), float(bounds[1])
    span = hi - lo
    x01 = np.clip((z - lo) / span, 0.0, 1.0)
    m = np.linspace(0.0, 1.0, grid)[1:-1]
    step = 1.0 / (grid - 1)
    thr = math.log(1.0 / alpha)
    run = _running_log_capital(x01, m, tune, t_star, burn_in, running, pool_size)  # (G, T)
    centre, low01, high01, _ = _path_interval(run, m, thr, x01, step, burn_in)
    if running:
        low01, high01 = _nested(low01, high01)
    if z.size >= burn_in:
        args = (tune, t_star, burn_in, running, pool_size)

        def evaluate(points: np.ndarray) -> np.ndarray:
            return _running_log_capital(x01, points, *args)[:, -1]

        low01[-1], high01[-1] = last_ends(
            run[:, -1], m, thr, evaluate, refine, float(centre[-1]), x01=x01,
            pool_size=pool_size,
        )  # fmt: skip
    _, var, _ = csq._running_mean_var(z)
    return csq.ConfidenceSequence(
        center=centre * span + lo,
        lower=low01 * span + lo,
        upper=high01 * span + lo,
        sigma=np.sqrt(var),
        alpha=alpha,
        t_star=float(t_star) if t_star is not None else float("nan"),
        method="betting",
    )


def last_ends(levels, m, thr, evaluate, refine, centre, *, x01, pool_size, level_of=None,  # type: ignore[no-untyped-def]
              **search):  # fmt: skip
    """The last interval's ends on [0, 1]: :func:`exact_ends` (``search``: its further
    arguments), except at the census — every one of the ``pool_size`` values labelled,
    ``x01``, whose mean ``centre`` then is the pool mean exactly. There the interval is
    C_t ∩ {the pool mean}: the point itself when its level is below ``thr`` (one capital of
    one mean, where the search tests ten or more; the same point the known part of the
    pool leaves, estimators.live.analysis), else the search's interval (C_t has missed the
    mean, which happens with probability at most α). Nested: C_t ⊂ C_{t−1} holds the mean.
    ``level_of``: the level at one mean over the whole stream (default ``evaluate``; a
    carried read passes the plain computation, which one mean costs less than a carried
    search's capital of two)."""
    census = pool_size is not None and x01.size == pool_size
    level = evaluate if level_of is None else level_of
    if census and float(level(np.array([centre]))[0]) < thr:
        return centre, centre
    ruled = ruled_window(x01, pool_size)
    return exact_ends(levels, m, thr, evaluate, refine, centre, ruled=ruled, **search)


def _nested(low01: np.ndarray, high01: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The running intersection of a path of intervals (running sets are nested)."""
    return np.maximum.accumulate(low01), np.minimum.accumulate(high01)


def _path_interval(run, m, thr, x01, step, burn_in, t0=0, centre=None):  # type: ignore[no-untyped-def]
    """The path's drawn intervals on [0, 1]: the grid means whose level (``run``) stays below
    thr, each end placed by :func:`_crossing`; when no grid mean survives, the two grid
    cells around the least level (where a quasi-convex capital's set lies); (0, 1) before
    the burn-in. Also (first, last, any) surviving mean. ``t0``, ``centre``: the columns of
    ``run`` are labels t0 + 1, … with running means ``centre`` (a carried stream's new
    labels)."""
    alive = run < thr
    any_alive = alive.any(axis=0)
    first = np.argmax(alive, axis=0)
    last = alive.shape[0] - 1 - np.argmax(alive[::-1], axis=0)

    t = np.arange(t0 + 1, t0 + run.shape[1] + 1)
    centre = np.cumsum(x01) / t if centre is None else centre
    least = m[np.argmin(run, axis=0)]
    low01 = np.where(
        any_alive, _crossing(run, m, thr, first, first - 1), np.maximum(least - step, 0.0)
    )
    high01 = np.where(
        any_alive, _crossing(run, m, thr, last, last + 1), np.minimum(least + step, 1.0)
    )
    early = t < burn_in
    low01, high01 = np.where(early, 0.0, low01), np.where(early, 1.0, high01)
    return centre, low01, high01, (first, last, any_alive)


def _crossing(
    run: np.ndarray, m: np.ndarray, thr: float, inside: np.ndarray, outside: np.ndarray
) -> np.ndarray:
    """m where the running log K crosses thr between two neighbouring grid points (linear
    interpolation of log K; the edge 0 or 1 past the grid)."""
    cols = np.arange(run.shape[1])
    a, b = run[inside, cols], run[np.clip(outside, 0, m.size - 1), cols]
    edge = np.where(outside < 0, 0.0, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.clip((thr - a) / (b - a), 0.0, 1.0)
    out_m = np.where((outside < 0) | (outside >= m.size), edge, m[np.clip(outside, 0, m.size - 1)])
    return np.where(np.isfinite(w), m[inside] + w * (out_m - m[inside]), out_m)


class _Points:
    """The fixed hierarchy of means the end search tests: at depth d every grid cell
    [e_c, e_{c+1}] (``edges`` = the grid with 0 and 1) is cut into B^d equal parts, B =
    ``base``; the point u (an integer) at depth d is e_c + (e_{c+1} − e_c)·(n / B^d),
    (c, n) = divmod(u, B^d) — computed by one formula, so a point is the same float
    whichever bracket reaches it."""

    def __init__(self, edges: np.ndarray, base: int) -> None:
        self.edges, self.base = edges, base
        step = float(np.max(np.diff(edges)))
        self.depth = max(0, math.ceil(math.log(step / END_TOL) / math.log(base)))
        #: the edge 1 in depth-D units (the edge 0 is 0)
        self.top = (edges.size - 1) * base**self.depth

    def value(self, u: int, d: int) -> float:
        c, n = divmod(u, self.base**d)
        if n == 0:
            return float(self.edges[c])
        lo, hi = float(self.edges[c]), float(self.edges[c + 1])
        return lo + (hi - lo) * (n / self.base**d)


def exact_ends(  # type: ignore[no-untyped-def]
    levels, m, thr, evaluate, refine=REFINE, centre=0.5, carried=(), kept=None, ruled=None
):
    """The ends (lower, upper) on [0, 1] of C = {θ : L(θ) < thr}, L the capital's level at
    the last step (max_{burn_in ≤ s ≤ t} log K_s(θ) for the running sets, log K_t(θ) for
    the current ones): ``levels`` L on the grid ``m`` (evenly spaced inside (0, 1)),
    ``evaluate(points)`` L at further means (over the whole stream). Exact to
    :data:`END_TOL`, and never narrower than C when C is an interval (L quasi-convex in θ,
    as the running maximum of quasi-convex capitals is).

    The means tested are points of one fixed hierarchy (:class:`_Points`: every grid cell
    cut into B^d equal parts at depth d, B = ``refine`` + 1), and the ends are defined on its
    deepest level D (the first whose cells are at most :data:`END_TOL` wide): the lower end
    lies just inside the excluded point u_lo of depth D (L ≥ thr, or the edge 0) whose next
    point u_lo + 1 survives (L < thr), the upper end likewise. Each end is bracketed by an
    excluded point and a surviving one, from the grid first (every grid mean's L is known),
    then narrowed by the means of ``carried`` inside the bracket (the means a previous read
    tested, whose L ``evaluate`` reads cheaply off carried capitals), then by a safeguarded
    secant search on f(θ) = L(θ) − thr (Dekker 1969; each step tests the depth-D points just
    below and above the linear interpolation's root, a margin apart estimated from the
    previous step's error, so a step closes the bracket from both sides — the two
    neighbours around the root once that error is under half a point, so the last step
    ends the search; the quarter points
    of the bracket when f is not finite at its excluded end) until the two points are
    neighbours at depth D. For a quasi-convex L the surviving points of depth D are
    contiguous, so the bracket found is the same whatever points the search tested: the
    ends equal those of the pass-by-pass search down the hierarchy (``refine`` means per
    bracket and pass), and a read of carried capitals equals a search over the whole
    stream. When no grid mean survives, the two grid cells around the grid's least L are
    searched for a survivor (all the means two depths deeper, then around the least L found,
    :data:`SEEK_DEPTH` times): a quasi-convex L has its sublevel set there; when the window
    ``ruled`` leaves is narrower than those two cells (near the census), the first pass
    tests :data:`SEEK_WINDOW_POINTS` or more means across that window instead, where
    every survivor lies. Ties (L = +∞
    wherever the labelled part alone rules the mean out, near the census) go to the mean
    nearest ``centre``, the running mean of the labels, which the labelled part never rules
    out. The reported ends are the floats next to the final excluded means, on the inside:
    a mean tested and excluded — the null Δ = 0 of a pair is the grid's middle mean — is
    never inside the interval, so with the p-value of the same capital p ≤ 1/e^thr exactly
    when the interval excludes it. ``kept`` (a list): the tested means worth carrying to the
    next read are appended (per end and side the nearest at each scale). ``ruled``: (a, b),
    the means outside which the labelled part alone rules the mean out (L = +∞, no secant:
    a jump), whose depth-D points the search tests first when an end's excluded side is
    +∞ — a guess only, the bracket rule decides —, and where the seek looks first.

    Nested: the running level never decreases in t, so the surviving points of depth D at t
    are among those at t − 1 and each end moves only inward from one read to the next (C
    quasi-convex). No surviving mean found (C empty, to the search's resolution): (θ̂, θ̂),
    θ̂ the tested mean of least L."""
    edges = np.concatenate([[0.0], m, [1.0]])
    pts = _Points(edges, refine + 1)
    tested: list[tuple[float, float]] = []  # (mean, L) the seek tested
    alive = levels < thr
    if alive.any():
        f, g = int(np.argmax(alive)), int(alive.size - 1 - np.argmax(alive[::-1]))
        lo, hi = [f, 0], [g + 1, 0]  # [u, depth]: bracket [u, u + 1] at that depth
    elif (found := _carried_survivors(pts, thr, evaluate, carried)) is not None:
        lo, hi = found
    else:
        found = _seek(levels, pts, thr, evaluate, centre, ruled, tested)
        if isinstance(found, float):
            return found, found
        lo, hi = found
    grid_f = {i * pts.base**pts.depth: float(v) - thr for i, v in enumerate(levels, start=1)}
    ends = [_End(pts, lo, False, grid_f), _End(pts, hi, True, grid_f)]
    if ruled is not None:
        ends[0].jump, ends[1].jump = (_position(pts, float(x)) for x in ruled)
    # what the seek tested, L known: recorded where it narrows a bracket
    for x, v in tested:
        if (u := _coordinate(pts, x)) is not None:
            for e in ends:
                if e.inside(u):
                    e.record(u, x, v - thr)
    for e in ends:  # the seek tested the points around the jump already
        if e.jump is not None and any(abs(u - e.jump) < 1.5 for u in e.seen):
            e.jump = None
    # the carried means inside each bracket: L read off carried capitals, no new capital
    coords = [(u, x) for x in carried if (u := _coordinate(pts, x)) is not None]
    cands = [(e, u, x) for u, x in coords for e in ends if e.inside(u)]
    if cands:
        lev = evaluate(np.array([x for _, _, x in cands]))
        for (e, u, x), v in zip(cands, lev, strict=True):
            e.record(u, x, float(v) - thr)
    for e in ends:
        e.narrow()
    while True:
        todo = [(e, u) for e in ends if not e.done() for u in e.next_points()]
        if not todo:
            break
        xs = [pts.value(u, pts.depth) for _, u in todo]
        lev = evaluate(np.array(xs))
        for (e, u), x, v in zip(todo, xs, lev, strict=True):
            e.record(u, x, float(v) - thr)
        for e in ends:
            e.narrow()
    if kept is not None:
        for e in ends:
            kept.extend(e.nearest())
    low_u, high_u = ends[0].out, ends[1].out
    low, high = pts.value(low_u, pts.depth), pts.value(high_u, pts.depth)
    # the edges 0 and 1 are not tested means; every other bracket end is excluded
    low = low if low_u == 0 else float(np.nextafter(low, 1.0))
    high = high if high_u == pts.top else float(np.nextafter(high, 0.0))
    return low, high


def _carried_survivors(pts: _Points, thr, evaluate, carried):  # type: ignore[no-untyped-def]
    """When no grid mean survives: the grid cells ([c, 0] brackets of :func:`exact_ends`) of
    the least and greatest carried means that survive (the last read's survivors, L read off
    carried capitals), None when none does. The cells' grid ends are excluded, not
    surviving: the carried survivors inside them are recorded first and become the brackets'
    surviving ends. For a quasi-convex L the survivors' points are contiguous, so the ends
    are those the seek would bracket."""
    us = {u: x for x in carried if (u := _coordinate(pts, float(x))) is not None}
    if not us:
        return None
    keys = sorted(us)
    lev = evaluate(np.array([us[u] for u in keys]))
    alive = [u for u, v in zip(keys, lev, strict=True) if v < thr]
    if not alive:
        return None
    cell = pts.base**pts.depth
    return [min(alive) // cell, 0], [max(alive) // cell, 0]


def _position(pts: _Points, x: float) -> float | None:
    """The mean ``x`` in depth-D units of the hierarchy (a real number), None outside (0, 1)."""
    if not 0.0 < x < 1.0:
        return None
    c = int(np.searchsorted(pts.edges, x, side="right")) - 1
    lo, hi = float(pts.edges[c]), float(pts.edges[c + 1])
    return (c + (x - lo) / (hi - lo)) * pts.base**pts.depth


def _coordinate(pts: _Points, x: float) -> int | None:
    """The depth-D coordinate of the mean ``x`` when it is a point of the hierarchy (the
    same float :meth:`_Points.value` gives), else None."""
    c = int(np.searchsorted(pts.edges, x, side="right")) - 1
    if c < 0 or c >= pts.edges.size - 1:
        return None
    lo, hi = float(pts.edges[c]), float(pts.edges[c + 1])
    n = round((x - lo) / (hi - lo) * pts.base**pts.depth)
    u = c * pts.base**pts.depth + n
    return u if pts.value(u, pts.depth) == x else None


class _End:
    """One end's bracket at depth D of :func:`exact_ends`: ``out`` an excluded point (or an
    edge), ``inn`` a surviving one, their f = L − thr (+∞ at an edge), and every point
    tested for this end (coordinate → (mean, f))."""

    def __init__(self, pts: _Points, bracket, upper: bool, grid_f: dict) -> None:  # type: ignore[no-untyped-def]
        scale = pts.base ** (pts.depth - bracket[1])
        a, b = bracket[0] * scale, (bracket[0] + 1) * scale
        self.pts, self.upper = pts, upper
        self.out, self.inn = (b, a) if upper else (a, b)
        # the edges, and the points of the seek (tested, L not kept): f unknown
        self.f_out, self.f_inn = grid_f.get(self.out, math.inf), grid_f.get(self.inn, -math.inf)
        self.seen: dict[int, tuple[float, float]] = {}
        self.kappa: float | None = None  # observed secant error / width² (the curvature)
        self.guess: float | None = None
        self.width0 = 0.0
        self.jump: float | None = None  # where L jumps to +∞ (exact_ends, ``ruled``)

    def inside(self, u: int) -> bool:
        return min(self.out, self.inn) < u < max(self.out, self.inn)

    def done(self) -> bool:
        return abs(self.inn - self.out) <= 1

    def record(self, u: int, x: float, f: float) -> None:
        self.seen[u] = (x, f if f == f else math.inf)  # NaN: not below thr, excluded

    def narrow(self) -> None:
        """The tightest bracket the tested points give: the surviving point nearest the
        excluded end, then the excluded point nearest it between the two."""
        sign = -1 if self.upper else 1
        alive = [u for u in self.seen if self.inside(u) and self.seen[u][1] < 0]
        if alive:
            u = min(alive, key=lambda v: sign * v)
            self.inn, self.f_inn = u, self.seen[u][1]
        dead = [u for u in self.seen if self.inside(u) and self.seen[u][1] >= 0]
        if dead:
            u = max(dead, key=lambda v: sign * v)
            self.out, self.f_out = u, self.seen[u][1]
        if self.guess is not None and math.isfinite(self.f_out) and math.isfinite(self.f_inn):
            # the secant step's error against the new bracket's root: the curvature scale
            self.kappa = abs(self._root() - self.guess) / max(self.width0, 1.0) ** 2
        self.guess = None

    def _root(self) -> float:
        a, b, fa, fb = self.out, self.inn, self.f_out, self.f_inn
        if not math.isfinite(fb):
            return (a + b) / 2.0
        return a + (b - a) * (fa / (fa - fb))

    def next_points(self) -> list[int]:
        """The points to test next (strictly inside the bracket)."""
        a, b = sorted((self.out, self.inn))
        if not math.isfinite(self.f_out) and self.jump is not None:
            jump, self.jump = self.jump, None  # tried once
            if a < jump < b:
                us = {min(max(round(jump) + k, a + 1), b - 1) for k in range(-2, 3)}
                return sorted(us)
        if not (math.isfinite(self.f_out) and math.isfinite(self.f_inn)):
            step = (b - a) / self.pts.base
            us = {a + max(1, int(step * k)) for k in range(1, self.pts.base)}
            return sorted(u for u in us if a < u < b)
        r = min(max(self._root(), a), b)
        width = b - a
        error = width / 64.0 if self.kappa is None else 2.0 * self.kappa * width**2
        self.guess, self.width0 = r, width
        if error < 0.5:  # the root is expected between two neighbours: test those two
            lo_u = min(max(math.floor(r), a + 1), b - 1)
            hi_u = min(lo_u + 1, b - 1)
        else:
            lo_u = min(max(math.floor(r - 1.0 - error), a + 1), b - 1)
            hi_u = min(max(math.ceil(r + 1.0 + error), a + 1), b - 1)
        return sorted({lo_u, hi_u})

    def nearest(self) -> list[float]:
        """Tested means to carry: on each side of the end, the nearest at each scale (one per
        power of the base of the distance), so that wherever the next read's end lies, a
        carried mean brackets it within a factor of the base."""
        near: dict[tuple[bool, int], int] = {}
        for u, (_, f) in self.seen.items():
            side = f < 0
            dist = abs(u - (self.out if side else self.inn))
            key = (side, int(math.log(max(dist, 1)) / math.log(self.pts.base)))
            if key not in near or dist < abs(near[key] - (self.out if side else self.inn)):
                near[key] = u
        return [self.seen[u][0] for u in near.values()]


def _least(levels: np.ndarray, means: np.ndarray, centre: float) -> int:
    """The index of the least level, ties to the mean nearest ``centre``."""
    return int(np.lexsort((np.abs(means - centre), levels))[0])


def _seek(levels, pts: _Points, thr, evaluate, centre, ruled=None, tested=None):  # type: ignore[no-untyped-def]
    """Brackets ([u, depth] lower, upper) of :func:`exact_ends` from a search for a surviving
    mean when no grid mean survives, or the tested mean of least L (a float) when none is
    found. The window starts as the two grid cells around the grid's least L, or as the
    window ``ruled`` leaves when it is narrower (:func:`_ruled_start`): then the depth-D
    points around that window's ends (where the labels alone start ruling the mean out, the
    ends near the census) are tested first, alone, and when they bracket both ends
    (:func:`_jump_brackets`) nothing else is. ``tested`` (a list): every (mean, L) tested is
    appended."""
    j = _least(levels, pts.edges[1:-1], centre) + 1  # the edge index of the grid's least L
    a, b, d, best, best_level = j - 1, j + 1, 0, float(pts.edges[j]), float(levels[j - 1])
    start = _ruled_start(pts, ruled)
    jumps = _jump_points(pts, ruled) if start is not None else {}
    if jumps:
        lev = evaluate(np.array(list(jumps.values())))
        if tested is not None:
            tested.extend(zip(jumps.values(), lev.tolist(), strict=True))
        found = _jump_brackets(dict(zip(jumps, (lev < thr).tolist(), strict=True)), pts.depth)
        if found is not None:
            return found
    for n in range(SEEK_DEPTH):
        if n == 0 and start is not None:
            a, b, d = start
        else:
            a, b, d = a * pts.base**2, b * pts.base**2, d + 2
        us = np.arange(a + 1, b)
        means = np.array([pts.value(int(u), d) for u in us])
        lev = evaluate(means)
        if tested is not None:
            tested.extend(zip(means.tolist(), lev.tolist(), strict=True))
        means, lev = means[: us.size], lev[: us.size]
        alive = lev < thr
        if alive.any():
            f, g = int(np.argmax(alive)), int(alive.size - 1 - np.argmax(alive[::-1]))
            return [int(us[f]) - 1, d], [int(us[g]), d]
        k = _least(lev, means, centre)
        nearer = abs(means[k] - centre) < abs(best - centre)
        if lev[k] < best_level or (lev[k] == best_level and nearer):
            best, best_level = pts.value(int(us[k]), d), float(lev[k])
        a, b = int(us[k]) - 1, int(us[k]) + 1
    return best


def _jump_points(pts: _Points, ruled) -> dict[int, float]:  # type: ignore[no-untyped-def]
    """The depth-D points next to each end of the window ``ruled`` inside (0, 1) (the five
    :meth:`_End.next_points` tests there): coordinate → mean."""
    out: dict[int, float] = {}
    for x in ruled:
        pos = _position(pts, float(x))
        if pos is not None:
            out.update((u, pts.value(u, pts.depth)) for k in range(-2, 3)
                       if 0 < (u := round(pos) + k) < pts.top)  # fmt: skip
    return out


def _jump_brackets(alive: dict[int, bool], depth: int):  # type: ignore[no-untyped-def]
    """Both brackets ([u, D], :func:`exact_ends`) from the depth-D points around the window's
    ends alone (coordinate → survives), or None: the lower end between the first surviving
    point and the excluded point just below it, the upper between the last surviving point
    and the excluded one just above it, each pair of neighbours tested. Near the census both
    ends sit there, and the points between need no test: for a quasi-convex L the surviving
    points are contiguous, so the ends are those of any other search."""
    live = [u for u, ok in alive.items() if ok]
    if not live:
        return None
    first, last = min(live), max(live)
    if alive.get(first - 1) is False and alive.get(last + 1) is False:
        return [first - 1, depth], [last, depth]
    return None


def _ruled_start(pts: _Points, ruled) -> tuple[int, int, int] | None:  # type: ignore[no-untyped-def]
    """The seek's first window (a, b, depth d: the points a + 1 … b − 1 of depth d tested)
    across the window ``ruled`` = (lo, hi) the labels alone leave, with one point of depth d
    beyond each of its ends (ruled out, so brackets may end there): at the first depth with
    :data:`SEEK_WINDOW_POINTS` points or more inside it. None when there is no such window,
    or when it is not narrower than the two grid cells the seek starts from otherwise."""
    if ruled is None:
        return None
    lo = _position(pts, float(ruled[0])) if ruled[0] > 0.0 else 0.0
    hi = _position(pts, float(ruled[1])) if ruled[1] < 1.0 else float(pts.top)
    if lo is None or hi is None or not hi > lo:
        return None
    cell = float(pts.base**pts.depth)  # a grid cell in depth-D units
    if hi - lo >= 2.0 * cell:
        return None
    for d in range(pts.depth + 1):
        scale = pts.base ** (pts.depth - d)
        a, b = math.floor(lo / scale) - 1, math.ceil(hi / scale) + 1
        if b - a - 1 >= SEEK_WINDOW_POINTS + 2:
            return max(a, 0), min(b, pts.top // scale), d
    return None


def betting_half_width(
    sigma: float,
    span: float,
    t: float,
    alpha: float,
    t_star: float | None,
    alpha_tuning: float | None = None,
) -> float:
    """Approximate half-width after t increments with SD σ (for forecasts): with a constant
    bet λ = sqrt(2 log(2/α_tune)/(σ_x² t*)) the boundary is log(2/α)/(λ t) + λ σ_x²/2 on
    the [0, 1] scale (σ_x = σ/span), times ``span`` (α_tune = ``alpha_tuning``, default α)."""
    sx2 = max((sigma / span) ** 2, 1e-12)
    ts = float(t_star) if t_star is not None else t * math.log1p(t)
    tune = alpha if alpha_tuning is None else alpha_tuning
    lam = min(math.sqrt(2.0 * math.log(2.0 / tune) / (sx2 * ts)), C_TRUNC / 0.5)
    return span * (math.log(2.0 / alpha) / (lam * t) + lam * sx2 / 2.0)
