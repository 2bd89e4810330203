"""What the live monitor carries between reads: each pair's (and system's) analysis, keyed
by everything it is computed from, so a read after one new label recomputes only the pairs
that label touched.

docs/statistics-notes.md §19–§20. The analysis of a stream (increments, confidence sequence, anytime
p-value, e-value; :meth:`estimators.live.analysis.MonitorAnalysis.result`) is a
deterministic function of the stream's labels in order, its pool (items, metric controls,
known bounds) and the monitor's settings (α, design, plan, estimand, error rate, label
range). The key is a digest of all of them, so an entry is reused only for the very same
inputs and the reused result is the one the full recomputation gives, bit for bit
(tests/estimators/caches/test_monitor.py replays campaigns and compares every read).
Nothing is ever stale: a label that changes a pair's stream changes its key. One entry per
stream is kept (the last), so the memory is that of one report.

Besides the analyses: the betting design's states carried label by label (``carried``,
:mod:`estimators.live.carry`), so a touched stream is extended rather than analysed
again, and each pair's status (verdict, forecasts), reused while its row and its place in
Holm / e-BH are unchanged (:mod:`estimators.live.streams`). Holm or e-BH over all pairs
and the rank sets are recomputed at every read (O(m log m)).

A cold read (a new server process, an empty cache) analyses every pair from its first label:
:meth:`MonitorCache.warm` spreads those pairs over the machine's cores first (the pairs are
independent and NumPy releases the GIL in their array arithmetic), each thread putting its
rows here for the read to find; every row is the one the sequential read computes.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def digest(*parts: Any) -> bytes:
    """A digest of arrays (dtype, shape and bytes) and plain values (their repr)."""
    h = hashlib.blake2b(digest_size=20)
    for part in parts:
        if isinstance(part, np.ndarray):
            h.update(str((part.dtype.str, part.shape)).encode())
            h.update(np.ascontiguousarray(part).tobytes())
        else:
            h.update(repr(part).encode())
        h.update(b"\x1f")
    return h.digest()


@dataclass
class MonitorCache:
    """Per-stream analyses carried between reads of one campaign (module docstring).

    Pass the same instance to every :class:`estimators.live.monitor.CampaignMonitor` built for
    the campaign; ``hits`` and ``misses`` count the reuses and the recomputations.
    ``threads``: how many a cold read analyses its pairs on (None: the usable cores, at
    most :data:`MAX_THREADS`, when at least half a core is idle by the load average — on
    busy cores more threads only add contention —, else 1; 1: the read's thread only)."""

    _store: dict[Any, tuple[bytes, Any]] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0
    #: stream → its carried betting state (:mod:`estimators.live.carry`)
    carried: dict[Any, Any] = field(default_factory=dict)
    #: streams whose carried state was built from their first label (none to extend)
    rebuilt: int = 0
    #: stream → a record of its carried state kept outside the process, to resume from
    #: when the stream has no carried state here (:mod:`estimators.live.saved`)
    saved: dict[Any, Any] = field(default_factory=dict)
    #: streams whose carried state was resumed from such a record
    resumed: int = 0
    #: streams whose carried state changed since their records were last taken
    changed: set[Any] = field(default_factory=set)
    #: whether the records kept outside the process were offered to this cache yet
    loaded: bool = False
    #: system → (its stream's arrays at the last read, their digest): a read digests only
    #: the streams that changed (comparing arrays is ≈ 10× cheaper than hashing them)
    fingerprints: dict[Any, tuple[tuple[np.ndarray, ...], bytes]] = field(default_factory=dict)
    threads: int | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def get(self, stream: Any, key: Any) -> Any | None:
        """The analysis stored for ``stream`` when it was stored under ``key`` (keys are
        compared with ==: a digest, or a tuple of digests and plain values)."""
        entry = self._store.get(stream)
        hit = entry is not None and entry[0] == key
        with self._lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1
        return entry[1] if hit else None

    def put(self, stream: Any, key: Any, value: Any) -> None:
        self._store[stream] = (key, value)

    def fingerprint(self, name: Any, arrays: Sequence[np.ndarray]) -> bytes:
        """:func:`digest` of ``arrays``, reused while they are equal (dtype, shape and values)
        to the arrays last fingerprinted under ``name``."""
        kept = self.fingerprints.get(name)
        if (
            kept is not None
            and len(kept[0]) == len(arrays)
            and all(
                a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
                for a, b in zip(kept[0], arrays, strict=True)
            )
        ):
            return kept[1]
        fp = digest(*arrays)
        self.fingerprints[name] = (tuple(arrays), fp)
        return fp

    def __len__(self) -> int:
        return len(self._store)

    def warm(self, streams: Sequence[Any], analyse: Callable[[Any], Any]) -> None:
        """``analyse(stream)`` (which puts the stream's analysis here) for each of ``streams``
        not yet stored, on the cache's threads, when there are at least
        :data:`MIN_PARALLEL` of them (a cold read); otherwise nothing: the read analyses
        what it needs itself."""
        todo = [s for s in streams if s not in self._store]
        n = self.threads if self.threads is not None else default_threads()
        if n < 2 or len(todo) < MIN_PARALLEL:
            return
        with ThreadPoolExecutor(n, thread_name_prefix="monitor-warm") as pool:
            list(pool.map(lambda part: [analyse(s) for s in part], [todo[i::n] for i in range(n)]))


#: Threads a cold read uses at most, and the fewest unstored streams worth them.
MAX_THREADS = 4
MIN_PARALLEL = 32


def default_threads() -> int:
    """The usable cores (at most :data:`MAX_THREADS`) when half a core is idle, else 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except OSError:  # no load average: assume idle
        busy = 0.0
    return min(MAX_THREADS, cores) if busy <= cores - 0.5 else 1
