"""The dashboard's live column: the anytime-valid monitor on a campaign, and its width paths.

Part of :func:`estimators.report.campaign_report.campaign_report` (docs/statistics-notes.md
§19–§20): the labels with a recorded random order, the gap-free prefix of the queue order only, go
to :class:`estimators.live.monitor.CampaignMonitor` under the campaign's plan in force; every pair's
confidence sequence is then read along its whole path for the width chart.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from estimators.base.multiple import pairs
from estimators.base.result import Unavailable
from estimators.caches.monitor import MonitorCache
from estimators.data.campaign import LABEL_KINDS, CampaignData, kind_range
from estimators.live.monitor import CampaignMonitor
from estimators.live.status import MonitorReport
from estimators.report.columns import Columns
from estimators.sequences import sequential as seq
from estimators.sequences.designs import FALLBACK_DESIGN, LiveDesign


def live_monitor(
    cols: Columns,
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
    cache: MonitorCache | None = None,
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
    mon_idx = _monitor_labels(cols, data, first)
    if not mon_idx.size:
        return None, []
    label_range = kind_range(kind)  # the ESA score enters ÷ 100, in [0, 1]
    plan = data.live_plan
    design = _live_design(cols, data, kind, label_range)
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
            documents=data.documents if data.visits is None else None, cache=cache,
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
    cols.method_metrics["anytime"] = _controls_used(monitor, design, data, signatures)
    return monitor, width_paths(mon, points=width_points)


def _controls_used(
    monitor: MonitorReport, design: LiveDesign, data: CampaignData, signatures: list[str]
) -> str:
    """What the live column used as its control, in words."""
    return (
        "none (documents as the unit: no metric control)"
        if monitor.documents is not None
        else f"none (the {design} design uses no metric control)"
        if design == LiveDesign.BETTING
        else (
            data.metric(signatures[0]).metric + " (first metric; half the betting capital)"
            if signatures
            else "none (human only)"
        )
        if design == LiveDesign.BETTING_CV
        else (
            " + ".join(data.metric(s).metric for s in signatures)
            + " (pair slope pooled over all pairs)"
            if signatures
            else "none (human only)"
        )
        if design == LiveDesign.ASYMPCS_MIX
        else " + ".join(data.metric(s).metric for s in signatures) or "none (human only)"
    )


def _monitor_labels(cols: Columns, data: CampaignData, first: np.ndarray) -> np.ndarray:
    """Indices of the labels the monitor takes, in queue order: first judgments with a
    recorded random order, at positions before ``data.open_from`` (the gap-free prefix),
    one per assignment position."""
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
    return mon_idx


def _live_design(cols: Columns, data: CampaignData, kind: str, label_range):  # type: ignore[no-untyped-def]
    """The plan's design (unset: the judgment kind's default, asympcs_mix for graded scores),
    or the fallback design when the judgment kind has no known range or active sampling
    weights the labels (all known before any label)."""
    plan = data.live_plan
    design = plan.design_for(kind)
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
    return design


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
        # without points the last label's interval is the only one read
        cs = monitor.pair_sequence(a, b, whole=points > 0)
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
