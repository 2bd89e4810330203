"""Tasks and quotas on real SQLite and PostgreSQL: cutting (sizes, item groups and documents
intact), claiming only one's own task, quotas, the countdown, pass/fail codes by attention
checks, the administrator's actions and their log, and task ids in the exports."""

from __future__ import annotations

import csv
import io
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import Engine, select, update

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session, undo
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from annotation.tasks import admin as task_admin
from annotation.tasks import batches as tasks
from annotation.tasks import work as task_work
from db.campaign.campaigns import set_campaign_meta_key
from db.clock import utcnow
from db.engine import session_scope
from db.queue import tasks as dbt
from db.queue.settings import setting_changes
from db.schema.models import Assignment, Item, Task
from db.schema.vocabulary import DOCUMENT_ORDER as DOC_ORDER
from tests.annotation.test_queue import make_campaign


def _slots(engine: Engine, cid: int) -> list[Assignment]:
    with session_scope(engine) as s:
        return list(
            s.scalars(
                select(Assignment)
                .where(Assignment.campaign_id == cid)
                .order_by(Assignment.position)
            )
        )


def _annotators(engine: Engine, cid: int, *names: str) -> list[int]:
    return [create_annotator(engine, cid, n).annotator_id for n in names]


def _finish_task(engine: Engine, ann: int, label: int = 1) -> session.View:
    """Label everything the annotator is shown until their task ends."""
    view = session.next_view(engine, ann)
    while view.slot is not None:
        view = judging.submit(
            engine, ann, view.slot.assignment_id, view.slot.claim_version, label=label
        )
    return view


def test_cut_sizes_and_paired_groups_whole(engine: Engine) -> None:
    cid = make_campaign(engine, 10, 3)  # 30 outputs, 3 per item
    queue_build.build_queue(engine, cid, seed=1)
    result = tasks.cut(engine, cid, 7)
    # groups of 3: a task holds at most 7 slots, so two groups (6) each
    assert result.sizes == [6, 6, 6, 6, 6]
    by_task: dict[int, set[int]] = {}
    for sl in _slots(engine, cid):
        assert sl.task_id is not None
        by_task.setdefault(sl.item_id, set()).add(sl.task_id)
    assert all(len(t) == 1 for t in by_task.values())  # an item's outputs in one task
    again = tasks.cut(engine, cid, 7)
    assert again.task_ids == [] and "Nothing to cut" in again.summary


def test_cut_unpaired_exact_sizes_and_queue_order(engine: Engine) -> None:
    cid = make_campaign(engine, 10, 2, paired=False)
    queue_build.build_queue(engine, cid, seed=2)
    result = tasks.cut(engine, cid, 6)
    assert result.sizes == [6, 6, 6, 2]
    rows = _slots(engine, cid)
    with session_scope(engine) as s:
        order = {t.id: t.ordinal for t in s.scalars(select(Task))}
    ordinals = [order[r.task_id] for r in rows]  # type: ignore[index]
    assert ordinals == sorted(ordinals)  # tasks follow the queue order


def test_cut_keeps_documents_whole_unless_longer(engine: Engine) -> None:
    cid = make_campaign(engine, 12, 1, paired=False)
    with session_scope(engine) as s:  # documents of 3, 3, 6 items
        items = list(s.scalars(select(Item).where(Item.campaign_id == cid).order_by(Item.id)))
        for k, it in enumerate(items):
            it.doc_id = "d1" if k < 3 else "d2" if k < 6 else "d3"
        set_campaign_meta_key(s, cid, DOC_ORDER, {"on": True})
    queue_build.build_queue(engine, cid, seed=3)
    with session_scope(engine) as s:  # a document-ordered queue: documents consecutive
        rows = list(
            s.execute(
                select(Assignment.id, Item.doc_id, Item.id)
                .join(Item, Item.id == Assignment.item_id)
                .where(Assignment.campaign_id == cid)
            )
        )
        for pos, (aid, _doc, _iid) in enumerate(sorted(rows, key=lambda r: (r[1], r[2]))):
            s.execute(update(Assignment).where(Assignment.id == aid).values(position=pos))
    result = tasks.cut(engine, cid, 4)
    assert result.split_documents == [("d3", 6)]
    assert "d3 (6)" in result.summary
    per_doc: dict[str, set[int]] = {}
    with session_scope(engine) as s:
        for doc, tid in s.execute(
            select(Item.doc_id, Assignment.task_id).join(Item, Item.id == Assignment.item_id)
        ):
            per_doc.setdefault(doc, set()).add(tid)
    assert len(per_doc["d1"]) == 1 and len(per_doc["d2"]) == 1  # short documents whole
    assert len(per_doc["d3"]) == 2  # 6 > 4: split, and said so
    assert result.sizes == [3, 3, 4, 2]


