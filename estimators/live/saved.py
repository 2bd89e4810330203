"""The live monitor's carried betting states as plain records, to be kept outside the
process (db.reads.monitor_state) so that a new server process resumes them.

docs/statistics-notes.md §5 ("Carried between reads", "Kept in the database"). A stream's
carried state (:class:`estimators.sequences.betting_carry.CarriedBetting`) is a
deterministic function of its key (the digest of α, the tuning — t*, the pool size, the
burn-in —, θ0, running or current capital, the label bounds; :mod:`estimators.live.carry`)
and of its labels on the [0, 1] scale in order. A record holds the key, the number n of
labels the state is after, a digest of those n labels, and the state itself: the grid's
capital (log K, its running maximum, the plug-in sums of every part), the last interval's
exact ends (so a read of the same labels does not search them again), and
the path of drawn intervals — whole, or only its last interval with the running
intersection of the ones before (``whole_path`` False: the width chart then recomputes the
pair's path when it draws it). A read resumes a record only when its key is the stream's key
now and the stream's first n labels have the digest recorded; it then extends the state by
the labels after them, exactly as the process that saved it would have
(tests/estimators/live/test_saved.py compares every read with the full recomputation).
Anything else — another plan, α or pool, a label undone or changed, a broken record — is
discarded, and the stream is analysed from its first label.

The capitals of the means the last end search kept for the next read
(:class:`estimators.sequences.betting_carry.Probe`: per end and side the nearest tested
mean at each scale) are kept too. They are a cache of the search, which tests any mean it
lacks, but without them a resumed pair's first read after a new label searches its ends
from the grid: half-way through a 60 × 2,000 campaign that read cost 1.9 times a read with
them (bench/monitor_read_bench.py --saved). A record whose probe does not fit its state is
resumed without it.

Only the plain betting design's states are kept (with a metric control, ``betting_cv``,
the state holds the pool's control, which is rebuilt at each read: not kept).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from estimators.caches.monitor import digest
from estimators.caches.packing import pack, unpack
from estimators.sequences.betting_carry import Capital, CarriedBetting, Probe


@dataclass(frozen=True)
class SavedState:
    """One stream's carried state as stored: ``stream`` its name ("pair/3/7", "system/4"),
    ``key`` the digest of what the state depends on besides its labels, ``n_labels`` the
    labels it is after, ``labels`` their digest, ``payload`` the state
    (:func:`estimators.caches.packing.pack`)."""

    stream: str
    key: bytes
    n_labels: int
    labels: bytes
    payload: bytes


def stream_name(stream: Any) -> str:
    """("pair", 3, 7) → "pair/3/7"."""
    return "/".join(str(p) for p in stream)


def stream_of(name: str) -> tuple[Any, ...]:
    """ "pair/3/7" → ("pair", 3, 7)."""
    kind, *rest = name.split("/")
    return (kind, *(int(p) for p in rest))


def labels_digest(x01: np.ndarray) -> bytes:
    """The digest of a stream's labels on the [0, 1] scale (dtype, length and bytes)."""
    return digest(np.ascontiguousarray(x01, dtype=float))


def saved(stream: Any, key: bytes, state: CarriedBetting, *, whole_path: bool) -> SavedState | None:
    """The record of ``state`` (None: nothing to keep — no label yet, or a state with a
    metric control)."""
    if type(state) is not CarriedBetting or state.x01.size == 0:
        return None
    t = int(state.x01.size)
    n0, low0, high0 = state.head
    c, lo, hi = state.path
    cut = n0 if whole_path else t - 1  # the labels whose intervals are folded into the head
    drop = cut - n0
    head = (cut, max(low0, float(np.max(lo[:drop], initial=-math.inf))),
            min(high0, float(np.min(hi[:drop], initial=math.inf))))  # fmt: skip
    tree = {
        "grid": _capital(state.grid), "size": state.size, "thr": state.thr,
        "running": state.running, "refine": state.refine, "head": head,
        "path": tuple(a[drop:] for a in (c, lo, hi)),
        "exact": None if state.exact is None or state.exact[0] != t else state.exact[1:],
        "probe": _probe(state.probe, t),
    }  # fmt: skip
    return SavedState(stream_name(stream), key, t, labels_digest(state.x01), pack(tree))


def resumed(record: SavedState, key: bytes, x01: np.ndarray) -> CarriedBetting | None:
    """The state ``record`` holds when it was computed under ``key`` from the first labels
    of ``x01`` (checked by their digest), else None (also for a broken record)."""
    n = record.n_labels
    if record.key != key or not 0 < n <= x01.size or labels_digest(x01[:n]) != record.labels:
        return None
    try:
        tree = unpack(record.payload)
        grid = _capital_of(tree["grid"])
        path = tuple(np.asarray(a, dtype=float) for a in tree["path"])
        head = tuple(tree["head"])
        state = CarriedBetting(
            np.array(x01[:n], dtype=float), grid, int(tree["size"]), float(tree["thr"]),
            bool(tree["running"]), int(tree["refine"]), path,  # type: ignore[arg-type]
            head=(int(head[0]), float(head[1]), float(head[2])),
            exact=None if tree["exact"] is None else (n, *map(float, tree["exact"])),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    probe = _probe_of(tree.get("probe"), grid)
    if probe is not None:
        object.__setattr__(state, "probe", probe)  # a cache, as path01 sets it
    if grid.t != n or len(path) != 3 or any(a.shape != (n - state.head[0],) for a in path):
        return None
    return state


def _capital(cap: Capital) -> dict[str, Any]:
    return {"th": cap.th, "tuning": tuple(cap.tuning), "t": cap.t, "state": cap.state,
            "last": cap.last, "run": cap.run}  # fmt: skip


def _capital_of(tree: dict[str, Any]) -> Capital:
    th = np.asarray(tree["th"], dtype=float)
    if th.ndim != 2 or th.shape[1] != 1:
        raise ValueError("a capital's means have shape (G, 1)")
    return Capital(th, tuple(tree["tuning"]), int(tree["t"]), tree["state"],
                   tree["last"], tree["run"])  # fmt: skip


def _probe(probe: Probe | None, t: int) -> dict[str, Any] | None:
    """The record of a probe whose capitals are all after at most ``t`` labels."""
    if probe is None or any(cap.t > t for cap in probe.caps):
        return None
    rows = sorted(probe.rows.items())
    return {"caps": [_capital(c) for c in probe.caps],
            "means": [k for k, _ in rows], "rows": [list(v) for _, v in rows]}  # fmt: skip


def _probe_of(tree: Any, grid: Capital) -> Probe | None:
    """The probe of a record (None: none kept, or one that does not fit ``grid``'s state:
    another tuning, more labels than the state, a row outside its capital)."""
    if tree is None:
        return None
    try:
        caps = tuple(_capital_of(c) for c in tree["caps"])
        rows = {
            float(k): (int(i), int(r))
            for k, (i, r) in zip(tree["means"], tree["rows"], strict=True)
        }
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    fits = all(c.tuning == grid.tuning and 0 < c.t <= grid.t for c in caps) and all(
        0 <= i < len(caps) and 0 <= r < caps[i].th.shape[0] and caps[i].th[r, 0] == k
        for k, (i, r) in rows.items()
    )
    return Probe(caps, rows) if fits else None
