"""The dashboard's numbers: a campaign's arrays → every estimator → tables (pure numpy/scipy).

One call, :func:`campaign_report`, turns what :func:`db.reads.read_campaign` returns into
everything the dashboard and the results export show:

- per system, side by side: the human-only estimate (Beta posterior for binary labels,
  t interval otherwise), von Däniken mixed with the system's own calibration counts
  (:func:`estimators.vondaniken.per_system_posterior`), the per-system double-sampling
  estimator (:func:`estimators.vondaniken.per_system`, the default of statistics.md §3),
  control variates / PPI++ with the chosen metrics as controls
  (:func:`estimators.control_variates.ppi_mean`), the von Däniken estimate with an imported
  "ρ, η provided" calibration set, and the live anytime-valid interval of the monitor;
- the pairwise anytime-valid, Holm-adjusted verdicts, rank sets and labels still needed
  (:class:`estimators.monitor.CampaignMonitor`);
- for each pair the width of its confidence sequence against the number of labels;
- the measured data efficiency of every metric; Krippendorff's α on outputs judged twice;
- per-annotator work and attention-check pass rates.

Nothing here touches a database or Streamlit. ``data`` is any object with the attributes
of :class:`db.reads.CampaignData` (duck-typed so this module needs no SQLAlchemy).
Every fixed-n estimator uses the first judgment of each output in arrival order (the one
the sequential monitor uses too); further judgments of the same output feed agreement.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import krippendorff
import numpy as np

from estimators import control_variates as cv
from estimators import human
from estimators import sequential as seq
from estimators import vondaniken as vd
from estimators.monitor import CampaignMonitor, MonitorReport
from estimators.multiple import pairs
from estimators.result import EstimateResult

__all__ = [
    "LABEL_KINDS",
    "METHODS",
    "Agreement",
    "CampaignReport",
    "MetricEfficiency",
    "available_label_kinds",
    "binarise",
    "campaign_report",
    "default_label_kind",
    "default_signatures",
    "width_paths",
]

#: Judgment kinds the dashboard can analyse: key → (display name, higher is better).
LABEL_KINDS: dict[str, str] = {
    "label": "binary label (1 = adequate)",
    "one_minus_hter": "1 − HTER (post-edit quality, clipped to [0, 1])",
    "score": "human score (as imported)",
}

#: Estimate columns in display order: key → display name.
METHODS: dict[str, str] = {
    "human": "Human only",
    "vd_mixed": "von Däniken mixed (per-system)",
    "vd_double": "Double sampling (per-system)",
    "ppi": "Control variates / PPI++",
    "vd_provided": "von Däniken (ρ, η provided)",
    "anytime": "Anytime-valid (live)",
}


def binarise(values: np.ndarray, threshold: float, higher_is_better: bool) -> np.ndarray:
    """Binary metric m = 1{g ≥ threshold} (or g ≤ threshold for TER-like metrics)."""
    values = np.asarray(values, dtype=float)
    return (values >= threshold) if higher_is_better else (values <= threshold)


def available_label_kinds(judgments: Any) -> list[str]:
    """The judgment kinds present in ``judgments`` (keys of :data:`LABEL_KINDS`)."""
    out = []
    if np.isfinite(judgments.label).any():
        out.append("label")
    if np.isfinite(judgments.hter).any():
        out.append("one_minus_hter")
    if np.isfinite(judgments.score).any():
        out.append("score")
    return out


#: Metrics tried first as the default control, in order (stored short names).
PREFERRED_METRICS = ("chrf", "chrf++", "bertscore_f", "bleu", "ter")


def default_signatures(data: Any) -> list[str]:
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


def default_label_kind(mode: str, judgments: Any) -> str | None:
    kinds = available_label_kinds(judgments)
    preferred = ["one_minus_hter", "label"] if mode == "post_edit" else ["label", "one_minus_hter"]
    return next((k for k in [*preferred, "score"] if k in kinds), None)


def _values(judgments: Any, kind: str) -> np.ndarray:
    if kind == "label":
        return np.asarray(judgments.label, dtype=float)
    if kind == "one_minus_hter":
        return np.clip(1.0 - np.asarray(judgments.hter, dtype=float), 0.0, 1.0)
    if kind == "score":
        return np.asarray(judgments.score, dtype=float)
    raise ValueError(f"unknown judgment kind {kind!r}; use one of {sorted(LABEL_KINDS)}")


# ------------------------------------------------------------------------ result types


@dataclass(frozen=True)
class MetricEfficiency:
    """How much one metric saves: measured and limiting data efficiency (statistics.md §2).

    ``de_measured`` = median over systems of se²(human)/se²(PPI++) on this campaign (needs
    unlabelled outputs: ``None`` for a census); ``de_limit`` = 1/(1 − ρ_y²), the efficiency
    with an unlimited pool, from the median per-system correlation ρ_y of a single label with
    the metric; ``de_pairs_limit`` the same for paired differences (the comparisons).
    """

    signature: str
    metric: str
    rho_y: float | None
    de_measured: float | None
    de_limit: float | None
    rho_pairs: float | None
    de_pairs_limit: float | None
    n_labelled: int
    n_unlabelled: int


@dataclass(frozen=True)
class Agreement:
    """Krippendorff's α over outputs with ≥ 2 current judgments."""

    alpha: float | None
    level: str
    n_units: int
    n_judgments: int
    note: str = ""


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
    unavailable: dict[str, str]
    #: method key → metric(s) the column used.
    method_metrics: dict[str, str]
    monitor: MonitorReport | None
    #: Rows (pair, a, b, t, width, low, high) of the pair confidence sequences.
    widths: list[dict[str, Any]]
    efficiency: list[MetricEfficiency]
    agreement: Agreement
    annotators: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    @property
    def methods(self) -> list[str]:
        """Method keys with at least one estimate, in display order."""
        have = {m for _, m in self.estimates}
        return [m for m in METHODS if m in have]

    def pair_rows(self) -> list[dict[str, Any]]:
        return [] if self.monitor is None else self.monitor.rows()


