"""Read a campaign into plain arrays for the estimators (dashboard → db.reads.campaign →
estimators).

Everything the dashboard, the calibration page and the exports need in a handful of bulk
queries per refresh, never one query per system:

- :func:`read_campaign` — per system the metric scores of ALL outputs of the pool (a
  systems × items grid per metric signature), the stored thresholds, the current human
  judgments (label / score / HTER) in arrival order with their assignment position and
  inclusion probability, as :class:`estimators.data.campaign.CampaignData` (attention-check
  answers, skips and undos are left out: they never count in estimates), and the queue's
  frontier (the first position still open or claimed) that the live monitor stops at.
- :func:`fingerprint` — one cheap query that changes whenever anything the dashboard shows
  changes (a label, an undo, new metric scores, a threshold, an imported calibration set):
  the cache key of the live dashboard.

The annotation log for exports is db.judging.log_export; the queue's frontier and the active
design's visits are read by db.reads.monitor.

"Current" judgments are ``kind="label"`` rows that no later row supersedes (annotations are
append-only: an undo or a correction points at the row it replaces).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from db.engine import session_scope
from db.judging.log import campaign_log
from db.queue.settings import setting_changes
from db.reads import monitor
from db.reads.parts import fill_grids, judgments, metric_infos, output_grid
from db.schema.models import (
    Annotation,
    Annotator,
    Assignment,
    CalibrationSet,
    Campaign,
    CampaignSettingChange,
    Item,
    MetricScore,
    Output,
    System,
    Threshold,
)
from db.schema.vocabulary import documents_in_order
from estimators.data.campaign import (
    ERROR_FREE_THRESHOLD,
    CampaignData,
    Judgments,
    MetricInfo,
    document_index,
)
from estimators.sequences.designs import META_PLAN_KEYS, PLAN_KEYS, plan_in_force

__all__ = [
    "CampaignData",
    "Judgments",
    "MetricInfo",
    "campaign_id",
    "fingerprint",
    "read_campaign",
]


def campaign_id(engine: Engine, name: str) -> int | None:
    with session_scope(engine) as s:
        return s.scalar(select(Campaign.id).where(Campaign.name == name))


def current_rows(cid: int):  # type: ignore[no-untyped-def]
    """Annotation rows of a campaign that no later row supersedes."""
    return campaign_log(
        cid,
        Annotation.id,
        Annotation.output_id,
        Annotation.annotator_id,
        Annotation.kind,
        Annotation.label,
        Annotation.score,
        Annotation.hter,
        Annotation.seconds,
        Annotation.created_at,
        Assignment.position,
        Assignment.inclusion_prob,
        Assignment.kind.label("assignment_kind"),
        Annotation.esa_score,
        Annotation.da_score,
        Annotation.spans,
        current_only=True,
    )


def fingerprint(engine: Engine, cid: int) -> tuple[int, ...]:
    """Counts and last ids of everything the dashboard reads, in one query.

    Any new annotation (label, skip, undo), metric score, threshold or imported calibration
    set changes the tuple, so it keys the dashboard's cache.
    """

    def both(q):  # type: ignore[no-untyped-def]
        return [q.with_only_columns(f).scalar_subquery() for f in q.selected_columns]

    ann = (
        select(func.count(Annotation.id), func.coalesce(func.max(Annotation.id), 0))
        .join(Annotator, Annotator.id == Annotation.annotator_id)
        .where(Annotator.campaign_id == cid)
    )
    scores = (
        select(func.count(MetricScore.id), func.coalesce(func.max(MetricScore.id), 0))
        .join(Output, Output.id == MetricScore.output_id)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == cid)
    )
    thr = select(func.count(Threshold.id), func.coalesce(func.max(Threshold.id), 0)).where(
        Threshold.campaign_id == cid
    )
    cal = select(
        func.count(CalibrationSet.id), func.coalesce(func.max(CalibrationSet.id), 0)
    ).where(CalibrationSet.applied_campaign_id == cid)
    # a plan / design / estimand change (logged) re-tunes the live verdicts
    plan = select(func.coalesce(func.max(CampaignSettingChange.id), 0)).where(
        CampaignSettingChange.campaign_id == cid
    )
    with session_scope(engine) as s:
        row = s.execute(
            select(*both(ann), *both(scores), *both(thr), *both(cal), plan.scalar_subquery())
        ).one()
    return tuple(int(v) for v in row)


def read_campaign(
    engine: Engine | Session, cid: int, signatures: list[str] | None = None
) -> CampaignData:
    """The campaign ``cid`` as arrays (see :class:`CampaignData`).

    ``signatures`` restricts the metric grids to those signatures (default: all stored).
    Nine queries whatever the number of systems (counted on the demo campaign); the first
    also reads the plan settings, the queue's frontier (:func:`db.reads.monitor.first_pending`)
    into ``open_from`` and whether active draw rounds ran; only then a tenth reads the
    design's visits (:func:`db.reads.monitor.visits`). ``engine`` may be an open ``Session``
    (a queue transaction reading inside itself).
    """
    with _scope(engine) as s:
        head = read_head(s, cid)
        out_rows = s.execute(output_rows(cid)).all()
        score_rows = score_rows_of(s, cid, signatures)
        ann_rows = s.execute(current_rows(cid)).all()
        visit_rows = monitor.visit_rows(s, cid) if head.has_rounds else []

    item_ids, doc_ids, output_ids, out_pos = output_grid(head.sys_rows, out_rows)
    grids, names, counts = fill_grids(score_rows, output_ids.shape, out_pos, {}, {}, {})
    metrics = metric_infos(grids, names, counts, head.thresholds)
    ann_index = {aid: i for i, (aid, _) in enumerate(head.annotators)}
    judged = judgments(ann_rows, out_pos, ann_index)
    return assemble(head, (item_ids, doc_ids, output_ids, out_pos), grids, metrics, judged,
                    visit_rows)  # fmt: skip


@dataclass(frozen=True)
class Head:
    """The small parts of a campaign, read whole on every read (full or delta): its row,
    plan changes, systems, thresholds, annotators and imported calibration sets."""

    cid: int
    name: str
    mode: str
    meta: dict[str, Any]
    plan_values: dict[str, Any]
    has_rounds: bool
    pending: list[Any]
    plan_changes: list[Any]
    sys_rows: list[Any]
    thresholds: dict[str, Threshold]
    annotators: list[Any]
    provided: list[dict[str, Any]]


def read_head(s: Session, cid: int) -> Head:
    """The campaign's :class:`Head` (six small queries)."""
    name, mode, meta, plan_values, has_rounds, pending = _campaign_row(s, cid)
    plan_changes = [c for c in setting_changes(s, cid) if c.key in (*PLAN_KEYS, *META_PLAN_KEYS)]
    sys_rows = s.execute(
        select(System.id, System.name, System.is_human)
        .where(System.campaign_id == cid)
        .order_by(System.id)
    ).all()
    return Head(
        cid, name, mode, meta, plan_values, bool(has_rounds), list(pending), plan_changes,
        sys_rows, _thresholds(s, cid), _annotators(s, cid), _provided_calibration(s, cid),
    )  # fmt: skip


