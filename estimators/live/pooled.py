"""The campaign's pooled control slope for the asymptotic mixture's pair increments.

docs/statistics-notes.md §34. Under the ``asympcs_mix`` design with imported metric scores
(uniform draws, items as the unit) every pair's control-variate increments use one slope
learned from all pairs' labels (:func:`estimators.sequences.mixture_control.pooled_slopes`):
built once per read from every system's label stream; a pair's i-th item takes the slope
after the items complete (labelled for every system that has an output) before its first
label's queue position.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from estimators.base.multiple import pairs
from estimators.caches.monitor import digest
from estimators.live.pools import CampaignPool, Labels, Stream
from estimators.live.settings import MonitorSettings
from estimators.sequences import mixture_control as mc
from estimators.sequences.designs import LiveDesign


def pooled_control(
    settings: MonitorSettings, pool: CampaignPool, labels: Labels, visits: object
) -> PooledControl | bool:
    """The read's pooled slope under ``asympcs_mix`` with metric scores and uniform draws
    (``visits`` None), else False."""
    if settings.design != LiveDesign.ASYMPCS_MIX or visits is not None:
        return False
    if all(m is None for m in pool.metrics):
        return False
    return PooledControl(pool, [labels.stream(s)[0] for s in range(pool.k)])


class PooledControl:
    """The pooled slope path of a read: ``completed`` (J,) the completion positions of the
    complete items in order, ``lam`` (J + 1, c) the slope after each."""

    def __init__(self, pool: CampaignPool, streams: Sequence[Stream]) -> None:
        k, n = pool.k, pool.n_items
        plist = pairs(k)
        pos = np.full((k, n), np.inf)
        lab = np.full((k, n), np.nan)
        for s, (items, y, p) in enumerate(streams):
            pos[s, items], lab[s, items] = p, y
        need = pool.present
        complete = np.all(np.isfinite(pos) | ~need, axis=0) & need.any(axis=0)
        done = np.where(need, pos, -np.inf).max(axis=0)
        items = np.flatnonzero(complete)
        items = items[np.argsort(done[items], kind="stable")]
        self.completed = done[items]
        pools = [pool.pair_pool(a, b) for a, b in plist]
        c = next((p.controls.values.shape[1] for p in pools if p.controls is not None), 1)
        d = np.zeros((items.size, len(plist)))
        g = np.zeros((items.size, len(plist), c))
        mask = np.zeros((items.size, len(plist)), dtype=bool)
        var = np.zeros((len(plist), c))
        for j, ((a, b), pp) in enumerate(zip(plist, pools, strict=True)):
            if pp.controls is None or pp.controls.values.shape[1] != c:
                continue
            inside = pp.mask[items]
            mask[:, j] = inside
            d[:, j] = np.where(inside, lab[a, items] - lab[b, items], 0.0)
            g[:, j] = np.where(inside[:, None], pp.controls.values[items], 0.0)
            var[j] = pp.controls.values[pp.mask].var(axis=0)
        self.lam = mc.pooled_slopes(d, np.nan_to_num(g), mask, var)
        self._key = (self.completed, self.lam)

    def pair_slopes(
        self, stream_a: Stream, stream_b: Stream, g: np.ndarray | None
    ) -> np.ndarray | None:
        """λ_i for the pair's items in its completion order (as
        :meth:`estimators.live.pools.CampaignPool.pair_stream` orders them); None when the
        pair has no control ``g`` or not as many as the pooled slope."""
        width = 1 if g is None or np.ndim(g) == 1 else np.shape(g)[-1]
        if g is None or self.lam.shape[-1] != width:
            return None
        ia, _, pa = stream_a
        ib, _, pb = stream_b
        _, xa, xb = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
        order = np.argsort(np.maximum(pa[xa], pb[xb]), kind="stable")
        first = np.minimum(pa[xa], pb[xb])[order]
        return mc.slopes_at(self.completed, self.lam, first)

    def key_before(self, position: float) -> bytes:
        """A digest of the path up to ``position``: all a pair whose labels lie before it
        depends on (a cached row stays valid while this is unchanged)."""
        j = int(np.searchsorted(self.completed, position, side="left"))
        return digest(self.completed[:j], self.lam[: j + 1])
