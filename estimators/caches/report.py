"""What :func:`estimators.report.campaign_report.campaign_report` carries between reads besides the
live
monitor: per system its fixed-n estimates and its metrics' efficiency terms, per pair of
systems the paired-difference correlation, each keyed by a digest of everything it is
computed from.

After one new label only that system's row of the label grid changes, so a read recomputes
one system's estimates and its k − 1 pairs instead of all k systems and k(k − 1)/2 pairs
(at 60 systems with one metric: 60 PPI++ / double-sampling fits and 1,770 correlations).
A key is the digest of the inputs (:func:`estimators.caches.monitor.digest`: dtypes, shapes
and bytes of the arrays, repr of the settings), so an entry is reused only for the very
same inputs and gives the result the fresh computation gives (tests/estimators/caches/test_report.py
compares every read with an uncached report). Nothing can be stale; the cache only grows
until :data:`MAX_ENTRIES`, then its oldest entries go.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from estimators.caches.monitor import digest

__all__ = ["MAX_ENTRIES", "ReportCache", "digest"]

#: Entries kept (a 60-system campaign with two metrics needs ≈ 3,700 per report).
MAX_ENTRIES = 50_000

T = TypeVar("T")


class ReportCache:
    """Results of report parts by (part, digest of its inputs)."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: dict[tuple[str, bytes], Any] = {}
        self._max = max_entries
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, part: str, key: bytes, compute: Callable[[], T]) -> T:
        """The cached result of ``part`` for ``key``, else ``compute()`` (kept)."""
        entry = self._entries.get((part, key), self)
        if entry is not self:
            self.hits += 1
            return entry  # type: ignore[no-any-return]
        self.misses += 1
        value = compute()
        if len(self._entries) >= self._max:  # drop the oldest tenth (insertion order)
            for old in list(self._entries)[: max(1, self._max // 10)]:
                self._entries.pop(old, None)
        self._entries[(part, key)] = value
        return value


def cached(cache: ReportCache | None, part: str, key: Callable[[], bytes],
           compute: Callable[[], T]) -> T:  # fmt: skip
    """``compute()`` through ``cache`` (no cache: computed; ``key`` only called with one)."""
    return compute() if cache is None else cache.get(part, key(), compute)