def test_cut_refuses_bad_size(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 1)
    queue_build.build_queue(engine, cid, seed=1)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(tasks.TaskError, match="task size"):
            tasks.cut(engine, cid, bad)  # type: ignore[arg-type]
    with session_scope(engine) as s:
        assert not dbt.has_tasks(s, cid)


def test_annotator_gets_only_their_task_and_countdown(engine: Engine) -> None:
    cid = make_campaign(engine, 8, 2)
    queue_build.build_queue(engine, cid, seed=4)
    tasks.cut(engine, cid, 4)  # 4 tasks of 2 items × 2 outputs
    ann, bob = _annotators(engine, cid, "ann", "bob")
    a_view = session.next_view(engine, ann)
    b_view = session.next_view(engine, bob)
    assert a_view.task is not None and b_view.task is not None
    assert a_view.task.task_id != b_view.task.task_id  # never the same task
    assert a_view.task.countdown == "4 of 4 left in this task"
    with session_scope(engine) as s:
        a_task = {
            r.id
            for r in s.scalars(select(Assignment).where(Assignment.task_id == a_view.task.task_id))
        }
    seen = set()
    view = a_view
    for left in (3, 2, 1):
        assert view.slot is not None and view.slot.assignment_id in a_task
        seen.add(view.slot.assignment_id)
        view = judging.submit(
            engine, ann, view.slot.assignment_id, view.slot.claim_version, label=1
        )
        assert view.task is not None and view.task.countdown == f"{left} of 4 left in this task"
    assert view.slot is not None and view.slot.assignment_id in a_task
    view = judging.submit(engine, ann, view.slot.assignment_id, view.slot.claim_version, label=1)
    assert view.slot is None and view.task is not None
    assert view.task.state == "done" and view.task.outcome == "pass"
    assert view.task.code is not None and len(view.task.code) == tasks.CODE_LENGTH
    assert view.task.can_start_next  # two tasks are still open
    again = session.next_view(engine, ann)  # a reload shows the code, takes nothing new
    assert again.slot is None and again.task is not None and again.task.code == view.task.code
    nxt = session.start_next_task(engine, ann)
    assert nxt.slot is not None and nxt.task is not None and nxt.task.task_id != view.task.task_id


def test_per_annotator_quota(engine: Engine) -> None:
    cid = make_campaign(engine, 4, 1)
    queue_build.build_queue(engine, cid, seed=5)
    tasks.cut(engine, cid, 1)
    tasks.set_settings(engine, cid, per_annotator=1)
    (ann,) = _annotators(engine, cid, "ann")
    done = _finish_task(engine, ann)
    assert done.task is not None and done.task.state == "done"
    view = session.start_next_task(engine, ann)
    assert view.slot is None and view.task is not None and view.task.task_id == done.task.task_id
    assert not view.task.can_start_next
    with session_scope(engine) as s:
        assert dbt.taken_count(s, cid, ann) == 1


def test_per_item_quota_and_overlap(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 2, paired=False)
    queue_build.build_queue(engine, cid, seed=6)
    tasks.cut(engine, cid, 1)  # unpaired: an item's two outputs in two tasks
    tasks.set_settings(engine, cid, per_item=1)
    ann, bob = _annotators(engine, cid, "ann", "bob")
    a = session.next_view(engine, ann)
    b = session.next_view(engine, bob)
    assert a.slot is not None and b.slot is not None
    with session_scope(engine) as s:
        items = {
            aid: s.scalar(select(Assignment.item_id).where(Assignment.id == aid))
            for aid in (a.slot.assignment_id, b.slot.assignment_id)
        }
    assert len(set(items.values())) == 2  # bob was given the other item's task
    cid2 = make_campaign(engine, 2, 2, name="overlapped", overlap=0.5)
    with pytest.raises(tasks.TaskError, match="per-item quota below 2"):
        tasks.set_settings(engine, cid2, per_item=1)


def _with_attention(engine: Engine, cid: int) -> None:
    """Make the first two slots attention checks expecting 'inadequate' (0)."""
    from db.schema.models import AttentionCheck

    with session_scope(engine) as s:
        rows = list(
            s.scalars(
                select(Assignment)
                .where(Assignment.campaign_id == cid)
                .order_by(Assignment.position)
            )
        )
        for sl in rows[:2]:
            check = AttentionCheck(
                output_id=sl.output_id, degraded_text="broken words", severity=-5, expected_label=0
            )
            s.add(check)
            s.flush()
            sl.kind, sl.attention_check_id = "attention", check.id


