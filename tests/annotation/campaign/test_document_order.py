"""Documents judged in order (annotation.campaign.document_order,
annotation.queue.draws.draw_blocks,
db.queue.document_blocks.claim_block) on SQLite and PostgreSQL: the queue is random over document
blocks
with each block's segments consecutive and in document order; an annotator who starts a
block keeps it, so two annotators never interleave in one; an abandoned block expires and
is taken over at its next segment; undo and skip keep the order; the setting's refusals
(after the first label, without doc ids, with active sampling or racing) change nothing,
and every change is logged."""

from __future__ import annotations

from datetime import timedelta
from itertools import groupby

import pytest
from sqlalchemy import Engine, select, update

from accounts.invites import create_annotator
from annotation.campaign import context, document_order
from annotation.judging.save import LOST_CLAIM, skip, submit
from annotation.judging.session import next_view, start_next_task
from annotation.judging.undo import undo
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from annotation.queue import racing
from db.clock import utcnow
from db.engine import session_scope
from db.schema.models import Annotation, Assignment, Campaign, Item, Output
from db.schema.vocabulary import DOCUMENT_ORDER as KEY
from db.schema.vocabulary import SlotKind
from tests.annotation.campaign.test_context import ITEMS, make_docs

DOC_OF = {ext: doc for ext, doc in ITEMS}


def campaign(engine: Engine, paired: bool, name: str = "docs") -> int:
    cid, _ = make_docs(engine, name)
    with session_scope(engine) as s:
        s.execute(
            update(Campaign).where(Campaign.id == cid)
            .values(paired=paired, attention_rate=0.0, overlap=0.0, claim_timeout_s=600)
        )  # fmt: skip
    return cid


