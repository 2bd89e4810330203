"""Fixed-n estimates with a chosen set of controls, the learned control ŷ among them.

What ``cli.py evaluate`` prints and the dashboard's controls panel shows (pure numpy/scipy):

- :func:`learned_control` — the campaign's cross-fitted ŷ from every stored metric signature
  (built-in, imported, cheap features; :mod:`estimators.fixed_n.learned`), reused between labels
  until the label count doubles (a fit stays valid: outputs labelled after it get the
  K-model mean, which never saw their labels);
- :func:`control_efficiency` — per control (each metric and ŷ): correlation with the human
  judgment and measured data efficiency se²(human)/se²(PPI++) for system means and pairs;
- :func:`evaluate` — per system and per pair, human-only and PPI++ with the chosen controls
  (docs/statistics-notes.md §17; pairs on the items labelled for both systems, control g_A − g_B),
  t-test p-values and Holm across pairs (§5).

These are fixed-n intervals: valid when the number of labels was not chosen by watching the
results. The live verdicts are the anytime-valid monitor's (:mod:`estimators.live.monitor`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from scipy import stats

from estimators.base.multiple import holm, pairs
from estimators.base.result import (
    MIN_LABELS_FOR_VERDICT,
    EstimateResult,
    Unavailable,
    reason_text,
    unavailable_result,
)
from estimators.caches.report import ReportCache, cached, digest
from estimators.data.campaign import BINARY_KINDS, CampaignData, kind_range
from estimators.fixed_n import control_variates as cv
from estimators.fixed_n import human
from estimators.fixed_n import learned as lr
from estimators.fixed_n.control_terms import NO_DE, pair_terms, system_terms
from estimators.fixed_n.efficiency import finite_median

__all__ = [
    "LEARNED",
    "ControlEfficiency",
    "Evaluation",
    "control_efficiency",
    "evaluate",
    "label_bounds",
    "label_grid",
    "learned_control",
    "learned_unavailable",
]

#: The name of the learned control wherever a metric signature is accepted.
LEARNED = "learned"


def label_grid(data: CampaignData, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(y_grid, labelled), both (systems, N): each output's first judgment of ``kind``."""
    j = data.judgments
    first = data.first_judgments(kind)
    y_grid = np.full((len(data.systems), data.n_items), np.nan)
    y_grid[j.system[first], j.item[first]] = j.values(kind)[first]
    return y_grid, np.isfinite(y_grid)


def learned_control(
    data: CampaignData,
    kind: str,
    *,
    previous: lr.LearnedGrid | None = None,
    signatures: Sequence[str] | None = None,
    seed: int = 0,
) -> lr.LearnedGrid | None:
    """ŷ over the campaign from ``signatures`` (default: every stored metric signature).

    ``previous`` is returned as it is while still fresh
    (:func:`estimators.fixed_n.learned.learned_grid`).
    ``None`` without metric scores or with fewer than 10 labels.
    """
    sigs = tuple(sorted(signatures if signatures is not None else data.scores))
    if not sigs:
        return None
    y_grid, labelled = label_grid(data, kind)
    features = np.stack([np.asarray(data.scores[s], dtype=float) for s in sigs], axis=-1)
    return lr.learned_grid(
        features, y_grid, labelled, data.output_ids >= 0,
        names=sigs, previous=previous, spec=lr.CrossFitSpec(seed=seed),
    )  # fmt: skip


def _grid(data: CampaignData, name: str, learned: lr.LearnedGrid | None) -> np.ndarray:
    if name == LEARNED:
        if learned is None:
            raise ValueError("the learned control needs metric scores and at least 10 labels")
        return learned.values
    if name not in data.scores:
        raise ValueError(f"no metric signature {name!r} in campaign {data.name!r}")
    return np.asarray(data.scores[name], dtype=float)


def _display(data: CampaignData, name: str) -> str:
    if name == LEARNED:
        return "learned ŷ"
    info = data.metric(name)
    return info.metric if info else name