@pytest.mark.parametrize("label, outcome", [(0, "pass"), (1, "fail")])
def test_codes_pass_or_fail_by_attention_checks(engine: Engine, label: int, outcome: str) -> None:
    cid = make_campaign(engine, 4, 1, paired=False)
    queue_build.build_queue(engine, cid, seed=7)
    _with_attention(engine, cid)
    tasks.cut(engine, cid, 4)
    tasks.set_settings(
        engine,
        cid,
        pass_code="CPASS1",
        fail_code="CFAIL1",
        handoff_url="https://app.prolific.com/submissions/complete?cc={code}",
    )
    (ann,) = _annotators(engine, cid, "ann")
    view = _finish_task(engine, ann, label=label)
    assert view.task is not None and view.task.outcome == outcome
    code = "CPASS1" if outcome == "pass" else "CFAIL1"
    assert view.task.code == code
    assert view.task.handoff_url == f"https://app.prolific.com/submissions/complete?cc={code}"


def test_pass_share_rule_and_settings_refused(engine: Engine) -> None:
    assert task_work.outcome_of([True, False], 0.5) == "pass"
    assert task_work.outcome_of([True, False], 0.8) == "fail"
    assert task_work.outcome_of([], 0.8) == "pass"
    cid = make_campaign(engine, 2, 1)
    for bad, match in (
        ({"pass_share": 1.5}, "pass share"),
        ({"handoff_url": "javascript:alert(1)"}, "http"),
        ({"handoff_url": "https://x.org/?a={b}"}, "placeholder"),
        ({"pass_code": "A"}, "both"),
        ({"per_annotator": 0}, "per-annotator"),
        ({"colour": 1}, "unknown"),
    ):
        with pytest.raises(tasks.TaskError, match=match):
            tasks.set_settings(engine, cid, **bad)
    assert tasks.settings(engine, cid) == tasks.TaskSettings()
    assert "80%" in tasks.TaskSettings().rule_text


def test_pause_reassign_expire_logged(engine: Engine) -> None:
    cid = make_campaign(engine, 4, 1)
    queue_build.build_queue(engine, cid, seed=8)
    tasks.cut(engine, cid, 2)
    ann, bob = _annotators(engine, cid, "ann", "bob")
    view = session.next_view(engine, ann)
    assert view.task is not None and view.slot is not None
    tid = view.task.task_id
    assert tid is not None
    view = judging.submit(engine, ann, view.slot.assignment_id, view.slot.claim_version, label=1)
    task_admin.pause(engine, cid, tid)
    paused = session.next_view(engine, ann)
    assert paused.slot is None and paused.task is not None and paused.task.state == "paused"
    task_admin.resume(engine, cid, tid)
    with pytest.raises(tasks.TaskError, match="not paused"):
        task_admin.resume(engine, cid, tid)
    with pytest.raises(tasks.TaskError, match="no active annotator"):
        task_admin.reassign(engine, cid, tid, "nobody")
    # bob holds a task himself: reassigning an active task to him is refused
    session.next_view(engine, bob)
    with pytest.raises(tasks.TaskError, match="in progress"):
        task_admin.reassign(engine, cid, tid, "bob")
    new_id = task_admin.expire(engine, cid, tid)
    assert new_id is not None
    stale = judging.submit(engine, ann, view.slot.assignment_id, view.slot.claim_version, label=1)  # type: ignore[union-attr]
    assert stale.notice is not None  # the released slot is no longer theirs
    # she may take a task again (the quota counts the expired one): the requeued one
    assert stale.task is not None and stale.task.task_id == new_id
    with session_scope(engine) as s:
        rows = {t.id: t for t in dbt.list_tasks(s, cid)}
    assert (
        rows[tid].state == "expired" and rows[tid].slots == 1 and rows[tid].left == 0
    )  # kept what was judged
    assert rows[new_id].slots == 1  # the unfinished item went back as a new task
    with session_scope(engine) as s:
        log = [(c.key, c.new_value) for c in setting_changes(s, cid)]
    keys = [k for k, _ in log]
    assert keys.count(f"task {tid}") == 3  # paused, resumed, expired
    assert any("expired" in str(v) for k, v in log if k == f"task {tid}")


