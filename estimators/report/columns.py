"""The dashboard's fixed-n estimate columns: per system, every estimator side by side.

Part of :func:`estimators.report.campaign_report.campaign_report`. Per system: the human-only
estimate (Beta
posterior for binary labels, t interval otherwise), von Däniken mixed with the system's own
calibration counts (:func:`estimators.fixed_n.vondaniken.per_system_posterior`), the per-system
double-sampling estimator (:func:`estimators.fixed_n.double_sampling.per_system`, the default of
docs/statistics-notes.md §18), control variates / PPI++ with the chosen metrics as controls
(:func:`estimators.fixed_n.control_variates.ppi_mean`) and the von Däniken estimate with an imported
"ρ, η provided" calibration set. Active sampling replaces them with the weighted
active-inference estimate (docs/statistics-notes.md §24), documents judged in order with the ratio
estimate over completed documents (cluster-robust interval).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from estimators.base.result import EstimateResult, Unavailable
from estimators.caches.report import ReportCache, cached, digest
from estimators.data.campaign import BINARY_KINDS, CampaignData, MetricInfo, binarise
from estimators.documents import clustered as cl
from estimators.documents.evaluation import documents_result
from estimators.fixed_n import control_variates as cv
from estimators.fixed_n import double_sampling as ds
from estimators.fixed_n import human
from estimators.fixed_n import vondaniken as vd
from estimators.fixed_n.controls import label_bounds
from estimators.sampling import active as act

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


@dataclass
class Columns:
    """Estimates being filled in, with why columns are empty and which metric each used."""

    estimates: dict[tuple[str, str], EstimateResult] = field(default_factory=dict)
    unavailable: dict[str, Unavailable] = field(default_factory=dict)
    method_metrics: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _verdict_name(metric: str, threshold: float, higher_is_better: bool) -> str:
    return f"{metric} {'≥' if higher_is_better else '≤'} {threshold:.4g}"


def _metric_columns(
    cols: Columns, data: CampaignData, signatures: list[str], binary: bool
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


def fixed_n_estimates(
    cols: Columns,
    data: CampaignData,
    kind: str,
    y_grid: np.ndarray,
    labelled: np.ndarray,
    pool: list[np.ndarray | None],
    signatures: list[str],
    level: float,
    cache: ReportCache | None = None,
) -> None:
    """Per system: human only, von Däniken mixed, double sampling, PPI++, ρ/η provided.

    Every interval lies in the judgment's range (:func:`estimators.fixed_n.controls.label_bounds`)
    and contains its estimate; a method below its minimum number of labels (or with no
    spread) gives an unavailable result, which the dashboard words in its cell. ``cache``
    keeps each system's estimates by a digest of its inputs (:mod:`estimators.caches.report`):
    after one label, only that system's are computed again."""
    binary = kind in BINARY_KINDS
    thr_metric = _metric_columns(cols, data, signatures, binary)
    for s, name in enumerate(data.systems):
        if not labelled[s].any():
            continue
        args = (data, s, kind, y_grid, labelled, pool[s], thr_metric, level)
        est, census, provided_name = cached(
            cache, "fixed_n", partial(_system_key, *args), partial(_system_estimates, *args)
        )
        if census:
            cols.unavailable.setdefault("ppi", Unavailable.CENSUS)
        if provided_name is not None:
            cols.method_metrics["vd_provided"] = provided_name
        cols.estimates.update({(name, m): r for m, r in est.items()})
    if data.provided_calibration and "vd_provided" not in cols.method_metrics:
        cols.unavailable["vd_provided"] = (
            Unavailable.PROVIDED_NOT_SCORED if binary else Unavailable.NEEDS_BINARY
        )


def _system_key(  # type: ignore[no-untyped-def]
    data: CampaignData, s, kind, y_grid, labelled, g_pool, thr_metric, level
) -> bytes:
    """Everything :func:`_system_estimates` reads of system s, as a digest."""
    thr = None if thr_metric is None else data.scores[thr_metric.signature][s]
    cal = [(c, data.scores[c["signature"]][s] if c["signature"] in data.scores else None)
           for c in data.provided_calibration]  # fmt: skip
    return digest(
        str(kind), level, y_grid[s], labelled[s], data.output_ids[s] >= 0, thr_metric, thr,
        g_pool, *(x for pair in cal for x in pair),
    )  # fmt: skip


