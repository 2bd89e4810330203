"""The live monitor's betting analyses carried label by label between reads.

docs/statistics-notes.md §5 ("Carried between reads"). Under the betting design a stream's
sequence, p-value and e-value after t labels are read from a state that one more label
extends in O(grid) (:mod:`estimators.sequences.betting_carry`), so a read after one new
label costs O(pairs the label touches), not O(labels). The state is kept in the campaign's
:class:`estimators.caches.monitor.MonitorCache` with a digest of everything besides the
labels it depends on (level, tuning, plan, pool size, null, label bounds, running or current
capital). A read reuses it only when its labels are a prefix of the stream's labels now; the
state one read back is kept too, so a label undone rolls back to it (and the labels after
it, if any, extend it); otherwise the stream is analysed from its first label. The full
recomputation stays the reference: tests/estimators/live/test_carry.py replays campaigns and
compares every read to 1e-12.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from estimators.base.verdicts import ErrorRate
from estimators.caches.monitor import MonitorCache, digest
from estimators.live.pools import Pool
from estimators.live.saved import SavedState, resumed, saved, stream_of
from estimators.live.settings import MonitorSettings
from estimators.sequences import betting_control as bc
from estimators.sequences import confidence_sequences as csq
from estimators.sequences import sequential as seq
from estimators.sequences.betting_carry import CarriedBetting
from estimators.sequences.betting_control_carry import CarriedControl
from estimators.sequences.designs import LiveDesign


@dataclass(frozen=True)
class _Entry:
    key: bytes
    state: CarriedBetting
    prev: CarriedBetting | None


class Paths(NamedTuple):
    """What a stream's analysis under the live design gives: its increments, confidence
    sequence, anytime p-value path (None without a null; carried: its last entry only) and
    the betting e-value K_t(θ0) (1 where the design has none or no null was given)."""

    inc: seq.Increments
    cs: csq.ConfidenceSequence
    p: np.ndarray | None
    e: float = 1.0


#: (the sequences' tuning level, t*, the finite pool's size or None, the burn-in)
Tuning = tuple[float, int, int | None, int]


class MonitorCarry:
    """The betting design's paths carried between reads in the campaign's cache: each
    stream's state extended by the labels added since the last read."""

    def __init__(self, settings: MonitorSettings, cache: MonitorCache) -> None:
        self.settings = settings
        self.cache = cache

    def paths(
        self, y: np.ndarray, g: np.ndarray | None, pool: Pool, alpha_cs: float, *, pair: bool,
        theta0: float | None, t_star: int, pool_size: int | None, stream: Any,
    ) -> Paths:  # fmt: skip
        """The betting design's paths as :meth:`estimators.live.analysis.MonitorAnalysis.paths`
        gives them, the p-value at its last entry only. ``betting_cv`` with the stream's
        controls ``g``: the capital with a control
        (:mod:`estimators.sequences.betting_control_carry`, the first control column)."""
        state, inc, (blo, span) = self._carried(y, g, pool, alpha_cs, pair, theta0, t_star,
                                                pool_size, stream)  # fmt: skip
        x01, controlled = state.x01, isinstance(state, CarriedControl)
        centre, low, high = state.path01()
        cs = csq.ConfidenceSequence(
            center=centre * span + blo, lower=low * span + blo, upper=high * span + blo,
            sigma=np.sqrt(csq._running_mean_var(inc.z)[1]), alpha=alpha_cs,
            t_star=float(t_star), method="betting_cv" if controlled else "betting",
        )  # fmt: skip
        if theta0 is None:
            return Paths(inc, cs, None)
        e = state.e_value() if x01.size >= seq.BURN_IN else 1.0
        return Paths(inc, cs, np.array([state.p_value()]), e)

    def last_interval_at(
        self, y: np.ndarray, g: np.ndarray | None, pool: Pool, alpha_cs: float, level: float, *,
        pair: bool, theta0: float | None, t_star: int, pool_size: int | None, stream: Any,
    ) -> tuple[float, float]:  # fmt: skip
        """The last interval of the stream's sequence at ``level`` (bets tuned at
        ``alpha_cs``), from the state :meth:`paths` carries for the same arguments (so the
        same state, not a second one): the last entry of the betting design's sequence at
        that level, before clipping and the known part of the pool."""
        state, _, (blo, span) = self._carried(y, g, pool, alpha_cs, pair, theta0, t_star,
                                              pool_size, stream)  # fmt: skip
        low, high = state.last_ends_at(level)
        return low * span + blo, high * span + blo

    def _carried(self, y, g, pool, alpha_cs, pair, theta0, t_star, pool_size, stream):  # type: ignore[no-untyped-def]
        """(the stream's state after the labels ``y``, their increments, (the [0, 1]
        scale's lower bound, its span)): the state :meth:`paths` reads."""
        settings = self.settings
        lo, hi = settings.estimand_range(pair)
        inc = seq.cv_increments(y, None, label_range=(lo, hi))
        blo, bhi = float(inc.bounds[0]), float(inc.bounds[1])
        span = bhi - blo
        x01 = np.clip((np.asarray(inc.z, dtype=float) - blo) / span, 0.0, 1.0)
        ebh = pair and settings.error_rate_in_force() == ErrorRate.FDR
        tuning = (settings.tuning(alpha_cs), t_star, pool_size, seq.BURN_IN)
        th0 = None if theta0 is None else (float(theta0) - blo) / span
        ctrl, gs = None, None
        if settings.design == LiveDesign.BETTING_CV and g is not None and pool.controls is not None:
            ctrl = bc.ControlPool.of(pool.controls.values[pool.mask][:, 0])
            gs = ctrl.scaled(np.asarray(g, dtype=float).reshape(len(y), -1)[:, 0])
        key = digest(alpha_cs, tuning, th0, not ebh, blo, bhi, str(ctrl))
        state = self._state(stream, key, (x01, gs, ctrl), alpha_cs, tuning, th0, not ebh)
        return state, inc, (blo, span)

    def _state(
        self, stream: Any, key: bytes,
        data: tuple[np.ndarray, np.ndarray | None, bc.ControlPool | None], alpha_cs: float,
        tuning: Tuning, th0: float | None, running: bool,
    ) -> CarriedBetting:  # fmt: skip
        """The stream's state after the labels ``x01`` (``data``: x01, their controls or
        None, the pool's control or None): the carried one (or the one a read back)
        extended when its labels (and controls) are a prefix of these, else built from the
        first label."""
        x01, gs, ctrl = data
        store = self.cache.carried
        entry = store.get(stream)
        if (entry is None or entry.key != key) and gs is None:
            entry = self._resume(stream, key, x01) or entry
        cands = () if entry is None or entry.key != key else (entry.state, entry.prev)
        base = next((c for c in cands if c is not None and _prefix(c.x01, x01)
                     and (gs is None or _prefix(c.g, gs))), None)  # fmt: skip
        if base is None:
            self.cache.rebuilt += 1
            kw = dict(alpha=alpha_cs, tuning=tuning, theta0_01=th0, running=running)
            if gs is None:
                store[stream] = _Entry(key, CarriedBetting.start(**kw).extended(x01), None)
            else:
                start = CarriedControl.begin(ctrl=ctrl, **kw)
                store[stream] = _Entry(key, start.extended_with(x01, gs), None)
        elif base.x01.size < x01.size:
            n = base.x01.size
            state = base.extended(x01[n:]) if gs is None else base.extended_with(x01[n:], gs[n:])
            store[stream] = _Entry(key, state, _view_of(base, state))
        elif base is not entry.state:
            store[stream] = _Entry(key, base, None)  # a label undone: one read back
        else:
            return base  # unchanged (the labels of the last read, or of the resumed record)
        self.cache.changed.add(stream)
        return store[stream].state

    def _resume(self, stream: Any, key: bytes, x01: np.ndarray) -> _Entry | None:
        """The stream's state from the record kept outside the process
        (:mod:`estimators.live.saved`; used once), when it matches ``key`` and the first
        labels of ``x01``."""
        record = self.cache.saved.pop(stream, None)
        state = None if record is None else resumed(record, key, x01)
        if state is None:
            return None
        self.cache.resumed += 1
        self.cache.carried[stream] = _Entry(key, state, None)
        return self.cache.carried[stream]


