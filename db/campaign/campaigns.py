"""Repository functions for campaigns: create, bulk-load, list, read back for export.

Every write here runs inside the caller's transaction (pass the ``Session`` of a
``session_scope``), so an import either lands whole or not at all.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from db.engine import session_scope
from db.judging.log import LABEL, campaign_log
from db.schema.models import (
    Annotation,
    Annotator,
    Assignment,
    Campaign,
    CampaignImage,
    Item,
    Output,
    System,
)


@dataclass(frozen=True)
class CampaignSummary:
    id: int
    name: str
    mode: str
    n_items: int
    n_systems: int
    n_outputs: int
    n_judgments: int
    created_at: Any
    #: When it was archived (hidden, read-only); None = active.
    archived_at: Any = None


def get_campaign(session: Session, name: str) -> Campaign | None:
    return session.scalar(select(Campaign).where(Campaign.name == name))


_META = select(Campaign.__table__.c.meta).where(Campaign.__table__.c.id == bindparam("cid"))


def campaign_meta(session: Session, campaign_id: int) -> dict[str, Any]:
    """A campaign's free-form settings (``campaigns.meta``), {} when unset (one Core query:
    it runs on every span-mode save)."""
    return dict(session.connection().execute(_META, {"cid": campaign_id}).scalar() or {})


def campaign_mode(session: Session, campaign_id: int) -> str | None:
    """A campaign's mode (None: no such campaign)."""
    return session.scalar(select(Campaign.mode).where(Campaign.id == campaign_id))


def stored_mode(engine: Engine, campaign_id: int) -> str | None:
    """The campaign's stored mode, in a session of its own (None: no such campaign)."""
    with session_scope(engine) as s:
        return campaign_mode(s, campaign_id)


def set_campaign_meta_key(session: Session, campaign_id: int, key: str, value: Any) -> None:
    """Set one key of ``campaigns.meta`` (the JSON is replaced whole: portable)."""
    meta = campaign_meta(session, campaign_id)
    meta[key] = value
    session.execute(update(Campaign).where(Campaign.id == campaign_id).values(meta=meta))


def campaign_exists(engine: Engine, name: str) -> bool:
    with session_scope(engine) as s:
        return get_campaign(s, name) is not None


def create_campaign(session: Session, name: str, **settings: Any) -> Campaign:
    campaign = Campaign(name=name, **settings)
    session.add(campaign)
    session.flush()
    return campaign


def existing_items(session: Session, campaign_id: int) -> dict[str, tuple[int, str, str | None]]:
    """external_id → (item id, source, reference) for a campaign."""
    rows = session.execute(
        select(Item.external_id, Item.id, Item.source, Item.reference).where(
            Item.campaign_id == campaign_id
        )
    )
    return {ext: (iid, src, ref) for ext, iid, src, ref in rows}


def items_with_one_output(session: Session, campaign_id: int) -> list[str]:
    """External ids of the campaign's items with fewer than two outputs, in id order."""
    rows = session.execute(
        select(Item.external_id)
        .join(Output, Output.item_id == Item.id, isouter=True)
        .where(Item.campaign_id == campaign_id)
        .group_by(Item.id, Item.external_id)
        .having(func.count(Output.id) < 2)
        .order_by(Item.id)
    )
    return [r[0] for r in rows]


def existing_systems(session: Session, campaign_id: int) -> dict[str, int]:
    rows = session.execute(select(System.name, System.id).where(System.campaign_id == campaign_id))
    return {name: sid for name, sid in rows}


def existing_output_keys(session: Session, campaign_id: int) -> dict[tuple[str, str], int]:
    """(item external_id, system name) → output id."""
    rows = session.execute(
        select(Item.external_id, System.name, Output.id)
        .join(Output, Output.item_id == Item.id)
        .join(System, System.id == Output.system_id)
        .where(Item.campaign_id == campaign_id)
    )
    return {(ext, sysname): oid for ext, sysname, oid in rows}


#: Rows per INSERT … RETURNING of a bulk import: SQLAlchemy processes a whole parameter
#: list at once (bound values, JSON), so one statement of a million rows held gigabytes.
INSERT_CHUNK = 5_000


def insert_returning_ids(
    session: Session, model: type, rows: Iterable[dict[str, Any]]
) -> list[int]:
    """Bulk INSERT ``rows`` (any iterable: a generator keeps only one chunk of them alive)
    in chunks of :data:`INSERT_CHUNK`; their new ids in the same order."""
    stmt = insert(model).returning(model.id, sort_by_parameter_order=True)
    ids: list[int] = []
    it = iter(rows)
    while chunk := list(itertools.islice(it, INSERT_CHUNK)):
        ids.extend(r[0] for r in session.execute(stmt, chunk))
    return ids


