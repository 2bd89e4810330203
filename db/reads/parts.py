"""Plain arrays from a campaign read's rows (no SQL): the systems × items output grid, the
metric grids and the current judgments (db.reads.campaign and db.reads.delta share them, so a
delta read builds exactly what a full read does)."""

from __future__ import annotations

from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

import numpy as np

from db.judging.log import ATTENTION, JUDGMENT_KINDS, SKIP
from db.schema.vocabulary import SlotKind
from estimators.data.campaign import Judgments, MetricInfo


def output_grid(sys_rows: list[Any], out_rows: list[Any]) -> tuple[Any, ...]:
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


def fill_grids(
    score_rows: list[Any],
    shape: tuple[int, ...],
    out_pos: dict[int, tuple[int, int]],
    grids: dict[str, np.ndarray],
    names: dict[str, str],
    counts: dict[str, int],
) -> tuple[dict[str, np.ndarray], dict[str, str], dict[str, int]]:
    """Per signature the systems × items grid of scores (NaN: none), its metric name and
    number of scores, with ``score_rows`` (output id, signature, metric, value) written
    into ``grids`` / ``names`` / ``counts`` (updated in place and returned)."""
    k, n = shape
    for oid, sig, metric, value in score_rows:
        grid = grids.get(sig)
        if grid is None:
            grid = grids[sig] = np.full((k, n), np.nan)
            names[sig], counts[sig] = metric, 0
        if value is not None:
            r, c = out_pos[oid]
            grid[r, c] = value
            counts[sig] += 1
    return grids, names, counts


def metric_infos(
    grids: dict[str, np.ndarray],
    names: dict[str, str],
    counts: dict[str, int],
    thresholds: dict[str, Any],
) -> list[MetricInfo]:
    """The metrics' descriptions with their thresholds, by metric name then signature."""
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
    return metrics


def span_count(spans: Any) -> float | None:
    """How many error spans a judgment's stored span list holds; None without a list."""
    return float(len(spans)) if isinstance(spans, list) else None


def naive_utc(t: datetime | None) -> datetime:
    if t is None:
        return datetime(1970, 1, 1)
    return t.astimezone(UTC).replace(tzinfo=None) if t.tzinfo else t


def judgments(rows, out_pos, ann_index) -> Judgments:  # type: ignore[no-untyped-def]
    """The regular current labels as :class:`Judgments` (no skips, undos or attention
    answers: those never enter an estimate), sorted by arrival order."""
    regular = []
    for row in rows:
        (aid_, oid, annotator_id, kind, label, score, hter, secs, created,
         position, incl, akind, esa, da, spans) = row  # fmt: skip
        if kind not in JUDGMENT_KINDS or kind == SKIP:
            continue  # undo markers and skips
        if kind == ATTENTION or akind in (SlotKind.ATTENTION, SlotKind.CONTROL):
            continue  # attention answers, and a control block the organiser did not count
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
                span_count(spans),
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
        created_at=np.array([naive_utc(t) for t in cols[11]], dtype="datetime64[us]"),
        esa_score=floats(cols[12]),
        da_score=floats(cols[13]),
        n_spans=floats(cols[14]),
    )
    return judged
