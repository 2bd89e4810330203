"""A campaign's current regular judgments as columns that a delta read updates in place of
re-reading them (db.reads.delta): new rows join, superseded rows leave, and
:meth:`JudgmentTable.judgments` gives exactly what :func:`db.reads.parts.judgments` builds
from a full read's rows (same filter, same arrival order, same dtypes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from db.judging.log import ATTENTION, JUDGMENT_KINDS, SKIP
from db.reads.parts import naive_utc, span_count
from db.schema.vocabulary import SlotKind
from estimators.data.campaign import Judgments

#: Float columns, in the order of :func:`db.reads.campaign.current_rows`' label … da columns.
_FLOATS = (
    "label", "score", "hter", "seconds", "inclusion_prob", "esa_score", "da_score", "n_spans",
)  # fmt: skip


def _regular(row: Any) -> bool:
    """A row that enters the estimates (no undo, skip or attention answer), as
    :func:`db.reads.parts.judgments` decides."""
    kind, akind = row[3], row[11]
    if kind not in JUDGMENT_KINDS or kind == SKIP:
        return False
    return not (kind == ATTENTION or akind in (SlotKind.ATTENTION, SlotKind.CONTROL))


@dataclass(frozen=True)
class JudgmentTable:
    """Current regular judgments, one entry per row, in no particular order: annotation id,
    whether it has no position, the position (0 without), system and item index, the raw
    annotator id, the float columns and the creation time."""

    cols: dict[str, np.ndarray]

    @staticmethod
    def of(rows: list[Any], out_pos: dict[int, tuple[int, int]]) -> JudgmentTable:
        """The regular rows among :func:`db.reads.campaign.current_rows`' rows."""
        kept = [r for r in rows if _regular(r)]
        at = [out_pos[r[1]] for r in kept]
        cols = {
            "id": np.array([r[0] for r in kept], dtype=np.int64),
            "no_pos": np.array([r[9] is None for r in kept], dtype=bool),
            "pos0": np.array([0 if r[9] is None else r[9] for r in kept], dtype=np.int64),
            "system": np.array([a[0] for a in at], dtype=np.int64),
            "item": np.array([a[1] for a in at], dtype=np.int64),
            "annotator": np.array([r[2] for r in kept], dtype=np.int64),
            "created_at": np.array([naive_utc(r[8]) for r in kept], dtype="datetime64[us]"),
        }
        for name, i in zip(_FLOATS[:-1], (4, 5, 6, 7, 10, 12, 13), strict=True):
            cols[name] = np.array([r[i] for r in kept], dtype=float)  # None → nan
        cols["n_spans"] = np.array([span_count(r[14]) for r in kept], dtype=float)
        return JudgmentTable(cols)

    def __len__(self) -> int:
        return int(self.cols["id"].size)

    def updated(self, rows: list[Any], out_pos: dict[int, tuple[int, int]]) -> JudgmentTable | None:
        """The table after the log rows ``rows`` (:func:`db.reads.campaign.current_rows`' columns
        and the id each supersedes; all newer than every row seen): a superseded row
        leaves, a new regular row nothing supersedes joins. ``None`` when a row supersedes
        a newer one (never written by the app): the caller reads everything again."""
        if not rows:
            return self
        gone = {r[-1] for r in rows if r[-1] is not None}
        if any(r[-1] is not None and r[-1] >= r[0] for r in rows):
            return None
        fresh = JudgmentTable.of([r[:-1] for r in rows if r[0] not in gone], out_pos)
        keep = ~np.isin(self.cols["id"], np.fromiter(gone, dtype=np.int64, count=len(gone)))
        return JudgmentTable(
            {k: np.concatenate([v[keep], fresh.cols[k]]) for k, v in self.cols.items()}
        )

    def judgments(self, annotator_ids: np.ndarray) -> Judgments:
        """As :class:`Judgments` in arrival order (position, rows without one last, then
        annotation id); ``annotator_ids``: the campaign's annotator ids in ascending order
        (their index is the judgments' annotator)."""
        if not len(self):
            return Judgments.empty()
        c = self.cols
        order = np.lexsort((c["id"], c["pos0"], c["no_pos"]))
        position = c["pos0"][order].astype(float)
        position[c["no_pos"][order]] = np.nan
        annotator = np.searchsorted(annotator_ids, c["annotator"][order])
        if annotator.size and (
            annotator.max() >= annotator_ids.size
            or not np.array_equal(annotator_ids[annotator], c["annotator"][order])
        ):
            raise KeyError("a judgment's annotator is not among the campaign's")
        return Judgments(
            annotation_id=c["id"][order],
            item=c["item"][order],
            system=c["system"][order],
            annotator=annotator.astype(np.int64),
            position=position,
            created_at=c["created_at"][order],
            **{name: c[name][order] for name in _FLOATS},
        )