def insert_systems(session: Session, rows: Iterable[dict[str, Any]]) -> list[int]:
    """New systems (campaign_id, name, is_human); their ids in row order."""
    return insert_returning_ids(session, System, rows)


def insert_items(session: Session, rows: Iterable[dict[str, Any]]) -> list[int]:
    """New items (campaign_id, external_id, source, reference, doc_id, meta)."""
    return insert_returning_ids(session, Item, rows)


def insert_outputs(session: Session, rows: Iterable[dict[str, Any]]) -> list[int]:
    """New outputs (item_id, system_id, text, meta)."""
    return insert_returning_ids(session, Output, rows)


def insert_judgments(session: Session, rows: Iterable[dict[str, Any]]) -> list[int]:
    """Imported judgments: rows of the annotation log (output, annotator, assignment, kind,
    label, score, post_edit, hter)."""
    return insert_returning_ids(session, Annotation, rows)


def output_ids_by_pair(session: Session, item_ids: Iterable[int]) -> dict[int, int]:
    """(item id << 32 | system id) → output id, for the outputs of ``item_ids``."""
    rows = session.execute(
        select(Output.item_id, Output.system_id, Output.id).where(
            Output.item_id.in_(list(item_ids))
        )
    )
    return {item << 32 | system: oid for item, system, oid in rows}


def mark_human_systems(session: Session, system_ids: Iterable[int]) -> None:
    """Mark systems as human (an import learns it from any of a system's rows)."""
    ids = list(system_ids)
    if ids:
        session.execute(update(System).where(System.id.in_(ids)).values(is_human=True))


_SET_ASSIGNMENT = (
    update(Annotation.__table__)
    .where(Annotation.__table__.c.id == bindparam("aid"))
    .values(assignment_id=bindparam("sid"))
)


def set_assignment_ids(
    session: Session, annotation_ids: Iterable[int], assignment_ids: Iterable[int]
) -> None:
    """Point imported annotations at their slots, in chunks (executemany): an import writes
    its annotations chunk by chunk, before the slots' order (the whole file's) is known."""
    pairs = zip(annotation_ids, assignment_ids, strict=True)
    conn = session.connection()
    while chunk := [{"aid": a, "sid": s} for a, s in itertools.islice(pairs, INSERT_CHUNK)]:
        conn.execute(_SET_ASSIGNMENT, chunk)


def ensure_annotators(
    session: Session, campaign_id: int, names: Iterable[str], role: str = "import"
) -> dict[str, int]:
    """Ids of the named annotators of a campaign, creating the missing ones."""
    wanted = set(names)
    rows = session.execute(
        select(Annotator.name, Annotator.id).where(Annotator.campaign_id == campaign_id)
    )
    have = {n: i for n, i in rows if n in wanted}
    missing = sorted(wanted - have.keys())
    ids = insert_returning_ids(
        session, Annotator, [{"campaign_id": campaign_id, "name": n, "role": role} for n in missing]
    )
    have.update(zip(missing, ids, strict=True))
    return have


def next_assignment_position(session: Session, campaign_id: int) -> int:
    last = session.scalar(
        select(func.max(Assignment.position)).where(Assignment.campaign_id == campaign_id)
    )
    return 0 if last is None else last + 1


#: the order of every campaign list (the pickers' and the Campaigns page's)
_NEWEST_FIRST = (Campaign.created_at.desc(), Campaign.id.desc())


