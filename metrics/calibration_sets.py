"""ρ/η calibration sets as portable JSON: build, validate, and check a metric signature.

A calibration set records how well one binary metric (a metric signature and a threshold) agrees
with human binary labels: the confusion counts TP/FN/TN/FP, the Beta posteriors ρ ~ Beta(TP+1, FN+1)
and η ~ Beta(TN+1, FP+1) (von Däniken et al. 2022, §3.2; docs/statistics-notes.md §16), per-system
counts (ρ, η differ between systems, docs/statistics-notes.md §16.6) with the drift test, and where
it came from. Another campaign can use it as the "ρ, η provided" prior of the von Däniken estimator
— only if its scores carry the same signature: ρ and η of one metric configuration say nothing about
another, so :func:`check_signature` refuses.

The file format (read, validated and written) is :mod:`formats.calibration_file`; the
item-level rows behind a set are :func:`calibration_items`.
Pure Python/numpy: no database, no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from estimators.data.campaign import BINARY_KINDS, CampaignData, LabelKind
from estimators.fixed_n.vondaniken import drift_test
from formats.calibration_file import SCHEMA, SCHEMA_VERSION, CalibrationSet, CalibrationSetError
from metrics.calibration import Calibration, Rate, metric_positive
from metrics.imported import parse_signature, same_computation

__all__ = [
    "CalibrationArrays",
    "SignatureMismatch",
    "TaskMismatch",
    "build_payload",
    "calibration_arrays",
    "calibration_items",
    "check_signature",
    "check_task",
    "drift",
    "task_profile",
]


class SignatureMismatch(CalibrationSetError):
    """The set's metric signature is not one the target campaign's scores carry."""


class TaskMismatch(CalibrationSetError):
    """The set was measured on another target language or another kind of task."""


#: Median output/source length (characters) below which outputs condense their source.
CONDENSING_RATIO = 0.5

#: Task kind → how the messages describe it.
TASKS = {
    "condensing": "outputs much shorter than their sources (e.g. summarisation)",
    "same_length": "outputs about as long as their sources (e.g. translation)",
}


def task_profile(sources: list[str], outputs: list[str], target_lang: str | None) -> dict[str, Any]:
    """What kind of task a campaign is, as recorded in (and checked against) a set.

    ``target_lang`` (primary subtag, lower case; None when unknown) and ``task``:
    "condensing" when the median output/source length ratio (characters, pairs with a
    non-empty source) is below :data:`CONDENSING_RATIO` — summaries of CNN/DM articles are
    ≈ 0.1 of their source, translations ≈ 1 — else "same_length"; None without texts.
    """
    ratios = [len(o) / len(s) for s, o in zip(sources, outputs, strict=True) if s]
    ratio = float(np.median(ratios)) if ratios else None
    task = None if ratio is None else ("condensing" if ratio < CONDENSING_RATIO else "same_length")
    lang = (target_lang or "").strip().lower().replace("_", "-").split("-")[0] or None
    return {"target_lang": lang, "task": task, "length_ratio": ratio}


def check_task(cal: CalibrationSet, profile: dict[str, Any]) -> None:
    """Refuse a set measured on another target language or kind of task than the campaign
    (``profile`` from :func:`task_profile`): a metric's ρ and η depend on both, so an en-de
    MT set says nothing about an English summarisation campaign. A set that records its
    language or task is refused too when the campaign records neither (no target language,
    no source texts): the match cannot be checked. A set recording neither (older files) is
    not checked. Raises :class:`TaskMismatch`; the caller may let the user confirm.
    """
    src = cal.payload.get("source") if isinstance(cal.payload.get("source"), dict) else {}
    set_lang = src.get("target_lang") if isinstance(src.get("target_lang"), str) else None
    set_task = src.get("task") if src.get("task") in TASKS else None
    our_lang, our_task = profile.get("target_lang"), profile.get("task")
    problems = []
    if set_lang and our_lang and set_lang.lower() != our_lang:
        problems.append(f"its outputs are in '{set_lang}', this campaign's in '{our_lang}'")
    if set_task and our_task and set_task != our_task:
        problems.append(f"it was measured on {TASKS[set_task]}, this campaign has "
                        f"{TASKS[our_task]}")  # fmt: skip
    if (set_lang or set_task) and not (our_lang or our_task):
        what = ", ".join(x for x in (f"'{set_lang}' outputs" if set_lang else "",
                                     TASKS[set_task] if set_task else "") if x)  # fmt: skip
        problems.append(f"it was measured on {what}, and the match cannot be checked: this "
                        "campaign records no target language and no source texts")  # fmt: skip
    if problems:
        raise TaskMismatch(
            f"Refused: the calibration set '{cal.name}' may come from another kind of "
            "campaign: " + "; ".join(problems) + ". A metric's ρ and η differ between "
            "languages and tasks, so this prior could bias the estimate. Calibrate on this "
            "campaign's own labels, or confirm that you want to use it anyway (the "
            "Calibration page's box \"Use it even if it was measured on another language or "
            'kind of task").'
        )


@dataclass(frozen=True)
class CalibrationArrays:
    """Labelled outputs of a campaign with one metric's scores (first judgment per output)."""

    item_ids: list[str]
    systems: list[str]
    scores: np.ndarray
    labels: np.ndarray  # 0/1 ints
    kind: str = LabelKind.LABEL  # the binary judgment the labels are

    def __len__(self) -> int:
        return int(self.scores.size)


