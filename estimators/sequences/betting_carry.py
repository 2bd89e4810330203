"""The betting confidence sequence and p-value of one stream, carried label by label.

docs/statistics-notes.md §5, §25; Waudby-Smith & Ramdas (2024, 2020) as in
:mod:`estimators.sequences.betting`. The capital K_t(m) of every null mean m is a product of
factors 1 + λ_i(x_i − m_i), each bet λ_i a function of x_1..x_{i−1} only
(:func:`estimators.sequences.betting.plan_bet`, :func:`estimators.sequences.betting.kelly_bet`;
the null mean m_i without replacement likewise). So the state after t labels — the plug-in
sums, each part's log capital and the without-replacement exclusion flag per null mean
(:func:`estimators.sequences.betting.wor_log_capital_from`), and the running maximum of
log K since the burn-in — is all a new label needs: extending it costs O(grid), not O(t),
and gives the numbers of the whole path bit for bit (the sums are accumulated in the same
order). The p-value is read from it exactly as
:func:`estimators.sequences.betting.betting_pvalue` reads it from the whole path; the reported
(last) interval's ends are found exactly (:func:`estimators.sequences.betting.exact_ends`) from
the carried grid, testing the further means over the labels so far (O(t) per tested mean,
at each read) — the very computation of :func:`estimators.sequences.betting.betting_cs`, so the
carried reads equal the full recomputation's (tests/estimators/live/test_carry.py). The
capitals of the means a read's search tested are carried to the next read (:class:`Probe`)
and extended by the new labels when the search tests them again: the search's means are
points of one fixed hierarchy, it first reads the carried means inside its brackets (the
nearest at each scale on each side of the last ends), and only its few secant steps past
them cost O(t).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from estimators.sequences import betting


@dataclass(frozen=True)
class Capital:
    """log K_t(m) for the null means ``th`` ((G, 1), [0, 1] scale) after ``t`` labels:
    ``last`` the current log capital, ``run`` its maximum since the burn-in (−∞ before)."""

    th: np.ndarray
    tuning: tuple  # (alpha, t_star, pool_size, burn_in)
    t: int = 0
    state: tuple | None = None
    last: np.ndarray | None = None
    run: np.ndarray | None = None

    def extended(self, x01: np.ndarray) -> Capital:
        """The capital after the further labels ``x01`` (shape (n,), [0, 1] scale)."""
        return self.extend(x01)[0]

    def extend(self, x01: np.ndarray):  # type: ignore[no-untyped-def]
        """(the capital after ``x01``, log K after each of them (G, n) — −∞ before the
        burn-in — and its running maximum (G, n))."""
        burn_in = self.tuning[3]
        if x01.size == 0:
            return self, np.zeros((self.th.shape[0], 0)), np.zeros((self.th.shape[0], 0))
        log_k, state = self._log_capital(x01)
        t = np.arange(self.t + 1, self.t + x01.size + 1)
        masked = np.where(t[None, :] < burn_in, -np.inf, log_k)
        run = np.maximum.accumulate(masked, axis=-1)
        if self.run is not None:
            run = np.maximum(run, self.run[:, None])
        # copies, not views: a view would keep the whole (G, n) arrays alive in the state
        last, top = log_k[:, -1].copy(), run[:, -1].copy()
        new = replace(self, t=self.t + x01.size, state=state, last=last, run=top)
        return new, masked, run

    def _log_capital(self, x01: np.ndarray):  # type: ignore[no-untyped-def]
        """(log K after each of ``x01`` (G, n), the end state), continuing :attr:`state`."""
        alpha, t_star, pool_size, _ = self.tuning
        return betting.wor_log_capital_from(
            x01[None, :], self.th, alpha, t_star, pool_size, self.state
        )

    def current(self) -> np.ndarray:
        """log K_t itself, −∞ before the burn-in (the non-running sets, e-BH)."""
        burn_in = self.tuning[3]
        return self.last if self.t >= burn_in else np.full(self.th.shape[0], -np.inf)


@dataclass(frozen=True)
class Probe:
    """The capitals of the means one read's end search tested (:func:`exact_ends`), kept
    for the next read: ``caps`` capitals after the labels of that read (or fewer), ``rows``
    a tested mean → (index into ``caps``, its row there)."""

    caps: tuple[Capital, ...]
    rows: dict[float, tuple[int, int]]


class _ProbeReader:
    """The level at the last step at further null means for one read of ``state``: a mean
    the previous read tested is read off its carried capital, extended by the labels since
    (one call per carried capital, for all its means), any other from a new capital over the
    labels so far — the same sums in the same order as
    :meth:`CarriedBetting._evaluate`, so the same numbers. :meth:`probe` is what the next
    read starts from."""

    def __init__(self, state: CarriedBetting) -> None:
        self.state, self.old = state, state.probe
        self.caps: list[Capital] = []
        self.levels: list[np.ndarray] = []
        self.rows: dict[float, tuple[int, int]] = {}
        self.moved: dict[int, int] = {}  # index into old.caps → index into caps

    def _add(self, cap: Capital) -> int:
        self.caps.append(cap)
        self.levels.append(self.state._levels(cap))
        return len(self.caps) - 1

    def __call__(self, points: np.ndarray) -> np.ndarray:
        keys = [float(p) for p in points]
        fresh = [k for k in keys if k not in self.rows and not self._carried(k)]
        if fresh:
            st = self.state
            # two means at least: a one-mean capital could not be joined with others
            # (:func:`_stacked`), so a lone mean is computed twice
            means = np.array(fresh if len(fresh) > 1 else fresh * 2)
            j = self._add(st._fresh(means[:, None]).extended(st.x01))
            self.rows.update((k, (j, r)) for r, k in enumerate(fresh))
        return np.array([self.levels[j][r] for j, r in (self.rows[k] for k in keys)])

    def _carried(self, key: float) -> bool:
        """Whether ``key`` was tested by the previous read (its capital then brought up to
        the labels so far, and its row recorded)."""
        if self.old is None or key not in self.old.rows:
            return False
        i, r = self.old.rows[key]
        if i not in self.moved:
            st, cap = self.state, self.old.caps[i]
            self.moved[i] = self._add(st._labelled(cap).extended(st.x01[cap.t :]))
        self.rows[key] = (self.moved[i], r)
        return True

    def carried(self) -> list[float]:
        """The means the previous read tested (their level costs no new capital)."""
        return [] if self.old is None else list(self.old.rows)

    def probe(self, kept: list[float] | None = None) -> Probe | None:
        """The capitals of the tested means (those of ``kept`` only, when given) as one
        capital (one extension at the next read), or None when there is nothing to keep."""
        keep = None if kept is None else set(kept)
        keys = [k for k in self.rows if keep is None or k in keep]
        if not keys:
            return None
        order = sorted(range(len(keys)), key=lambda n: self.rows[keys[n]])
        keys = [keys[n] for n in order]
        picks: dict[int, list[int]] = {}
        for k in keys:
            j, r = self.rows[k]
            picks.setdefault(j, []).append(r)
        if len(picks) == 1:
            # one capital holds them all (a read that tested no new mean): it is kept as it
            # is, its other means with it — a copy of the kept rows would cost more than
            # extending the few others at the next read
            (j,) = picks
            return Probe((self.caps[j],), {k: (0, self.rows[k][1]) for k in keys})
        cap = _stacked([(self.caps[j], np.array(rs)) for j, rs in picks.items()])
        if cap is None:
            return None
        return Probe((cap,), {k: (0, n) for n, k in enumerate(keys)})


def _stacked(parts):  # type: ignore[no-untyped-def]
    """One capital of the rows ``idx`` of each (capital, idx) in ``parts``, in order, all
    after the same labels: per-mean arrays (leading axis the capital's number of means) are
    taken and joined, the stream's own (leading axis 1: moments, sums) kept from the first.
    None when a capital has fewer than two means (the two kinds would look alike)."""
    caps = [c for c, _ in parts]
    sizes = [c.th.shape[0] for c in caps]
    if min(sizes) < 2 or len({c.t for c in caps}) != 1:
        return None

    def pick(leaves):  # type: ignore[no-untyped-def]
        first = leaves[0]
        if isinstance(first, (tuple, list)):
            out = [pick([leaf[k] for leaf in leaves]) for k in range(len(first))]
            return tuple(out) if isinstance(first, tuple) else out
        if (
            isinstance(first, np.ndarray)
            and first.ndim
            and all(leaf.shape[0] == g for leaf, g in zip(leaves, sizes, strict=True))
        ):
            return np.concatenate([leaf[i] for leaf, (_, i) in zip(leaves, parts, strict=True)])
        return first

    th, last, run, state = pick([(c.th, c.last, c.run, c.state) for c in caps])
    return replace(caps[0], th=th, last=last, run=run, state=state)


@dataclass(frozen=True)
class CarriedBetting:
    """One stream's betting analysis carried between reads: the labels so far (on the [0, 1]
    scale), the capital of the grid's ``size`` means followed by the null θ0 (p-value,
    e-value; one computation for both), and the path of intervals drawn so far (``path``:
    running mean, lower, upper on [0, 1], as
    :func:`estimators.sequences.betting._path_interval` draws them, before the running
    intersection)."""

    x01: np.ndarray
    grid: Capital
    size: int
    thr: float
    running: bool
    refine: int
    path: tuple[np.ndarray, np.ndarray, np.ndarray]
    #: The capitals the last read of this state (or of the state it was extended from)
    #: tested (:class:`Probe`); set by :meth:`path01`, not part of the analysis.
    probe: Probe | None = field(default=None, kw_only=True, compare=False, repr=False)
    #: (n0, the largest lower end, the smallest upper end over the first n0 drawn
    #: intervals): a state resumed from storage (:mod:`estimators.live.saved`) keeps only
    #: the path after its first n0 labels (``path`` then begins at label n0 + 1), and the
    #: running intersection of the rest, which is all the later reads take from it.
    head: tuple[int, float, float] = field(default=(0, -math.inf, math.inf), kw_only=True)
    #: (t, lower, upper): the last interval's exact ends found by :meth:`path01` after t
    #: labels, so a read of the same labels (here, or resumed from storage) does not
    #: search them again; a cache, not part of the analysis.
    exact: tuple[int, float, float] | None = field(
        default=None, kw_only=True, compare=False, repr=False
    )

    @classmethod
    def start(
        cls, *, alpha: float, tuning: tuple, theta0_01: float | None, running: bool,
        grid: int = betting.CS_GRID, refine: int = betting.REFINE,
    ) -> CarriedBetting:  # fmt: skip
        """An empty stream for the sequence at ``alpha`` with bets tuned by ``tuning``
        ((alpha_tuning, t_star, pool_size, burn_in)) and the null mean ``theta0_01``."""
        m = np.linspace(0.0, 1.0, grid)[1:-1]
        th = m if theta0_01 is None else np.append(m, theta0_01)
        empty = np.zeros(0)
        return cls(
            empty, Capital(th[:, None], tuning), m.size, math.log(1.0 / alpha),
            running, refine, (empty, empty, empty),
        )  # fmt: skip

    def extended(self, x01: np.ndarray) -> CarriedBetting:
        """The analysis after the further labels ``x01``."""
        return self._extended(x01, self.grid)

    def _extended(self, x01, grid, **changed):  # type: ignore[no-untyped-def]
        """:meth:`extended` with the grid's capital to extend given (the carried one, with
        whatever else it needs for ``x01``), ``changed`` further fields of the new state."""
        if x01.size == 0:
            return self
        joint = self._with_probe(grid)
        if joint is None:
            grid, cur, run = grid.extend(x01)
        else:  # the probe's capital rides along: one extension for both
            g, total = grid.th.shape[0], joint.th.shape[0]
            both, cur, run = joint.extend(x01)
            grid = _stacked([(both, np.arange(g))])
            probe_cap = _stacked([(both, np.arange(g, total))])
            cur, run = cur[:g], run[:g]
            changed["probe"] = replace(self.probe, caps=(probe_cap,))
        whole = np.concatenate([self.x01, x01])
        t = np.arange(self.grid.t + 1, grid.t + 1)
        centre = np.cumsum(whole)[self.x01.size :] / t
        step = 1.0 / (self._m.size + 1)
        levels = (run if self.running else cur)[: self.size]
        c, lo, hi, _ = betting._path_interval(
            levels, self._m, self.thr, None, step, grid.tuning[3],
            t0=self.grid.t, centre=centre,
        )  # fmt: skip
        path = tuple(
            np.concatenate([old, new]) for old, new in zip(self.path, (c, lo, hi), strict=True)
        )
        return replace(self, x01=whole, grid=grid, path=path, **changed)

    def _with_probe(self, grid: Capital) -> Capital | None:
        """The grid's capital joined with the probe's (its rows after the grid's), when the
        probe is one capital after the same labels: extending them together costs one call
        where two cost twice the per-call overhead (a read extends each touched pair by one
        label). None otherwise."""
        probe = self.probe
        if type(self) is not CarriedBetting or probe is None or len(probe.caps) != 1:
            return None
        cap = probe.caps[0]
        if cap.t != grid.t or cap.tuning != grid.tuning:
            return None
        g, k = grid.th.shape[0], cap.th.shape[0]
        return _stacked([(grid, np.arange(g)), (cap, np.arange(k))])

    @property
    def _m(self) -> np.ndarray:
        return self.grid.th[: self.size, 0]

    def _levels(self, cap: Capital) -> np.ndarray:
        return cap.run if self.running else cap.current()

    def _evaluate(self, points: np.ndarray) -> np.ndarray:
        """The level at the last step (running maximum, or current log K) at further null
        means, over the labels so far: :func:`estimators.sequences.betting.betting_cs`'s own
        evaluation."""
        alpha, t_star, pool_size, burn_in = self.grid.tuning
        args = (alpha, t_star, burn_in, self.running, pool_size)
        return betting._running_log_capital(self.x01, points, *args)[:, -1]

    def _fresh(self, points: np.ndarray) -> Capital:
        """An empty capital for the null means ``points`` ((n, 1)), tuned as the grid's."""
        return Capital(points, self.grid.tuning)

    def _labelled(self, cap: Capital) -> Capital:
        """``cap`` with whatever else the labels so far bring (the label capital: none)."""
        return cap

    def path01(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(running mean, lower, upper) on [0, 1] along the whole stream, the last interval
        exact: what :func:`estimators.sequences.betting.betting_cs` returns (÷ its span)."""
        centre, low, high = (a.copy() for a in self.path)
        n0, low0, high0 = self.head
        if self.running:
            low, high = betting._nested(low, high)
            if n0:  # max/min are exact: the same numbers as the whole path's intersection
                low, high = np.maximum(low, low0), np.minimum(high, high0)
        if n0:  # a resumed state: the first n0 intervals are not kept (NaN)
            centre, low, high = (np.concatenate([np.full(n0, np.nan), a])
                                 for a in (centre, low, high))  # fmt: skip
        if self.grid.t >= self.grid.tuning[3]:
            if self.exact is not None and self.exact[0] == self.grid.t:
                low[-1], high[-1] = self.exact[1:]
                return centre, low, high
            kept: list[float] = []
            reader, (low[-1], high[-1]) = self._search(self.thr, kept)
            # caches, not the analysis
            object.__setattr__(self, "probe", reader.probe(kept))
            object.__setattr__(self, "exact", (self.grid.t, float(low[-1]), float(high[-1])))
        return centre, low, high

    def last_ends_at(self, alpha: float) -> tuple[float, float]:
        """The last interval's ends on [0, 1] at the level ``alpha``, bets as tuned: what
        :func:`estimators.sequences.betting.betting_cs` at ``alpha`` (same tuning) reports
        last — the same grid levels, the further means read off the carried capitals where
        the last read tested them (the interval a pair rejected by Holm at a level above its
        Bonferroni level is read at). (0, 1) before the burn-in."""
        if self.grid.t < self.grid.tuning[3]:
            return 0.0, 1.0
        return self._search(math.log(1.0 / alpha))[1]

    def _search(self, thr: float, kept: list[float] | None = None):  # type: ignore[no-untyped-def]
        """(the reader of further means, the last interval's ends on [0, 1] at the threshold
        ``thr``): :func:`estimators.sequences.betting.last_ends` on the carried grid's levels,
        the previous read's tested means read off their carried capitals; ``kept`` gets the
        means worth carrying to the next read."""
        reader = _ProbeReader(self)
        ends = betting.last_ends(
            self._levels(self.grid)[: self.size], self._m, thr, reader, self.refine,
            float(self.path[0][-1]), x01=self.x01, pool_size=self.grid.tuning[2],
            level_of=self._evaluate, carried=reader.carried(), kept=kept,
        )  # fmt: skip
        return reader, ends

    def interval01(self) -> tuple[float, float, float]:
        """(centre, lower, upper) of the last interval on [0, 1]."""
        centre, low, high = self.path01()
        return float(centre[-1]), float(low[-1]), float(high[-1])

    def p_value(self) -> float:
        """min(1, min_{burn_in ≤ s ≤ t} 1/K_s(θ0))
        (:func:`estimators.sequences.betting.betting_pvalue`)."""
        p = np.minimum(1.0, np.exp(-np.maximum(self.grid.run[self.size :], 0.0)))
        return float(p[0])

    def e_value(self) -> float:
        """K_t(θ0) (:func:`estimators.sequences.betting.betting_evalue`)."""
        return float(np.exp(self.grid.last[self.size]))
