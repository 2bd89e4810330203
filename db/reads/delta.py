"""Read a campaign again after a change, fetching only what changed since the last read.

:func:`read_delta` gives exactly the :class:`CampaignData` that
:func:`db.reads.campaign.read_campaign`
gives (tests/db/reads/test_delta.py checks it after every kind of write), but after one
new label it reads only the new annotation rows instead of the whole campaign: the dashboard
of a 60-system campaign re-read 120,000 outputs and 30,000 judgments per label.

What is read whole every time: the small parts (:func:`db.reads.campaign.read_head`: the campaign
row and plan, systems, thresholds, annotators, calibration sets) and the active design's
visits. What is carried (:class:`DeltaState`):

- the output grid, while the campaign's outputs and systems are unchanged (count, sum and
  max of the output ids, the system ids); else a full read;
- the metric scores and the annotation log, each as a digest (counts and sums over the
  rows, in SQL) taken at the last read with the largest id then. A delta read recomputes
  that digest over the rows up to that id: equal, the rows seen before are unchanged
  (none deleted, no late commit below the id, no assignment renumbered) and only rows above
  the id are fetched; different, a full read. Everything is derived from what the database
  holds, never from this process's own writes, so a replica sharing the database with
  others never serves a state another replica has moved past.

Current judgments are kept as columns (:mod:`db.reads.delta_judgments`): a new row supersedes
(drops) the one it points at, a new regular row joins them, and the columns are sorted
again in arrival order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import BigInteger, Engine, case, cast, func, literal, select
from sqlalchemy.orm import Session

from db.engine import session_scope
from db.reads import monitor
from db.reads.campaign import Head, assemble, current_rows, output_rows, read_head
from db.reads.delta_judgments import JudgmentTable
from db.reads.parts import fill_grids, metric_infos, output_grid
from db.schema.models import Annotation, Annotator, Assignment, Item, MetricScore, Output
from db.schema.vocabulary import SlotKind
from estimators.data.campaign import CampaignData

__all__ = ["DeltaState", "read_delta"]


@dataclass(frozen=True)
class DeltaState:
    """A read's result (``data``) and what the next delta read starts from."""

    data: CampaignData
    #: "full" or "delta": how this state was read (the tests and the bench look).
    how: str
    outputs_key: tuple[Any, ...]
    grid: tuple[Any, ...]  # db.reads.parts.output_grid's (item ids, doc ids, ids, positions)
    score_top: int  # the largest score id read
    score_digest: tuple[Any, ...]  # the digest of the score rows up to score_top
    score_parts: tuple[dict[str, np.ndarray], dict[str, str], dict[str, int]]
    ann_top: int
    ann_digest: tuple[Any, ...]
    table: JudgmentTable


def read_delta(engine: Engine, cid: int, previous: DeltaState | None = None) -> DeltaState:
    """The campaign ``cid`` as :func:`db.reads.campaign.read_campaign` reads it, fetching only the
    rows added since ``previous`` when the database proves nothing else changed (see the
    module docstring); a full read without ``previous`` or when it cannot prove that."""
    with session_scope(engine) as s:
        head = read_head(s, cid)
        outputs_key = _outputs_key(s, cid, head)
        if previous is None or previous.outputs_key != outputs_key:
            return _full(s, cid, head, outputs_key)
        score_top, score_digest, score_old = _score_digests(s, cid, previous.score_top)
        ann_top, ann_digest, ann_old = _ann_digests(s, cid, previous.ann_top)
        if score_old != previous.score_digest or ann_old != previous.ann_digest:
            return _full(s, cid, head, outputs_key)
        new_scores = s.execute(
            _score_query(cid).where(
                MetricScore.id > previous.score_top, MetricScore.id <= score_top
            )
        ).all()
        new_anns = s.execute(_log_rows(cid, previous.ann_top, ann_top)).all()
        visit_rows = monitor.visit_rows(s, cid) if head.has_rounds else []
    out_pos = previous.grid[3]
    table = previous.table.updated(new_anns, out_pos)
    if table is None:  # a row superseding a later one: not provably a delta
        return read_delta(engine, cid, None)
    grids, names, counts = previous.score_parts
    if new_scores:  # copies: the previous CampaignData keeps its grids
        grids = {sig: g.copy() for sig, g in grids.items()}
        grids, names, counts = fill_grids(
            new_scores, previous.grid[2].shape, out_pos, grids, dict(names), dict(counts)
        )
    return _state(head, previous.grid, (grids, names, counts), table, visit_rows, "delta",
                  outputs_key, score_top, score_digest, ann_top, ann_digest)  # fmt: skip


def _full(s: Session, cid: int, head: Head, outputs_key: tuple[Any, ...]) -> DeltaState:
    """A full read, with the digests (taken first) that the next delta read checks."""
    score_top, score_digest, _ = _score_digests(s, cid, 0)
    ann_top, ann_digest, _ = _ann_digests(s, cid, 0)
    grid = output_grid(head.sys_rows, s.execute(output_rows(cid)).all())
    score_rows = s.execute(_score_query(cid).where(MetricScore.id <= score_top)).all()
    parts = fill_grids(score_rows, grid[2].shape, grid[3], {}, {}, {})
    ann_rows = s.execute(current_rows(cid).where(Annotation.id <= ann_top)).all()
    table = JudgmentTable.of(ann_rows, grid[3])
    visit_rows = monitor.visit_rows(s, cid) if head.has_rounds else []
    return _state(head, grid, parts, table, visit_rows, "full",
                  outputs_key, score_top, score_digest, ann_top, ann_digest)  # fmt: skip


