"""ρ/η calibration of a campaign's metric: the one path from labels and scores to ρ, η.

- :func:`campaign_calibration` — ρ/η of one metric signature on the campaign's binary
  labels (first current judgment per output, the one the estimators use), at the stored
  threshold or the method-optimal one (:mod:`metrics.calibration`).
- :func:`with_learned_control` — the campaign with its cross-fitted ŷ as one more "metric",
  so the same path calibrates a threshold on ŷ (ROC, ρ/η, drift) as on any stored metric.
- :func:`calibrate_and_save` — choose a threshold by ``method`` (Youden by default) and
  store it for the campaign; the benches and tests set a campaign's threshold this way.
- :func:`calibration_export` / :func:`import_calibration` — ρ/η calibration sets as JSON
  (schema in :mod:`formats.calibration_file`) plus the item-level CSV behind them; an
  import into another campaign becomes its "ρ, η provided" von Däniken prior, and is
  refused when the metric signature differs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from annotation.results.exports import campaign_id_or_fail
from db import Engine
from db.campaign.lifecycle import archived_reason
from db.reads.campaign import CampaignData, read_campaign
from db.scores.calibration import store_set
from db.scores.metric_scores import (
    campaign_info,
    campaign_signatures,
    item_sources,
    outputs_with_references,
    save_threshold,
)
from estimators.data.campaign import LABEL_KINDS, LabelKind, MetricInfo
from estimators.fixed_n.controls import LEARNED, learned_control
from formats import calibration_file as cf
from formats.writers import to_csv
from metrics import calibration_sets as cs
from metrics.calibration import Calibration, calibrate


@dataclass(frozen=True)
class CalibrationExport:
    """A calibration set of one campaign: the ρ/η calibration, its JSON and item CSV."""

    calibration: Calibration
    payload: dict[str, Any]
    json: bytes
    items_csv: bytes
    items: list[dict[str, Any]]


def campaign_calibration(
    data: CampaignData,
    signature: str,
    *,
    threshold: float | None = None,
    method: str = "youden",
    level: float = 0.95,
    use_stored: bool = True,
    kind: str = LabelKind.LABEL,
) -> tuple[Calibration, cs.CalibrationArrays]:
    """ρ/η of ``signature`` on the campaign's binary judgments of ``kind`` (the label, or
    error-free) (metrics.calibration).

    ``threshold`` None: the campaign's stored threshold (unless ``use_stored`` is False),
    else the ``method``-optimal one (Youden); a given threshold is recorded as "manual".
    Raises :class:`formats.calibration_file.CalibrationSetError` when the campaign lacks the
    labels or scores a calibration needs.
    """
    info = data.metric(signature)
    if info is None:
        raise cf.CalibrationSetError(f"campaign '{data.name}' has no scores for '{signature}'")
    try:
        arrays = cs.calibration_arrays(data, signature, kind)
    except ValueError as exc:
        raise cf.CalibrationSetError(str(exc)) from None
    if len(arrays) == 0:
        raise cf.CalibrationSetError(
            f"no output has both a {LABEL_KINDS.get(kind, kind)} and this metric's score yet"
        )
    higher = info.higher_is_better
    if higher is None:  # no stored threshold: the metric's own direction (imported ones say it)
        from metrics.imported import higher_is_better

        higher = higher_is_better(info.metric, signature)
    if threshold is None and use_stored and info.threshold is not None:
        threshold, method = info.threshold, info.threshold_method or method
    elif threshold is not None:
        method = "manual"
    try:
        cal = calibrate(
            arrays.scores,
            arrays.labels,
            systems=arrays.systems,
            higher_is_better=higher,
            method=method,
            level=level,
            threshold=threshold,
        )
    except ValueError as exc:
        raise cf.CalibrationSetError(str(exc)) from None
    return cal, arrays


def with_learned_control(data: CampaignData, *, seed: int = 0) -> CampaignData:
    """``data`` plus the cross-fitted ŷ of the binary label as a metric with signature
    :data:`estimators.fixed_n.controls.LEARNED` (higher = more likely adequate, on the label scale).

    ŷ of a labelled output comes from a model that never saw its label (K-fold by item,
    :mod:`estimators.fixed_n.learned`), so its ROC and ρ/η are not an in-sample fit. ``data`` is
    returned unchanged when ŷ cannot be fitted (no metric scores, fewer than 10 labels).
    ŷ belongs to this campaign's labels: it has no stored scores, so a threshold on it is
    read here, not saved, and it makes no calibration set for other campaigns.
    """
    learned = learned_control(data, LabelKind.LABEL, seed=seed)
    if learned is None:
        return data
    values = np.where(data.output_ids >= 0, learned.values + learned.offset, np.nan)
    info = MetricInfo(
        signature=LEARNED,
        metric="learned ŷ",
        n_scores=int(np.isfinite(values).sum()),
        higher_is_better=True,
    )
    return replace(data, metrics=[*data.metrics, info], scores={**data.scores, LEARNED: values})


def calibrate_and_save(
    engine: Engine,
    campaign_id: int,
    signature: str,
    method: str = "youden",
    *,
    level: float = 0.95,
) -> Calibration:
    """Choose the ``method``-optimal threshold of ``signature`` and store it for the campaign.

    Replaces a stored threshold (a threshold is a setting, not a judgment). Raises
    :class:`formats.calibration_file.CalibrationSetError` like :func:`campaign_calibration`.
    """
    data = read_campaign(engine, campaign_id)
    cal, _ = campaign_calibration(data, signature, method=method, level=level, use_stored=False)
    save_threshold(engine, campaign_id, signature, cal.threshold, cal.higher_is_better, cal.method)
    return cal


def calibration_export(
    engine: Engine,
    campaign: str,
    signature: str,
    *,
    threshold: float | None = None,
    method: str = "youden",
    name: str | None = None,
    record: bool = True,
    data: CampaignData | None = None,
    kind: str = LabelKind.LABEL,
) -> CalibrationExport:
    """The campaign's calibration set for ``signature`` on its binary judgments of ``kind``
    (the label, or error-free; recorded as the set's ``source.label_kind``) as JSON and
    item-level CSV.

    With ``record`` the exported set is also stored (source campaign = this one).
    """
    data = data or read_campaign(engine, campaign_id_or_fail(engine, campaign))
    cal, arrays = campaign_calibration(
        data, signature, threshold=threshold, method=method, kind=kind
    )
    metric = data.metric(signature).metric
    payload = cs.build_payload(
        profile=campaign_profile(engine, data.campaign_id),
        name=name
        or f"{campaign}: {metric} {'≥' if cal.higher_is_better else '≤'} {cal.threshold:.4g}",
        metric=metric,
        signature=signature,
        calibration=cal,
        arrays=arrays,
        source_campaign=campaign,
    )
    items = cs.calibration_items(arrays, cal.threshold, cal.higher_is_better)
    if record:
        o = cal.overall
        store_set(
            engine,
            name=payload["name"],
            signature=signature,
            threshold=cal.threshold,
            higher_is_better=cal.higher_is_better,
            counts=(o.tp, o.fn, o.tn, o.fp),
            per_system=payload["per_system"],
            payload=payload,
            source_campaign_id=data.campaign_id,
        )
    return CalibrationExport(
        calibration=cal,
        payload=payload,
        json=cf.dumps(payload),
        items_csv=to_csv(cf.ITEM_COLUMNS, items),
        items=items,
    )


def campaign_profile(engine: Engine, campaign_id: int) -> dict[str, Any]:
    """The campaign's target language and kind of task
    (:func:`metrics.calibration_sets.task_profile`)."""
    info = campaign_info(engine, campaign_id)
    sources = item_sources(engine, campaign_id)
    outs = outputs_with_references(engine, campaign_id)
    return cs.task_profile([sources.get(o.item_id) or "" for o in outs],
                           [o.text or "" for o in outs],
                           None if info is None else info.target_lang)  # fmt: skip


def import_calibration(
    engine: Engine, campaign: str, raw: bytes | str, *, confirm_task_mismatch: bool = False
) -> int:
    """Use a calibration-set file as ``campaign``'s "ρ, η provided" prior; the stored id.

    Raises :class:`formats.calibration_file.CalibrationSetError` for an invalid file,
    :class:`metrics.calibration_sets.SignatureMismatch` when the campaign's scores do not
    carry the set's metric signature (the message names both), and
    :class:`metrics.calibration_sets.TaskMismatch` when the set was measured on another
    target language or kind of task, unless ``confirm_task_mismatch``.
    """
    cid = campaign_id_or_fail(engine, campaign)
    if (archived := archived_reason(engine, cid)) is not None:
        raise cf.CalibrationSetError(archived)
    cal = cf.parse(raw)
    if not confirm_task_mismatch:
        cs.check_task(cal, campaign_profile(engine, cid))
    # An imported metric's set applies to this campaign's own file of the same metric.
    signature = cs.check_signature(
        cal, [(metric, sig) for metric, sig, _ in campaign_signatures(engine, cid)]
    )
    return store_set(
        engine,
        name=cal.name,
        signature=signature,
        threshold=cal.threshold,
        higher_is_better=cal.higher_is_better,
        counts=cal.counts,
        per_system=cal.per_system,
        payload=cal.payload,
        applied_campaign_id=cid,
    )
