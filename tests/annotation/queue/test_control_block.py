"""The shared control block on real SQLite and PostgreSQL: every annotator judges the block
once, first (placement start) or spread through the queue, in tasks too; the counted-or-not
choice is logged and decides whether the block's judgments enter the estimates; the block's
agreement is Krippendorff's α of its complete matrix."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.queue import control_block as cb
from db.engine import session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Assignment, Item, Output
from tests.annotation.queue.test_queue import make_campaign

BLOCK = ["i1", "i4"]


def judge(engine: Engine, annotator: int, n: int, label=lambda k: k % 2,
          kinds: list[str] | None = None) -> list[str]:  # fmt: skip
    """Judge the next ``n`` slots; the item id of each (their slot kinds into ``kinds``)."""
    seen = []
    for k in range(n):
        view = session.next_view(engine, annotator)
        assert view.slot is not None, f"nothing left after {k}"
        with session_scope(engine) as s:
            item = s.scalar(select(Item.external_id).join(Output, Output.item_id == Item.id)
                            .where(Output.id == view.slot.output_id))  # fmt: skip
        seen.append(item)
        if kinds is not None:
            kinds.append(str(view.slot.kind))
        judging.submit(engine, annotator, view.slot.assignment_id, view.slot.claim_version,
                       label=label(k))  # fmt: skip
    return seen


@pytest.mark.parametrize("paired", [False, True])
def test_block_first_then_regular_work(engine: Engine, paired: bool) -> None:
    cid = make_campaign(engine, 10, 3, paired=paired)
    queue_build.build_queue(engine, cid, seed=3)
    block = cb.set_block(engine, "c", items=BLOCK, placement="start")
    assert not block.counted and block.log[-1]["action"] == "set"
    a = create_annotator(engine, cid, "a").annotator_id
    b = create_annotator(engine, cid, "b").annotator_id
    for who in (a, b):  # each judges the 6 block outputs first, then regular ones
        first = judge(engine, who, 6)
        assert sorted(first) == sorted(BLOCK * 3)
    after: list[str] = []
    judge(engine, a, 2, kinds=after)
    judge(engine, b, 1, kinds=after)
    assert after == ["regular"] * 3
    with session_scope(engine) as s:
        mine = s.execute(select(Assignment.annotator_id, Assignment.state)
                         .where(Assignment.kind == "control")).all()  # fmt: skip
    assert len(mine) == 12 and {st for _, st in mine} == {"done"}
    # not counted: no block judgment enters the estimates
    data = read_campaign(engine, cid)
    assert len(data.judgments) == 3
    # the explicit choice, logged with the label count at that moment
    after = cb.set_counted(engine, "c", True)
    assert after.counted and after.log[-1] == {**after.log[-1], "action": "counted",
                                               "labels": 15}  # fmt: skip
    assert len(read_campaign(engine, cid).judgments) == 15
    report = cb.block_report(engine, "c")
    st = report["stats"]
    assert [r.annotator for r in st.annotators] == ["a", "b"] and st.n_outputs == 6
    assert all(r.n == 6 for r in st.annotators)
    assert report["progress"] == {"a": (6, 6), "b": (6, 6)}


def test_block_alpha_is_krippendorffs(engine: Engine) -> None:
    cid = make_campaign(engine, 6, 2, paired=False)
    queue_build.build_queue(engine, cid, seed=1)
    cb.set_block(engine, "c", items=["i0", "i2", "i3"])
    labels = {"a": [1, 0, 1, 1, 0, 0], "b": [1, 0, 0, 1, 0, 1], "c": [1, 1, 1, 1, 0, 0]}
    for name, ys in labels.items():
        who = create_annotator(engine, cid, name).annotator_id
        judge(engine, who, 6, label=lambda k, ys=ys: ys[k])
    report = cb.block_report(engine, "c", kind="label")
    st = report["stats"]
    # rebuild the matrix independently from the log: annotators × (item, system)
    from db.queue.control_block import block_judgments

    with session_scope(engine) as s:
        rows = block_judgments(s, cid)
    outs = sorted({(r[1], r[2]) for r in rows})
    x = np.full((3, len(outs)), np.nan)
    for r in rows:
        x["abc".index(r[0]), outs.index((r[1], r[2]))] = r[3]
    want = krippendorff.alpha(reliability_data=x, level_of_measurement="nominal")
    assert st.alpha == pytest.approx(want) and st.level == "nominal"


def test_spread_and_refusals(engine: Engine) -> None:
    cid = make_campaign(engine, 20, 2, paired=False)
    queue_build.build_queue(engine, cid, seed=2)
    cb.set_block(engine, "c", sample=3, seed=5, placement="spread")
    a = create_annotator(engine, cid, "a").annotator_id
    session.next_view(engine, a)
    with session_scope(engine) as s:
        pos = sorted(s.scalars(select(Assignment.position).where(Assignment.kind == "control")))
        top = s.scalar(select(Assignment.position).where(Assignment.kind == "regular")
                       .order_by(Assignment.position.desc()).limit(1))  # fmt: skip
    assert len(pos) == 6 and pos[0] > 0 and pos[-1] < top  # spread, not at the start
    with pytest.raises(cb.ControlBlockError, match="no item 'nope'"):
        cb.set_block(engine, "c", items=["i0", "nope"])
    with pytest.raises(cb.ControlBlockError, match="between 1 and the campaign's 20"):
        cb.set_block(engine, "c", sample=21)
    with pytest.raises(cb.ControlBlockError, match="start or spread"):
        cb.set_block(engine, "c", items=["i0"], placement="middle")
    cb.clear_block(engine, "c")
    assert cb.block_of(engine, "c") is None


def test_block_first_in_tasks(engine: Engine) -> None:
    """A campaign cut into tasks: each annotator's block slots come first in their task,
    then the task's own slots; the task's size does not count them."""
    from annotation.tasks import batches as tasks

    cid = make_campaign(engine, 12, 2, paired=False)
    queue_build.build_queue(engine, cid, seed=4)
    tasks.cut(engine, cid, 8)
    cb.set_block(engine, "c", items=["i2", "i7"])
    for name in ("a", "b"):
        who = create_annotator(engine, cid, name).annotator_id
        kinds: list[str] = []
        judge(engine, who, 4 + 8, kinds=kinds)
        assert kinds == ["control"] * 4 + ["regular"] * 8
        view = session.next_view(engine, who)
        assert view.slot is None  # the task is done: 8 regular slots


def test_a_block_slot_is_its_annotators_alone(engine: Engine) -> None:
    """Held, expired or revoked, an annotator's block slot never goes to someone else."""
    from datetime import timedelta

    from accounts.invites import revoke_annotator
    from db.clock import utcnow

    cid = make_campaign(engine, 6, 2, paired=False, claim_timeout_s=60)
    queue_build.build_queue(engine, cid, seed=6)
    cb.set_block(engine, "c", items=["i3"])
    a = create_annotator(engine, cid, "a").annotator_id
    b = create_annotator(engine, cid, "b").annotator_id
    t0 = utcnow()
    held = session.next_view(engine, a, now=t0).slot
    assert str(held.kind) == "control"
    later = session.next_view(engine, b, now=t0 + timedelta(seconds=600)).slot
    assert later.assignment_id != held.assignment_id and str(later.kind) == "control"
    revoke_annotator(engine, a)
    with session_scope(engine) as s:
        row = s.get(Assignment, held.assignment_id)
        assert (row.annotator_id, row.state) == (a, "claimed")
    ids = set()
    for _ in range(20):  # b's whole queue: their 2 block slots and the regular ones
        view = session.next_view(engine, b)
        if view.slot is None:
            break
        ids.add(view.slot.assignment_id)
        judging.submit(engine, b, view.slot.assignment_id, view.slot.claim_version, label=1)
    assert held.assignment_id not in ids
