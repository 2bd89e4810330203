"""WMT's own ranking procedures, fixed-n and with no multiplicity correction.

docs/statistics-notes.md §26. Both read a table of paired segment scores ``scores`` of shape
(k systems, N items, W waves), NaN where a system has no score for an item in a wave (a wave
is one round of annotation: WMT25 had two, each item's outputs judged once per wave). Higher
is better (negate a lower-is-better score first). Neither procedure controls an error rate
over the k(k − 1)/2 pairs it looks at: each test runs at its own level and the tables are read
as if the data had been fixed in advance, which is why Tandem shows them labelled
"fixed-n, no multiplicity correction" beside its anytime-valid clusters.

**WMT25** (Kocmi et al. 2025, "Findings of the WMT25 General Machine Translation Shared Task";
the organisers' script ``humeval/08-compute_clusters.py`` in wmt-conference/wmt25-general-mt):

1. sort the systems by their mean score over every score they have (all waves), best first;
2. A is significantly better than B when the one-sided Wilcoxon signed-rank test of the
   paired differences A − B (``scipy.stats.wilcoxon(..., alternative="greater")``) gives
   p < α/2. With waves, the differences are symmetrised: every pair of waves (w, w′) gives
   a_w − b_w′ for each item, so with two waves the four differences a₁ − b₁, a₂ − b₂,
   a₁ − b₂, a₂ − b₁ (pairs with a NaN dropped);
3. the rank range of the system at position i (1-based): walk up from i − 1 towards 1 and
   stop at the first system significantly better than it; every system passed lowers the
   top of the range by one. Walk down from i + 1 and stop at the first system it is
   significantly better than; every system passed raises the bottom by one;
4. a cluster ends after position c when every system at positions ≤ c has its range's
   bottom ≤ c and every system below has its top > c.

**WMT24** (Kocmi et al. 2024, "Findings of the WMT24 General Machine Translation Shared
Task"; ``humeval/tools.py`` in wmt-conference/wmt24-news-systems):

1. repeated ratings of one output are averaged (the W waves to one score per item);
2. each system's score is the macro average over domains of its per-domain mean; the systems
   are sorted by it;
3. for each pair and each domain d with paired items, the two-sided Wilcoxon signed-rank
   p-value p_d of the differences; combined by Stouffer's Z: z_d = Φ⁻¹(1 − p_d),
   Z = Σ_d z_d / √D, p = 1 − Φ(Z). A pair differs significantly when p < α; its direction is
   that of the two systems' scores (p_d carries none: this is how the published script
   combines them);
4. wins / losses: the significant pairs a system is above / below; rank range
   (losses + 1, k − wins);
5. a cluster ends after position c when every system at positions ≤ c differs significantly
   from every system below (the rule of the WMT17–19 findings' tables).

A domain where all differences are zero gives p_d = 1 (no evidence), not an error.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "NO_CORRECTION",
    "PROCEDURES",
    "WmtRanking",
    "WmtRow",
    "symmetrised_differences",
    "wilcoxon_greater",
    "wmt24_ranking",
    "wmt25_ranking",
]

#: How every WMT table in Tandem is labelled.
NO_CORRECTION = "fixed-n, no multiplicity correction"
#: Procedure name → one line saying what it is.
PROCEDURES = {
    "wmt25": "WMT25: neighbour walk, one-sided Wilcoxon signed-rank at p < α/2",
    "wmt24": "WMT24: per-domain Wilcoxon signed-rank combined by Stouffer's Z at p < α",
}


@dataclass(frozen=True)
class WmtRow:
    """One system of a WMT table, best first."""

    position: int
    system: str
    mean: float
    n_scores: int
    rank_low: int
    rank_high: int
    cluster: int
    wins: int
    losses: int


@dataclass(frozen=True)
class WmtRanking:
    """A WMT table: rows best first, and every pair's test.

    ``p[(a, b)]``: the p-value the procedure reads for "a better than b" (WMT25 one-sided;
    WMT24 the combined, symmetric one); ``better``: the (winner, loser) pairs significant at
    ``threshold``. Systems without any score are listed in ``unranked``."""

    procedure: str
    alpha: float
    threshold: float
    rows: list[WmtRow]
    p: dict[tuple[str, str], float]
    better: frozenset[tuple[str, str]]
    waves: int
    domains: tuple[str, ...]
    unranked: tuple[str, ...] = ()

    def cluster_of(self) -> dict[str, int]:
        return {r.system: r.cluster for r in self.rows}


def symmetrised_differences(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a_w − b_w′ over every pair of waves (w, w′) and every item, NaN pairs dropped.
    ``a``, ``b``: (N, W). With W = 1 the plain paired differences."""
    a = np.asarray(a, dtype=float).reshape(len(a), -1)
    b = np.asarray(b, dtype=float).reshape(len(b), -1)
    d = (a[:, :, None] - b[:, None, :]).ravel()
    return d[np.isfinite(d)]


