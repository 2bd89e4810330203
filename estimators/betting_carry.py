"""The betting confidence sequence and p-value of one stream, carried label by label.

statistics.md §10; Waudby-Smith & Ramdas (2024, 2020) as in :mod:`estimators.betting`. The
capital K_t(m) of every null mean m is a product of factors 1 + λ_i(x_i − m_i), each bet
λ_i a function of x_1..x_{i−1} only (:func:`estimators.betting.plan_bet`,
:func:`estimators.betting.kelly_bet`; the null mean m_i without replacement likewise). So
the state after t labels — the plug-in sums, each part's log capital and the
without-replacement exclusion flag per null mean (:func:`estimators.betting.wor_log_capital_from`),
and the running maximum of log K since the burn-in — is all a new label needs: extending it
costs O(grid), not O(t), and gives the numbers of the whole path bit for bit (the sums are
accumulated in the same order). The reported (last) interval and p-value are read from it
exactly as :func:`estimators.betting.betting_cs` and :func:`estimators.betting.betting_pvalue`
read them from the whole path (tests/estimators/test_betting_carry.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from estimators import betting


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
        if x01.size == 0:
            return self
        alpha, t_star, pool_size, burn_in = self.tuning
        log_k, state = betting.wor_log_capital_from(
            x01[None, :], self.th, alpha, t_star, pool_size, self.state
        )
        t = np.arange(self.t + 1, self.t + x01.size + 1)
        masked = np.where(t[None, :] < burn_in, -np.inf, log_k).max(axis=-1)
        run = masked if self.run is None else np.maximum(self.run, masked)
        return replace(self, t=self.t + x01.size, state=state, last=log_k[:, -1], run=run)

    def current(self) -> np.ndarray:
        """log K_t itself, −∞ before the burn-in (the non-running sets, e-BH)."""
        burn_in = self.tuning[3]
        return self.last if self.t >= burn_in else np.full(self.th.shape[0], -np.inf)


@dataclass(frozen=True)
class CarriedBetting:
    """One stream's betting analysis carried between reads: the labels so far (on the [0, 1]
    scale), the grid's capital, the null's (p-value, e-value) and the refined cells'."""

    x01: np.ndarray
    grid: Capital
    null: Capital | None
    cells: tuple[tuple[int, int], Capital] | None
    thr: float
    running: bool
    refine: int

    @classmethod
    def start(
        cls, *, alpha: float, tuning: tuple, theta0_01: float | None, running: bool,
        grid: int = betting.CS_GRID, refine: int = betting.REFINE,
    ) -> CarriedBetting:  # fmt: skip
        """An empty stream for the sequence at ``alpha`` with bets tuned by ``tuning``
        ((alpha_tuning, t_star, pool_size, burn_in)) and the null mean ``theta0_01``."""
        m = np.linspace(0.0, 1.0, grid)[1:-1]
        null = None if theta0_01 is None else Capital(np.array([[theta0_01]]), tuning)
        return cls(
            np.zeros(0), Capital(m[:, None], tuning), null, None, math.log(1.0 / alpha),
            running, refine,
        )  # fmt: skip

    def extended(self, x01: np.ndarray) -> CarriedBetting:
        """The analysis after the further labels ``x01``; the refined cells follow the
        interval's end points (rebuilt over the whole stream when an end point moves to
        another grid cell: at most once per cell and side while the running sets shrink)."""
        grid = self.grid.extended(x01)
        null = None if self.null is None else self.null.extended(x01)
        whole = np.concatenate([self.x01, x01])
        out = replace(self, x01=whole, grid=grid, null=null)
        if grid.t < grid.tuning[3]:
            return replace(out, cells=None)
        key = self._cell_ends(out._levels(grid))
        if self.cells is not None and self.cells[0] == key:
            return replace(out, cells=(key, self.cells[1].extended(x01)))
        m = self._m
        f, g = key
        step = 1.0 / (m.size + 1)
        pts = np.concatenate([
            np.linspace(max(m[f] - step, 1e-9), m[f], self.refine),
            np.linspace(m[g], min(m[g] + step, 1 - 1e-9), self.refine),
        ])  # fmt: skip
        return replace(out, cells=(key, Capital(pts[:, None], grid.tuning).extended(whole)))

    @property
    def _m(self) -> np.ndarray:
        return self.grid.th[:, 0]

    def _levels(self, cap: Capital) -> np.ndarray:
        return cap.run if self.running else cap.current()

    def _cell_ends(self, levels: np.ndarray) -> tuple[int, int]:
        alive = levels < self.thr
        if not alive.any():
            return 0, alive.size - 1
        return int(np.argmax(alive)), int(alive.size - 1 - np.argmax(alive[::-1]))

    def interval01(self) -> tuple[float, float, float]:
        """(centre, lower, upper) of the last interval on [0, 1], as
        :func:`estimators.betting.betting_cs` reports its last entry."""
        m, thr, t = self._m, self.thr, self.grid.t
        step = 1.0 / (m.size + 1)
        centre = float(np.cumsum(self.x01)[-1] / t)
        run = self._levels(self.grid)[:, None]
        alive = run[:, 0] < thr
        if t < self.grid.tuning[3]:
            return centre, 0.0, 1.0
        if alive.any():
            f, g = self._cell_ends(run[:, 0])
            low = float(betting._crossing(run, m, thr, np.array([f]), np.array([f - 1]))[0])
            high = float(betting._crossing(run, m, thr, np.array([g]), np.array([g + 1]))[0])
        else:
            low, high = max(centre - step, 0.0), min(centre + step, 1.0)
        return (centre, *self._refined(low, high, bool(alive.any())))

    def _refined(self, low: float, high: float, alive_last: bool) -> tuple[float, float]:
        """The refinement of :func:`estimators.betting._refine_last` on the carried cells."""
        (f, g), cells = self.cells
        m, fine = self._m, 1.0 / (self._m.size + 1) / (self.refine - 1)
        ok = self._levels(cells) < self.thr
        ok_lo, ok_hi = ok[: self.refine], ok[self.refine :]
        pts = cells.th[:, 0]
        cell_lo, cell_hi = pts[: self.refine], pts[self.refine :]
        if alive_last or ok_lo.any():
            low = max(cell_lo[np.argmax(ok_lo)] - fine, 0.0) if ok_lo.any() else m[f] - fine
            high = (
                min(cell_hi[len(ok_hi) - 1 - np.argmax(ok_hi[::-1])] + fine, 1.0)
                if ok_hi.any() else m[g] + fine
            )  # fmt: skip
        return float(low), float(high)

    def p_value(self) -> float:
        """min(1, min_{burn_in ≤ s ≤ t} 1/K_s(θ0)) (:func:`estimators.betting.betting_pvalue`)."""
        p = np.minimum(1.0, np.exp(-np.maximum(self.null.run, 0.0)))
        return float(p[0])

    def e_value(self) -> float:
        """K_t(θ0) (:func:`estimators.betting.betting_evalue`)."""
        return float(np.exp(self.null.last[0]))

