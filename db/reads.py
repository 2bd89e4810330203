"""Read a campaign into plain arrays for the estimators (dashboard → db.reads → estimators).

Everything the dashboard, the calibration page and the exports need in a handful of bulk
queries per refresh, never one query per system:

- :func:`read_campaign` — per system the metric scores of ALL outputs of the pool (a
  systems × items grid per metric signature), the stored thresholds, the current human
  judgments (label / score / HTER) in arrival order with their assignment position and
  inclusion probability, as :class:`estimators.campaign.CampaignData` (attention-check
  answers, skips and undos are left out: they never count in estimates), and the queue's
  frontier (the first position still open or claimed) that the live monitor stops at.
- :func:`fingerprint` — one cheap query that changes whenever anything the dashboard shows
  changes (a label, an undo, new metric scores, a threshold, an imported calibration set):
  the cache key of the live dashboard.

The annotation log for exports is db.log_export; the queue's frontier and the active
design's visits are read by db.monitor_reads.

"Current" judgments are ``kind="label"`` rows that no later row supersedes (annotations are
append-only: an undo or a correction points at the row it replaces).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

import numpy as np
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from db import monitor_reads as monitor
from db.annotations import ATTENTION, JUDGMENT_KINDS, SKIP, campaign_log
from db.engine import session_scope
from db.models import (
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
from db.queue_settings import setting_changes
from db.vocabulary import SlotKind, documents_in_order
from estimators.campaign import CampaignData, Judgments, MetricInfo, document_index
from estimators.live_designs import META_PLAN_KEYS, PLAN_KEYS, plan_in_force

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


def _current_rows(cid: int):  # type: ignore[no-untyped-def]
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
    also reads the plan settings, the queue's frontier (:func:`db.monitor_reads.first_pending`)
    into ``open_from`` and whether active draw rounds ran; only then a tenth reads the
    design's visits (:func:`db.monitor_reads.visits`). ``engine`` may be an open ``Session``
    (a queue transaction reading inside itself).
    """
    with _scope(engine) as s:
        name, mode, meta, plan_values, has_rounds, pending = _campaign_row(s, cid)
        plan_changes = [
            c for c in setting_changes(s, cid) if c.key in (*PLAN_KEYS, *META_PLAN_KEYS)
        ]
        sys_rows = s.execute(
            select(System.id, System.name, System.is_human)
            .where(System.campaign_id == cid)
            .order_by(System.id)
        ).all()
        out_rows = s.execute(
            select(Output.id, Output.system_id, Item.id, Item.external_id, Item.doc_id)
            .join(Item, Item.id == Output.item_id)
            .where(Item.campaign_id == cid)
            .order_by(Item.id, Output.system_id)
        ).all()
        score_rows = _score_rows(s, cid, signatures)
        thresholds = _thresholds(s, cid)
        ann_rows = s.execute(_current_rows(cid)).all()
        annotators = _annotators(s, cid)
        provided = _provided_calibration(s, cid)
        visit_rows = monitor.visit_rows(s, cid) if has_rounds else []

    item_ids, doc_ids, output_ids, out_pos = _output_grid(sys_rows, out_rows)
    grids, metrics = _metric_grids(score_rows, thresholds, output_ids.shape, out_pos)
    ann_index = {aid: i for i, (aid, _) in enumerate(annotators)}
    judged = _judgments(ann_rows, out_pos, ann_index)
    return CampaignData(
        campaign_id=cid,
        name=name,
        mode=mode,
        systems=[nm for _, nm, _ in sys_rows],
        is_human=np.array([bool(h) for _, _, h in sys_rows], dtype=bool),
        item_ids=item_ids,
        output_ids=output_ids,
        metrics=metrics,
        scores=grids,
        judgments=judged,
        annotators=[aname for _, aname in annotators],
        provided_calibration=provided,
        open_from=min((float(p) for p in pending if p is not None), default=math.inf),
        live_plan=plan_in_force(plan_values, plan_changes),
        visits=monitor.visits(visit_rows, out_pos),
        documents=document_index(doc_ids) if documents_in_order(meta) else None,
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


def _score_rows(s: Session, cid: int, signatures: list[str] | None) -> list[Any]:
    """(output id, signature, metric, value) of the campaign's stored scores."""
    score_q = (
        select(
            MetricScore.output_id, MetricScore.signature, MetricScore.metric, MetricScore.value
        )
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


def _output_grid(sys_rows: list[Any], out_rows: list[Any]) -> tuple[Any, ...]:
    """(item ids, doc ids, systems × items output ids with -1 for none, output id →
    (row, column)); items in the order of ``out_rows``."""
    sys_index = {sid: i for i, (sid, _, _) in enumerate(sys_rows)}
    item_index: dict[int, int] = {}
    item_ids: list[str] = []
    doc_ids: list[str | None] = []
    for _, _, iid, ext, doc in out_rows:
        if iid not in item_index:
            item_index[iid] = len(item_ids)
            item_ids.append(ext)
            doc_ids.append(doc)
    k, n = len(sys_rows), len(item_ids)
    output_ids = np.full((k, n), -1, dtype=np.int64)
    out_pos: dict[int, tuple[int, int]] = {}
    for oid, sid, iid, _, _ in out_rows:
        r, c = sys_index[sid], item_index[iid]
        output_ids[r, c] = oid
        out_pos[oid] = (r, c)
    return item_ids, doc_ids, output_ids, out_pos


def _metric_grids(
    score_rows: list[Any],
    thresholds: dict[str, Any],
    shape: tuple[int, ...],
    out_pos: dict[int, tuple[int, int]],
) -> tuple[dict[str, np.ndarray], list[MetricInfo]]:
    """Per signature the systems × items grid of scores (NaN: none), and the metrics'
    descriptions with their thresholds, by metric name then signature."""
    k, n = shape
    grids: dict[str, np.ndarray] = {}
    names: dict[str, str] = {}
    counts: dict[str, int] = {}
    for oid, sig, metric, value in score_rows:
        grid = grids.get(sig)
        if grid is None:
            grid = grids[sig] = np.full((k, n), np.nan)
            names[sig], counts[sig] = metric, 0
        if value is not None:
            r, c = out_pos[oid]
            grid[r, c] = value
            counts[sig] += 1
    metrics = []
    for sig in sorted(grids, key=lambda x: (names[x], x)):
        t = thresholds.get(sig)
        metrics.append(
            MetricInfo(
                signature=sig,
                metric=names[sig],
                n_scores=counts[sig],
                threshold=None if t is None else float(t.threshold),
                higher_is_better=None if t is None else bool(t.higher_is_better),
                threshold_method=None if t is None else t.method,
            )
        )
    return grids, metrics


@contextmanager
def _scope(engine: Engine | Session) -> Iterator[Session]:
    if isinstance(engine, Session):
        yield engine
    else:
        with session_scope(engine) as s:
            yield s


def _naive_utc(t: datetime | None) -> datetime:
    if t is None:
        return datetime(1970, 1, 1)
    return t.astimezone(UTC).replace(tzinfo=None) if t.tzinfo else t


def _judgments(rows, out_pos, ann_index) -> Judgments:  # type: ignore[no-untyped-def]
    """The regular current labels as :class:`Judgments` (no skips, undos or attention
    answers: those never enter an estimate), sorted by arrival order."""
    regular = []
    for row in rows:
        (aid_, oid, annotator_id, kind, label, score, hter, secs, created,
         position, incl, akind, esa, da) = row  # fmt: skip
        if kind not in JUDGMENT_KINDS or kind == SKIP:
            continue  # undo markers and skips
        if kind == ATTENTION or akind == SlotKind.ATTENTION:
            continue
        regular.append(
            (
                position is None,
                position if position is not None else 0,
                aid_,
                *out_pos[oid],
                ann_index[annotator_id],
                label,
                score,
                hter,
                secs,
                incl,
                created,
                esa,
                da,
            )
        )

    if not regular:
        return Judgments.empty()
    regular.sort(key=itemgetter(0, 1, 2))
    cols = list(zip(*regular, strict=True))
    no_pos = np.array(cols[0], dtype=bool)

    def floats(values: tuple) -> np.ndarray:  # type: ignore[type-arg]
        return np.array(values, dtype=float)  # None → nan

    position = floats(cols[1])
    position[no_pos] = np.nan
    judged = Judgments(
        annotation_id=np.array(cols[2], dtype=np.int64),
        item=np.array(cols[4], dtype=np.int64),
        system=np.array(cols[3], dtype=np.int64),
        annotator=np.array(cols[5], dtype=np.int64),
        label=floats(cols[6]),
        score=floats(cols[7]),
        hter=floats(cols[8]),
        seconds=floats(cols[9]),
        position=position,
        inclusion_prob=floats(cols[10]),
        created_at=np.array([_naive_utc(t) for t in cols[11]], dtype="datetime64[us]"),
        esa_score=floats(cols[12]),
        da_score=floats(cols[13]),
    )
    return judged