def active_campaign_names(engine: Engine) -> list[tuple[str, int]]:
    """(name, id) of the active campaigns in :func:`list_campaigns`' order (newest first),
    without its counts: what a page's campaign picker needs on every run. The counts
    scan every campaign's items, outputs and labels (36 ms with one 60-system campaign)."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(Campaign.name, Campaign.id)
            .where(Campaign.archived_at.is_(None))
            .order_by(*_NEWEST_FIRST)
        )
        return [(name, cid) for name, cid in rows]


def list_campaigns(engine: Engine, archived: bool | None = False) -> list[CampaignSummary]:
    """Campaigns with their counts, newest first: the active ones (the default), the
    archived ones (``archived=True``) or all (``None``)."""
    with session_scope(engine) as s:
        items = (
            select(Item.campaign_id, func.count().label("n")).group_by(Item.campaign_id).subquery()
        )
        systems = (
            select(System.campaign_id, func.count().label("n"))
            .group_by(System.campaign_id)
            .subquery()
        )
        outputs = (
            select(System.campaign_id, func.count().label("n"))
            .join(Output, Output.system_id == System.id)
            .group_by(System.campaign_id)
            .subquery()
        )
        judged = (
            select(System.campaign_id, func.count().label("n"))
            .join(Output, Output.system_id == System.id)
            .join(Annotation, Annotation.output_id == Output.id)
            .where(Annotation.kind == LABEL)
            .group_by(System.campaign_id)
            .subquery()
        )
        query = (
            select(
                Campaign,
                func.coalesce(items.c.n, 0),
                func.coalesce(systems.c.n, 0),
                func.coalesce(outputs.c.n, 0),
                func.coalesce(judged.c.n, 0),
            )
            .outerjoin(items, items.c.campaign_id == Campaign.id)
            .outerjoin(systems, systems.c.campaign_id == Campaign.id)
            .outerjoin(outputs, outputs.c.campaign_id == Campaign.id)
            .outerjoin(judged, judged.c.campaign_id == Campaign.id)
            .order_by(*_NEWEST_FIRST)
        )
        if archived is not None:
            query = query.where(
                Campaign.archived_at.is_not(None) if archived else Campaign.archived_at.is_(None)
            )
        return [
            CampaignSummary(c.id, c.name, c.mode, ni, ns, no, nj, c.created_at, c.archived_at)
            for c, ni, ns, no, nj in s.execute(query)
        ]


def campaign_rows(engine: Engine, name: str) -> list[dict[str, Any]]:
    """The campaign in long format: one row per current judgment, or per unjudged output.

    Current judgments are label/skip rows that no later row supersedes; rows are ordered by
    output then annotation id, so an export is deterministic.
    """
    with session_scope(engine) as s:
        campaign = get_campaign(s, name)
        if campaign is None:
            raise KeyError(f"no campaign named {name!r}")
        judgments: dict[int, list[tuple[Annotation, str]]] = {}
        for ann, annotator in s.execute(
            campaign_log(campaign.id, Annotation, Annotator.name, current_only=True)
            .where(Annotation.kind == LABEL)
            .order_by(Annotation.id)
        ):
            judgments.setdefault(ann.output_id, []).append((ann, annotator))
        out: list[dict[str, Any]] = []
        for item, system, output in s.execute(
            select(Item, System, Output)
            .join(Output, Output.item_id == Item.id)
            .join(System, System.id == Output.system_id)
            .where(Item.campaign_id == campaign.id)
            .order_by(Output.id)
        ):
            base = {
                "item_id": item.external_id,
                "source": item.source,
                "reference": item.reference,
                "system": system.name,
                "output": output.text,
                "doc_id": item.doc_id,
                "is_human": system.is_human,
                "instructions": (item.meta or {}).get("instructions"),
                "image": (item.meta or {}).get("image"),
                "meta": output.meta or {},
            }
            for ann, annotator in judgments.get(output.id, [(None, None)]):
                out.append(
                    {
                        **base,
                        "human_label": None if ann is None else ann.label,
                        "human_score": None if ann is None else ann.score,
                        "post_edit": None if ann is None else ann.post_edit,
                        "annotator": annotator,
                    }
                )
        return out


def stored_image_names(session: Session, campaign_id: int) -> set[str]:
    """The names of the images stored with a campaign."""
    return set(
        session.scalars(select(CampaignImage.name).where(CampaignImage.campaign_id == campaign_id))
    )


def insert_images(session: Session, campaign_id: int, images: dict[str, tuple[str, bytes]]) -> None:
    """Store images (name → (media type, bytes)) with a campaign."""
    session.add_all(
        CampaignImage(campaign_id=campaign_id, name=n, media_type=t, data=d)
        for n, (t, d) in images.items()
    )
    session.flush()


def campaign_image(session: Session, campaign_id: int, name: str) -> tuple[str, bytes] | None:
    """(media type, bytes) of a campaign's image; None when it has none of that name."""
    row = session.execute(
        select(CampaignImage.media_type, CampaignImage.data).where(
            CampaignImage.campaign_id == campaign_id, CampaignImage.name == name
        )
    ).first()
    return None if row is None else (row[0], bytes(row[1]))


def campaign_images(engine: Engine, campaign_id: int) -> dict[str, bytes]:
    """name → bytes of every image stored with a campaign, by name."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(CampaignImage.name, CampaignImage.data)
            .where(CampaignImage.campaign_id == campaign_id)
            .order_by(CampaignImage.name)
        )
        return {name: bytes(data) for name, data in rows}