# ------------------------------------------------------------------------ the report


def _first_per_output(item: np.ndarray, system: np.ndarray) -> np.ndarray:
    """Indices of the first judgment of every (item, system) in arrival order."""
    if item.size == 0:
        return np.zeros(0, dtype=int)
    key = system.astype(np.int64) * (int(item.max()) + 1) + item
    _, first = np.unique(key, return_index=True)
    return np.sort(first)


def _pool_controls(data: Any, signatures: Sequence[str], s: int) -> np.ndarray | None:
    """(N, k) metric grid of system s for the chosen signatures; None if any is missing."""
    if not signatures:
        return None
    cols = [np.asarray(data.scores[sig][s], dtype=float) for sig in signatures]
    g = np.column_stack(cols)
    present = data.output_ids[s] >= 0
    if not present.any() or not np.isfinite(g[present]).all():
        return None
    return g


def campaign_report(
    data: Any,
    *,
    label_kind: str | None = None,
    signatures: Sequence[str] = (),
    alpha: float = 0.05,
    equivalence_margin: float = 0.05,
    level: float = 0.95,
    width_points: int = 60,
) -> CampaignReport:
    """Run every estimator on a campaign (see the module docstring).

    ``signatures`` are the metric signatures used as controls (PPI++ uses all of them, the
    monitor all of them, the von Däniken columns the first that has a stored threshold).
    """
    j = data.judgments
    k = len(data.systems)
    kind = label_kind or default_label_kind(data.mode, j)
    signatures = [s for s in signatures if s in data.scores]
    notes: list[str] = []
    unavailable: dict[str, str] = {}
    method_metrics: dict[str, str] = {}
    estimates: dict[tuple[str, str], EstimateResult] = {}
    higher = True
    annotators = _annotator_rows(data)

    if kind is None or len(j) == 0:
        return CampaignReport(
            label_kind=kind, higher_is_better=higher, systems=list(data.systems),
            n_items=data.n_items, n_judgments=len(j), n_labelled_outputs=0,
            signatures=signatures, estimates={}, unavailable={}, method_metrics={},
            monitor=None, widths=[], efficiency=[], agreement=Agreement(None, "nominal", 0, 0),
            annotators=annotators, notes=["No human judgments yet."],
        )  # fmt: skip

    y_all = _values(j, kind)
    ok = np.isfinite(y_all)
    if (~ok).any():
        notes.append(f"{int((~ok).sum())} judgment(s) have no {LABEL_KINDS[kind]}; not used.")
    idx = np.flatnonzero(ok)
    first = idx[_first_per_output(j.item[idx], j.system[idx])]
    if idx.size > first.size:
        notes.append(
            f"{idx.size - first.size} repeat label(s) of already-judged outputs are used for "
            "agreement only; estimates use each output's first judgment."
        )
    binary = kind == "label"
    label_range = (0.0, 1.0) if kind in ("label", "one_minus_hter") else None

    # ---- per-system fixed-n estimates
    thr_metric = next(
        (data.metric(sig) for sig in signatures if data.metric(sig).threshold is not None), None
    )
    if not signatures:
        reason = "no metric chosen (or no metric scores yet)"
        for m in ("vd_mixed", "vd_double", "ppi"):
            unavailable[m] = reason
    elif thr_metric is None:
        reason = "no threshold stored for the chosen metric(s): set one on the Calibration page"
        unavailable["vd_mixed"] = unavailable["vd_double"] = reason
    if thr_metric is not None:
        method_metrics["vd_mixed"] = method_metrics["vd_double"] = (
            f"{thr_metric.metric} {'≥' if thr_metric.higher_is_better else '≤'} "
            f"{thr_metric.threshold:.4g}"
        )
    if signatures:
        method_metrics["ppi"] = " + ".join(data.metric(s).metric for s in signatures)
    if not binary and "vd_mixed" not in unavailable:
        unavailable["vd_mixed"] = "needs binary labels"

    labelled_mask = np.zeros((k, data.n_items), dtype=bool)
    labelled_mask[j.system[first], j.item[first]] = True
    y_grid = np.full((k, data.n_items), np.nan)
    y_grid[j.system[first], j.item[first]] = y_all[first]
    # per-system control grids, shared by PPI++ and the monitor
    pool = [_pool_controls(data, signatures, s) for s in range(k)]

    for s, name in enumerate(data.systems):
        lab = labelled_mask[s]
        y = y_grid[s, lab]
        n = int(lab.sum())
        if n == 0:
            continue
        estimates[(name, "human")] = (
            human.binary_beta(float(y.sum()), n, level) if binary else human.mean_t(y, level)
        )
        present = data.output_ids[s] >= 0
        unl = present & ~lab
        if thr_metric is not None:
            g = np.asarray(data.scores[thr_metric.signature][s], dtype=float)
            if np.isfinite(g[present]).all():
                m_all = binarise(g, thr_metric.threshold, thr_metric.higher_is_better)
                if binary:
                    estimates[(name, "vd_mixed")] = vd.per_system_posterior(
                        y, m_all[lab], m_all[unl], level
                    )
                if n >= 3:
                    estimates[(name, "vd_double")] = vd.per_system(
                        y, m_all[lab].astype(float), m_all[present].astype(float), level
                    )
        g_pool = pool[s]
        if g_pool is not None:
            n_u = int(unl.sum())
            if n_u < 2:
                unavailable.setdefault(
                    "ppi",
                    "every output is labelled (a census): metric scores of unlabelled outputs "
                    "are what control variates use, so they cannot add anything here",
                )
            elif n - 1 - g_pool.shape[1] >= 1:
                estimates[(name, "ppi")] = cv.ppi_mean(y, g_pool[lab], g_pool[unl], level=level)
        for cal in data.provided_calibration:
            if cal["signature"] not in data.scores or not binary:
                continue
            g = np.asarray(data.scores[cal["signature"]][s], dtype=float)
            if not np.isfinite(g[present]).all():
                continue
            m_u = binarise(g[unl], cal["threshold"], cal["higher_is_better"])
            res = vd.mixed(
                float(y.sum()), n, float(m_u.sum()), m_u.size,
                calibration=tuple(cal["counts"]), level=level, method="vondaniken_provided",
            )  # fmt: skip
            estimates[(name, "vd_provided")] = res.with_(
                valid_for_verdict=False,
                diagnostics={**res.diagnostics, "calibration_set": cal["name"]},
            )
            method_metrics["vd_provided"] = (
                f"{cal['name']} ({'≥' if cal['higher_is_better'] else '≤'} {cal['threshold']:.4g})"
            )
            break
    if data.provided_calibration and "vd_provided" not in method_metrics:
        unavailable["vd_provided"] = (
            "the imported calibration set's metric has no scores in this campaign"
            if binary
            else "needs binary labels"
        )

    # ---- live anytime-valid monitor
    monitor, widths = None, []
    mon_idx = first[np.isfinite(j.position[first]) & np.isfinite(j.inclusion_prob[first])]
    if mon_idx.size < first.size:
        notes.append(
            f"{first.size - mon_idx.size} label(s) have no recorded random order (assignment "
            "position); they are left out of the anytime-valid verdicts."
        )
    mon_idx = mon_idx[np.argsort(j.position[mon_idx], kind="stable")]
    _, uniq = np.unique(j.position[mon_idx], return_index=True)
    mon_idx = mon_idx[np.sort(uniq)]
    if mon_idx.size:
        # raw score grids (NaN = missing): the monitor degrades only the items lacking a score
        grids = [
            np.column_stack([data.scores[sig][s] for sig in signatures]) if signatures else None
            for s in range(k)
        ]
        try:
            mon = CampaignMonitor(
                grids, j.item[mon_idx], j.system[mon_idx], y_all[mon_idx],
                j.position[mon_idx], j.inclusion_prob[mon_idx],
                names=list(data.systems), alpha=alpha, equivalence_margin=equivalence_margin,
                higher_is_better=higher, label_range=label_range,
                present=data.output_ids >= 0,
            )  # fmt: skip
            monitor = mon.report()
        except ValueError as exc:
            unavailable["anytime"] = str(exc)
            notes.append(f"No anytime-valid verdicts: {exc}")
        else:
            notes.extend(monitor.notes)
            for st in monitor.systems:
                if st.result.n_human:
                    estimates[(st.name, "anytime")] = st.result
            method_metrics["anytime"] = (
                " + ".join(data.metric(s).metric for s in signatures) or "none (human only)"
            )
            widths = width_paths(mon, points=width_points)

    return CampaignReport(
        label_kind=kind,
        higher_is_better=higher,
        systems=list(data.systems),
        n_items=data.n_items,
        n_judgments=len(j),
        n_labelled_outputs=int(labelled_mask.sum()),
        signatures=signatures,
        estimates=estimates,
        unavailable=unavailable,
        method_metrics=method_metrics,
        monitor=monitor,
        widths=widths,
        efficiency=_efficiency(data, y_grid, labelled_mask),
        agreement=agreement(data, y_all, kind),
        annotators=annotators,
        notes=notes,
    )


