"""The annotator's side of tasks: which task they work on, its countdown, its end.

annotation.judging.session calls :func:`annotator_task` inside the action's transaction (after the
annotator's row lock, the first lock of db.queue.claim's one lock order) and claims only that
task's slots; at the task's end :func:`finish` fixes the outcome and the completion code.
The rules are in annotation.tasks.batches' docstring.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from annotation.tasks.batches import CODE_ALPHABET, CODE_LENGTH, TaskSettings, settings_of
from annotation.tasks.expiry import expire_in, requeue_unfinished
from db.campaign.campaigns import campaign_meta
from db.people import study as dbstudy
from db.queue import settings as dbset
from db.queue import task_facts
from db.queue import tasks as dbt

NONE_OPEN = "No task is open for you now. Thank you!"


def quota_text(quota: int | None) -> str:
    return f"You have done your quota of {quota} task(s). Thank you!"


#: Open tasks looked at for one annotator before saying none fits (quotas, outputs they had).
MAX_CANDIDATES = 50


@dataclass(frozen=True)
class TaskView:
    """What the annotator's page shows of their task."""

    task_id: int | None
    state: str | None  # active | paused | done; None: no task for them now
    size: int = 0
    left: int = 0
    outcome: str | None = None
    code: str | None = None
    handoff_url: str | None = None  # with the code filled in
    #: Why there is no task for them (quota reached, none open), when there is none.
    reason: str | None = None
    can_start_next: bool = False
    #: Finished by this very claim (the page hands off now); False when the annotator comes
    #: back to a task finished before, who gets its code without a second redirect.
    fresh: bool = False

    @property
    def countdown(self) -> str:
        return f"{self.left:,} of {self.size:,} left in this task"


def handoff(url: str | None, code: str | None) -> str | None:
    if not url or code is None:
        return None
    return url.replace("{code}", quote(code, safe=""))


def generated_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def outcome_of(results: list[bool], pass_share: float) -> str:
    """pass when the share of right answers reaches ``pass_share`` (no checks: pass)."""
    if not results:
        return "pass"
    return "pass" if sum(results) / len(results) >= pass_share - 1e-12 else "fail"


def finish(s: Any, task: dbt.TaskRow, conf: TaskSettings, now: datetime) -> dbt.TaskRow:
    """Close a task whose slots are all finished: outcome, code, state done."""
    outcome = outcome_of(task_facts.attention_results(s, task.id), conf.pass_share)
    code = conf.pass_code if outcome == "pass" else conf.fail_code
    code = code or generated_code()
    dbt.set_task(s, task.id, state=dbt.DONE, finished_at=now, outcome=outcome, completion_code=code)
    done = dbt.task(s, task.id)
    assert done is not None
    return done


def _view(task: dbt.TaskRow, conf: TaskSettings | None, **extra: Any) -> TaskView:
    return TaskView(
        task.id,
        task.state,
        size=task.slots,
        left=task.left,
        outcome=task.outcome,
        code=task.completion_code,
        handoff_url=handoff(conf.handoff_url if conf else None, task.completion_code),
        **extra,
    )


def expire_idle(s: Any, campaign_id: int, conf: TaskSettings, now: datetime) -> list[int]:
    """Expire the campaign's active tasks idle longer than the timeout in force (logged):
    the one set, else :data:`annotation.tasks.batches.DEFAULT_STUDY_IDLE_MIN` when the
    campaign has a study link.

    Under the campaign's row lock, like every logged setting: two annotators arriving at
    once would otherwise both expire the same task on PostgreSQL (the second one's new
    task then collides with the first one's ordinal). The lock is taken only when a task
    is idle, so the common visit does not queue behind other annotators."""
    minutes = conf.idle_minutes(
        study=conf.timeout_min is None and dbstudy.has_study_link(s, campaign_id)
    )
    if not minutes:
        return []
    cutoff = now - timedelta(minutes=minutes)
    if not dbt.idle_active(s, campaign_id, cutoff):
        return []
    dbset.campaign_for_update(s, campaign_id)
    ids = dbt.idle_active(s, campaign_id, cutoff)  # again: another may have expired them
    # a task whose row is held is being saved in (not idle): passed over, never waited for
    locked = set(dbt.lock_free_active(s, ids))
    ids = [tid for tid in dbt.idle_active(s, campaign_id, cutoff) if tid in locked]
    for tid in ids:
        expire_in(s, campaign_id, tid, now, why=f"idle over {minutes} min")
    return ids


