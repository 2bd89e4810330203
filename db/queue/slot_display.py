"""What the annotate page shows of a claimed slot: its texts, its shown metric scores, and
the paired design's group of outputs of one item."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from db.schema.models import Assignment, AttentionCheck, Item, MetricScore, Output
from db.schema.vocabulary import SlotKind
from db.scores.metric_scores import IMPORTED_MARK

REGULAR, ATTENTION = SlotKind.REGULAR, SlotKind.ATTENTION

#: Metric keys shown beside an item, in display order.
SHOWN_METRICS = ("bleu", "chrf", "ter", "bertscore_f")


@dataclass(frozen=True)
class SlotRow:
    """Everything the annotate page shows for one claimed slot (no system name)."""

    assignment_id: int
    claim_version: int
    campaign_id: int
    annotator_id: int
    output_id: int
    item_id: int | None
    kind: SlotKind
    position: int
    text: str  # the output, or the degraded copy for an attention check
    source: str
    reference: str | None
    slot: int = 0  # 0 the output's first judgment, 1 its overlap slot
    #: Preference mode: the pair's second output and its text (an attention check: the
    #: original, shown beside its degraded copy ``text``); None in other modes.
    pair_output_id: int | None = None
    pair_text: str | None = None
    instructions: str | None = None  # the item's own (markdown), shown above it
    image: str | None = None  # the name of the item's image (stored with the campaign)


_A = Assignment.__table__
_O, _I, _C = Output.__table__, Item.__table__, AttentionCheck.__table__
_P = Output.__table__.alias("pair_output")
_SLOT_ROW = (
    select(
        _A.c.id,
        _A.c.claim_version,
        _A.c.campaign_id,
        _A.c.annotator_id,
        _A.c.output_id,
        _O.c.item_id,
        _A.c.kind,
        _A.c.position,
        _O.c.text,
        _C.c.degraded_text,
        _I.c.source,
        _I.c.reference,
        _A.c.slot,
        _A.c.pair_output_id,
        _P.c.text,
        _I.c.meta,
    )
    .select_from(_A)
    .join(_O, _O.c.id == _A.c.output_id)
    .join(_I, _I.c.id == _O.c.item_id)
    .outerjoin(_C, _C.c.id == _A.c.attention_check_id)
    .outerjoin(_P, _P.c.id == _A.c.pair_output_id)
    .where(_A.c.id == bindparam("assignment_id"))
)
_S = MetricScore.__table__
_SCORES = (
    select(_S.c.metric, _S.c.value)
    .where(
        _S.c.output_id == bindparam("output_id"),
        # the built-in shown keys, and every metric the campaign's team imported
        _S.c.metric.in_(SHOWN_METRICS) | _S.c.signature.contains(IMPORTED_MARK, autoescape=True),
    )
    .order_by(_S.c.id)
)


def slot_row(s: Session, assignment_id: int) -> SlotRow | None:
    row = s.connection().execute(_SLOT_ROW, {"assignment_id": assignment_id}).first()
    if row is None:
        return None
    (aid, version, cid, annotator, oid, item, kind, pos, text, degraded, src, ref, slot,
     pair_id, pair_text, meta) = row  # fmt: skip
    meta = meta if isinstance(meta, dict) else {}
    instructions, image = meta.get("instructions"), meta.get("image")
    return SlotRow(
        assignment_id=aid,
        claim_version=version,
        campaign_id=cid,
        annotator_id=annotator,
        output_id=oid,
        item_id=item,
        kind=SlotKind(kind),
        position=pos,
        text=degraded if kind == ATTENTION and degraded is not None else text,
        source=src,
        reference=ref,
        slot=slot,
        pair_output_id=pair_id,
        pair_text=pair_text,
        instructions=instructions if isinstance(instructions, str) and instructions else None,
        image=image if isinstance(image, str) and image else None,
    )


def output_scores(s: Session, output_id: int) -> dict[str, float | None]:
    """metric key → value for the shown metrics of one output (newest signature wins):
    :data:`SHOWN_METRICS`, then the imported metrics by name."""
    rows = s.connection().execute(_SCORES, {"output_id": output_id})
    return {metric: value for metric, value in rows}


# The outputs of one item that the paired design serves together: the item's regular slots
# of one overlap slot number, in queue order (a shuffled system order, no system name).
_GROUP = (
    select(_A.c.output_id, _O.c.text)
    .select_from(_A)
    .join(_O, _O.c.id == _A.c.output_id)
    .where(
        _A.c.item_id == bindparam("item_id"),
        _A.c.campaign_id == bindparam("campaign_id"),
        _A.c.slot == bindparam("slot"),
        _A.c.kind == REGULAR,
    )
    .order_by(_A.c.position)
)


def item_group(s: Session, campaign_id: int, item_id: int, slot: int) -> list[tuple[int, str]]:
    """(output id, text) of every output of an item queued in overlap slot ``slot`` (0 the
    first judgments, 1 the overlap ones), in queue order: the paired design's group, which
    one annotator claims together (``claim_next``). One indexed lookup (``item_id``)."""
    params = {"item_id": item_id, "campaign_id": campaign_id, "slot": slot}
    return [(oid, text) for oid, text in s.connection().execute(_GROUP, params)]


_INCLUSION = select(_A.c.inclusion_prob).where(_A.c.id == bindparam("assignment_id"))


def slot_inclusion_prob(s: Session, assignment_id: int) -> float | None:
    """The probability the queue recorded for drawing the slot (None: no such slot)."""
    return s.connection().execute(_INCLUSION, {"assignment_id": assignment_id}).scalar()