def _system_estimates(  # type: ignore[no-untyped-def]
    data: CampaignData, s, kind, y_grid, labelled, g_pool, thr_metric, level
) -> tuple[dict[str, EstimateResult], bool, str | None]:
    """System s's estimates by method, whether its PPI++ is a census (no unlabelled
    outputs) and the name of the provided calibration set its ρ/η column used."""
    binary = kind in BINARY_KINDS
    bounds = label_bounds(kind)
    lab = labelled[s]
    y = y_grid[s, lab]
    n = int(lab.sum())
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
            )  # fmt: skip
    census = False
    if g_pool is not None:
        if int(unl.sum()) < 2:
            census = True
        else:
            est["ppi"] = cv.ppi_mean(y, g_pool[lab], g_pool[unl], level=level, bounds=bounds)
    provided_name = None
    if binary:
        provided, provided_name = _provided_estimate(data, s, y, present, unl, level)
        if provided is not None:
            est["vd_provided"] = provided
    return est, census, provided_name


def _provided_estimate(
    data: CampaignData,
    s: int,
    y: np.ndarray,
    present: np.ndarray,
    unl: np.ndarray,
    level: float,
) -> tuple[EstimateResult | None, str | None]:
    """von Däniken with the first imported calibration set whose metric scores system s:
    a prior from elsewhere, so never valid for a verdict; and the set's name as the column
    shows it."""
    for cal in data.provided_calibration:
        if cal["signature"] not in data.scores:
            continue
        g = np.asarray(data.scores[cal["signature"]][s], dtype=float)
        if not np.isfinite(g[present]).all():
            continue
        m_u = binarise(g[unl], cal["threshold"], cal["higher_is_better"])
        ratings = vd.Ratings(float(y.sum()), y.size, float(m_u.sum()), m_u.size)
        metric = vd.MetricAccuracy(calibration=tuple(cal["counts"]))
        res = vd.mixed(ratings, metric, level, method="vondaniken_provided")
        name = f"{cal['name']} ({'≥' if cal['higher_is_better'] else '≤'} {cal['threshold']:.4g})"
        return res.with_(
            valid_for_verdict=False,
            diagnostics={**res.diagnostics, "calibration_set": cal["name"]},
        ), name
    return None, None


def active_estimates(
    cols: Columns,
    data: CampaignData,
    kind: str,
    y_grid: np.ndarray,
    grids: list[np.ndarray | None],
    signatures: list[str],
    level: float,
) -> None:
    """Active sampling drew items with unequal π: the unweighted fixed-n columns would be
    biased, so they are replaced by the weighted active-inference estimate
    (:func:`estimators.sampling.active.fixed_n` on
    :func:`estimators.sampling.active.visit_stream`)."""
    assert data.visits is not None
    visits = data.visits.before(data.open_from)
    prior = 0.5 if label_bounds(kind) == (0.0, 1.0) else 0.0
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


def document_estimates(
    cols: Columns,
    data: CampaignData,
    kind: str,
    y_grid: np.ndarray,
    labelled: np.ndarray,
    level: float,
) -> None:
    """Documents judged in order: the segment-unit fixed-n columns treat correlated labels as
    independent draws (too narrow), so they are replaced by the ratio estimate over the
    completed documents with its cluster-robust interval
    (:func:`estimators.documents.clustered.ratio_interval`, finite-population correction over the
    system's documents)."""
    dropped = sorted({m for _, m in cols.estimates} - {"human"})
    cols.estimates.clear()
    bounds = label_bounds(kind)
    for s, name in enumerate(data.systems):
        present = data.output_ids[s] >= 0
        items = np.flatnonzero(labelled[s] & present)
        sums = cl.document_sums(
            data.documents, present, items, y_grid[s, items], np.zeros(items.size)
        )
        if sums.completed < 2:
            continue
        cols.estimates[(name, "human")] = documents_result(sums, level, bounds)
    cols.notes.append(
        "Documents are the sampling unit: the human-only column is the ratio estimate over "
        "completed documents with a cluster-robust interval"
        + (
            " (" + ", ".join(METHODS[m] for m in dropped) + " need labels drawn one at a "
            "time and are not shown)."
            if dropped
            else "."
        )
    )