def records(cache: MonitorCache, *, whole_path: bool) -> list[SavedState]:
    """The records of the carried states that changed since the last call (their streams
    then marked unchanged): what a read saves outside the process."""
    todo = set(cache.changed)  # a copy first: another session's read may add to it
    cache.changed.difference_update(todo)
    out = []
    for stream in sorted(todo, key=str):
        entry = cache.carried.get(stream)
        rec = None if entry is None else saved(stream, entry.key, entry.state,
                                               whole_path=whole_path)  # fmt: skip
        if rec is not None:
            out.append(rec)
    return out


def offer(cache: MonitorCache, kept: list[SavedState]) -> None:
    """Give the cache the records kept outside the process: a stream without a carried
    state resumes from its record when the record matches (:func:`resumed`)."""
    for rec in kept:
        cache.saved[stream_of(rec.stream)] = rec


def _view_of(base: CarriedBetting, state: CarriedBetting) -> CarriedBetting:
    """``base`` with its label and path arrays as views into ``state``'s (which begin with
    them): the state one read back costs no copy of the stream."""
    n = base.x01.size
    kept = n - base.head[0]  # a resumed stream keeps the path after its head only
    view = replace(base, x01=state.x01[:n], path=tuple(a[:kept] for a in state.path))
    return replace(view, g=state.g[:n]) if isinstance(base, CarriedControl) else view


def _prefix(head: np.ndarray, whole: np.ndarray) -> bool:
    """``head`` is the start of ``whole`` (the same labels, in the same order)."""
    return head.size <= whole.size and np.array_equal(head, whole[: head.size])
