"""A campaign with a row in every table a campaign owns, and the ownership walk that finds
those rows through the schema's ON DELETE CASCADE foreign keys (so a table added later is
checked without editing the tests)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, Table, insert, or_, select

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.judging import save as judging
from annotation.judging import session, undo
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.clock import utcnow
from db.engine import session_scope
from db.schema.admin_models import Job
from db.schema.models import Base, CampaignSettingChange, MetricBaseline, Threshold
from db.scores.calibration import store_set


def campaign_csv(tag: str, n_items: int = 8) -> bytes:
    """Two systems, a judged first item (imported judgments), an imported metric column."""
    head = "item_id,source,reference,system,output,human_label,metric:comet\n"
    rows = [
        f"{j},src {tag} {j},ref {j},{s},out {tag} {j} {s},{'1' if j == 0 else ''},0.{j}{k}\n"
        for j in range(n_items)
        for k, s in enumerate("AB")
    ]
    return (head + "".join(rows)).encode()


def populate(engine: Engine, name: str) -> int:
    """A campaign with items, systems, outputs, imported and live judgments (one undone),
    queue slots with attention checks, an invited annotator, metric scores, a threshold, a
    BERTScore baseline, a job, a logged setting change and an applied calibration set."""
    cid = import_campaign(
        engine, campaign_csv(name), name, filename=f"{name}.csv", settings={"attention_rate": 0.2}
    ).campaign_id
    queue_build.build_queue(engine, cid, seed=3)
    who = create_annotator(engine, cid, f"ann-{name}").annotator_id
    view = session.next_view(engine, who)
    for _ in range(3):
        assert view.slot is not None
        view = judging.submit(
            engine, who, view.slot.assignment_id, view.slot.claim_version, label=1
        )
    undo.undo(engine, who)
    queue_admin.update_queue_settings(engine, cid, claim_timeout_s=600)
    now = utcnow()
    with session_scope(engine) as s:
        s.execute(insert(Threshold).values(campaign_id=cid, signature="sig", threshold=0.5))
        s.execute(
            insert(MetricBaseline).values(
                campaign_id=cid, model_signature="m", precision=0.1, recall=0.1, f1=0.1,
                n_pairs=10, seed=1, created_at=now,
            )
        )  # fmt: skip
        s.execute(
            insert(Job).values(
                campaign_id=cid, kind="score", params={}, state="done", created_at=now
            )
        )
        s.execute(
            insert(CampaignSettingChange).values(
                campaign_id=cid, key="overlap", old_value=0.0, new_value=0.1, labels_before=1,
                changed_at=now,
            )
        )  # fmt: skip
    calibration(engine, name, applied=cid)
    return cid


def calibration(engine: Engine, name: str, *, applied: int | None = None,
                source: int | None = None) -> int:  # fmt: skip
    return store_set(
        engine, name=name, signature="sig", threshold=0.5, higher_is_better=True,
        counts=(1, 2, 3, 4), per_system={}, payload={"source": name},
        source_campaign_id=source, applied_campaign_id=applied,
    )  # fmt: skip


def _tables() -> list[Table]:
    return [t for t in Base.metadata.sorted_tables]


def owned_rows(engine: Engine, cid: int) -> dict[str, dict[Any, tuple]]:
    """Per table, the rows (primary key → row) that belong to campaign ``cid``: the campaign
    row and, recursively, every row whose ON DELETE CASCADE foreign key points at one."""
    keys: dict[str, set[Any]] = {"campaigns": {cid}}
    rows: dict[str, dict[Any, tuple]] = {}
    with engine.connect() as conn:
        for _ in range(3):  # sorted_tables puts parents first; passes catch any cycle
            for table in _tables():
                pk = next(iter(table.primary_key.columns))
                cond = [
                    fk.parent.in_(keys[fk.column.table.name])
                    for fk in table.foreign_keys
                    if fk.ondelete == "CASCADE" and keys.get(fk.column.table.name)
                ]
                if table.name == "campaigns":
                    cond = [pk == cid]
                if not cond:
                    continue
                found = {r[0]: tuple(r) for r in conn.execute(
                    select(pk, *[c for c in table.columns if c is not pk]).where(or_(*cond))
                )}  # fmt: skip
                rows.setdefault(table.name, {}).update(found)
                keys.setdefault(table.name, set()).update(found)
    return rows


def remaining(engine: Engine, owned: dict[str, dict[Any, tuple]]) -> dict[str, int]:
    """How many of the rows in ``owned`` still exist, per table."""
    out = {}
    by_name = {t.name: t for t in _tables()}
    with engine.connect() as conn:
        for name, rows in owned.items():
            if not rows:
                continue
            pk = next(iter(by_name[name].primary_key.columns))
            out[name] = len(conn.execute(select(pk).where(pk.in_(list(rows)))).all())
    return out