def output_rows(cid: int):  # type: ignore[no-untyped-def]
    """(output id, system id, item id, external id, doc id) of the campaign's outputs."""
    return (
        select(Output.id, Output.system_id, Item.id, Item.external_id, Item.doc_id)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == cid)
        .order_by(Item.id, Output.system_id)
    )


def error_free_threshold(meta: dict[str, Any]) -> float:
    """The campaign's ESA score from which an output without error spans is error-free
    (``meta["spans"]["error_free_threshold"]``; WMT26's 85 when unset)."""
    raw = (meta.get("spans") or {}) if isinstance(meta, dict) else {}
    value = raw.get("error_free_threshold") if isinstance(raw, dict) else None
    return ERROR_FREE_THRESHOLD if value is None else float(value)


def assemble(  # type: ignore[no-untyped-def]
    head: Head, grid, scores: dict[str, np.ndarray], metrics: list[MetricInfo],
    judged: Judgments, visit_rows: list[Any],
) -> CampaignData:  # fmt: skip
    """The :class:`CampaignData` of a read's parts (``grid``: what
    :func:`db.reads.parts.output_grid` returns)."""
    item_ids, doc_ids, output_ids, out_pos = grid
    sys_rows = head.sys_rows
    return CampaignData(
        campaign_id=head.cid,
        name=head.name,
        mode=head.mode,
        systems=[nm for _, nm, _ in sys_rows],
        is_human=np.array([bool(h) for _, _, h in sys_rows], dtype=bool),
        item_ids=list(item_ids),
        output_ids=output_ids,
        metrics=metrics,
        scores={sig: scores[sig] for sig in sorted(scores)},  # not the rows' arrival order
        judgments=replace(
            judged,
            error_free_threshold=np.full(len(judged), error_free_threshold(head.meta)),
        ),
        annotators=[aname for _, aname in head.annotators],
        provided_calibration=head.provided,
        open_from=min((float(p) for p in head.pending if p is not None), default=math.inf),
        live_plan=plan_in_force(head.plan_values, head.plan_changes),
        visits=monitor.visits(visit_rows, out_pos),
        documents=document_index(doc_ids) if documents_in_order(head.meta) else None,
    )