# ------------------------------------------------------------------------ building


def calibration_arrays(
    data: CampaignData, signature: str, kind: str = LabelKind.LABEL
) -> CalibrationArrays:
    """The campaign's outputs with a binary judgment of ``kind`` (the label, or error-free:
    :data:`estimators.data.campaign.BINARY_KINDS`) that have a ``signature`` score.

    One row per output: its first current judgment of ``kind`` in arrival order (the one the
    estimators use, :meth:`CampaignData.first_judgments`).
    """
    if kind not in BINARY_KINDS:
        raise ValueError(f"ρ/η need a binary judgment ({', '.join(BINARY_KINDS)}), not {kind!r}")
    j = data.judgments
    grid = data.scores.get(signature)
    if grid is None:
        return CalibrationArrays([], [], np.zeros(0), np.zeros(0, dtype=int))
    idx = data.first_judgments(kind)
    values = grid[j.system[idx], j.item[idx]]
    keep = np.isfinite(values)
    idx, values = idx[keep], values[keep]
    return CalibrationArrays(
        item_ids=[data.item_ids[i] for i in j.item[idx]],
        systems=[data.systems[s] for s in j.system[idx]],
        scores=np.asarray(values, dtype=float),
        labels=j.values(kind)[idx].astype(int),
        kind=str(kind),
    )


def calibration_items(arrays: CalibrationArrays, threshold: float, higher_is_better: bool):
    """Item-level rows behind the confusion matrix (one dict per labelled output)."""
    m = metric_positive(arrays.scores, threshold, higher_is_better)
    cells = np.where(arrays.labels == 1, np.where(m, "TP", "FN"), np.where(m, "FP", "TN")).tolist()
    return [
        {
            "item_id": item,
            "system": system,
            "metric_value": float(value),
            "metric_positive": int(pos),
            "human_label": int(label),
            "cell": cell,
        }
        for item, system, value, pos, label, cell in zip(
            arrays.item_ids, arrays.systems, arrays.scores, m, arrays.labels, cells, strict=True
        )
    ]


def _posterior(rate: Rate) -> dict[str, Any]:
    k, n = rate.successes, rate.trials
    return {
        "distribution": "beta",
        "a": k + 1,
        "b": n - k + 1,
        "mean": rate.posterior_mean,
        "interval": [rate.lower, rate.upper],
        "level": rate.level,
    }


#: Level at which the drift test's combined p-value says ρ, η differ between systems.
DRIFT_LEVEL = 0.05


def drifted(test: dict[str, float], level: float = DRIFT_LEVEL) -> bool:
    """Whether a :func:`drift` result says ρ, η differ between systems."""
    return bool(test) and test["p_value"] < level


