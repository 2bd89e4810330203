"""The dashboard's numbers: a campaign's arrays → every estimator → tables (pure numpy/scipy).

One call, :func:`campaign_report`, turns a :class:`estimators.campaign.CampaignData` (what
:func:`db.reads.read_campaign` returns) into everything the dashboard and the results
export show:

- per system, side by side (:func:`_fixed_n_estimates`): the human-only estimate (Beta
  posterior for binary labels, t interval otherwise), von Däniken mixed with the system's
  own calibration counts (:func:`estimators.vondaniken.per_system_posterior`), the
  per-system double-sampling estimator (:func:`estimators.double_sampling.per_system`, the
  default of statistics.md §3), control variates / PPI++ with the chosen metrics as
  controls (:func:`estimators.control_variates.ppi_mean`) and the von Däniken estimate
  with an imported "ρ, η provided" calibration set;
- the live anytime-valid intervals, pairwise Holm-adjusted verdicts, rank sets and labels
  still needed (:func:`_live_monitor`, :class:`estimators.monitor.CampaignMonitor`), and
  for each pair the width of its confidence sequence against the number of labels;
- the measured data efficiency of every metric (:mod:`estimators.efficiency`) and
  Krippendorff's α on outputs judged twice (:mod:`estimators.agreement`).

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

from estimators import active as act
from estimators import control_variates as cv
from estimators import double_sampling as ds
from estimators import human
from estimators import sequential as seq
from estimators import vondaniken as vd
from estimators.agreement import Agreement, agreement
from estimators.campaign import (
    LABEL_KINDS,
    CampaignData,
    LabelKind,
    MetricInfo,
    binarise,
    default_label_kind,
)
from estimators.controls import label_bounds
from estimators.efficiency import MetricEfficiency, metric_efficiency
from estimators.live_designs import FALLBACK_DESIGN, LiveDesign
from estimators.monitor import CampaignMonitor, MonitorReport
from estimators.multiple import pairs
from estimators.result import EstimateResult, Unavailable

__all__ = [
    "METHODS",
    "CampaignReport",
    "Unavailable",
    "campaign_report",
    "default_signatures",
    "width_paths",
]

#: Estimate columns in display order: key → display name.
METHODS: dict[str, str] = {
    "human": "Human only",
    "vd_mixed": "von Däniken mixed (per-system)",
    "vd_double": "Double sampling (per-system)",
    "ppi": "Control variates / PPI++",
    "vd_provided": "von Däniken (ρ, η provided)",
    "anytime": "Anytime-valid (live)",
    "active": "Active inference (weighted by π)",
}


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


@dataclass
class _Columns:
    """Estimates being filled in, with why columns are empty and which metric each used."""

    estimates: dict[tuple[str, str], EstimateResult] = field(default_factory=dict)
    unavailable: dict[str, Unavailable] = field(default_factory=dict)
    method_metrics: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


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


def campaign_report(
    data: CampaignData,
    *,
    label_kind: str | None = None,
    signatures: Sequence[str] = (),
    alpha: float = 0.05,
    equivalence_margin: float | None = None,
    level: float = 0.95,
    width_points: int = 60,
) -> CampaignReport:
    """Run every estimator on a campaign (see the module docstring).

    ``signatures`` are the metric signatures used as controls (PPI++ uses all of them, the
    monitor all of them, the von Däniken columns the first that has a stored threshold).
    ``equivalence_margin`` (ε) and the error rate come from the plan in force
    (``data.live_plan``) unless ε is given here.
    """
    j = data.judgments
    k = len(data.systems)
    kind = label_kind or default_label_kind(data.mode, j)
    signatures = [s for s in signatures if s in data.scores]
    higher = True

    if kind is None or len(j) == 0:
        return CampaignReport(
            label_kind=kind, higher_is_better=higher, systems=list(data.systems),
            n_items=data.n_items, n_judgments=len(j), n_labelled_outputs=0,
            signatures=signatures, estimates={}, unavailable={}, method_metrics={},
            monitor=None, widths=[], efficiency=[], agreement=Agreement(None, "nominal", 0, 0),
            notes=["No human judgments yet."],
        )  # fmt: skip

    cols = _Columns()
    y_all = j.values(kind)
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
    grids = _score_grids(data, signatures)
    pool = [_complete(data, g, s) for s, g in enumerate(grids)]  # fixed-n PPI++: no gaps
    if signatures and any(p is None for p in pool):
        gaps = [data.systems[s] for s in range(k) if pool[s] is None]
        cols.notes.append(
            "Metric scores are incomplete for " + ", ".join(gaps[:5])
            + ("…" if len(gaps) > 5 else "")
            + ": their fixed-n PPI++ estimates are not shown (the anytime-valid monitor "
            "uses the scores they have)."
        )  # fmt: skip

    _fixed_n_estimates(cols, data, kind, y_grid, labelled, pool, signatures, level)
    if data.visits is not None and data.visits.weighted:
        _active_estimates(cols, data, kind, y_grid, grids, signatures, level)
    monitor, widths = _live_monitor(
        cols, data, kind, y_all, first, signatures, grids,
        alpha=alpha, equivalence_margin=equivalence_margin, higher_is_better=higher,
        width_points=width_points,
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
        efficiency=metric_efficiency(data, y_grid, labelled),
        agreement=agreement(data, y_all, kind),
        notes=cols.notes,
    )


# ------------------------------------------------------------------------ fixed-n columns


def _verdict_name(metric: str, threshold: float, higher_is_better: bool) -> str:
    return f"{metric} {'≥' if higher_is_better else '≤'} {threshold:.4g}"


def _metric_columns(
    cols: _Columns, data: CampaignData, signatures: list[str], binary: bool
) -> MetricInfo | None:
    """Which metric each metric column uses (the first with a threshold for von Däniken);
    records why a column cannot be filled at all. Returns the thresholded metric."""
    thr_metric = next(
        (data.metric(sig) for sig in signatures if data.metric(sig).threshold is not None), None
    )
    if not signatures:
        for m in ("vd_mixed", "vd_double", "ppi"):
            cols.unavailable[m] = Unavailable.NO_METRIC
    elif thr_metric is None:
        cols.unavailable["vd_mixed"] = cols.unavailable["vd_double"] = Unavailable.NO_THRESHOLD
    if thr_metric is not None:
        cols.method_metrics["vd_mixed"] = cols.method_metrics["vd_double"] = _verdict_name(
            thr_metric.metric, thr_metric.threshold, thr_metric.higher_is_better
        )
    if signatures:
        cols.method_metrics["ppi"] = " + ".join(data.metric(s).metric for s in signatures)
    if not binary and "vd_mixed" not in cols.unavailable:
        cols.unavailable["vd_mixed"] = Unavailable.NEEDS_BINARY
    return thr_metric


def _fixed_n_estimates(
    cols: _Columns,
    data: CampaignData,
    kind: str,
    y_grid: np.ndarray,
    labelled: np.ndarray,
    pool: list[np.ndarray | None],
    signatures: list[str],
    level: float,
) -> None:
    """Per system: human only, von Däniken mixed, double sampling, PPI++, ρ/η provided.

    Every interval lies in the judgment's range (:func:`estimators.controls.label_bounds`)
    and contains its estimate; a method below its minimum number of labels (or with no
    spread) gives an unavailable result, which the dashboard words in its cell."""
    binary = kind == LabelKind.LABEL
    bounds = label_bounds(kind)
    thr_metric = _metric_columns(cols, data, signatures, binary)
    for s, name in enumerate(data.systems):
        lab = labelled[s]
        y = y_grid[s, lab]
        n = int(lab.sum())
        if n == 0:
            continue
        est = {"human": human.binary_beta(float(y.sum()), n, level) if binary
               else human.mean_t(y, level, bounds)}  # fmt: skip
        present = data.output_ids[s] >= 0
        unl = present & ~lab
        if thr_metric is not None:
            g = np.asarray(data.scores[thr_metric.signature][s], dtype=float)
            if np.isfinite(g[present]).all():
                m_all = binarise(g, thr_metric.threshold, thr_metric.higher_is_better)
                if binary:
                    est["vd_mixed"] = vd.per_system_posterior(y, m_all[lab], m_all[unl], level)
                est["vd_double"] = ds.per_system(
                    y, m_all[lab].astype(float), m_all[present].astype(float), level,
                    bounds=bounds,
                )
        g_pool = pool[s]
        if g_pool is not None:
            if int(unl.sum()) < 2:
                cols.unavailable.setdefault("ppi", Unavailable.CENSUS)
            else:
                est["ppi"] = cv.ppi_mean(y, g_pool[lab], g_pool[unl], level=level, bounds=bounds)
        if binary:
            provided = _provided_estimate(cols, data, s, y, present, unl, level)
            if provided is not None:
                est["vd_provided"] = provided
        cols.estimates.update({(name, m): r for m, r in est.items()})
    if data.provided_calibration and "vd_provided" not in cols.method_metrics:
        cols.unavailable["vd_provided"] = (
            Unavailable.PROVIDED_NOT_SCORED if binary else Unavailable.NEEDS_BINARY
        )


def _provided_estimate(
    cols: _Columns,
    data: CampaignData,
    s: int,
    y: np.ndarray,
    present: np.ndarray,
    unl: np.ndarray,
    level: float,
) -> EstimateResult | None:
    """von Däniken with the first imported calibration set whose metric scores system s:
    a prior from elsewhere, so never valid for a verdict."""
    for cal in data.provided_calibration:
        if cal["signature"] not in data.scores:
            continue
        g = np.asarray(data.scores[cal["signature"]][s], dtype=float)
        if not np.isfinite(g[present]).all():
            continue
        m_u = binarise(g[unl], cal["threshold"], cal["higher_is_better"])
        res = vd.mixed(
            float(y.sum()), y.size, float(m_u.sum()), m_u.size,
            calibration=tuple(cal["counts"]), level=level, method="vondaniken_provided",
        )  # fmt: skip
        cols.method_metrics["vd_provided"] = (
            f"{cal['name']} ({'≥' if cal['higher_is_better'] else '≤'} {cal['threshold']:.4g})"
        )
        return res.with_(
            valid_for_verdict=False,
            diagnostics={**res.diagnostics, "calibration_set": cal["name"]},
        )
    return None


def _active_estimates(
    cols: _Columns,
    data: CampaignData,
    kind: str,
    y_grid: np.ndarray,
    grids: list[np.ndarray | None],
    signatures: list[str],
    level: float,
) -> None:
    """Active sampling drew items with unequal π: the unweighted fixed-n columns would be
    biased, so they are replaced by the weighted active-inference estimate
    (:func:`estimators.active.fixed_n` on :func:`estimators.active.visit_stream`)."""
    assert data.visits is not None
    visits = data.visits.before(data.open_from)
    prior = 0.5 if kind in (LabelKind.LABEL, LabelKind.ONE_MINUS_HTER) else 0.0
    dropped = sorted({m for _, m in cols.estimates} - {"active"})
    cols.estimates.clear()
    for s, name in enumerate(data.systems):
        present = data.output_ids[s] >= 0
        stream = act.visit_stream(visits, [y_grid[s]], [grids[s]], present, prior_mean=prior)
        if stream.n_labels:
            cols.estimates[(name, "active")] = act.fixed_n(stream.z, stream.n_labels, level)
    cols.method_metrics["active"] = (
        f"ŷ from {data.metric(signatures[0]).metric} bins" if signatures else "ŷ = label mean"
    )
    if dropped:
        cols.notes.append(
            "Active sampling drew items with unequal probabilities: the unweighted columns ("
            + ", ".join(METHODS[m] for m in dropped)
            + ") would be biased and are replaced by the weighted active-inference estimate."
        )


# ------------------------------------------------------------------------ live monitor


def _live_monitor(
    cols: _Columns,
    data: CampaignData,
    kind: str,
    y_all: np.ndarray,
    first: np.ndarray,
    signatures: list[str],
    grids: list[np.ndarray | None],
    *,
    alpha: float,
    equivalence_margin: float | None,
    higher_is_better: bool,
    width_points: int,
) -> tuple[MonitorReport | None, list[dict[str, Any]]]:
    """The anytime-valid monitor on the labels with a recorded random order (one per
    assignment position), and the width paths of its pair confidence sequences. Design,
    planned size and estimand are the campaign's plan in force (``data.live_plan``: fixed
    before the first label; changes made later are listed there, not applied).

    Only the gap-free prefix of the queue order enters: labels at positions before
    ``data.open_from`` (the first slot still open or claimed). A label submitted ahead of an
    earlier, still unanswered slot waits, so the monitor's path only ever grows at its end
    and the reported p-values (running minima along it) never increase between reads.
    """
    j = data.judgments
    mon_idx = first[np.isfinite(j.position[first]) & np.isfinite(j.inclusion_prob[first])]
    if mon_idx.size < first.size:
        cols.notes.append(
            f"{first.size - mon_idx.size} label(s) have no recorded random order (assignment "
            "position); they are left out of the anytime-valid verdicts."
        )
    waiting = j.position[mon_idx] >= data.open_from
    if waiting.any():
        cols.notes.append(
            f"{int(waiting.sum())} label(s) wait for earlier queue positions still being "
            "annotated; the anytime-valid verdicts include them once those are answered."
        )
        mon_idx = mon_idx[~waiting]
    mon_idx = mon_idx[np.argsort(j.position[mon_idx], kind="stable")]
    _, uniq = np.unique(j.position[mon_idx], return_index=True)
    mon_idx = mon_idx[np.sort(uniq)]
    if not mon_idx.size:
        return None, []
    label_range = (0.0, 1.0) if kind in (LabelKind.LABEL, LabelKind.ONE_MINUS_HTER) else None
    plan = data.live_plan
    design = plan.design
    if design.bounded and label_range is None:
        # a property of the judgment kind, known before any label: not a data-driven switch
        cols.notes.append(
            f"The {design} design needs judgments with a known range; "
            f"{LABEL_KINDS[kind]} has none, so the {FALLBACK_DESIGN} design is used."
        )
        design = FALLBACK_DESIGN
    if data.visits is not None and design != FALLBACK_DESIGN:
        # weighted (active-sampling) increments have no known bounds and are validated with
        # the asymptotic CS only: decided by the campaign's sampling setting, not the labels
        cols.notes.append(
            f"Active sampling weights the labels, so the {design} design cannot run; the "
            f"{FALLBACK_DESIGN} design is used."
        )
        design = FALLBACK_DESIGN
    try:
        mon = CampaignMonitor(
            grids, j.item[mon_idx], j.system[mon_idx], y_all[mon_idx],
            j.position[mon_idx], j.inclusion_prob[mon_idx],
            names=list(data.systems), alpha=alpha,
            equivalence_margin=plan.margin if equivalence_margin is None else equivalence_margin,
            error_rate=plan.error_rate,
            higher_is_better=higher_is_better, label_range=label_range,
            present=data.output_ids >= 0,
            design=design, t_star=plan.planned_labels, finite_pool=plan.finite_pool,
            visits=None if data.visits is None else data.visits.before(data.open_from),
        )  # fmt: skip
        monitor = mon.report()
    except ValueError as exc:
        cols.unavailable["anytime"] = Unavailable.MONITOR_REFUSED
        cols.notes.append(f"No anytime-valid verdicts: {exc}")
        return None, []
    cols.notes.extend(monitor.notes)
    for st in monitor.systems:
        if st.result.n_human:
            cols.estimates[(st.name, "anytime")] = st.result
    cols.method_metrics["anytime"] = (
        f"none (the {design} design uses no metric control)"
        if design == LiveDesign.BETTING
        else " + ".join(data.metric(s).metric for s in signatures) or "none (human only)"
    )
    return monitor, width_paths(mon, points=width_points)


def width_paths(monitor: CampaignMonitor, points: int = 60) -> list[dict[str, Any]]:
    """Width of every pair's confidence sequence against the number of labels of the pair.

    The monitor's own increments and sequence at its Bonferroni level (so the last point is
    the interval :meth:`CampaignMonitor.report` shows), evaluated along the whole path:
    entry t is the interval after the pair's t-th
    completed item. Returned at up to ``points`` values of t from the burn-in to the last
    label (the last one always included), so the chart shows how fast each pair narrows.
    """
    rows: list[dict[str, Any]] = []
    for a, b in pairs(monitor.k):
        cs = monitor.pair_sequence(a, b)
        if cs is None:
            continue
        n = cs.lower.shape[-1]
        ts = np.unique(
            np.concatenate(
                [np.linspace(seq.BURN_IN, n, min(points, n - seq.BURN_IN + 1)).astype(int), [n]]
            )
        )
        label = f"{monitor.names[a]} – {monitor.names[b]}"
        for t in ts:
            lo, hi = float(cs.lower[t - 1]), float(cs.upper[t - 1])
            rows.append(
                {"pair": label, "a": monitor.names[a], "b": monitor.names[b], "t": int(t),
                 "width": hi - lo, "low": lo, "high": hi}
            )  # fmt: skip
    return rows