def slots(engine: Engine, cid: int) -> list[tuple[int, str, int, int, str | None, int | None]]:
    """(position, block key, item id, slot id, state, annotator) in queue order."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(
                Assignment.position, Item.doc_id, Item.external_id, Output.system_id,
                Item.id, Assignment.id, Assignment.state, Assignment.annotator_id,
            )
            .join(Output, Output.id == Assignment.output_id)
            .join(Item, Item.id == Output.item_id)
            .where(Assignment.campaign_id == cid)
            .order_by(Assignment.position)
        ).all()  # fmt: skip
    paired = _paired(engine, cid)
    out = []
    for pos, doc, ext, system, item, sid, state, ann in rows:
        key = (doc or f"item {ext}") + ("" if paired else f" / system {system}")
        out.append((pos, key, item, sid, state, ann))
    return out


def _paired(engine: Engine, cid: int) -> bool:
    with session_scope(engine) as s:
        return bool(s.get(Campaign, cid).paired)  # type: ignore[union-attr]


def blocks_of(rows: list) -> list[tuple[str, list[int]]]:  # type: ignore[type-arg]
    return [(key, [r[2] for r in run]) for key, run in groupby(rows, key=lambda r: r[1])]


@pytest.mark.parametrize("paired", [False, True])
def test_queue_is_random_document_blocks_with_segments_in_order(
    engine: Engine, paired: bool
) -> None:
    cid = campaign(engine, paired)
    assert document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=11)
    rows = slots(engine, cid)
    assert [r[0] for r in rows] == list(range(len(rows)))  # dense positions
    runs = blocks_of(rows)
    keys = [k for k, _ in runs]
    assert len(keys) == len(set(keys)), keys  # each block in one consecutive run
    assert len(keys) == (3 if paired else 6)  # docA, docB, c2 (× 2 systems unpaired)
    for _, items in runs:  # document order = items.id order; paired: both systems per item
        assert items == sorted(items)
    # the order of the blocks is the seed's: another seed gives another order
    other = campaign(engine, paired, "docs2")
    document_order.set_documents_in_order(engine, other, True)
    orders = set()
    for seed in range(6):
        with session_scope(engine) as s:
            s.execute(Assignment.__table__.delete().where(Assignment.campaign_id == other))
            fresh = {"queue_seed": None, "meta": {KEY: {"on": True}}}
            s.execute(update(Campaign).where(Campaign.id == other).values(**fresh))
        queue_build.build_queue(engine, other, seed=seed)
        orders.add(tuple(k.split(" / ")[0] for k, _ in blocks_of(slots(engine, other))))
    assert len(orders) > 1


def test_two_annotators_never_interleave_in_a_block(engine: Engine) -> None:
    cid = campaign(engine, paired=False)
    document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=5)
    anns = [create_annotator(engine, cid, n).annotator_id for n in ("ann", "bea")]
    views = {a: next_view(engine, a) for a in anns}
    rounds = 0
    while any(v.slot is not None for v in views.values()):
        for a in anns:  # the two take turns, one label each
            v = views[a]
            if v.slot is not None:
                views[a] = submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1)
        rounds += 1
        assert rounds < 50
    rows = slots(engine, cid)
    assert all(r[4] == "done" for r in rows)
    for key, run in groupby(rows, key=lambda r: r[1]):
        assert len({r[5] for r in run}) == 1, key  # one annotator per block
    with session_scope(engine) as s:  # each annotator labelled their blocks in queue order
        for a in anns:
            positions = s.scalars(
                select(Assignment.position)
                .join(Annotation, Annotation.assignment_id == Assignment.id)
                .where(Annotation.annotator_id == a).order_by(Annotation.id)
            ).all()  # fmt: skip
            assert positions == sorted(positions)


def test_an_abandoned_block_expires_and_is_taken_over(engine: Engine) -> None:
    cid = campaign(engine, paired=False)
    document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=2)
    ann, bea = (create_annotator(engine, cid, n).annotator_id for n in ("ann", "bea"))
    t0 = utcnow()
    v = next_view(engine, ann, now=t0)
    assert v.slot is not None
    first_block = [r for r in slots(engine, cid) if r[5] == ann]
    assert len(first_block) == len({r[2] for r in first_block}) >= 1  # the whole block held
    held = submit(engine, ann, v.slot.assignment_id, v.slot.claim_version, label=1, now=t0)
    # before the timeout bea gets another block
    other = next_view(engine, bea, now=t0 + timedelta(seconds=60))
    assert other.slot is not None
    assert other.slot.output_id not in {r[3] for r in first_block}
    submit(engine, bea, other.slot.assignment_id, other.slot.claim_version, label=1,
           now=t0 + timedelta(seconds=61))  # fmt: skip
    # ann walks away; after the timeout bea's next claim is ann's block, at its next segment
    rest = [r for r in first_block if r[3] != v.slot.assignment_id]
    late = t0 + timedelta(seconds=601)
    # bea still holds their own block: finish it first
    view = next_view(engine, bea, now=late)
    while view.slot is not None and view.slot.assignment_id not in {r[3] for r in rest}:
        view = submit(engine, bea, view.slot.assignment_id, view.slot.claim_version, label=0,
                      now=late)  # fmt: skip
    assert rest  # the seed puts a block of several segments first
    assert view.slot is not None and view.slot.assignment_id == rest[0][3]
    now_held = {r[3] for r in slots(engine, cid) if r[5] == bea and r[4] == "claimed"}
    assert now_held == {r[3] for r in rest}  # the block's unanswered rest, all of it
    assert held.slot is not None
    back = submit(engine, ann, held.slot.assignment_id, held.slot.claim_version, label=1,
                  now=late)  # fmt: skip
    assert back.notice == LOST_CLAIM


def test_undo_and_skip_keep_document_order(engine: Engine) -> None:
    cid = campaign(engine, paired=False)
    document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=7)
    ann = create_annotator(engine, cid, "ann").annotator_id
    seen = []
    v = next_view(engine, ann)
    for _ in range(3):
        assert v.slot is not None
        seen.append(v.slot.assignment_id)
        v = submit(engine, ann, v.slot.assignment_id, v.slot.claim_version, label=1)
    v = undo(engine, ann)
    assert v.slot is not None and v.slot.assignment_id == seen[-1]  # back to the third
    v = skip(engine, ann, v.slot.assignment_id, v.slot.claim_version, "Other")
    order = [r[3] for r in slots(engine, cid)]
    assert v.slot is not None
    assert order.index(v.slot.assignment_id) == order.index(seen[-1]) + 1  # then the next


def test_switching_on_rebuilds_a_built_queue_and_logs(engine: Engine) -> None:
    cid = campaign(engine, paired=True)
    queue_build.build_queue(engine, cid, seed=3)
    n = len(slots(engine, cid))
    ann = create_annotator(engine, cid, "ann").annotator_id
    v = next_view(engine, ann)  # a claim, and a skip (no label): still switchable
    assert v.slot is not None
    skip(engine, ann, v.slot.assignment_id, v.slot.claim_version, "Other")
    assert document_order.set_documents_in_order(engine, cid, True)
    assert not document_order.set_documents_in_order(engine, cid, True)  # nothing changed
    rows = slots(engine, cid)
    assert len(rows) == n and [r[0] for r in rows] == list(range(n))
    assert rows[0][4] == "skipped"  # the answered slot kept, first
    keys = [k for k, _ in blocks_of(rows[1:])]
    assert len(keys) == len(set(keys))
    with session_scope(engine) as s:
        meta = s.get(Campaign, cid).meta  # type: ignore[union-attr]
    assert meta["queue_history"][-1]["document_order"] is True
    assert context.context_setting(engine, cid).on  # context switched on with it
    logged = {c.key: (c.old_value, c.new_value, c.labels_before)
              for c in queue_admin.setting_changes(engine, cid)}  # fmt: skip
    assert logged[KEY] == ({"on": False}, {"on": True}, 0)
    assert logged[context.KEY][1]["on"] is True
    with pytest.raises(ValueError, match="document order"):  # forced on while in order
        context.set_document_context(engine, cid, False)


def test_setting_refused_after_the_first_label(engine: Engine) -> None:
    cid = campaign(engine, paired=True)
    document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=1)
    ann = create_annotator(engine, cid, "ann").annotator_id
    v = next_view(engine, ann)
    assert v.slot is not None
    submit(engine, ann, v.slot.assignment_id, v.slot.claim_version, label=1)
    n_logged = len(queue_admin.setting_changes(engine, cid))
    with pytest.raises(document_order.DocumentOrderRefused, match="1 labels already"):
        document_order.set_documents_in_order(engine, cid, False)
    status = document_order.document_order_status(engine, cid)
    assert status.on and status.locked is not None and "before the first label" in status.locked
    assert len(queue_admin.setting_changes(engine, cid)) == n_logged


def test_setting_refused_without_doc_ids_and_with_active_sampling_or_racing(
    engine: Engine,
) -> None:
    with session_scope(engine) as s:
        flat = Campaign(name="flat")
        s.add(flat)
        s.flush()
        s.add(Item(campaign_id=flat.id, external_id="x", source="s"))
        fid = flat.id
    with pytest.raises(document_order.DocumentOrderRefused, match="doc_id"):
        document_order.set_documents_in_order(engine, fid, True)
    assert queue_admin.setting_changes(engine, fid) == []

    cid = campaign(engine, paired=True)
    queue_admin.update_queue_settings(engine, cid, sampling="active")
    with pytest.raises(document_order.DocumentOrderRefused, match="active sampling"):
        document_order.set_documents_in_order(engine, cid, True)
    queue_admin.update_queue_settings(engine, cid, sampling="uniform")
    racing.set_racing(engine, cid, True)
    with pytest.raises(document_order.DocumentOrderRefused, match="racing"):
        document_order.set_documents_in_order(engine, cid, True)
    assert document_order.document_order_status(engine, cid).locked is not None
    racing.set_racing(engine, cid, False)
    assert document_order.document_order_status(engine, cid).locked is None
    keys = [c.key for c in queue_admin.setting_changes(engine, cid)]
    assert KEY not in keys
    assert document_order.set_documents_in_order(engine, cid, True)
    with pytest.raises(ValueError, match="documents are judged in order"):
        queue_admin.update_queue_settings(engine, cid, sampling="active")
    with pytest.raises(ValueError, match="switch document order off first"):
        racing.set_racing(engine, cid, True)


def test_the_page_gets_the_segment_counter(engine: Engine) -> None:
    cid, ids = make_docs(engine)
    document_order.set_documents_in_order(engine, cid, True)
    first = context.document_context(engine, cid, ids[("z9", "S")])
    assert first is not None and first.size == 0  # the first segment: a counter, no context
    assert first.position is not None
    assert (first.position.doc_id, first.position.segment, first.position.segments) == (
        "docA", 1, 5)  # fmt: skip
    last = context.document_context(engine, cid, ids[("e4", "T")])  # T has no m5: 4 segments
    assert last is not None and last.position is not None
    assert (last.position.segment, last.position.segments, last.size) == (4, 4, 3)
    assert context.document_context(engine, cid, ids[("c2", "S")]) is None  # no document
    # an attention check degrading e4/T is not a segment of a block: no context, no counter
    assert context.document_context(engine, cid, ids[("e4", "T")], SlotKind.ATTENTION) is None


def test_cli_document_order(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    import cli
    from db.engine import get_engine

    cid = campaign(engine, paired=True)
    monkeypatch.setenv("DATABASE_URL", engine.url.render_as_string(hide_password=False))
    get_engine.cache_clear()
    try:
        runner = CliRunner()
        run = lambda *a: runner.invoke(cli.app, ["document-order", "--campaign", "docs", *a])  # noqa: E731
        on = run("on")
        assert on.exit_code == 0, on.output
        assert on.output.splitlines()[0] == "docs: document order on", on.output
        assert run("on").output.splitlines()[0] == "docs: document order already on"
        word = run("maybe")
        assert word.exit_code != 0 and "on or off" in word.output
        queue_build.build_queue(engine, cid, seed=1)
        ann = create_annotator(engine, cid, "ann").annotator_id
        v = next_view(engine, ann)
        assert v.slot is not None
        submit(engine, ann, v.slot.assignment_id, v.slot.claim_version, label=1)
        late = run("off")
        assert late.exit_code != 0 and "before the first label" in late.output, late.output
    finally:
        get_engine.cache_clear()
    assert [c.key for c in queue_admin.setting_changes(engine, cid)].count(KEY) == 1


N_DOCS, SEGMENTS, N_THREADS = 30, 4, 8


def many_docs(engine: Engine, paired: bool, overlap: float) -> int:
    """N_DOCS documents of SEGMENTS segments, three systems."""
    from db.schema.models import System

    with session_scope(engine) as s:
        camp = Campaign(name="many", paired=paired, overlap=overlap, attention_rate=0.1)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"s{k}") for k in range(3)]
        s.add_all(systems)
        s.flush()
        for d in range(N_DOCS):
            for j in range(SEGMENTS):
                item = Item(campaign_id=camp.id, external_id=f"{d}-{j}", source=f"doc {d} seg {j}",
                            doc_id=f"d{d}")  # fmt: skip
                s.add(item)
                s.flush()
                s.add_all(
                    Output(item_id=item.id, system_id=sy.id, text=f"{sy.name} {d} {j} four words")
                    for sy in systems
                )
        return camp.id


@pytest.mark.slow
@pytest.mark.parametrize("paired", [False, True])
def test_annotators_in_parallel_never_split_a_block(engine: Engine, paired: bool) -> None:
    """Threads claim at once (PostgreSQL: SKIP LOCKED and the block lock; SQLite: the write
    lock): every block, first judgments and overlap copies apart, has one annotator, and
    each annotator's labels follow queue order."""
    import threading

    from db.engine import make_engine
    from db.schema.vocabulary import SlotKind

    cid = many_docs(engine, paired, overlap=0.2)
    document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=9)
    anns = [create_annotator(engine, cid, f"a{k}").annotator_id for k in range(N_THREADS)]
    par = make_engine(engine.url.render_as_string(hide_password=False), pool_size=N_THREADS)
    errors: list[BaseException] = []
    start = threading.Barrier(N_THREADS)

    def work(a: int) -> None:
        try:
            start.wait()
            v = next_view(par, a)
            while v.slot is not None:
                v = submit(par, a, v.slot.assignment_id, v.slot.claim_version, label=1)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(a,)) for a in anns]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    par.dispose()
    assert not errors, errors
    with session_scope(engine) as s:
        rows = s.execute(
            select(Item.doc_id, Output.system_id, Assignment.slot, Assignment.annotator_id,
                   Assignment.state)
            .join(Output, Output.id == Assignment.output_id)
            .join(Item, Item.id == Output.item_id)
            .where(Assignment.campaign_id == cid, Assignment.kind == SlotKind.REGULAR)
        ).all()  # fmt: skip
    assert {r[4] for r in rows} == {"done"}
    holders: dict[tuple, set[int]] = {}  # type: ignore[type-arg]
    for doc, system, slot, ann, _ in rows:
        holders.setdefault((doc, None if paired else system, slot), set()).add(ann)
    assert all(len(h) == 1 for h in holders.values()), holders
    assert len({next(iter(h)) for h in holders.values()}) > 1  # the work was shared