def wilcoxon_greater(diffs: np.ndarray) -> float:
    """p of the one-sided Wilcoxon signed-rank test "median difference > 0" (scipy's
    defaults: zeros dropped, exact for small samples); 1.0 when no difference is non-zero."""
    diffs = np.asarray(diffs, dtype=float)
    if not np.any(diffs != 0):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = float(stats.wilcoxon(diffs, alternative="greater").pvalue)
    return p if math.isfinite(p) else 1.0


def _two_sided(diffs: np.ndarray) -> float:
    if not np.any(diffs != 0):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = float(stats.wilcoxon(diffs, alternative="two-sided").pvalue)
    return p if math.isfinite(p) else 1.0


def _scores(scores: np.ndarray, systems: Sequence[str]) -> np.ndarray:
    s = np.asarray(scores, dtype=float)
    if s.ndim == 2:
        s = s[:, :, None]
    if s.ndim != 3 or s.shape[0] != len(systems):
        raise ValueError(f"scores must be (systems, items[, waves]); got {s.shape}")
    return s


def _order(systems: Sequence[str], means: np.ndarray) -> tuple[list[int], tuple[str, ...]]:
    """Indices of the systems with a score, best first (ties by name), and those without."""
    ranked = [i for i in range(len(systems)) if math.isfinite(means[i])]
    ranked.sort(key=lambda i: (-means[i], systems[i]))
    return ranked, tuple(sorted(systems[i] for i in range(len(systems)) if i not in ranked))


def _cut_clusters(ends: list[bool]) -> list[int]:
    """Cluster numbers from "a cluster ends after position c" flags (one per position)."""
    out, c = [], 1
    for end in ends:
        out.append(c)
        c += int(end)
    return out


def wmt25_ranking(scores: np.ndarray, systems: Sequence[str], alpha: float = 0.05) -> WmtRanking:
    """WMT25's table (module docstring): the neighbour walk at p < α/2 on symmetrised
    differences. O(k²) Wilcoxon tests (every ordered pair, for the pair list)."""
    s = _scores(scores, systems)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        means = (
            np.nanmean(s.reshape(len(systems), -1), axis=1)
            if s.size
            else np.full(len(systems), np.nan)
        )
    order, unranked = _order(systems, means)
    names = [systems[i] for i in order]
    threshold = alpha / 2
    p: dict[tuple[str, str], float] = {}
    for x in order:
        for y in order:
            if x != y:
                diffs = symmetrised_differences(s[x], s[y])
                p[(systems[x], systems[y])] = wilcoxon_greater(diffs)

    def sig(a: str, b: str) -> bool:
        return p[(a, b)] < threshold

    k = len(names)
    ranges = []
    for i, me in enumerate(names):
        low = i + 1
        for above in reversed(names[:i]):
            if sig(above, me):
                break
            low -= 1
        high = i + 1
        for below in names[i + 1 :]:
            if sig(me, below):
                break
            high += 1
        ranges.append((low, high))
    ends = [
        c < k and all(hi <= c for _, hi in ranges[:c]) and all(lo > c for lo, _ in ranges[c:])
        for c in range(1, k + 1)
    ]
    better = frozenset(pair for pair in p if sig(*pair))
    return _table("wmt25", alpha, threshold, names, means, order, s, ranges, ends, p,
                  better, (), unranked)  # fmt: skip


