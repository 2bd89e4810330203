"""Replay a campaign's queue with and without racing on a known table of labels.

The queue of :mod:`annotation.queue.racing`, on arrays: items come in a given random order, in
rounds of ``every`` items; before each round the live verdicts are read (the campaign's
:class:`estimators.live.monitor.CampaignMonitor` on the labels so far) and, with racing, the
systems whose pairs are all settled are dropped for good; the round's items are then
labelled for the systems in play (all systems without racing). Used by the racing bench
(total labels to settle every pair) and the validity simulation (every read's verdicts and
intervals, against the known truth).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from annotation.queue.racing import settled_pairs, systems_in_play
from estimators.caches.monitor import MonitorCache
from estimators.live.monitor import CampaignMonitor
from estimators.live.status import MonitorReport


@dataclass
class Replay:
    """One replay: per read, the labels given so far and the monitor's report."""

    labels: list[int] = field(default_factory=list)
    reports: list[MonitorReport] = field(default_factory=list)
    #: labels given when every pair was first settled (None: never, within the pool)
    labels_to_settle: int | None = None
    #: system name → labels given when it was dropped (racing only)
    dropped: dict[str, int] = field(default_factory=dict)


def replay(
    y: np.ndarray,
    order: np.ndarray,
    *,
    racing: bool,
    every: int,
    stop_when_settled: bool = True,
    names: list[str] | None = None,
    on_read: Callable[[MonitorReport, int], None] | None = None,
    settle: Callable[[MonitorReport], set[tuple[str, str]]] | None = None,
    **monitor: Any,
) -> Replay:
    """Replay the queue on ``y`` (systems × items, the label each output would get; NaN: no
    output) in item ``order``; ``monitor`` are :class:`CampaignMonitor` keywords (design,
    t_star, finite_pool, equivalence_margin, alpha, …). Reads before every round of
    ``every`` items and once at the end; stops at the first read with every pair settled
    when ``stop_when_settled``. ``settle`` names the settled pairs of a report (default:
    :func:`annotation.queue.racing.settled_pairs`, the monitor's verdicts)."""
    k, n = y.shape
    names = names or [f"S{s}" for s in range(k)]
    settle = settle or settled_pairs
    present = np.isfinite(y)
    in_play = set(names)
    # One cache for every read of this replay: labels only arrive, so each read extends the
    # streams' carried betting states instead of recomputing their paths
    # (estimators.caches.monitor; equal to the full recomputation, tests/estimators).
    monitor.setdefault("cache", MonitorCache())
    out = Replay()
    item_l: list[np.ndarray] = []
    sys_l: list[np.ndarray] = []
    total = 0
    for start in range(0, n + every, every):
        if total:
            rep = _read(y, present, names, item_l, sys_l, monitor)
            out.labels.append(total)
            out.reports.append(rep)
            if on_read is not None:
                on_read(rep, total)
            settled = settle(rep)
            if len(settled) == len(rep.pairs) and out.labels_to_settle is None:
                out.labels_to_settle = total
                if stop_when_settled:
                    break
            if racing:
                now = systems_in_play(names, settled) & in_play
                out.dropped.update({s: total for s in in_play - now})
                in_play = now
        chunk = order[start : start + every]
        if not chunk.size or not in_play:
            break
        live = np.array([names.index(s) for s in sorted(in_play, key=names.index)], dtype=int)
        it = np.repeat(chunk, live.size)
        sy = np.tile(live, chunk.size)
        ok = present[sy, it]
        item_l.append(it[ok])
        sys_l.append(sy[ok])
        total += int(ok.sum())
    return out


def _read(y, present, names, item_l, sys_l, monitor) -> MonitorReport:  # type: ignore[no-untyped-def]
    item = np.concatenate(item_l)
    system = np.concatenate(sys_l)
    k = y.shape[0]
    return CampaignMonitor(
        [None] * k, item, system, y[system, item], np.arange(item.size, dtype=float),
        np.ones(item.size), names=names, present=present, **monitor,
    ).report()  # fmt: skip