# ------------------------------------------------------------------------ width over time


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


# ------------------------------------------------------------------------ data efficiency


def _corr(x: np.ndarray, y: np.ndarray) -> float | None:
    if x.size < 3 or np.std(x) == 0 or np.std(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def _median(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None and math.isfinite(v)]
    return float(np.median(vals)) if vals else None


def _efficiency(data: Any, y_grid: np.ndarray, labelled: np.ndarray) -> list[MetricEfficiency]:
    """Measured and limiting data efficiency of every stored metric (statistics.md §2)."""
    out = []
    k = len(data.systems)
    for info in data.metrics:
        grid = np.asarray(data.scores[info.signature], dtype=float)
        rhos, des, n_l, n_u = [], [], 0, 0
        for s in range(k):
            present = (data.output_ids[s] >= 0) & np.isfinite(grid[s])
            lab, unl = labelled[s] & present, present & ~labelled[s]
            n_l += int(lab.sum())
            n_u += int(unl.sum())
            rhos.append(_corr(grid[s, lab], y_grid[s, lab]))
            if lab.sum() >= 3 and unl.sum() >= 2:
                res = cv.ppi_mean(y_grid[s, lab], grid[s, lab], grid[s, unl])
                des.append(res.diagnostics["de"])
        pair_rhos = []
        for a, b in pairs(k):
            both = labelled[a] & labelled[b] & np.isfinite(grid[a]) & np.isfinite(grid[b])
            pair_rhos.append(
                _corr(grid[a, both] - grid[b, both], y_grid[a, both] - y_grid[b, both])
            )
        rho = _median(rhos)
        rho_p = _median(pair_rhos)
        out.append(
            MetricEfficiency(
                signature=info.signature,
                metric=info.metric,
                rho_y=rho,
                de_measured=_median(des),
                de_limit=None if rho is None else cv.theoretical_data_efficiency(rho, 1),
                rho_pairs=rho_p,
                de_pairs_limit=None if rho_p is None else cv.theoretical_data_efficiency(rho_p, 1),
                n_labelled=n_l,
                n_unlabelled=n_u,
            )
        )
    return out


# ------------------------------------------------------------------------ agreement


def agreement(data: Any, y_all: np.ndarray, kind: str) -> Agreement:
    """Krippendorff's α (nominal for binary labels, interval otherwise) on outputs with
    ≥ 2 current judgments, via the ``krippendorff`` package (Krippendorff 2011)."""
    j = data.judgments
    level = "nominal" if kind == "label" else "interval"
    ok = np.isfinite(y_all)
    if not ok.any():
        return Agreement(None, level, 0, 0, "no judgments")
    n_items = max(data.n_items, 1)
    unit = j.system[ok].astype(np.int64) * n_items + j.item[ok]
    _, inverse, counts = np.unique(unit, return_inverse=True, return_counts=True)
    multi = counts[inverse] >= 2
    n_units = int((counts >= 2).sum())
    if n_units < 2:
        return Agreement(
            None, level, n_units, int(multi.sum()),
            "fewer than 2 outputs have two or more judgments: set an overlap share for the "
            "campaign to measure agreement",
        )  # fmt: skip
    col = np.searchsorted(np.flatnonzero(counts >= 2), inverse[multi])
    ann = j.annotator[ok][multi]
    annotators, row = np.unique(ann, return_inverse=True)
    matrix = np.full((annotators.size, n_units), np.nan)
    matrix[row, col] = y_all[ok][multi]
    if np.unique(matrix[np.isfinite(matrix)]).size < 2:
        return Agreement(None, level, n_units, int(multi.sum()), "all judgments are identical")
    alpha = float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level))
    return Agreement(alpha, level, n_units, int(multi.sum()))