def wmt24_ranking(
    scores: np.ndarray,
    systems: Sequence[str],
    domains: Sequence[str | None] | None = None,
    alpha: float = 0.05,
) -> WmtRanking:
    """WMT24's table (module docstring): per-domain two-sided Wilcoxon signed-rank p-values
    combined by Stouffer's Z, p < α; ranks (losses + 1, k − wins). ``domains``: one per item
    (``None`` or empty = one domain for all)."""
    s = _scores(scores, systems)
    n_items = s.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        x = np.nanmean(s, axis=2) if s.shape[2] else np.full(s.shape[:2], np.nan)
    labels = ["" if d is None else str(d) for d in (domains or [None] * n_items)]
    if len(labels) != n_items:
        raise ValueError(f"{len(labels)} domains for {n_items} items")
    names_d = tuple(sorted(set(labels)))
    masks = [np.array([lab == d for lab in labels], dtype=bool) for d in names_d]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        per_domain = np.stack([np.nanmean(x[:, m], axis=1) for m in masks], axis=1)
        means = np.nanmean(per_domain, axis=1)
    order, unranked = _order(systems, means)
    names = [systems[i] for i in order]
    p: dict[tuple[str, str], float] = {}
    for ai, a in enumerate(order):
        for b in order[ai + 1 :]:
            zs = []
            for m in masks:
                d = x[a, m] - x[b, m]
                d = d[np.isfinite(d)]
                if d.size:
                    zs.append(float(stats.norm.isf(_two_sided(d))))
            z = sum(zs) / math.sqrt(len(zs)) if zs else -math.inf
            p[(systems[a], systems[b])] = p[(systems[b], systems[a])] = float(stats.norm.sf(z))
    better = frozenset(
        (a, b) for (a, b), pv in p.items()
        if pv < alpha and means[systems.index(a)] > means[systems.index(b)]
    )  # fmt: skip
    k = len(names)
    wins = {n: sum(1 for w, _ in better if w == n) for n in names}
    losses = {n: sum(1 for _, lo in better if lo == n) for n in names}
    ranges = [(losses[n] + 1, k - wins[n]) for n in names]
    ends = [
        c < k and all(p[(a, b)] < alpha for a in names[:c] for b in names[c:])
        for c in range(1, k + 1)
    ]
    return _table("wmt24", alpha, alpha, names, means, order, s, ranges, ends, p, better,
                  names_d, unranked)  # fmt: skip


def _table(procedure, alpha, threshold, names, means, order, s, ranges, ends, p, better,
           domains, unranked) -> WmtRanking:  # type: ignore[no-untyped-def]  # fmt: skip
    clusters = _cut_clusters(ends)
    rows = [
        WmtRow(
            position=pos,
            system=n,
            mean=float(means[i]),
            n_scores=int(np.isfinite(s[i]).sum()),
            rank_low=lo,
            rank_high=hi,
            cluster=c,
            wins=sum(1 for w, _ in better if w == n),
            losses=sum(1 for _, lo_ in better if lo_ == n),
        )
        for pos, (n, i, (lo, hi), c) in enumerate(
            zip(names, order, ranges, clusters, strict=True), start=1
        )
    ]
    waves = int(s.shape[2]) if s.size else 0
    return WmtRanking(procedure, alpha, threshold, rows, p, better, waves, domains, unranked)
