"""Chaos on SQLite and PostgreSQL (issue 32): annotator threads claim, save and undo while an
administrator pauses, resumes, reassigns and expires tasks, archives or deletes the campaign.
Each thread has its own connection (the engine's pool), as each browser session has. The
invariants are checked in the database afterwards:

- no traceback: annotators only ever see a view (refusals come as its notice), the
  administrator only the actions' own refusals (TaskError);
- every completion code shown to an annotator is the one stored, on a done task credited to
  that annotator;
- no label lost: every save the annotator was told went through (and did not undo) is a
  current judgment of theirs, and nothing else is;
- nothing is committed after ``archive_campaign`` returns; a delete during saves neither
  deadlocks nor fails, and leaves no row of the campaign.
"""

from __future__ import annotations

import random
import threading
import time

from sqlalchemy import Engine, func, select

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session, undo
from annotation.queue import build as queue_build
from annotation.tasks import admin as task_admin
from annotation.tasks import batches as tasks
from annotation.tasks.batches import TaskError
from db.campaign.lifecycle import archive_campaign, delete_campaign
from db.engine import make_engine, session_scope
from db.queue import tasks as dbt
from db.schema.models import Annotation, Assignment, Campaign, Task
from tests.annotation.test_queue import make_campaign


def _pool(engine: Engine, n: int) -> Engine:
    return make_engine(engine.url.render_as_string(hide_password=False), pool_size=n + 2)


def _current_labels(engine: Engine, cid: int) -> set[tuple[int, int]]:
    """(annotator, slot) of the campaign's current judgments (not undone)."""
    with session_scope(engine) as s:
        undone = select(Annotation.supersedes_id).where(Annotation.supersedes_id.is_not(None))
        rows = s.execute(
            select(Annotation.annotator_id, Annotation.assignment_id)
            .join(Assignment, Assignment.id == Annotation.assignment_id)
            .where(
                Assignment.campaign_id == cid,
                Annotation.kind.in_(("label", "attention")),
                Annotation.id.not_in(undone),
            )
        ).all()
    return {(a, b) for a, b in rows}


class Annotator:
    """One annotator's thread: label what is shown, undo now and then, start the next task,
    and remember what the pages said (saves that went through, codes shown)."""

    def __init__(self, aid: int, engine: Engine, actions: int, seed: int) -> None:
        self.aid, self.engine, self.actions = aid, engine, actions
        self.rng = random.Random(seed)
        self.saved: list[int] = []
        self.codes: set[tuple[int, str]] = set()
        self.errors: list[BaseException] = []
        self.denied = False

    def run(self, stop: threading.Event) -> None:
        try:
            view = session.next_view(self.engine, self.aid)
            for _ in range(self.actions):
                if stop.is_set():
                    return
                view = self.step(view)
        except session.AccessDenied:
            self.denied = True  # archived or deleted under them: the page says so
        except BaseException as exc:  # any other exception is a traceback on the page
            self.errors.append(exc)

    def step(self, view: session.View) -> session.View:
        task = view.task
        if task is not None and task.code is not None and task.task_id is not None:
            self.codes.add((task.task_id, task.code))
        if view.slot is None:
            if task is not None and task.can_start_next:
                return session.start_next_task(self.engine, self.aid)
            time.sleep(0.01)
            return session.next_view(self.engine, self.aid)
        if self.saved and self.rng.random() < 0.1:
            after = undo.undo(self.engine, self.aid)
            if after.undone is not None:
                self.saved.pop()
            return after
        slot = view.slot
        after = judging.submit(self.engine, self.aid, slot.assignment_id, slot.claim_version,
                               label=self.rng.randint(0, 1))  # fmt: skip
        if after.notice is None:
            self.saved.append(slot.assignment_id)
        return after


def _start(workers: list[Annotator], stop: threading.Event) -> list[threading.Thread]:
    threads = [threading.Thread(target=w.run, args=(stop,)) for w in workers]
    for t in threads:
        t.start()
    return threads


def _check_labels(engine: Engine, cid: int, workers: list[Annotator]) -> None:
    told = {(w.aid, a) for w in workers for a in w.saved}
    assert sum(len(w.saved) for w in workers) == len(told)  # nobody was told twice
    assert _current_labels(engine, cid) == told


