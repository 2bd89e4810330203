"""The dashboard's numbers: a campaign's arrays → every estimator → tables (pure numpy/scipy).

One call, :func:`campaign_report`, turns a :class:`estimators.data.campaign.CampaignData` (what
:func:`db.reads.campaign.read_campaign` returns) into everything the dashboard and the results
export show:

- per system, side by side (:func:`estimators.report.columns.fixed_n_estimates`): the
  human-only estimate (Beta posterior for binary labels, t interval otherwise), von Däniken mixed
  with the system's own calibration counts
  (:func:`estimators.fixed_n.vondaniken.per_system_posterior`), the
  per-system double-sampling estimator (:func:`estimators.fixed_n.double_sampling.per_system`, the
  default of docs/statistics-notes.md §18), control variates / PPI++ with the chosen metrics as
  controls (:func:`estimators.fixed_n.control_variates.ppi_mean`) and the von Däniken estimate
  with an imported "ρ, η provided" calibration set;
- the live anytime-valid intervals, pairwise Holm-adjusted verdicts, rank sets and labels
  still needed (:func:`estimators.report.live.live_monitor`,
  :class:`estimators.live.monitor.CampaignMonitor`), and for each pair the width of its confidence
  sequence against the number of labels;
- the measured data efficiency of every metric (:mod:`estimators.fixed_n.efficiency`) and
  Krippendorff's α on outputs judged twice (:mod:`estimators.judgments.agreement`).

Nothing here touches a database or Streamlit. Every estimate uses the first judgment of
each output in arrival order (:meth:`CampaignData.first_judgments`, the one the sequential
monitor uses too); further judgments of the same output feed agreement. Why a column is
empty is a :class:`Unavailable` code; the pages word it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from estimators.base.result import EstimateResult, Unavailable
from estimators.caches.monitor import MonitorCache
from estimators.caches.report import ReportCache
from estimators.data.campaign import (
    LABEL_KINDS,
    CampaignData,
    LabelKind,
    default_label_kind,
    display_scale,
)
from estimators.fixed_n.efficiency import MetricEfficiency, metric_efficiency
from estimators.judgments.agreement import Agreement, agreement
from estimators.judgments.zscores import zscored_campaign
from estimators.live.status import MonitorReport
from estimators.report.columns import (
    METHODS,
    Columns,
    active_estimates,
    document_estimates,
    fixed_n_estimates,
)
from estimators.report.live import live_monitor

__all__ = [
    "CampaignReport",
    "Unavailable",
    "campaign_report",
    "default_signatures",
]


#: Metrics tried first as the default control, in order (stored short names).
PREFERRED_METRICS = ("chrf", "chrf++", "bertscore_f", "bleu", "ter")


def default_signatures(data: CampaignData) -> list[str]:
    """The default control: the first metric with a stored threshold, else by preference.

    Fixed in advance (never chosen by looking at the labels), so the sequential monitor's
    increments stay predictable.
    """
    metrics = list(data.metrics)
    if not metrics:
        return []
    with_thr = [m for m in metrics if m.threshold is not None]
    pool = with_thr or metrics
    rank = {name: i for i, name in enumerate(PREFERRED_METRICS)}
    best = min(pool, key=lambda m: (rank.get(m.metric, len(rank)), m.metric, m.signature))
    return [best.signature]


@dataclass(frozen=True)
class CampaignReport:
    """Everything the dashboard shows for one campaign, label kind and metric choice."""

    label_kind: str | None
    higher_is_better: bool
    systems: list[str]
    n_items: int
    n_judgments: int
    n_labelled_outputs: int
    signatures: list[str]
    #: (system, method key) → estimate; a missing key means "not available" (see reasons).
    estimates: dict[tuple[str, str], EstimateResult]
    #: method key → why the column is empty (or partly empty).
    unavailable: dict[str, Unavailable]
    #: method key → metric(s) the column used.
    method_metrics: dict[str, str]
    monitor: MonitorReport | None
    #: Rows (pair, a, b, t, width, low, high) of the pair confidence sequences.
    widths: list[dict[str, Any]]
    efficiency: list[MetricEfficiency]
    agreement: Agreement
    notes: list[str] = field(default_factory=list)

    @property
    def methods(self) -> list[str]:
        """Method keys with at least one estimate, in display order."""
        have = {m for _, m in self.estimates}
        return [m for m in METHODS if m in have]

    def pair_rows(self) -> list[dict[str, Any]]:
        return [] if self.monitor is None else self.monitor.rows()


# ------------------------------------------------------------------------ the report


def _score_grids(data: CampaignData, signatures: Sequence[str]) -> list[np.ndarray | None]:
    """Per system, the (N, k) grid of the chosen metrics' scores, NaN where missing (the
    monitor takes these as they are: it degrades only the items lacking a score)."""
    if not signatures:
        return [None] * len(data.systems)
    return [
        np.column_stack([np.asarray(data.scores[sig][s], dtype=float) for sig in signatures])
        for s in range(len(data.systems))
    ]


def _complete(data: CampaignData, grid: np.ndarray | None, s: int) -> np.ndarray | None:
    """``grid`` when system s has every score of its outputs (what fixed-n PPI++ needs)."""
    present = data.output_ids[s] >= 0
    if grid is None or not present.any() or not np.isfinite(grid[present]).all():
        return None
    return grid


#: The width chart draws each pair's interval path up to this many pairs (15 systems); a
#: larger campaign carries one point per pair instead of 60 (at 60 systems, 106,000 rows that
#: no chart shows).
WIDTH_PAIRS = 105


def draws_width_paths(n_systems: int) -> bool:
    """Whether a campaign of ``n_systems`` keeps each pair's whole interval path (for the
    width chart), or only its end."""
    return n_systems * (n_systems - 1) // 2 <= WIDTH_PAIRS


def dashboard_report(
    data: CampaignData,
    *,
    label_kind: str | None,
    zscores: bool = False,
    signatures: Sequence[str] = (),
    alpha: float | None = None,
    monitor_cache: MonitorCache | None = None,
    report_cache: ReportCache | None = None,
) -> CampaignReport:
    """The dashboard's report: :func:`campaign_report` on the judgment kind shown.

    With ``zscores`` the report runs on each judgment's per-annotator z-score
    (:func:`estimators.judgments.zscores.zscored_campaign`) analysed as a score; width paths
    are kept only for campaigns with at most :data:`WIDTH_PAIRS` pairs."""
    kind = label_kind
    if zscores and kind is not None:
        data, kind = zscored_campaign(data, kind), LabelKind.SCORE
    return campaign_report(
        data,
        label_kind=kind,
        signatures=signatures,
        alpha=alpha,
        monitor_cache=monitor_cache,
        report_cache=report_cache,
        width_points=60 if draws_width_paths(len(data.systems)) else 0,
    )


def campaign_report(
    data: CampaignData,
    *,
    label_kind: str | None = None,
    signatures: Sequence[str] = (),
    alpha: float | None = None,
    equivalence_margin: float | None = None,
    level: float = 0.95,
    width_points: int = 60,
    monitor_cache: MonitorCache | None = None,
    report_cache: ReportCache | None = None,
) -> CampaignReport:
    """Run every estimator on a campaign (see the module docstring).

    ``signatures`` are the metric signatures used as controls (PPI++ uses all of them, the
    monitor all of them, the von Däniken columns the first that has a stored threshold).
    ``equivalence_margin`` (ε) and the error rate come from the plan in force
    (``data.live_plan``) unless ε is given here; α likewise. ``monitor_cache``: the live monitor's
    analyses carried between reads of this campaign (:mod:`estimators.caches.monitor`);
    ``report_cache`` the per-system estimates and efficiency terms likewise
    (:mod:`estimators.caches.report`). Either gives the same report as none.
    """
    j = data.judgments
    kind = label_kind or default_label_kind(data.mode, j)
    signatures = [s for s in signatures if s in data.scores]
    if alpha is None:  # the campaign's α (the plan, logged like every setting)
        alpha = data.live_plan.alpha
    higher = True

    if kind is None or len(j) == 0:
        return _empty_report(data, kind, higher, signatures)

    cols = Columns()
    if display_scale(kind) != 1.0:
        cols.notes.append(
            f"The {'DA / SQM' if kind == 'da' else 'ESA'} score is analysed and shown ÷ 100 "
            "(range [0, 1], which the bounded intervals need): "
            "0.734 is a score of 73.4, a difference of 0.05 is 5 points."
        )
    y_all = j.values(kind)
    first, labelled, y_grid = _first_labels(cols, data, kind, y_all)
    grids = _score_grids(data, signatures)
    pool = _ppi_pools(cols, data, grids, signatures)

    fixed_n_estimates(cols, data, kind, y_grid, labelled, pool, signatures, level,
                      report_cache)  # fmt: skip
    if data.visits is not None and data.visits.weighted:
        active_estimates(cols, data, kind, y_grid, grids, signatures, level)
    elif data.documents is not None:
        document_estimates(cols, data, kind, y_grid, labelled, level)
    monitor, widths = live_monitor(
        cols, data, kind, y_all, first, signatures, grids,
        alpha=alpha, equivalence_margin=equivalence_margin, higher_is_better=higher,
        width_points=width_points, cache=monitor_cache,
    )  # fmt: skip
    return CampaignReport(
        label_kind=kind,
        higher_is_better=higher,
        systems=list(data.systems),
        n_items=data.n_items,
        n_judgments=len(j),
        n_labelled_outputs=int(labelled.sum()),
        signatures=signatures,
        estimates=cols.estimates,
        unavailable=cols.unavailable,
        method_metrics=cols.method_metrics,
        monitor=monitor,
        widths=widths,
        efficiency=metric_efficiency(data, y_grid, labelled, report_cache),
        agreement=agreement(data, y_all, kind),
        notes=cols.notes,
    )


def _empty_report(
    data: CampaignData, kind: str | None, higher: bool, signatures: list[str]
) -> CampaignReport:
    """The report of a campaign without human judgments (or without a label kind)."""
    j = data.judgments
    return CampaignReport(
        label_kind=kind, higher_is_better=higher, systems=list(data.systems),
        n_items=data.n_items, n_judgments=len(j), n_labelled_outputs=0,
        signatures=signatures, estimates={}, unavailable={}, method_metrics={},
        monitor=None, widths=[], efficiency=[], agreement=Agreement(None, "nominal", 0, 0),
        notes=["No human judgments yet."],
    )  # fmt: skip


def _first_labels(
    cols: Columns, data: CampaignData, kind: str, y_all: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each output's first judgment in arrival order (the one every estimate uses), as
    indices into the judgments, a (systems, N) labelled mask and a (systems, N) label grid;
    notes judgments without this label kind and repeat labels (agreement only)."""
    j = data.judgments
    k = len(data.systems)
    n_missing = int((~np.isfinite(y_all)).sum())
    if n_missing:
        cols.notes.append(f"{n_missing} judgment(s) have no {LABEL_KINDS[kind]}; not used.")
    first = data.first_judgments(kind)
    n_repeats = int(np.isfinite(y_all).sum()) - first.size
    if n_repeats:
        cols.notes.append(
            f"{n_repeats} repeat label(s) of already-judged outputs are used for "
            "agreement only; estimates use each output's first judgment."
        )
    labelled = np.zeros((k, data.n_items), dtype=bool)
    labelled[j.system[first], j.item[first]] = True
    y_grid = np.full((k, data.n_items), np.nan)
    y_grid[j.system[first], j.item[first]] = y_all[first]
    return first, labelled, y_grid


def _ppi_pools(
    cols: Columns, data: CampaignData, grids: list[np.ndarray | None], signatures: list[str]
) -> list[np.ndarray | None]:
    """Per system, its metric grid when complete (fixed-n PPI++ needs every score), else
    ``None`` with a note; the monitor uses the scores they have."""
    k = len(data.systems)
    pool = [_complete(data, g, s) for s, g in enumerate(grids)]  # fixed-n PPI++: no gaps
    if signatures and any(p is None for p in pool):
        gaps = [data.systems[s] for s in range(k) if pool[s] is None]
        cols.notes.append(
            "Metric scores are incomplete for " + ", ".join(gaps[:5])
            + ("…" if len(gaps) > 5 else "")
            + ": their fixed-n PPI++ estimates are not shown (the anytime-valid monitor "
            "uses the scores they have)."
        )  # fmt: skip
    return pool
