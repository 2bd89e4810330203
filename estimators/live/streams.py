"""The live monitor's per-read pass over systems and pairs, with the campaign's cache.

statistics.md §4–§5; issue 29. A system's analysis depends on its own label stream and the
monitor's settings; a pair's on the two systems' streams and the settings (its stream, pool,
controls and known bounds are functions of them). So a read digests the settings once and
each system's stream once, and a pair whose two systems' streams are unchanged reuses its
row without building its stream (:mod:`estimators.caches.monitor`); a pair a new label
touched is analysed again — under the betting design by extending its carried state
(:mod:`estimators.live.carry`). Holm or e-BH over all pairs, the sides, forecasts and rank
sets are recomputed at every read (they depend on every pair).
"""

from __future__ import annotations

import math

import numpy as np

from estimators.base import verdicts
from estimators.base.multiple import holm
from estimators.base.result import MIN_LABELS_FOR_VERDICT
from estimators.base.verdicts import ErrorRate
from estimators.caches.monitor import digest


class MonitorStreams:
    """Per-read rows of :class:`estimators.live.monitor.CampaignMonitor`."""

    def _read_keys(self, streams) -> None:  # type: ignore[no-untyped-def]
        """The digest of the settings and of each system's stream, for this read."""
        if self.cache is None:
            self._settings_key, self._fps = b"", [b""] * self.k
            return
        self._settings_key = digest(
            self.alpha, str(self.design), self.mode, self.t_star, self.finite_pool,
            str(self._error_rate()), self.label_range, self.pair_controls, self.k,
            self.margin, self.higher_is_better, tuple(self.names),
            self.present, *[m if m is not None else "none" for m in self.metrics],
        )  # fmt: skip
        self._fps = [digest(*st[:3]) for st in streams]

    def _system_row(self, s: int, stream, a_sys: float, method: str):  # type: ignore[no-untyped-def]
        """System s's analysis (reused while its stream and the settings are unchanged)."""
        items, y = stream[:2]
        pool = self._system_pool(s)
        g = None if pool.controls is None else pool.controls.values[items]
        n_labels, kind = None, f"{method}+cv"
        known = self._known(((items, y),), pool)
        if self.visits is not None:
            y, g, pool, n_labels = self._weighted((s,), pool)
            kind = f"{method}+active"
        key = b"" if self.cache is None else digest(self._settings_key, self._fps[s], a_sys, kind)
        res = None if self.cache is None else self.cache.get(("system", s), key)
        if res is None:
            res = self._result(
                y, g, pool, a_sys, pair=False, method=kind, n_labels=n_labels, known=known,
                stream=None if self.cache is None else ("system", s),
            )[0]  # fmt: skip
            if self.cache is not None:
                self.cache.put(("system", s), key, res)
        return res, pool

    def _pair_row(self, a: int, b: int, streams, a_pair: float):  # type: ignore[no-untyped-def]
        """(result, p, σ, t*, e-value, coverage, known bounds, pool size, sequence, key) of
        the pair (a, b); reused while both systems' streams and the settings are unchanged."""
        kind = f"{self.design}+{'active' if self.visits is not None else 'cv'} paired"
        key = b""
        if self.cache is not None:
            key = digest(self._settings_key, self._fps[a], self._fps[b], a_pair, kind)
            hit = self.cache.get(("pair", a, b), key)
            if hit is not None:
                return hit
        d, g, pool = self._pair_stream(streams[a], streams[b], a, b)
        known = self._known((streams[a][:2], streams[b][:2]), pool)
        n_labels = None
        if self.visits is not None:
            d, g, pool, n_labels = self._weighted((a, b), pool)
        self._last_e = 1.0
        res, p_last, sigma, t_star, cs = self._result(
            d, g, pool, a_pair, pair=True, method=kind, theta0=0.0, n_labels=n_labels,
            known=known, stream=None if self.cache is None else ("pair", a, b),
        )  # fmt: skip
        e_last = math.inf if p_last == 0.0 else self._last_e
        row = (res, p_last, sigma, t_star, e_last, self._coverage(pool), known, pool.size, cs, key)
        if self.cache is not None:
            self.cache.put(("pair", a, b), key, row)
        return row

    def _pair_statuses(self, plist, streams, a_pair: float, notes: list[str]):  # type: ignore[no-untyped-def]
        """Analyse every pair, settle them together (Holm or e-BH), and word the verdicts."""
        rows = [self._pair_row(a, b, streams, a_pair) for a, b in plist]
        for (a, b), row in zip(plist, rows, strict=True):
            if row[8] is not None:
                self._pair_cs[(a, b)] = row[8]
        if self.error_rate == ErrorRate.FDR and self._error_rate() != ErrorRate.FDR:
            notes.append(
                f"e-BH needs the betting design's e-values; the {self.design} design reads "
                "its verdicts with Holm (family-wise error rate)."
            )
        pvals = np.array([r[1] for r in rows], dtype=float)
        evals = np.array([r[4] for r in rows], dtype=float)
        reject, read_at = verdicts.settle(pvals, evals, self.alpha, self._error_rate())
        adj = holm(pvals, self.alpha).adjusted if plist else np.array([])
        level = verdicts.read_level(reject, self.alpha, self._error_rate())
        out = []
        for i, (ab, row) in enumerate(zip(plist, rows, strict=True)):
            res, p = row[0], row[1]
            sign = self._sign(res, p, bool(reject[i]), (ab, row, streams), level)
            # the status (verdict, forecasts) is a function of the row and of where Holm or
            # e-BH places the pair: reused while both are unchanged
            key = (row[9], float(adj[i]), sign, float(read_at[i]))
            status = None if self.cache is None else self.cache.get(("status", *ab), key)
            if status is None:
                status = self._pair_status(
                    ab, res, p, float(adj[i]), sign, float(read_at[i]),
                    (row[2], row[3], row[7]), row[5], a_pair, row[4],
                )  # fmt: skip
                if self.cache is not None:
                    self.cache.put(("status", *ab), key, status)
            out.append(status)
        return out

    def _sign(self, res, p: float, rejected: bool, pair, level: float) -> int:  # type: ignore[no-untyped-def]
        """The side a rejected pair is read on (0: none, or not rejected): its interval at
        the level it is rejected at (:func:`estimators.base.verdicts.side`). The Bonferroni
        interval is wider, so when it already lies on one side that is the side; otherwise
        the pair's interval at the read level is computed (its stream built for it)."""
        if not rejected or not (res.n_human >= MIN_LABELS_FOR_VERDICT or p == 0.0):
            return 0
        (a, b), row, streams = pair
        known = row[6]
        bonf = verdicts.intersect(res.diagnostics.get("interval", res.ci), known)
        sign = verdicts.side(bonf)
        if sign or p == 0.0 or not level > self.alpha / max(self.k * (self.k - 1) // 2, 1):
            return sign
        key = digest(row[9], level)
        ci = None if self.cache is None else self.cache.get(("read", a, b), key)
        if ci is None:
            d, g, pool = self._pair_stream(streams[a], streams[b], a, b)
            if self.visits is not None:
                d, g, pool, _ = self._weighted((a, b), pool)
            ci = self._read_interval((d, g, pool, known), level)
            if self.cache is not None:
                self.cache.put(("read", a, b), key, ci)
        return verdicts.side(ci)
