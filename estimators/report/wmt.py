"""WMT's ranking of a campaign beside Tandem's: the judgments as WMT's paired table, the WMT25
or WMT24 procedure on it, and the pairs where it and the live clusters disagree.

docs/statistics-notes.md §26. The table is (systems, items, waves): an output's judgments of
the chosen kind in arrival order are its waves, the first two used (WMT25 had two waves;
an output judged once has wave 2 missing, and a further repeat adds nothing here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from estimators.base.verdicts import Outcome
from estimators.data.campaign import CampaignData, display_scale
from estimators.fixed_n.wmt_ranking import WmtRanking, wmt24_ranking, wmt25_ranking
from estimators.fixed_n.wmt_tables import disagreements, wmt_rows
from estimators.live.ranking import ranking_rows
from estimators.live.status import MonitorReport

#: Waves WMT25 symmetrises over: an output's first two judgments.
WAVES = 2


@dataclass(frozen=True)
class WmtComparison:
    """A WMT table and Tandem's, side by side."""

    ranking: WmtRanking
    rows: list[dict]  # estimators.fixed_n.wmt_tables.WMT_COLUMNS, best first
    tandem_rows: list[dict]  # estimators.live.ranking.COLUMNS
    disagreements: list[dict]  # estimators.fixed_n.wmt_tables.DISAGREEMENT_COLUMNS
    label_kind: str


def wave_scores(data: CampaignData, kind: str, waves: int = WAVES,
                skip_items: Sequence[int] = ()) -> np.ndarray:  # fmt: skip
    """(k, N, W) scores of ``kind`` (NaN where missing): wave w of an output is its (w+1)-th
    judgment in arrival order. ``skip_items``: item indices left out (NaN)."""
    j = data.judgments
    v = j.values(kind)
    rows = np.flatnonzero(np.isfinite(v))
    out = np.full((len(data.systems), data.n_items, waves), np.nan)
    key = j.output_key(data.n_items)[rows]
    seen: dict[int, int] = {}
    for r, k_ in zip(rows.tolist(), key.tolist(), strict=True):
        w = seen.get(k_, 0)
        seen[k_] = w + 1
        if w < waves:
            out[j.system[r], j.item[r], w] = v[r]
    if len(skip_items):
        out[:, np.asarray(skip_items, dtype=int), :] = np.nan
    used = np.isfinite(out).any(axis=(0, 1))
    last = int(np.flatnonzero(used).max()) + 1 if used.any() else 1
    return out[:, :, :last]


def tandem_better(monitor: MonitorReport) -> set[tuple[str, str]]:
    """The live verdicts as (winner, loser) pairs."""
    out = set()
    for p in monitor.pairs:
        if p.outcome == Outcome.A_BETTER:
            out.add((p.a, p.b))
        elif p.outcome == Outcome.B_BETTER:
            out.add((p.b, p.a))
    return out


def wmt_comparison(
    data: CampaignData,
    kind: str,
    monitor: MonitorReport,
    *,
    higher_is_better: bool = True,
    procedure: str = "wmt25",
    domains: Sequence[str | None] | None = None,
    alpha: float | None = None,
    skip_items: Sequence[int] = (),
    settings: dict | None = None,
) -> WmtComparison:
    """The WMT ``procedure`` ("wmt25" or "wmt24") on ``data``'s judgments of ``kind`` at
    ``alpha`` (default: the monitor's), beside the monitor's clusters."""
    if procedure not in ("wmt25", "wmt24"):
        raise ValueError(f"unknown WMT procedure {procedure!r}; use wmt25 or wmt24")
    a = monitor.alpha if alpha is None else alpha
    s = wave_scores(data, kind, skip_items=skip_items)
    if not higher_is_better:
        s = -s
    ranking = (
        wmt25_ranking(s, data.systems, a)
        if procedure == "wmt25"
        else wmt24_ranking(s, data.systems, domains, a)
    )
    tandem = ranking_rows(monitor, higher_is_better, settings)
    cluster = {r["system"]: r["cluster"] for r in tandem}
    sign = 1.0 if higher_is_better else -1.0
    rows = wmt_rows(ranking, cluster, scale=sign * display_scale(kind))
    diff = disagreements(ranking, cluster, tandem_better(monitor))
    return WmtComparison(ranking, rows, tandem, diff, kind)
