"""The capital with a metric control (:mod:`estimators.sequences.betting_control`), carried label by
label between reads.

docs/statistics-notes.md §5, §14, §25. As for the label capital
(:mod:`estimators.sequences.betting_carry`): every bet, the control coefficient c_i, the mean of the
controls not yet labelled ḡ_rem(i) and the null mean m_i(θ) are functions of labels 1..i − 1
and of the pool's known controls, so the state after t labels — the label capital's state,
the ridge sums, Σg, the Z's plug-in sums and each controlled part's log capital
(:func:`estimators.sequences.betting_control.log_capital_from`) — is all a new label needs, and
extending it gives the numbers of the whole stream
(tests/estimators/sequences/test_betting_control.py compares every read of a replayed
campaign with the full recomputation, to 1e-12). A stream is a pair of arrays: the labels on
[0, 1] and their items' standardised controls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from estimators.sequences import betting
from estimators.sequences import betting_control as bc
from estimators.sequences.betting_carry import Capital, CarriedBetting


@dataclass(frozen=True)
class ControlCapital(Capital):
    """:class:`estimators.sequences.betting_carry.Capital` of the capital with a control: ``ctrl``
    the
    pool's control, ``gs`` the standardised controls of the stream's labels (at least up to
    the labels the next extension adds)."""

    ctrl: bc.ControlPool | None = None
    gs: np.ndarray | None = None

    def _log_capital(self, x01: np.ndarray):  # type: ignore[no-untyped-def]
        """As :meth:`estimators.sequences.betting_carry.Capital._log_capital`, on the capital with a
        control (the extension itself is the base class's)."""
        alpha, t_star, pool_size, _ = self.tuning
        g = self.gs[self.t : self.t + x01.size]
        return bc.log_capital_from(
            x01[None, :], g[None, :], self.th, alpha, t_star, pool_size, self.ctrl, self.state
        )


@dataclass(frozen=True)
class CarriedControl(CarriedBetting):
    """:class:`estimators.sequences.betting_carry.CarriedBetting` of the capital with a control: the
    same reads (interval, p-value, e-value) from :class:`ControlCapital`s; ``g`` the
    standardised controls of the labels so far."""

    g: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def extended(self, x01: np.ndarray) -> CarriedControl:
        raise TypeError("a stream with a control is extended with its controls: extended_with")

    @classmethod
    def begin(
        cls, *, alpha: float, tuning: tuple, theta0_01: float | None, running: bool,
        ctrl: bc.ControlPool, grid: int = betting.CS_GRID, refine: int = betting.REFINE,
    ) -> CarriedControl:  # fmt: skip
        """An empty stream (:meth:`estimators.sequences.betting_carry.CarriedBetting.start`) whose
        capital uses the pool's control ``ctrl``."""
        m = np.linspace(0.0, 1.0, grid)[1:-1]
        th = m if theta0_01 is None else np.append(m, theta0_01)
        empty = np.zeros(0)
        return cls(
            empty, ControlCapital(th[:, None], tuning, ctrl=ctrl, gs=empty), m.size,
            math.log(1.0 / alpha), running, refine, (empty, empty, empty), empty,
        )  # fmt: skip

    def extended_with(self, x01: np.ndarray, g: np.ndarray) -> CarriedControl:
        """The analysis after the further labels ``x01`` with their controls ``g``
        (:meth:`estimators.sequences.betting_carry.CarriedBetting.extended`)."""
        if x01.size == 0:
            return self
        gs = np.concatenate([self.g, g])
        return self._extended(x01, replace(self.grid, gs=gs), g=gs)

    def _fresh(self, points: np.ndarray) -> Capital:
        return ControlCapital(points, self.grid.tuning, ctrl=self.grid.ctrl, gs=self.g)

    def _labelled(self, cap: Capital) -> Capital:
        """``cap`` with the controls of the labels so far (its extension reads them)."""
        return replace(cap, gs=self.g)

    def _evaluate(self, points: np.ndarray) -> np.ndarray:
        """The level at the last step at further null means over the labels so far, with
        their controls: :func:`estimators.sequences.betting_control.controlled_cs`'s own
        evaluation."""
        alpha, t_star, pool_size, burn_in = self.grid.tuning
        args = (alpha, t_star, burn_in, self.running, pool_size)
        return bc._running(self.x01, self.g, points, self.grid.ctrl, args)[:, -1]
