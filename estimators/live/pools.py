"""The live monitor's data: validated label streams and each system's or pair's fixed pool.

The labels arrive as plain arrays (item, system, label, the
assignment's position in the queue's random order, its inclusion probability); validity rests
on that random order, so labels without a recorded position or inclusion probability, with
positions out of order, or with unequal inclusion probabilities within a system (uniform
draws only) are refused. A system's pool is the items it has an output for; a pair's pool the
items both answered — the queue's random order restricted to them is still uniformly random.
Metric controls come from :func:`estimators.sequences.sequential.pool_controls` (a missing
score keeps its label but gets no control); the known set of a pool mean from
:mod:`estimators.base.verdicts` (docs/statistics-notes.md §2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from estimators.base import verdicts
from estimators.live.settings import MonitorSettings
from estimators.live.status import PoolCoverage
from estimators.sequences import sequential as seq

#: (low, high) a pool mean lies in for sure, given the labels so far (None: no known set)
Known = tuple[float, float] | None


def _require(values: np.ndarray | None, name: str, n: int) -> np.ndarray:
    if values is None:
        raise ValueError(
            f"labels without {name}: the monitor is valid only for labels drawn in a random "
            f"order recorded by the annotation queue (assignment position and inclusion "
            f"probability); refusing to compute anytime-valid verdicts"
        )
    arr = np.asarray(values, dtype=float)
    if arr.shape != (n,):
        raise ValueError(f"{name} has shape {arr.shape}, expected ({n},)")
    if not np.all(np.isfinite(arr)):
        bad = int(np.sum(~np.isfinite(arr)))
        raise ValueError(
            f"{bad} label(s) have a missing {name}: they were not drawn by the recorded random "
            f"order, so no valid sequential verdict can use them"
        )
    return arr


@dataclass(frozen=True)
class Pool:
    """A system's or a pair's fixed pool: item mask and controls (``None``: human only)."""

    mask: np.ndarray
    controls: seq.PoolControls | None

    @property
    def size(self) -> int:
        return int(self.mask.sum())


def _as_2d(m: np.ndarray) -> np.ndarray:
    """(N,) or (N, k) metric scores; NaN (or ±inf) marks a missing score."""
    arr = np.asarray(m, dtype=float)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError("pool metric scores must have shape (N,) or (N, k)")
    return np.where(np.isfinite(arr), arr, np.nan)


class Stream(NamedTuple):
    """One system's labels in arrival order, one per output: items, labels, positions."""

    items: np.ndarray
    y: np.ndarray
    pos: np.ndarray


class PairStream(NamedTuple):
    """A pair's paired differences in completion order, their controls (None: human only)
    and the pair's pool."""

    d: np.ndarray
    g: np.ndarray | None
    pool: Pool