@dataclass(frozen=True)
class ControlEfficiency:
    """How much one control saves on this campaign (docs/statistics-notes.md §17).

    ``rho``: median over systems of corr(judgment, control) on the labelled outputs;
    ``rho_pairs``: median over pairs of corr(D, g_A − g_B); ``de`` / ``de_pairs``: median
    measured se²(human)/se²(PPI++) for system means / paired differences (None without
    unlabelled outputs or labels).
    """

    name: str
    label: str
    rho: float | None
    rho_pairs: float | None
    de: float | None
    de_pairs: float | None

    @property
    def measured(self) -> bool:
        """A data efficiency was measured (needs labelled and unlabelled outputs)."""
        return self.de is not None or self.de_pairs is not None

    @property
    def helps(self) -> bool:
        """Saves at least 2 % of the labels somewhere (DE ≥ 1.02)."""
        return any(d is not None and d >= 1.02 for d in (self.de, self.de_pairs))


def control_efficiency(
    data: CampaignData,
    kind: str,
    learned: lr.LearnedGrid | None = None,
    cache: ReportCache | None = None,
) -> list[ControlEfficiency]:
    """:class:`ControlEfficiency` of every stored metric and of ``learned`` (if given).

    ``cache`` keeps each system's and each pair's terms by a digest of the rows they read
    (:mod:`estimators.caches.report`): after one label, one system and its pairs again."""
    y_grid, labelled = label_grid(data, kind)
    present = data.output_ids >= 0
    names = sorted(data.scores, key=lambda s: _display(data, s))
    if learned is not None:
        names.append(LEARNED)
    out = []
    k = len(data.systems)
    for name in names:
        g = _grid(data, name, learned)
        ok = present & np.isfinite(g)
        ddof = lr.RESIDUAL_DDOF if name == LEARNED else 1
        keys = [b""] * k
        if cache is not None:
            keys = [digest(ddof, y_grid[s], labelled[s], g[s], ok[s]) for s in range(k)]
        rhos, des, prhos, pdes = [], [], [], []
        for s in range(k):
            compute = partial(system_terms, y_grid[s], labelled[s], g[s], ok[s], ddof)
            rho, de = cached(cache, "control_system", partial(bytes, keys[s]), compute)
            rhos.append(rho)
            if de is not NO_DE:
                des.append(de)
        for a, b in pairs(k):
            compute = partial(pair_terms, y_grid, labelled, g, ok, ddof, a, b)
            prho, pde = cached(cache, "control_pair", partial(bytes, keys[a] + keys[b]), compute)
            prhos.append(prho)
            if pde is not NO_DE:
                pdes.append(pde)
        medians = [finite_median(v) for v in (rhos, prhos, des, pdes)]
        out.append(ControlEfficiency(name, _display(data, name), *medians))
    return out


@dataclass(frozen=True)
class Evaluation:
    """Per-system and pairwise fixed-n results with and without the chosen controls.

    Every system with a label has a human-only row; a method that cannot give a number for
    a system or pair still has its row, an unavailable :class:`EstimateResult` whose
    reason :func:`estimators.base.result.reason_text` words. ``controls`` are the controls used
    (a requested control that could not run is dropped with a note).
    """

    label_kind: str
    controls: list[str]
    control_labels: list[str]
    #: rows: system, method ("human" | "ppi"), EstimateResult
    systems: list[tuple[str, str, EstimateResult]]
    #: rows: a, b, method, EstimateResult, p-value, Holm-adjusted p, verdict
    pairs: list[dict]
    notes: list[str] = field(default_factory=list)


def label_bounds(kind: str) -> tuple[float, float] | None:
    """Range of one judgment of ``kind``: [0, 1] for binary labels, 1 − HTER (clipped
    to [0, 1]) and the ESA score (÷ 100); ``None`` (unknown) for imported scores
    (:func:`estimators.data.campaign.kind_range`)."""
    return kind_range(kind)


def learned_unavailable(data: CampaignData, kind: str) -> str:
    """Why :func:`learned_control` gives no ŷ on ``data``, in words."""
    if not data.scores:
        return "it needs stored metric scores (`cli.py score`, or imported scores)"
    _, labelled = label_grid(data, kind)
    present = data.output_ids >= 0
    n = int((labelled & present).sum())
    if n < 2 * lr.FOLDS:
        return f"it needs at least {2 * lr.FOLDS} labels ({n} so far)"
    if int((present & ~labelled).sum()) < 3:
        return ("every output is labelled (a census): there are no unlabelled outputs for "
                "a control to use")  # fmt: skip
    return "the fit was not possible"


