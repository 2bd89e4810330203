"""The append-only annotation log of a campaign as plain rows, for exports."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine, Select

from db.engine import session_scope
from db.judging.log import JUDGMENT_KINDS, SUPERSEDING, campaign_log
from db.schema.models import Annotation, Annotator, Assignment, Item, Output, System


def annotation_log(engine: Engine, cid: int, *, current_only: bool = True) -> list[dict[str, Any]]:
    """The annotation log of a campaign as plain rows, in id order, for exports.

    With ``current_only`` (the default) the current labels, skips and attention-check
    answers (not superseded);
    otherwise every row of the append-only log, with a ``current`` flag. Columns: annotation
    id, item id, doc id, system, annotator, kind, label, score, HTER, post-edit, skip reason,
    seconds, created_at, assignment position, inclusion probability, assignment kind,
    supersedes id, current, spans (JSON text, span campaigns), ESA score, and the place on
    a comparative screen (screen position, 0-based, and screen size; else empty).
    """
    q = _log_query(cid, current_only)
    out: list[dict[str, Any]] = []
    seen: set[int] = set()
    with session_scope(engine) as s:
        for ann, ext, doc, system, annotator, position, incl, akind, later_id in s.execute(q):
            if ann.id in seen:  # two rows superseding one (should not happen): list it once
                continue
            seen.add(ann.id)
            out.append(
                {
                    "annotation_id": ann.id,
                    "item_id": ext,
                    "doc_id": doc,
                    "system": system,
                    "annotator": annotator,
                    "kind": ann.kind,
                    "label": ann.label,
                    "score": ann.score,
                    "hter": ann.hter,
                    "post_edit": ann.post_edit,
                    "skip_reason": ann.skip_reason,
                    "seconds": ann.seconds,
                    "created_at": ann.created_at.isoformat() if ann.created_at else None,
                    "assignment_position": position,
                    "inclusion_prob": incl,
                    "assignment_kind": akind,
                    "supersedes_id": ann.supersedes_id,
                    "current": later_id is None,
                    "spans": None if ann.spans is None else json.dumps(ann.spans),
                    "esa_score": ann.esa_score,
                    "da_score": ann.da_score,
                    "screen_position": ann.screen_position,
                    "screen_size": ann.screen_size,
                }
            )
    return out


def _log_query(cid: int, current_only: bool) -> Select:
    """The log's rows with their item, system, annotator, slot and superseding row."""
    q = (
        campaign_log(
            cid,
            Annotation,
            Item.external_id,
            Item.doc_id,
            System.name,
            Annotator.name,
            Assignment.position,
            Assignment.inclusion_prob,
            Assignment.kind,
            SUPERSEDING.id,
            current_only=current_only,
        )
        .join(Output, Output.id == Annotation.output_id)
        .join(Item, Item.id == Output.item_id)
        .join(System, System.id == Output.system_id)
        .order_by(Annotation.id)
    )
    if current_only:
        q = q.where(Annotation.kind.in_(JUDGMENT_KINDS))
    return q