def _state(head, grid, parts, table, visit_rows, how, *keys) -> DeltaState:  # type: ignore[no-untyped-def]
    grids, names, counts = parts
    metrics = metric_infos(grids, names, counts, head.thresholds)
    judged = table.judgments(np.array([aid for aid, _ in head.annotators], dtype=np.int64))
    data = assemble(head, grid, grids, metrics, judged, visit_rows)
    outputs_key, score_top, score_digest, ann_top, ann_digest = keys
    return DeltaState(data, how, outputs_key, grid, score_top, score_digest, parts,
                      ann_top, ann_digest, table)  # fmt: skip


def _ints(row: Any) -> tuple[Any, ...]:
    """A digest row as plain Python numbers (PostgreSQL sums integers as Decimal)."""
    return tuple(v if isinstance(v, float) else (0 if v is None else int(v)) for v in row)


def _outputs_key(s: Session, cid: int, head: Head) -> tuple[Any, ...]:
    """Count, sum and max of the campaign's output ids, and its system ids: outputs are
    only ever added (by an import) or deleted with their campaign."""
    row = s.execute(
        select(func.count(Output.id), func.sum(Output.id), func.max(Output.id))
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == cid)
    ).one()
    return (*_ints(row), tuple(sid for sid, _, _ in head.sys_rows))


def _sums(top: int, id_col: Any, *cols: Any) -> list[Any]:
    """count, sum(id) and sum of each column over the rows with id ≤ ``top`` (NULL as 0)."""
    old = id_col <= top
    return [
        func.sum(case((old, 1), else_=0)),
        func.sum(case((old, id_col), else_=0)),
        *(func.sum(case((old, func.coalesce(c, literal(0))), else_=0)) for c in cols),
    ]


def _digests(s: Session, q: Any, top: int, id_col: Any, *cols: Any) -> tuple[Any, ...]:
    """(largest id, digest of all rows, digest of the rows with id ≤ ``top``), one query."""
    sums = (func.coalesce(func.sum(func.coalesce(c, literal(0))), 0) for c in cols)
    everything = [func.count(id_col), func.coalesce(func.sum(id_col), 0), *sums]
    row = s.execute(
        q.with_only_columns(
            func.coalesce(func.max(id_col), 0), *everything, *_sums(top, id_col, *cols)
        )
    ).one()
    values = _ints(row)
    n = len(everything)
    return values[0], values[1 : 1 + n], values[1 + n :]


def _score_query(cid: int) -> Any:
    return (
        select(MetricScore.output_id, MetricScore.signature, MetricScore.metric, MetricScore.value)
        .join(Output, Output.id == MetricScore.output_id)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == cid)
    )


#: Float columns enter a digest as integers in millionths: a float sum depends on the order
#: the database adds the rows in (PostgreSQL's plan may change between two reads), an integer
#: sum does not. A value rewritten in place by less than half a millionth goes unseen.
MICRO = 1_000_000


def _exact(col: Any) -> Any:
    return cast(func.round(col * MICRO), BigInteger)


def _score_digests(s: Session, cid: int, top: int) -> tuple[Any, ...]:
    # the value's sum too: a score rewritten in place changes it
    return _digests(s, _score_query(cid), top, MetricScore.id, _exact(MetricScore.value))


def _log_query(cid: int) -> Any:
    return (
        select(Annotation.id)
        .select_from(Annotation)
        .join(Annotator, Annotator.id == Annotation.annotator_id)
        .outerjoin(Assignment, Assignment.id == Annotation.assignment_id)
        .where(Annotator.campaign_id == cid)
    )


def _ann_digests(s: Session, cid: int, top: int) -> tuple[Any, ...]:
    """The annotation log's digest: what a judgment reads of a row that could change in
    place — its slot, the slot's position (a queue rebuild renumbers them), π and kind —
    and, though rows are append-only, its output and label (a campaign deleted and another
    imported under reused ids)."""
    # a slot's kind decides whether its judgment counts (attention; a control block counted
    # or not): a change of the choice rewrites the kinds, and the digest sees it
    attention = case(
        (Assignment.kind == SlotKind.ATTENTION, 1),
        (Assignment.kind == SlotKind.CONTROL, 2),
        (Assignment.kind == SlotKind.CONTROL_COUNTED, 3),
        else_=0,
    )
    return _digests(
        s, _log_query(cid), top, Annotation.id, Annotation.assignment_id,
        Assignment.position, _exact(Assignment.inclusion_prob), attention, Annotation.supersedes_id,
        Annotation.output_id, Annotation.label,
    )  # fmt: skip


def _log_rows(cid: int, after: int, top: int) -> Any:
    """Every annotation row with ``after`` < id ≤ ``top`` (current or not: an undo is what
    drops the row it takes back), with :func:`db.reads.campaign.current_rows`' columns and the id
    of the row it supersedes."""
    cols = current_rows(cid).selected_columns
    return (
        _log_query(cid)
        .with_only_columns(*cols, Annotation.supersedes_id)
        .where(Annotation.id > after, Annotation.id <= top)
    )
