"""Document context: the earlier segments of a shown output's document (read only).

One Core statement, from the shown output (primary key) to its item, then the items of the
same campaign and document that come before it, each with the SAME system's output:

    outputs cur → items ci (pk) → items i (campaign_id, doc_id, i.id < ci.id)
                → outputs o (item_id, system_id: the unique index)

Document order is the order of ``items.id``: the importer inserts a file's new items in the
order of their first row (``annotation.imports.importer``, ``insert_returning_ids`` keeps row
order),
so it is the segments' order in the imported file; an appended file's items come after. No
other order is stored (there is no segment-number column). Items without a ``doc_id`` have no
context. The items of a campaign are found by the ``(campaign_id, external_id)`` unique index;
the document filter runs on those rows (no index on ``doc_id``: adding one needs a migration).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, bindparam, func, select
from sqlalchemy.orm import Session, aliased

from db.schema.models import Item, Output


@dataclass(frozen=True)
class ContextSegment:
    """One earlier segment of the document: its source and the same system's output."""

    item_id: int
    source: str
    output: str


_CUR = aliased(Output, name="cur")
_CUR_ITEM = aliased(Item, name="ci")
_ITEM = aliased(Item, name="i")
_OUT = aliased(Output, name="o")

_EARLIER = (
    select(_ITEM.id, _ITEM.source, _OUT.text)
    .select_from(_CUR)
    .join(_CUR_ITEM, _CUR_ITEM.id == _CUR.item_id)
    .join(
        _ITEM,
        and_(
            _ITEM.campaign_id == _CUR_ITEM.campaign_id,
            _ITEM.doc_id == _CUR_ITEM.doc_id,  # NULL = NULL is not true: no doc, no context
            _ITEM.id < _CUR_ITEM.id,
        ),
    )
    .join(_OUT, and_(_OUT.item_id == _ITEM.id, _OUT.system_id == _CUR.system_id))
    .where(_CUR.id == bindparam("output_id"))
    .order_by(_ITEM.id)
)


def earlier_segments(s: Session, output_id: int) -> list[ContextSegment]:
    """The segments before ``output_id``'s item in its document, in document order, each with
    the output of ``output_id``'s system (a segment that system has no output for is left
    out). Empty when the item has no ``doc_id`` or is the document's first."""
    rows = s.connection().execute(_EARLIER, {"output_id": output_id})
    return [ContextSegment(int(i), src or "", text or "") for i, src, text in rows]


def has_documents(s: Session, campaign_id: int) -> bool:
    """Whether any item of the campaign has a ``doc_id``."""
    first = s.scalar(
        select(Item.id).where(Item.campaign_id == campaign_id, Item.doc_id.is_not(None)).limit(1)
    )
    return first is not None


def document_count(s: Session, campaign_id: int) -> int:
    """Distinct ``doc_id`` values of the campaign's items (items without one not counted)."""
    return int(
        s.scalar(
            select(func.count(func.distinct(Item.doc_id))).where(
                Item.campaign_id == campaign_id, Item.doc_id.is_not(None)
            )
        )
        or 0
    )


@dataclass(frozen=True)
class DocumentPosition:
    """Where an output's segment sits in its document (for the annotator's counter)."""

    doc_id: str
    segment: int  # 1-based, in document order, among the segments this system has output for
    segments: int


_SAME_DOC = (
    select(_ITEM.id)
    .select_from(_CUR)
    .join(_CUR_ITEM, _CUR_ITEM.id == _CUR.item_id)
    .join(
        _ITEM,
        and_(_ITEM.campaign_id == _CUR_ITEM.campaign_id, _ITEM.doc_id == _CUR_ITEM.doc_id),
    )
    .join(_OUT, and_(_OUT.item_id == _ITEM.id, _OUT.system_id == _CUR.system_id))
    .where(_CUR.id == bindparam("output_id"))
    .order_by(_ITEM.id)
)
_DOC_OF = (
    select(_CUR_ITEM.id, _CUR_ITEM.doc_id)
    .select_from(_CUR)
    .join(_CUR_ITEM, _CUR_ITEM.id == _CUR.item_id)
    .where(_CUR.id == bindparam("output_id"))
)


def document_position(s: Session, output_id: int) -> DocumentPosition | None:
    """``output_id``'s segment number and its document's length, counting the segments its
    system has an output for (as :func:`earlier_segments` does); None without a doc_id."""
    conn = s.connection()
    row = conn.execute(_DOC_OF, {"output_id": output_id}).first()
    if row is None or row[1] is None:
        return None
    item_ids = list(conn.execute(_SAME_DOC, {"output_id": output_id}).scalars())
    return DocumentPosition(str(row[1]), item_ids.index(row[0]) + 1, len(item_ids))


def item_documents(s: Session, campaign_id: int) -> dict[int, str | None]:
    """item id → doc_id (None: no document) for every item of a campaign (the queue build)."""
    rows = s.execute(select(Item.id, Item.doc_id).where(Item.campaign_id == campaign_id))
    return {int(i): d for i, d in rows}
