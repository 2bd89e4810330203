"""Expiring a task inside an open transaction, shared by the administrator's actions
(annotation.tasks.admin) and the idle-task timeout the annotator's side applies
(annotation.tasks.work): the unfinished slots become a new open task, and the change is
written to the campaign's setting log as ``task <id>: <old> → <new>``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from annotation.tasks.batches import TaskError
from db.queue import settings as dbset
from db.queue import tasks as dbt


def _who(task: dbt.TaskRow) -> str:
    return f"{task.state} ({task.annotator})" if task.annotator else task.state


def log_change(s: Any, campaign_id: int, task: dbt.TaskRow, new: str) -> None:
    dbset.log_setting_changes(s, campaign_id, {f"task {task.id}": (_who(task), new)})


def task_of(s: Any, campaign_id: int, task_id: int) -> dbt.TaskRow:
    """The campaign's task, its row locked until the transaction ends (db.queue.tasks.locked_task):
    read under the lock, its state is the one the change applies to (an annotator's save
    that ends the task either committed before, or waits for this transaction)."""
    task = dbt.locked_task(s, task_id)
    if task is None or task.campaign_id != campaign_id:
        raise TaskError(f"this campaign has no task {task_id}")
    return task


def requeue_unfinished(s: Any, campaign_id: int, task_id: int, now: datetime) -> int | None:
    """The task's unfinished slots as a new open task (the next ordinal); its id."""
    if not dbt.unfinished_slot_ids(s, task_id):
        return None
    new_id = dbt.insert_task(s, campaign_id, dbt.next_ordinal(s, campaign_id), [], now)
    dbt.release_unfinished(s, task_id, new_id)
    return new_id


def expire_in(s: Any, campaign_id: int, task_id: int, now: datetime, why: str = "") -> int | None:
    """Expire an active or paused task within the caller's transaction (``why`` goes to the
    log); its unfinished slots become a new open task, whose id is returned."""
    task = task_of(s, campaign_id, task_id)
    if task.state not in (dbt.ACTIVE, dbt.PAUSED):
        raise TaskError(f"task {task_id} is {task.state}: only an active or paused task expires")
    new_id = requeue_unfinished(s, campaign_id, task_id, now)
    note = f", {why}" if why else ""
    back = f"; its {task.left} unfinished item(s) are task {new_id}" if new_id else ""
    log_change(s, campaign_id, task, f"expired{note}{back}")
    dbt.set_task(s, task_id, state=dbt.EXPIRED, finished_at=now)
    return new_id