def test_a_block_in_use_does_not_expire(engine: Engine) -> None:
    """Working on a block refreshes all its claims: a claim older than the timeout counts
    from the annotator's last action, not from when the block was taken."""
    cid = campaign(engine, paired=False)
    document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=2)
    ann, bea = (create_annotator(engine, cid, n).annotator_id for n in ("ann", "bea"))
    t0 = utcnow()
    v = next_view(engine, ann, now=t0)
    assert v.slot is not None
    mine = {r[3] for r in slots(engine, cid) if r[5] == ann}
    submit(engine, ann, v.slot.assignment_id, v.slot.claim_version, label=1,
           now=t0 + timedelta(seconds=400))  # fmt: skip
    other = next_view(engine, bea, now=t0 + timedelta(seconds=700))  # 700 s after the claim
    assert other.slot is not None and other.slot.assignment_id not in mine
    assert {r[3] for r in slots(engine, cid) if r[5] == ann} == mine


def test_tasks_on_document_blocks(engine: Engine) -> None:
    """Tasks cut from a document-ordered queue: each annotator claims only their task's
    slots, a block inside a task is judged whole and in order, and a document longer than a
    task is split between consecutive tasks (never two annotators inside one task)."""
    from annotation.tasks import batches as tasks

    cid = campaign(engine, paired=False)
    document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=3)
    cut = tasks.cut(engine, cid, 3)  # docA blocks (5 slots) are longer than a task
    assert sum(cut.sizes) == len(slots(engine, cid)) and max(cut.sizes) <= 3
    assert {d for d, _ in cut.split_documents} == {"docA"}
    anns = [create_annotator(engine, cid, n).annotator_id for n in ("ann", "bea")]
    views = {a: next_view(engine, a) for a in anns}
    for _ in range(40):  # the two take turns; a finished task starts the next one
        for a in anns:
            v = views[a]
            if v.slot is not None:
                views[a] = submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1)
            elif v.task is not None and v.task.can_start_next:
                views[a] = start_next_task(engine, a)
        if all(v.slot is None and not (v.task and v.task.can_start_next) for v in views.values()):
            break
    with session_scope(engine) as s:
        rows = s.execute(
            select(Assignment.task_id, Assignment.annotator_id, Assignment.position,
                   Assignment.state, Annotation.id)
            .join(Annotation, Annotation.assignment_id == Assignment.id)
            .where(Assignment.campaign_id == cid)
            .order_by(Annotation.id)
        ).all()  # fmt: skip
    assert len(rows) == len(slots(engine, cid))  # every slot judged once
    by_task: dict[int, set[int]] = {}
    for task_id, annotator, _pos, state, _ in rows:
        assert task_id is not None and state == "done"
        by_task.setdefault(task_id, set()).add(annotator)
    assert all(len(who) == 1 for who in by_task.values())  # one annotator per task
    for a in anns:  # both worked; each labelled in queue (= document) order within a task
        assert any(r[1] == a for r in rows)
        for task_id in {r[0] for r in rows if r[1] == a}:
            mine = [r[2] for r in rows if r[1] == a and r[0] == task_id]
            assert mine == sorted(mine)


def test_the_plan_form_applies_the_design_effect_in_document_order(engine: Engine) -> None:
    """The Annotators page's plan (annotation.campaign.live_plan.campaign_planned_labels) stores, in
    document order, the labels of the complete documents the planner asks for, as
    ``cli.py plan`` does; before, it stored the independent labels (no design effect)."""
    from annotation.campaign.live_plan import campaign_planned_labels, forecast_planned_labels

    cid = campaign(engine, paired=True)
    plain = forecast_planned_labels(2, 0.1)
    assert campaign_planned_labels(engine, cid, 2, 0.1) == plain  # segment order: unchanged
    document_order.set_documents_in_order(engine, cid, True)
    assert campaign_planned_labels(engine, cid, 2, 0.1) > plain  # × the design effect