class CampaignPool:
    """The fixed pool of a campaign: its size N from the metric scores or ``present``, never
    from the labels; which outputs exist; the system names; the pools of systems and pairs
    and what they cover."""

    def __init__(
        self, pool_metrics: Sequence[np.ndarray | None], present: np.ndarray | None,
        names: Sequence[str] | None, pair_controls: str,
    ) -> None:  # fmt: skip
        self.k = len(pool_metrics)
        if self.k < 1:
            raise ValueError("need at least one system")
        self.metrics = [None if m is None else _as_2d(m) for m in pool_metrics]
        sizes = {m.shape[0] for m in self.metrics if m is not None}
        if present is not None:
            sizes.add(np.shape(present)[-1])
        if len(sizes) > 1:
            raise ValueError(f"systems have pools of different sizes {sorted(sizes)}")
        if not sizes:
            # the pool must be known in advance: sizing it from the labels seen so far would
            # move t* (and the p-value path) as labels arrive
            raise ValueError("the pool size is unknown: pass present (systems × items)")
        self.n_items = sizes.pop()
        self.present = (
            np.ones((self.k, self.n_items), dtype=bool)
            if present is None
            else np.asarray(present, dtype=bool)
        )
        if self.present.shape != (self.k, self.n_items):
            raise ValueError(f"present has shape {self.present.shape}, expected (systems, N)")
        self.names = list(names) if names is not None else [f"S{i}" for i in range(self.k)]
        if len(self.names) != self.k:
            raise ValueError("one name per system")
        self.pair_controls = pair_controls

    def system_pool(self, s: int) -> Pool:
        """System s's pool: the items it has an output for, with its metric controls."""
        mask = self.present[s]
        m = self.metrics[s]
        return Pool(mask, None if m is None else seq.pool_controls(m, mask))

    def pair_pool(self, a: int, b: int) -> Pool:
        """The pair's pool: the items both systems answered; controls g_A − g_B or (g_A, g_B),
        missing wherever either score is missing."""
        mask = self.present[a] & self.present[b]
        ma, mb = self.metrics[a], self.metrics[b]
        if ma is None or mb is None:
            return Pool(mask, None)
        if self.pair_controls == "difference":
            g_all = ma - mb
        elif self.pair_controls == "both":
            g_all = np.concatenate([ma, mb], axis=1)
        else:
            raise ValueError(
                f"pair_controls must be 'difference' or 'both', not {self.pair_controls!r}"
            )
        return Pool(mask, seq.pool_controls(g_all, mask))

    def pair_stream(self, stream_a: Stream, stream_b: Stream, a: int, b: int) -> PairStream:
        """Paired differences D = y_A − y_B on the items both systems have, in the order
        the pair was completed (the later of the two labels), their controls and pool."""
        ia, ya, pa = stream_a
        ib, yb, pb = stream_b
        # each item's place in b's stream (−1: b has no label of it): the items both have,
        # in a's order, without sorting them (a read rebuilds every touched pair's stream)
        at = np.full(self.n_items, -1, dtype=np.intp)
        at[ib] = np.arange(ib.size)
        jb = at[ia]
        xa = np.flatnonzero(jb >= 0)
        xb = jb[xa]
        done = np.maximum(pa[xa], pb[xb])
        order = np.argsort(done, kind="stable")
        ranked = done[order]
        if ranked.size > 1 and not (ranked[1:] > ranked[:-1]).all():
            order = np.lexsort((ia[xa], done))  # ties (equal positions): by item
        xa, xb = xa[order], xb[order]
        items = ia[xa]
        pool = self.pair_pool(a, b)
        g = None if pool.controls is None else pool.controls.values[items]
        return PairStream(ya[xa] - yb[xb], g, pool)

    def coverage(self, pool: Pool) -> PoolCoverage:
        """What the pool covers of the campaign: its size, the items without an output, the
        outputs without a chosen metric score."""
        has_metric = any(m is not None for m in self.metrics)
        if pool.controls is not None:
            no_metric = int(pool.controls.imputed.sum())
        else:
            no_metric = pool.size if has_metric else 0
        return PoolCoverage(pool=pool.size, no_output=self.n_items - pool.size, no_metric=no_metric)

    def largest_system_pool(self) -> int:
        """The most outputs any one system has."""
        return max(int(self.present[s].sum()) for s in range(self.k))

    def disjoint_pair_notes(self) -> list[str]:
        """Say so when two systems share no item: a pair is compared on the items both have
        outputs for, so such a pair can never be decided (an unpaired two-sample comparison
        is not built); without the note it would read "not yet" forever."""
        have = self.present.astype(float)  # counts ≤ N, exact in float; BLAS, unlike ints
        shared = have @ have.T
        a, b = np.nonzero(np.triu(shared == 0, k=1))
        if a.size == 0:
            return []
        first = f"{self.names[a[0]]} and {self.names[b[0]]}"
        return [
            f"{a.size} pair(s) of systems share no item (e.g. {first}): pairs are compared on "
            "the items both systems have outputs for, so these cannot be decided."
        ]

    def coverage_notes(self, name: str, cover: PoolCoverage) -> list[str]:
        """Say so when a system lacks outputs or metric scores for part of the pool."""
        out = []
        if cover.no_output:
            out.append(
                f"{name} has no output for {cover.no_output} of {self.n_items} items: it is "
                "monitored, and compared, on the items it answered."
            )
        if cover.no_metric:
            out.append(
                f"{name}: {cover.no_metric} of its {cover.pool} outputs lack a chosen metric "
                "score; their labels count without the metric control."
            )
        return out