def _p_value(res: EstimateResult) -> float:
    if not res.se > 0:
        return 1.0 if res.estimate == 0 else 0.0
    z = abs(res.estimate) / res.se
    return float(2 * (stats.t.sf(z, res.df) if res.df else stats.norm.sf(z)))


def _usable_controls(
    data: CampaignData,
    kind: str,
    controls: Sequence[str],
    learned: lr.LearnedGrid | None,
    notes: list[str],
) -> list[str]:
    """``controls`` without a learned control that could not be fitted (with a note)."""
    controls = list(dict.fromkeys(controls))
    if LEARNED in controls and learned is None:
        controls.remove(LEARNED)
        rest = ", ".join(_display(data, c) for c in controls) or "human-only results"
        notes.append(f"The learned control cannot run: {learned_unavailable(data, kind)}. "
                     f"Showing {rest} instead.")  # fmt: skip
    return controls


def _system_rows(
    data: CampaignData,
    kind: str,
    y_grid: np.ndarray,
    labelled: np.ndarray,
    g: np.ndarray | None,
    ok: np.ndarray,
    ddof: int,
    level: float,
    notes: list[str],
    cache: ReportCache | None = None,
    keys: list[bytes] | None = None,
) -> list[tuple[str, str, EstimateResult]]:
    """Human-only (and PPI++ when controls are chosen) per system with at least one label."""
    rows: list[tuple[str, str, EstimateResult]] = []
    unlabelled = [name for s, name in enumerate(data.systems) if not labelled[s].any()]
    if unlabelled:
        notes.append("No labels yet for " + ", ".join(unlabelled[:5])
                     + ("…" if len(unlabelled) > 5 else "") + ".")  # fmt: skip
    for s, name in enumerate(data.systems):
        if not labelled[s].any():
            continue
        gs = None if g is None else g[s]
        compute = partial(_system_results, kind, y_grid[s], labelled[s], gs, ok[s], ddof, level)
        key = partial(bytes, b"" if keys is None else keys[s])
        rows.extend((name, method, res) for method, res in cached(cache, "evaluate_system", key,
                                                                   compute))  # fmt: skip
    return rows


def _system_results(  # type: ignore[no-untyped-def]
    kind: str, y_row, lab, g_row, ok_row, ddof: int, level: float
) -> list[tuple[str, EstimateResult]]:
    """One system's human-only result and, with controls, its PPI++ one."""
    bounds = label_bounds(kind)
    y = y_row[lab]
    out = [("human", human.binary_beta(float(y.sum()), y.size, level)
            if kind in BINARY_KINDS else human.mean_t(y, level, bounds))]  # fmt: skip
    if g_row is None:
        return out
    if (lab & ~ok_row).any():
        res = unavailable_result("ppi++", Unavailable.NO_METRIC, y.size, level=level)
    else:
        unl = ok_row & ~lab
        res = cv.ppi_mean(y, g_row[lab], g_row[unl], level=level, ddof=ddof, bounds=bounds)
    return [*out, ("ppi", res)]


def _pair_result(
    method: str,
    y_grid: np.ndarray,
    labelled: np.ndarray,
    g: np.ndarray | None,
    a: int,
    b: int,
    ok: np.ndarray,
    ddof: int,
    level: float,
    bounds,
) -> EstimateResult:
    """Pair (a, b) by ``method`` on the items both systems have labelled."""
    both = labelled[a] & labelled[b]
    ya, yb = y_grid[a, both], y_grid[b, both]
    if method == "human":
        return human.paired_difference(ya, yb, level, bounds)
    assert g is not None
    if (both & ~(ok[a] & ok[b])).any():
        return unavailable_result("ppi++_paired_difference", Unavailable.NO_METRIC, ya.size,
                                  level=level)  # fmt: skip
    rest = ok[a] & ok[b] & ~both
    return cv.ppi_paired_difference(
        ya, yb, g[a, both], g[b, both], g[a, rest], g[b, rest], level=level, ddof=ddof,
        bounds=bounds,
    )  # fmt: skip