def _campaign_row(s: Session, cid: int) -> tuple[Any, ...]:
    """(name, mode, meta, plan values, whether draw rounds ran, the frontier's two
    positions) of the campaign, in one query."""
    camp = s.execute(
        select(
            Campaign.name, Campaign.mode, *(getattr(Campaign, k) for k in PLAN_KEYS),
            Campaign.meta, monitor.has_rounds(cid), *monitor.first_pending(cid),
        ).where(Campaign.id == cid)
    ).first()  # fmt: skip
    if camp is None:
        raise KeyError(f"no campaign with id {cid}")
    name, mode, *rest = camp
    n_plan = len(PLAN_KEYS)
    plan_values = dict(zip(PLAN_KEYS, rest[:n_plan], strict=True))
    meta = rest[n_plan] or {}
    plan_values.update({k: meta.get(k) for k in META_PLAN_KEYS})  # ε, error rate
    has_rounds, pending = rest[n_plan + 1], rest[n_plan + 2 :]
    return name, mode, meta, plan_values, has_rounds, pending


def _thresholds(s: Session, cid: int) -> dict[str, Threshold]:
    """The campaign's stored thresholds by metric signature."""
    return {
        t.signature: t
        for t in s.scalars(select(Threshold).where(Threshold.campaign_id == cid)).all()
    }


def _annotators(s: Session, cid: int) -> list[Any]:
    """(id, name) of the campaign's annotators, by id."""
    return s.execute(
        select(Annotator.id, Annotator.name)
        .where(Annotator.campaign_id == cid)
        .order_by(Annotator.id)
    ).all()


def score_rows_of(s: Session, cid: int, signatures: list[str] | None) -> list[Any]:
    """(output id, signature, metric, value) of the campaign's stored scores."""
    score_q = (
        select(MetricScore.output_id, MetricScore.signature, MetricScore.metric, MetricScore.value)
        .join(Output, Output.id == MetricScore.output_id)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == cid)
    )
    if signatures is not None:
        score_q = score_q.where(MetricScore.signature.in_(signatures))
    return s.execute(score_q).all()


def _provided_calibration(s: Session, cid: int) -> list[dict[str, Any]]:
    """The calibration sets imported for the campaign, oldest first, as plain dicts."""
    cal_sets = s.scalars(
        select(CalibrationSet)
        .where(CalibrationSet.applied_campaign_id == cid)
        .order_by(CalibrationSet.id)
    ).all()
    return [
        {
            "id": c.id,
            "name": c.name,
            "signature": c.signature,
            "threshold": c.threshold,
            "higher_is_better": c.higher_is_better,
            "counts": (c.tp, c.fn, c.tn, c.fp),
            "created_at": c.created_at,
        }
        for c in cal_sets
    ]


@contextmanager
def _scope(engine: Engine | Session) -> Iterator[Session]:
    if isinstance(engine, Session):
        yield engine
    else:
        with session_scope(engine) as s:
            yield s
