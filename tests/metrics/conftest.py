"""Helpers of the metrics tests: small campaigns written straight into a real database."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from sqlalchemy import Engine, select

from db.engine import session_scope
from db.schema.models import Annotation, Annotator, Campaign, Item, Output, System

WMT_CSV = "wmt21-ted-mqm/wmt21_ted_ende.csv"


def make_campaign(
    engine: Engine,
    rows: Iterable[tuple[str, str | None, str, str]],
    *,
    name: str = "test",
    target_lang: str | None = "de",
) -> tuple[int, dict[tuple[str, str], int]]:
    """Rows (item external id, reference, system, output) → (campaign id, output ids).

    An item's reference is taken from its first row; more rows can be added later with
    :func:`add_outputs`.
    """
    with session_scope(engine) as s:
        camp = Campaign(name=name, target_lang=target_lang)
        s.add(camp)
        s.flush()
        cid = camp.id
    return cid, add_outputs(engine, cid, rows)


def add_outputs(
    engine: Engine, campaign_id: int, rows: Iterable[tuple[str, str | None, str, str]]
) -> dict[tuple[str, str], int]:
    ids: dict[tuple[str, str], int] = {}
    with session_scope(engine) as s:
        items = {
            i.external_id: i for i in s.scalars(select(Item).where(Item.campaign_id == campaign_id))
        }
        systems = {
            x.name: x for x in s.scalars(select(System).where(System.campaign_id == campaign_id))
        }
        outputs = []
        for ext, ref, sysname, text in rows:
            if ext not in items:
                items[ext] = Item(
                    campaign_id=campaign_id, external_id=ext, source="", reference=ref
                )
                s.add(items[ext])
            if sysname not in systems:
                systems[sysname] = System(campaign_id=campaign_id, name=sysname)
                s.add(systems[sysname])
            s.flush()
            out = Output(item_id=items[ext].id, system_id=systems[sysname].id, text=text)
            s.add(out)
            outputs.append(((ext, sysname), out))
        s.flush()
        ids = {k: o.id for k, o in outputs}
    return ids


def add_labels(
    engine: Engine, campaign_id: int, labels: Sequence[tuple[int, int]], annotator: str = "a1"
) -> list[int]:
    """Append label annotations (output id, 0/1); returns the annotation ids."""
    with session_scope(engine) as s:
        ann = s.scalars(
            select(Annotator).where(
                Annotator.campaign_id == campaign_id, Annotator.name == annotator
            )
        ).first()
        if ann is None:
            ann = Annotator(campaign_id=campaign_id, name=annotator, role="import")
            s.add(ann)
            s.flush()
        rows = [
            Annotation(output_id=o, annotator_id=ann.id, kind="label", label=y) for o, y in labels
        ]
        s.add_all(rows)
        s.flush()
        return [r.id for r in rows]


def read_wmt(
    path: Path, n_items: int | None = None, max_words: int | None = None
) -> list[dict[str, str]]:
    """Rows of the WMT21 TED en-de file: the first ``n_items`` segments (all 13 systems)
    whose reference has at most ``max_words`` words (TER is slow on long segments)."""
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    if n_items is None:
        return rows
    ok = [r for r in rows if max_words is None or len(r["reference"].split()) <= max_words]
    keep = list(dict.fromkeys(r["item_id"] for r in ok))[:n_items]
    wanted = set(keep)
    return [r for r in rows if r["item_id"] in wanted]