def test_task_admin_chaos_keeps_codes_and_credits(engine: Engine) -> None:
    cid = make_campaign(engine, 48, 2, paired=True)
    queue_build.build_queue(engine, cid, seed=4)
    tasks.cut(engine, cid, 4)  # 24 tasks of two items
    names = [f"a{k}" for k in range(6)]
    ids = [create_annotator(engine, cid, n).annotator_id for n in names]
    par = _pool(engine, len(ids) + 1)
    workers = [Annotator(a, par, 30, seed=a) for a in ids]
    stop = threading.Event()
    admin_errors: list[BaseException] = []
    refusals = 0

    def admin() -> None:
        nonlocal refusals
        rng = random.Random(1)
        while not stop.is_set():
            try:
                rows = task_admin.list_tasks(par, cid)
                live = [r for r in rows if r.state in (dbt.OPEN, dbt.ACTIVE, dbt.PAUSED)]
                if not live:
                    return
                row = rng.choice(live)
                action = rng.choice(("pause", "resume", "reassign", "expire", "expire"))
                if action == "pause":
                    task_admin.pause(par, cid, row.id)
                elif action == "resume":
                    task_admin.resume(par, cid, row.id)
                elif action == "reassign":
                    task_admin.reassign(par, cid, row.id, rng.choice(names))
                else:
                    task_admin.expire(par, cid, row.id)
            except TaskError:
                refusals += 1  # the action's own refusal (wrong state, busy annotator)
            except BaseException as exc:
                admin_errors.append(exc)
                return
            time.sleep(rng.uniform(0.0, 0.03))

    threads = _start(workers, stop)
    boss = threading.Thread(target=admin)
    boss.start()
    for t in threads:
        t.join()
    stop.set()
    boss.join()
    par.dispose()
    assert not admin_errors, admin_errors
    assert not [e for w in workers for e in w.errors], [e for w in workers for e in w.errors]
    shown = [(w.aid, tid, code) for w in workers for tid, code in w.codes]
    assert shown, "no task was finished: the chaos did not reach the codes"
    with session_scope(engine) as s:
        stored = {
            t.id: (t.annotator_id, t.completion_code, t.state)
            for t in s.scalars(select(Task).where(Task.campaign_id == cid))
        }
        ordinals = s.scalars(select(Task.ordinal).where(Task.campaign_id == cid)).all()
    assert len(ordinals) == len(set(ordinals))
    for aid, tid, code in shown:
        assert stored[tid] == (aid, code, dbt.DONE), (aid, tid, code, stored[tid])
    _check_labels(engine, cid, workers)


def _saving_campaign(engine: Engine, name: str, n: int) -> tuple[int, Engine, list[Annotator]]:
    cid = make_campaign(engine, 150, 2, name=name, paired=True)
    queue_build.build_queue(engine, cid, seed=8)
    ids = [create_annotator(engine, cid, f"a{k}").annotator_id for k in range(n)]
    par = _pool(engine, n)
    return cid, par, [Annotator(a, par, 10_000, seed=a) for a in ids]


def test_archive_waits_for_saves_in_flight_and_nothing_commits_after(engine: Engine) -> None:
    cid, par, workers = _saving_campaign(engine, "arch", 8)
    stop = threading.Event()
    threads = _start(workers, stop)
    time.sleep(1.0)
    archive_campaign(engine, "arch", via="test")
    at_archive = _current_labels(engine, cid)
    time.sleep(0.3)  # saves still trying after the archive
    stop.set()
    for t in threads:
        t.join()
    par.dispose()
    assert not [e for w in workers for e in w.errors], [e for w in workers for e in w.errors]
    assert at_archive, "no save before the archive: the test did not race"
    assert _current_labels(engine, cid) == at_archive
    assert all(w.denied for w in workers)  # each one was told the campaign is archived
    _check_labels(engine, cid, workers)


def test_delete_during_saves_neither_deadlocks_nor_fails(engine: Engine) -> None:
    _, par, workers = _saving_campaign(engine, "del", 8)
    stop = threading.Event()
    threads = _start(workers, stop)
    time.sleep(1.0)
    counts = delete_campaign(engine, "del", "del", via="test")
    stop.set()
    for t in threads:
        t.join()
    par.dispose()
    assert not [e for w in workers for e in w.errors], [e for w in workers for e in w.errors]
    assert counts["campaigns"] == 1 and counts["annotations"] > 0
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(Campaign)) == 0
        assert s.scalar(select(func.count()).select_from(Annotation)) == 0
        assert s.scalar(select(func.count()).select_from(Assignment)) == 0