def take_next(
    s: Any,
    campaign_id: int,
    annotator_id: int,
    conf: TaskSettings,
    now: datetime,
    *,
    only_assigned: bool,
) -> tuple[dbt.TaskRow | None, str | None]:
    """Take the next open task the annotator may have (one assigned to them first); the
    task, or None and why."""  # fmt: skip
    reached = (
        conf.per_annotator is not None
        and dbt.taken_count(s, campaign_id, annotator_id) >= conf.per_annotator
    )
    passed: list[int] = []
    for _ in range(MAX_CANDIDATES):
        tid = dbt.next_open(s, campaign_id, annotator_id, passed)
        if tid is None:
            break
        passed.append(tid)
        row = dbt.task(s, tid)
        assert row is not None
        assigned = row.annotator_id == annotator_id
        if (only_assigned or reached) and not assigned:
            break  # candidates come assigned-first: no more of theirs
        if task_facts.shares_outputs(s, tid, annotator_id):
            continue
        if (
            conf.per_item is not None
            and task_facts.most_annotators_per_item(s, tid, annotator_id) >= conf.per_item
        ):
            continue
        if dbt.take(s, tid, annotator_id, now):
            return dbt.task(s, tid), None
    if reached:
        return None, quota_text(conf.per_annotator)
    return None, NONE_OPEN


def annotator_task(
    s: Any, campaign_id: int, annotator_id: int, now: datetime, *, start: bool = False
) -> tuple[TaskView | None, int | None]:
    """(what the page shows of the annotator's task, the task id to claim from), or
    (None, None) for a campaign without tasks. A first visit takes a task; after a
    finished one, only a task an administrator assigned them, or ``start`` (their click)."""
    if not dbt.has_tasks(s, campaign_id):
        return None, None
    task = dbt.current_task(s, campaign_id, annotator_id)  # locked before its slots
    if task is not None:  # the hot path: no settings needed until the task ends
        return _view(task, None), task.id if task.state == dbt.ACTIVE else None
    conf = settings_of(campaign_meta(s, campaign_id))
    expire_idle(s, campaign_id, conf, now)
    done = dbt.last_done(s, campaign_id, annotator_id)
    task, reason = take_next(
        s, campaign_id, annotator_id, conf, now, only_assigned=done is not None and not start
    )
    if task is not None:
        return _view(task, conf), task.id
    if done is None:
        return TaskView(None, None, reason=reason), None
    more = reason == NONE_OPEN  # not their quota: another task may suit them
    return _view(done, conf, can_start_next=more and _any_open(s, campaign_id)), None


def _any_open(s: Any, campaign_id: int) -> bool:
    return dbt.any_open(s, campaign_id)


def after_claim(
    s: Any, campaign_id: int, tv: TaskView, claimed: list[int], now: datetime
) -> TaskView:
    """The task view once the claim ran: the task ends when nothing of it is left to
    claim (leftovers it cannot serve this annotator go back to the pool as a new task)."""
    if claimed or tv.task_id is None:
        return tv
    task = dbt.task(s, tv.task_id)
    assert task is not None
    if task.left:  # slots this annotator cannot judge (an output they had): to the pool
        requeue_unfinished(s, campaign_id, task.id, now)
    conf = settings_of(campaign_meta(s, campaign_id))
    done = finish(s, dbt.task(s, task.id) or task, conf, now)
    return _view(done, conf, can_start_next=_any_open(s, campaign_id), fresh=True)


TASK_EXPIRED = (
    "That item was not saved: an administrator ended your task (expired it), and its "
    "unfinished items went back to the pool. Thank you for your work so far."
)
TASK_IDLE_EXPIRED = (
    "That item was not saved: your task was ended because it was idle longer than the "
    "task timeout, and its unfinished items went back to the pool."
)
TASK_REASSIGNED = (
    "That item was not saved: an administrator gave your task to another annotator. "
    "What you judged before stays yours."
)


def why_task_lost(s: Any, campaign_id: int, assignment_id: int, annotator_id: int) -> str | None:
    """Why a held slot of a task is no longer the annotator's, when the task changed under
    them (expired by an administrator or by the idle timeout, reassigned); None otherwise
    (the slot's claim itself expired)."""
    slot_task = dbt.task_of_slot(s, assignment_id)
    if slot_task is None:
        return None
    mine = dbt.latest_taken(s, campaign_id, annotator_id)
    if mine is not None and mine.state == dbt.EXPIRED:
        key = f"task {mine.id}"
        ends = [c.new_value for c in dbset.setting_changes(s, campaign_id) if c.key == key]
        idle = bool(ends) and "idle over" in str(ends[-1])
        return TASK_IDLE_EXPIRED if idle else TASK_EXPIRED
    if slot_task.annotator_id is not None and slot_task.annotator_id != annotator_id:
        return TASK_REASSIGNED
    if mine is None or mine.id != slot_task.id:
        return TASK_REASSIGNED  # their task is someone else's now (or back in the pool)
    return None


def lock_current(s: Any, campaign_id: int, annotator_id: int) -> None:
    """Lock the annotator's task in progress (db.queue.tasks.lock_current), first of its rows."""
    dbt.lock_current(s, campaign_id, annotator_id)


def undo_allowed(s: Any, assignment_id: int | None, annotator_id: int) -> bool:
    """An undo may take back only a judgment of the annotator's task in progress (a
    finished task's code was given) or of no task."""
    if assignment_id is None:
        return True
    task = dbt.task_of_slot(s, assignment_id)
    return task is None or (task.annotator_id == annotator_id and task.state == dbt.ACTIVE)