def _pair_rows(
    data: CampaignData,
    kind: str,
    y_grid: np.ndarray,
    labelled: np.ndarray,
    g: np.ndarray | None,
    ok: np.ndarray,
    ddof: int,
    level: float,
    alpha: float,
    cache: ReportCache | None = None,
    keys: list[bytes] | None = None,
) -> list[dict]:
    """Every pair, per method; Holm over the pairs of a method that have an interval."""
    bounds = label_bounds(kind)
    out: list[dict] = []
    for method in ["human"] + (["ppi"] if g is not None else []):
        batch = []
        for a, b in pairs(len(data.systems)):
            compute = partial(_pair_result, method, y_grid, labelled, g, a, b, ok, ddof, level,
                              bounds)  # fmt: skip
            key = partial(bytes, b"" if keys is None else method.encode() + keys[a] + keys[b])
            res = cached(cache, "evaluate_pair", key, compute)
            p = _p_value(res) if res.available else None
            batch.append({"a": data.systems[a], "b": data.systems[b], "method": method,
                          "result": res, "p": p})  # fmt: skip
        tested = [r for r in batch if r["p"] is not None]
        adjusted = holm([r["p"] for r in tested], alpha).adjusted if tested else []
        for r, p_holm in zip(tested, adjusted, strict=True):
            res = r["result"]
            decided = p_holm <= alpha and res.n_human >= MIN_LABELS_FOR_VERDICT
            winner = r["a"] if res.estimate > 0 else r["b"]
            r["p_holm"] = float(p_holm)
            r["verdict"] = f"{winner} better" if decided else "not significant"
        for r in batch:
            if r["p"] is None:
                r["p_holm"] = None
                r["verdict"] = "no interval: " + reason_text(r["result"])
        out.extend(batch)
    return out


def evaluate(
    data: CampaignData,
    kind: str,
    controls: Sequence[str] = (),
    *,
    learned: lr.LearnedGrid | None = None,
    alpha: float = 0.05,
    level: float = 0.95,
    cache: ReportCache | None = None,
) -> Evaluation:
    """Human-only and PPI++ (with ``controls``: metric signatures and/or :data:`LEARNED`)
    for every system and pair; Holm over the pairs of each method that have an interval; a
    verdict needs ≥ 30 shared labels and a Holm-adjusted p ≤ ``alpha``. Intervals lie in
    the judgment's range (:func:`label_bounds`); below a method's minimum number of labels,
    or in a census for PPI++, the row carries the reason instead of a number. A learned
    control that cannot be fitted is dropped with a note (:func:`learned_unavailable`).
    ``cache`` keeps each system's and pair's results by a digest of the rows they read
    (:mod:`estimators.caches.report`); Holm runs over all pairs at every call."""
    notes: list[str] = []
    if data.documents is not None:  # documents judged in order: labels are not independent
        notes.append(
            "Documents are the sampling unit: these fixed-n intervals treat the labels as "
            "independent draws and are too narrow; the dashboard's document-unit results "
            "(and its live verdicts) are the valid ones."
        )
    controls = _usable_controls(data, kind, controls, learned, notes)
    labels = [_display(data, c) for c in controls]
    if data.visits is not None and data.visits.weighted:
        # these estimators assume uniformly drawn labels; under active sampling they would be
        # biased (the report's weighted active-inference estimate is the valid one)
        return Evaluation(kind, controls, labels, [], [], [*notes,
            "Active sampling drew items with unequal probabilities: unweighted human-only and "
            "PPI++ results would be biased, so none are shown here; the weighted "
            "active-inference estimate is in the per-system table."])  # fmt: skip
    grids = [_grid(data, c, learned) for c in controls]
    g = np.stack(grids, axis=-1) if grids else None
    ddof = lr.RESIDUAL_DDOF if LEARNED in controls else 1
    y_grid, labelled = label_grid(data, kind)
    present = data.output_ids >= 0
    ok = present if g is None else present & np.isfinite(g).all(axis=-1)
    keys = None
    if cache is not None:
        rows_g = [None if g is None else g[s] for s in range(len(data.systems))]
        keys = [digest(str(kind), level, ddof, y_grid[s], labelled[s], rows_g[s], ok[s])
                for s in range(len(data.systems))]  # fmt: skip
    rows = _system_rows(data, kind, y_grid, labelled, g, ok, ddof, level, notes, cache, keys)
    pair_rows = _pair_rows(data, kind, y_grid, labelled, g, ok, ddof, level, alpha, cache, keys)
    if len(data.systems) < 2:
        notes.append("Only one system: there are no pairs to compare.")
    if kind_range(kind) is None:
        notes.append("Verdicts assume higher judgments are better.")
    return Evaluation(kind, controls, labels, rows, pair_rows, notes)