def test_reassign_open_task_and_timeout_expiry(engine: Engine) -> None:
    cid = make_campaign(engine, 4, 1)
    queue_build.build_queue(engine, cid, seed=9)
    tasks.cut(engine, cid, 2)
    ann, bob = _annotators(engine, cid, "ann", "bob")
    with session_scope(engine) as s:
        first, second = (t.id for t in dbt.list_tasks(s, cid))
    task_admin.reassign(engine, cid, second, "bob")  # bob is given task 2 before starting
    b = session.next_view(engine, bob)
    assert b.task is not None and b.task.task_id == second
    a = session.next_view(engine, ann)
    assert a.task is not None and a.task.task_id == first
    tasks.set_settings(engine, cid, timeout_min=30)
    later = utcnow() + timedelta(minutes=31)
    rows = task_admin.list_tasks(engine, cid, now=later)
    states = Counter(r.state for r in rows)
    assert states["expired"] == 2 and states["open"] == 2
    with session_scope(engine) as s:
        keys = [c.key for c in setting_changes(s, cid)]
    assert f"task {first}" in keys and f"task {second}" in keys


def test_export_carries_task_id(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1, name="exp")
    queue_build.build_queue(engine, cid, seed=10)
    tasks.cut(engine, cid, 2)
    (ann,) = _annotators(engine, cid, "ann")
    view = _finish_task(engine, ann)
    assert view.task is not None
    rows = list(csv.DictReader(io.StringIO(export_annotations(engine, "exp", "csv").decode())))
    assert rows and all(r["task_id"] == str(view.task.task_id) for r in rows)


def test_undo_stops_at_a_finished_task(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1)
    queue_build.build_queue(engine, cid, seed=11)
    tasks.cut(engine, cid, 1)
    (ann,) = _annotators(engine, cid, "ann")
    _finish_task(engine, ann)
    view = undo.undo(engine, ann)
    assert view.notice == undo.FINISHED_TASK


def test_parallel_annotators_never_share_a_task(engine: Engine) -> None:
    from concurrent.futures import ThreadPoolExecutor

    cid = make_campaign(engine, 12, 2)
    queue_build.build_queue(engine, cid, seed=12)
    tasks.cut(engine, cid, 2)  # 12 tasks of one item each
    people = _annotators(engine, cid, *(f"a{k}" for k in range(8)))
    with ThreadPoolExecutor(8) as pool:
        views = list(pool.map(lambda a: session.next_view(engine, a), people))
    taken = [v.task.task_id for v in views if v.task is not None]
    assert len(taken) == 8 and len(set(taken)) == 8
    with session_scope(engine) as s:
        owners = {
            tid: {
                r.annotator_id
                for r in s.scalars(select(Assignment).where(Assignment.task_id == tid))
            }
            for tid in taken
        }
    for ann, view in zip(people, views, strict=True):
        assert view.slot is not None
        assert owners[view.task.task_id] <= {ann, None}  # type: ignore[union-attr]


def test_two_arrivals_expire_an_idle_task_once(engine: Engine) -> None:
    """Two annotators without a task arrive together after a task went idle: the task is
    expired once (one new open task, one log line), and neither arrival fails. Without
    the campaign lock, on PostgreSQL the second arrival expired it again and its new task
    collided with the first one's ordinal (IntegrityError)."""
    import threading

    cid = make_campaign(engine, 4, 1)
    queue_build.build_queue(engine, cid, seed=9)
    tasks.cut(engine, cid, 2)
    ann, bob, cat = _annotators(engine, cid, "ann", "bob", "cat")
    started = session.next_view(engine, ann).task
    assert started is not None
    tasks.set_settings(engine, cid, timeout_min=30)
    later = utcnow() + timedelta(minutes=31)
    with session_scope(engine) as s:
        before = len(dbt.list_tasks(s, cid))
    failures: list[BaseException] = []

    def second_arrival() -> None:
        try:
            with session_scope(engine) as s:
                task_work.annotator_task(s, cid, cat, later)
        except BaseException as e:  # the test reports it below
            failures.append(e)

    with session_scope(engine) as s:  # the first arrival's transaction, held open
        task_work.annotator_task(s, cid, bob, later)
        other = threading.Thread(target=second_arrival)
        other.start()
        other.join(0.5)  # the second arrival reaches the expiry while the first is open
    other.join(30)
    assert not other.is_alive() and failures == []
    with session_scope(engine) as s:
        rows = dbt.list_tasks(s, cid)
        keys = [c.key for c in setting_changes(s, cid)]
    assert len(rows) == before + 1  # one re-queued task for the idle one's unfinished slot
    assert [r.state for r in rows if r.id == started.task_id] == ["expired"]
    assert keys.count(f"task {started.task_id}") == 1