# ------------------------------------------------------------------------ annotators


def _annotator_rows(data: Any) -> list[dict[str, Any]]:
    rows = []
    for a in data.annotator_stats:
        hours = (a.total_seconds or 0) / 3600
        rows.append(
            {
                "annotator": a.name,
                "role": a.role,
                "labels": a.n_labels,
                "skips": a.n_skips,
                "median_seconds": a.median_seconds,
                "labels_per_hour": (a.n_labels / hours) if hours > 0 else None,
                "attention_checks": a.attention_checks,
                "attention_pass_rate": (
                    a.attention_passed / a.attention_checks if a.attention_checks else None
                ),
                "last_active": a.last_at,
            }
        )
    return rows


# ------------------------------------------------------------------------ planner inputs


@dataclass(frozen=True)
class PlanningInputs:
    """What a campaign says about the planner's inputs (medians over systems).

    ``calibration`` is (TP, FN, TN, FP) of the chosen binary metric when given.
    """

    n_human: int
    n_metric: int
    alpha_hat: float | None
    n_systems: int
    calibration: tuple[int, int, int, int] | None = None

    @property
    def rho(self) -> float | None:
        if self.calibration is None or self.calibration[0] + self.calibration[1] == 0:
            return None
        return self.calibration[0] / (self.calibration[0] + self.calibration[1])

    @property
    def eta(self) -> float | None:
        if self.calibration is None or self.calibration[2] + self.calibration[3] == 0:
            return None
        return self.calibration[2] / (self.calibration[2] + self.calibration[3])


def planning_inputs(
    data: Any, calibration: tuple[int, int, int, int] | None = None
) -> PlanningInputs:
    """Per-system median of labelled outputs (n_human) and metric-only outputs (n_metric),
    and the campaign's adequacy rate (mean binary label), from ``data`` (CampaignData)."""
    j = data.judgments
    k = len(data.systems)
    ok = np.flatnonzero(np.isfinite(j.label))
    first = ok[_first_per_output(j.item[ok], j.system[ok])]
    labelled = np.zeros((k, max(data.n_items, 1)), dtype=bool)
    labelled[j.system[first], j.item[first]] = True
    present = data.output_ids >= 0 if k else np.zeros((0, 0), dtype=bool)
    n_h = [int(labelled[s].sum()) for s in range(k)]
    n_m = [int((present[s] & ~labelled[s, : data.n_items]).sum()) for s in range(k)]
    return PlanningInputs(
        n_human=int(np.median(n_h)) if k else 0,
        n_metric=int(np.median(n_m)) if k else 0,
        alpha_hat=float(j.label[first].mean()) if first.size else None,
        n_systems=k,
        calibration=None if calibration is None else tuple(int(c) for c in calibration),
    )
