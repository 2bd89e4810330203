"""Synthetic campaigns for the server-side benches: many items cut into documents, every
system's output stored, written with bulk inserts (an ORM object per row would time the
set-up, not the code under test)."""

from __future__ import annotations

from sqlalchemy import Engine, insert, select

from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System


def documents_campaign(
    engine: Engine, name: str, n_items: int, n_systems: int, doc_len: int, paired: bool = False
) -> int:
    """A campaign of ``n_items`` sources in documents of ``doc_len`` (doc ids ``doc0``,
    ``doc1``…), each with one output per system; returns its id. No queue is built."""
    with session_scope(engine) as s:
        camp = Campaign(name=name, attention_rate=0.0, overlap=0.0, paired=paired)
        s.add(camp)
        s.flush()
        cid = camp.id
        s.execute(insert(System), [{"campaign_id": cid, "name": f"sys{k}"}
                                   for k in range(n_systems)])  # fmt: skip
        sys_ids = list(s.scalars(select(System.id).where(System.campaign_id == cid)))
        s.execute(insert(Item), [
            {"campaign_id": cid, "external_id": str(j), "doc_id": f"doc{j // doc_len}",
             "source": f"Source sentence {j} with a few words in it.", "meta": {}}
            for j in range(n_items)
        ])  # fmt: skip
        item_ids = list(s.scalars(select(Item.id).where(Item.campaign_id == cid)))
        s.execute(insert(Output), [
            {"item_id": i, "system_id": sy, "text": f"Output {i} of {sy}.", "meta": {}}
            for i in item_ids for sy in sys_ids
        ])  # fmt: skip
    return cid
