"""Each item's domain for WMT24's per-domain ranking: the campaign file's ``domain`` column,
kept verbatim in its outputs' metadata (the first of an item's outputs that names one)."""

from __future__ import annotations

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from db.schema.models import Item, Output

#: The campaign-file column (kept verbatim in ``outputs.meta``) that names an item's domain.
DOMAIN_COLUMN = "domain"


def item_domains(engine: Engine, cid: int, column: str = DOMAIN_COLUMN) -> dict[str, str]:
    """External item id → its domain; items whose outputs name none are left out. Read only
    when WMT24's table is asked for (one pass over the outputs' metadata)."""
    o, i = Output.__table__, Item.__table__
    with Session(engine) as s:
        rows = s.execute(
            select(i.c.external_id, o.c.meta)
            .join(o, o.c.item_id == i.c.id)
            .where(i.c.campaign_id == cid)
            .order_by(o.c.item_id, o.c.id)
        ).all()
    out: dict[str, str] = {}
    for ext, meta in rows:
        value = (meta or {}).get(column) if isinstance(meta, dict) else None
        if ext not in out and value not in (None, ""):
            out[ext] = str(value)
    return out
