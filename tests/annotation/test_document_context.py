"""Document context (annotation.campaign.context, db.campaign.context) on SQLite and PostgreSQL:
document
order, the window, the same system only, other documents and document-less items left out,
the setting's log and its refusals, and doc_id in the annotations export."""

from __future__ import annotations

import csv
import io

import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.campaign import context
from annotation.judging.save import submit
from annotation.judging.session import next_view
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from db.campaign.context import earlier_segments
from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System

# (external id, doc id): stored in this order (the file's order); ids chosen so that a
# sort by external id (string or natural) would give another order than the file's
ITEMS = [("z9", "docA"), ("b1", "docB"), ("m5", "docA"), ("a0", "docA"), ("c2", None),
         ("k7", "docA"), ("d3", "docB"), ("e4", "docA")]  # fmt: skip


def make_docs(engine: Engine, name: str = "docs") -> tuple[int, dict[tuple[str, str], int]]:
    """Two systems; output text '<system>:<item>'; returns (campaign id, (item, system) → id)."""
    with session_scope(engine) as s:
        camp = Campaign(name=name)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in ("S", "T")]
        s.add_all(systems)
        s.flush()
        ids = {}
        for ext, doc in ITEMS:
            item = Item(campaign_id=camp.id, external_id=ext, source=f"src {ext}", doc_id=doc)
            s.add(item)
            s.flush()
            for sy in systems:
                if (ext, sy.name) == ("m5", "T"):  # T has no output for m5
                    continue
                out = Output(item_id=item.id, system_id=sy.id, text=f"{sy.name}:{ext}")
                s.add(out)
                s.flush()
                ids[(ext, sy.name)] = out.id
        return camp.id, ids


def read(engine: Engine, output_id: int) -> list[tuple[str, str]]:
    with session_scope(engine) as s:
        return [(seg.source, seg.output) for seg in earlier_segments(s, output_id)]


def test_earlier_segments_order_system_and_document(engine: Engine) -> None:
    _, ids = make_docs(engine)
    # docA in file order: z9, m5, a0, k7, e4; the last one sees the four before, system S
    assert read(engine, ids[("e4", "S")]) == [
        ("src z9", "S:z9"), ("src m5", "S:m5"), ("src a0", "S:a0"), ("src k7", "S:k7")
    ]  # fmt: skip
    # system T: only T's outputs, and m5 (no T output) is left out
    assert read(engine, ids[("e4", "T")]) == [
        ("src z9", "T:z9"), ("src a0", "T:a0"), ("src k7", "T:k7")
    ]  # fmt: skip
    assert read(engine, ids[("d3", "S")]) == [("src b1", "S:b1")]  # docB only
    assert read(engine, ids[("z9", "S")]) == []  # first of its document
    assert read(engine, ids[("c2", "S")]) == []  # no doc_id: no context


def test_other_campaigns_with_the_same_doc_id_are_excluded(engine: Engine) -> None:
    make_docs(engine, "other")
    _, ids = make_docs(engine, "docs")
    assert [o for _, o in read(engine, ids[("m5", "S")])] == ["S:z9"]


def test_window_splits_visible_and_collapsed(engine: Engine) -> None:
    cid, ids = make_docs(engine)
    assert context.document_context(engine, cid, ids[("e4", "S")]) is None  # off by default
    assert context.set_document_context(engine, cid, True, window=3)
    ctx = context.document_context(engine, cid, ids[("e4", "S")])
    assert ctx is not None
    assert [s.output for s in ctx.visible] == ["S:m5", "S:a0", "S:k7"]
    assert [s.output for s in ctx.collapsed] == ["S:z9"]
    context.set_document_context(engine, cid, True, window=10)
    ctx = context.document_context(engine, cid, ids[("e4", "S")])
    assert ctx is not None and ctx.collapsed == () and ctx.size == 4
    assert context.document_context(engine, cid, ids[("z9", "S")]) is None


def test_setting_is_logged_and_refuses_bad_input(engine: Engine) -> None:
    cid, _ = make_docs(engine)
    assert context.set_document_context(engine, cid, True, 2)
    assert not context.set_document_context(engine, cid, True, 2)  # nothing changed
    assert context.set_document_context(engine, cid, False, 2)
    logged = [(c.old_value, c.new_value) for c in queue_admin.setting_changes(engine, cid)
              if c.key == context.KEY]  # fmt: skip
    assert logged == [
        ({"on": False, "window": 3}, {"on": True, "window": 2}),
        ({"on": True, "window": 2}, {"on": False, "window": 2}),
    ]
    for bad in (0, -1, context.MAX_WINDOW + 1):
        with pytest.raises(ValueError, match="window"):
            context.set_document_context(engine, cid, True, bad)
    assert context.context_setting(engine, cid) == context.ContextSetting(False, 2)


def test_a_campaign_without_doc_ids_cannot_switch_it_on(engine: Engine) -> None:
    with session_scope(engine) as s:
        camp = Campaign(name="flat")
        s.add(camp)
        s.flush()
        s.add(Item(campaign_id=camp.id, external_id="x", source="s"))
        cid = camp.id
    with pytest.raises(ValueError, match="doc_id"):
        context.set_document_context(engine, cid, True)
    assert queue_admin.setting_changes(engine, cid) == []
    assert context.context_setting(engine, cid).on is False


def test_annotations_export_carries_doc_id(engine: Engine) -> None:
    cid, _ = make_docs(engine)
    queue_build.build_queue(engine, cid, seed=3)
    ann = create_annotator(engine, cid, "ann").annotator_id
    view = next_view(engine, ann)
    assert view.slot is not None
    submit(engine, ann, view.slot.assignment_id, view.slot.claim_version, label=1)
    with session_scope(engine) as s:
        want = s.scalar(
            select(Item.doc_id).join(Output, Output.item_id == Item.id)
            .where(Output.id == view.slot.output_id)
        )  # fmt: skip
    (row,) = list(csv.DictReader(io.StringIO(export_annotations(engine, "docs", "csv").decode())))
    assert row["doc_id"] == (want or "")


def test_an_archived_campaign_refuses_the_switch(engine: Engine) -> None:
    from sqlalchemy import update

    from db.clock import utcnow

    cid, _ = make_docs(engine)
    with session_scope(engine) as s:
        s.execute(update(Campaign).where(Campaign.id == cid).values(archived_at=utcnow()))
    with pytest.raises(ValueError, match="archived"):
        context.set_document_context(engine, cid, True)
    assert context.context_setting(engine, cid).on is False