class Labels:
    """The human labels in arrival order, refused unless drawn in the queue's recorded
    random order: positions strictly increasing, inclusion probabilities in (0, 1] and
    equal within a system under uniform draws, each label for an output the pool has and
    inside the declared label range."""

    def __init__(
        self,
        pool: CampaignPool,
        item: Sequence[int] | np.ndarray,
        system: Sequence[int] | np.ndarray,
        label: Sequence[float] | np.ndarray,
        position: Sequence[float] | np.ndarray | None,
        inclusion_prob: Sequence[float] | np.ndarray | None,
        *,
        label_range: tuple[float, float] | None,
        uniform_draws: bool,
    ) -> None:
        n = len(label)
        self.item = np.asarray(item, dtype=int).reshape(n)
        self.system = np.asarray(system, dtype=int).reshape(n)
        self.label = np.asarray(label, dtype=float).reshape(n)
        self.position = _require(position, "assignment position", n)
        self.inclusion_prob = _require(inclusion_prob, "inclusion probability", n)
        self._k = pool.k
        self._grouped: tuple[np.ndarray, np.ndarray] | None = None
        self._streams: list[tuple[Stream, int]] | None = None
        self._validate(pool, label_range, uniform_draws)

    def _by_system(self) -> tuple[np.ndarray, np.ndarray]:
        """(the labels' indices grouped by system, each group in arrival order; the groups'
        bounds): one stable sort for every system, not a pass over all labels per system."""
        if self._grouped is None:
            small = self.system.astype(np.int16 if self._k < 2**15 else np.int64)
            order = np.argsort(small, kind="stable")  # a radix sort on small integers
            bounds = np.concatenate([[0], np.cumsum(np.bincount(self.system, minlength=self._k))])
            self._grouped = order, bounds
        return self._grouped

    def _validate(
        self, pool: CampaignPool, label_range: tuple[float, float] | None, uniform_draws: bool
    ) -> None:
        n = self.label.size
        if np.any(np.diff(self.position) <= 0):
            i = int(np.argmax(np.diff(self.position) <= 0)) + 1
            raise ValueError(
                f"assignment positions must be strictly increasing in arrival order "
                f"(label {i} has position {self.position[i]} after {self.position[i - 1]})"
            )
        if np.any((self.inclusion_prob <= 0) | (self.inclusion_prob > 1)):
            raise ValueError("inclusion probabilities must lie in (0, 1]")
        if np.any((self.system < 0) | (self.system >= pool.k)):
            raise ValueError("system index out of range")
        if np.any((self.item < 0) | (self.item >= pool.n_items)):
            raise ValueError(f"item index out of range 0..{pool.n_items - 1}")
        if not pool.present[self.system, self.item].all():
            raise ValueError("labels for outputs the pool does not have (present is False)")
        if not np.all(np.isfinite(self.label)):
            raise ValueError("labels must be finite numbers (drop skipped items upstream)")
        if label_range is not None:
            lo, hi = label_range
            if np.any((self.label < lo) | (self.label > hi)):
                raise ValueError(f"labels outside the declared range {label_range}")
        if not uniform_draws or n == 0:  # active sampling: weighted streams
            return
        order, bounds = self._by_system()
        # every system's inclusion probabilities equal its first one's (to 1e-9, relative):
        # one pass over all labels, not one per system
        pis = self.inclusion_prob[order]
        ref = np.repeat(pis[np.minimum(bounds[:-1], n - 1)], np.diff(bounds))
        unequal = np.abs(pis - ref) > 1e-9 * np.abs(ref)
        if unequal.any():
            s = int(np.searchsorted(bounds, int(np.argmax(unequal)), side="right")) - 1
            pi = pis[bounds[s] : bounds[s + 1]]
            raise ValueError(
                f"system {pool.names[s]!r}: unequal inclusion probabilities "
                f"({pi.min():.4g}..{pi.max():.4g}); the sequential monitor needs a "
                f"uniformly random draw — use a fixed-n weighted estimator instead"
            )

    def stream(self, s: int) -> tuple[Stream, int]:
        """System s's labels in arrival order (the first label per output), and how many
        repeat labels of an output were left out."""
        if self._streams is None:
            self._streams = [self._stream(s) for s in range(self._k)]
        return self._streams[s]

    def _stream(self, s: int) -> tuple[Stream, int]:
        order, bounds = self._by_system()
        idx = order[bounds[s] : bounds[s + 1]]
        items, y, pos = self.item[idx], self.label[idx], self.position[idx]
        if items.size == 0 or np.bincount(items).max() == 1:  # no output labelled twice
            return Stream(items, y, pos), 0
        _, first = np.unique(items, return_index=True)
        keep = np.sort(first)
        return Stream(items[keep], y[keep], pos[keep]), int(idx.size - keep.size)


def known_bounds(
    settings: MonitorSettings, labelled: Sequence[tuple[np.ndarray, np.ndarray]], pool: Pool
) -> Known:
    """The known set of a system's (one (items, labels) part) or pair's (two parts) pool
    mean (:mod:`estimators.base.verdicts`): finite-pool estimand with uniform draws and a
    known label range only."""
    if not settings.known_applies or pool.size == 0 or settings.label_range is None:
        return None
    parts = []
    for items, y in labelled:
        inside = pool.mask[items]
        parts.append((float(np.sum(y[inside])), int(inside.sum())))
    if len(parts) == 1:
        return verdicts.known_bounds(*parts[0], pool.size, settings.label_range)
    return verdicts.pair_known_bounds(parts[0], parts[1], pool.size, settings.label_range)