def drift(arrays: CalibrationArrays, cal: Calibration) -> dict[str, float]:
    """Do ρ, η differ between systems? (estimators.fixed_n.vondaniken.drift_test; {} for one
    system)"""
    names = sorted(set(arrays.systems))
    if len(names) < 2:
        return {}
    sys_arr = np.asarray(arrays.systems, dtype=object)
    m = metric_positive(arrays.scores, cal.threshold, cal.higher_is_better)
    res = drift_test([arrays.labels[sys_arr == n] for n in names], [m[sys_arr == n] for n in names])
    return {k: float(res[k]) for k in ("p_rho", "p_eta", "p_value")}


def build_payload(
    *,
    name: str,
    metric: str,
    signature: str,
    calibration: Calibration,
    arrays: CalibrationArrays,
    source_campaign: str | None,
    created_at: datetime | None = None,
    profile: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON-ready calibration set of ``calibration`` (from metrics.calibration);
    ``profile`` (:func:`task_profile`) records the campaign's target language and task."""
    o = calibration.overall
    per_system = {
        sysname: {
            "tp": a.tp,
            "fn": a.fn,
            "tn": a.tn,
            "fp": a.fp,
            "rho": [a.rho.estimate, a.rho.lower, a.rho.upper],
            "eta": [a.eta.estimate, a.eta.lower, a.eta.upper],
        }
        for sysname, a in calibration.per_system.items()
    }
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "name": name,
        "metric": metric,
        "signature": signature,
        "threshold": float(calibration.threshold),
        "higher_is_better": bool(calibration.higher_is_better),
        "threshold_method": calibration.method,
        "counts": {"tp": o.tp, "fn": o.fn, "tn": o.tn, "fp": o.fp},
        "posteriors": {"rho": _posterior(o.rho), "eta": _posterior(o.eta)},
        "per_system": per_system,
        "drift_test": drift(arrays, calibration),
        "source": {
            "campaign": source_campaign,
            "label_kind": str(arrays.kind),
            "n_items": o.n,
            "created_at": (created_at or datetime.now(UTC)).isoformat(),
            **(profile or {}),
        },
    }


def check_signature(cal: CalibrationSet, campaign_signatures: list[tuple[str, str]]) -> str:
    """The campaign's signature the set applies to; refuse a set whose metric signature the
    campaign's scores do not carry.

    ``campaign_signatures``: the campaign's (metric, signature) pairs. Raises
    :class:`SignatureMismatch` naming the set's signature and the campaign's.
    """
    sigs = [sig for _, sig in campaign_signatures]
    if cal.signature in sigs:
        return cal.signature
    # An imported metric's scores come from each campaign's own file: the same name, declared
    # version and direction mean the same numbers (metrics.imported.same_computation).
    same = [sig for sig in sigs if same_computation(cal.signature, sig)]
    if len(same) == 1:
        return same[0]
    imported = parse_signature(cal.signature)
    if imported is not None:
        raise SignatureMismatch(
            f"Refused: the calibration set was measured with the imported metric "
            f"'{imported.name}' (version {imported.version or 'not given'}, "
            f"{'higher' if imported.higher_is_better else 'lower'} is better), and this "
            "campaign has no imported metric of that name, declared version and direction "
            f"(its signatures: {'; '.join(sigs) or 'none'}). Import the same metric with the "
            "same version string and direction (a version must be given for a set to carry "
            "over), or calibrate on this campaign's own labels."
        )
    same_metric = [sig for metric, sig in campaign_signatures if metric == cal.metric]
    if same_metric:
        theirs = "; ".join(same_metric)
        raise SignatureMismatch(
            f"Refused: the calibration set was measured with metric signature "
            f"'{cal.signature}', but this campaign's {cal.metric} scores have signature "
            f"'{theirs}'. ρ and η of one metric configuration do not carry over to another. "
            "Score this campaign with the same configuration, or calibrate on its own labels."
        )
    listed = "; ".join(sigs) if sigs else "none (the campaign has no metric scores yet)"
    raise SignatureMismatch(
        f"Refused: the calibration set was measured with metric signature '{cal.signature}', "
        f"but this campaign has no scores with that signature (its signatures: {listed}). "
        "Score the campaign with the same metric configuration first."
    )
