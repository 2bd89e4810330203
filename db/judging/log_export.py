"""The append-only annotation log of a campaign as plain rows, for exports."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine, Select, and_, or_
from sqlalchemy.orm import aliased

from db.engine import session_scope
from db.judging.log import JUDGMENT_KINDS, LABEL, SUPERSEDING, campaign_log
from db.schema.models import Annotation, Annotator, Assignment, Item, Output, System


def annotation_log(engine: Engine, cid: int, *, current_only: bool = True) -> list[dict[str, Any]]:
    """The annotation log of a campaign as plain rows, in id order, for exports.

    With ``current_only`` (the default) the current labels, skips and attention-check
    answers (not superseded);
    otherwise every row of the append-only log, with a ``current`` flag. Columns: annotation
    id, item id, doc id, system, annotator, kind, label, score, HTER, post-edit, skip reason,
    seconds, created_at, assignment position, inclusion probability, assignment kind,
    supersedes id, current, spans (JSON text, span campaigns), ESA score, and the place on
    a comparative screen (screen position, 0-based, and screen size; else empty), and a
    preference judgment's preference, strength and reason (:func:`preference_log` names
    both outputs' systems).
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
                    "preference": ann.preference,
                    "strength": ann.strength,
                    "reason": ann.reason,
                    "comment": ann.comment,
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


_LEFT, _RIGHT = aliased(Output, name="left_output"), aliased(Output, name="right_output")
_FIRST = aliased(Output, name="first_output")
_LEFT_SYSTEM, _RIGHT_SYSTEM = (
    aliased(System, name="left_system"),
    aliased(System, name="right_system"),
)


def preference_log(engine: Engine, cid: int) -> list[dict[str, Any]]:
    """A preference campaign's current judgments (attention checks and undone rows left
    out), in id order, as the sides were shown: ``model_a`` / ``output_a`` the left output's
    system and text, ``model_b`` / ``output_b`` the right one's, ``winner`` ``model_a``,
    ``model_b`` or ``tie`` (the columns of Chatbot Arena's public battle dumps), with the
    source, annotator, strength, reason, time and the pair's inclusion probability."""
    left_is_first = Annotation.screen_position == 0
    q = (
        campaign_log(
            cid,
            Annotation,
            Item.external_id,
            Item.source,
            Annotator.name,
            _LEFT_SYSTEM.name,
            _RIGHT_SYSTEM.name,
            _LEFT.text,
            _RIGHT.text,
            _LEFT.id,
            _RIGHT.id,
            current_only=True,
        )
        .join(_FIRST, _FIRST.id == Annotation.output_id)
        .join(Item, Item.id == _FIRST.item_id)
        .join(_LEFT, or_(
            and_(left_is_first, _LEFT.id == Annotation.output_id),
            and_(~left_is_first, _LEFT.id == Annotation.pair_output_id),
        ))
        .join(_RIGHT, or_(
            and_(left_is_first, _RIGHT.id == Annotation.pair_output_id),
            and_(~left_is_first, _RIGHT.id == Annotation.output_id),
        ))
        .join(_LEFT_SYSTEM, _LEFT_SYSTEM.id == _LEFT.system_id)
        .join(_RIGHT_SYSTEM, _RIGHT_SYSTEM.id == _RIGHT.system_id)
        .where(Annotation.kind == LABEL, Annotation.preference.is_not(None))
        .order_by(Annotation.id)
    )  # fmt: skip
    out = []
    with session_scope(engine) as s:
        for ann, ext, source, judge, model_a, model_b, text_a, text_b, id_a, id_b in s.execute(q):
            left_won = ann.preference if ann.screen_position == 0 else 1.0 - ann.preference
            out.append({
                "question_id": ext,
                "model_a": model_a,
                "model_b": model_b,
                "winner": {1.0: "model_a", 0.0: "model_b"}.get(left_won, "tie"),
                "judge": judge,
                "shown_left": "model_a",
                "source": source,
                "output_a": text_a,
                "output_b": text_b,
                "output_a_id": str(id_a),
                "output_b_id": str(id_b),
                "strength": ann.strength,
                "reason": ann.reason,
                "tstamp": ann.created_at.isoformat() if ann.created_at else None,
                "seconds": ann.seconds,
                "inclusion_prob": ann.inclusion_prob,
                "annotation_id": ann.id,
            })  # fmt: skip
    return out
