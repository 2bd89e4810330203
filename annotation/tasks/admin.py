"""The administrator's actions on tasks: list, pause, resume, reassign, expire.

Each action runs in one transaction holding the campaign row (db.queue.settings.campaign_for_update:
an archived campaign refuses) and is written to the campaign's setting log with the label
count (db.queue.settings.log_setting_changes), as ``task <id>: <old> → <new>``. Why that log and
not the campaign event log (db.campaign.lifecycle): these actions change who judges what while
labels arrive, which is what the setting log records and the dashboard and exports list;
the event log is for the campaign's own life (renames, archiving, deletion).
"""

from __future__ import annotations

from datetime import datetime

from annotation.tasks.batches import TaskError, settings_of
from annotation.tasks.expiry import expire_in, log_change, task_of
from annotation.tasks.work import expire_idle
from db import Engine
from db.campaign.campaigns import campaign_meta
from db.clock import utcnow
from db.engine import read_scope, retry_transient
from db.queue import claim as dbq
from db.queue import settings as dbset
from db.queue import task_facts
from db.queue import tasks as dbt

#: The administrator's task actions retry a transient failure (a deadlock victim, db.engine).
_retried = retry_transient(
    lambda: TaskError("the campaign was busy with annotators' saves; nothing changed: try again")
)

STATES = dbt.STATES


@_retried
def list_tasks(engine: Engine, campaign_id: int, now: datetime | None = None) -> list[dbt.TaskRow]:
    """The campaign's tasks in order, after expiring the ones idle past the timeout."""
    with dbq.queue_transaction(engine) as s:
        conf = settings_of(campaign_meta(s, campaign_id))
        expire_idle(s, campaign_id, conf, now or utcnow())
        return dbt.list_tasks(s, campaign_id)


def annotator_names(engine: Engine, campaign_id: int) -> list[str]:
    """The campaign's active invited annotators (who may be given a task), by name."""
    with read_scope(engine) as s:
        return sorted(task_facts.annotator_names(s, campaign_id))


@_retried
def pause(engine: Engine, campaign_id: int, task_id: int) -> dbt.TaskRow:
    """An open or active task stops being served (its annotator sees that it is paused)."""
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        task = task_of(s, campaign_id, task_id)
        if task.state not in (dbt.OPEN, dbt.ACTIVE):
            raise TaskError(f"task {task_id} is {task.state}: only an open or active task pauses")
        log_change(s, campaign_id, task, dbt.PAUSED)
        dbt.set_task(s, task_id, state=dbt.PAUSED)
        return task_of(s, campaign_id, task_id)


@_retried
def resume(engine: Engine, campaign_id: int, task_id: int) -> dbt.TaskRow:
    """A paused task goes on: active again when it was started, else open."""
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        task = task_of(s, campaign_id, task_id)
        if task.state != dbt.PAUSED:
            raise TaskError(f"task {task_id} is {task.state}, not paused")
        state = dbt.ACTIVE if task.started_at is not None and task.annotator_id else dbt.OPEN
        if state == dbt.ACTIVE:
            other = dbt.current_task(s, campaign_id, task.annotator_id)  # type: ignore[arg-type]
            if other is not None and other.id != task.id and other.state == dbt.ACTIVE:
                raise TaskError(
                    f"{task.annotator} is working on task {other.id}: pause or expire it first"
                )
        log_change(s, campaign_id, task, state)
        dbt.set_task(s, task_id, state=state)
        return task_of(s, campaign_id, task_id)


@_retried
def reassign(engine: Engine, campaign_id: int, task_id: int, annotator: str) -> dbt.TaskRow:
    """Give an open, active or paused task to another annotator. What its old annotator
    holds goes back to open (their late saves are refused); what they judged stays theirs."""
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        task = task_of(s, campaign_id, task_id)
        if task.state not in (dbt.OPEN, dbt.ACTIVE, dbt.PAUSED):
            raise TaskError(f"task {task_id} is {task.state}: it cannot be reassigned")
        names = task_facts.annotator_names(s, campaign_id)
        if annotator not in names:
            raise TaskError(f"no active annotator named {annotator!r} in this campaign")
        new_id = names[annotator]
        if new_id == task.annotator_id:
            raise TaskError(f"task {task_id} is {annotator}'s already")
        busy = dbt.current_task(s, campaign_id, new_id)
        if busy is not None and task.state != dbt.OPEN:
            raise TaskError(
                f"{annotator} has task {busy.id} in progress: finish, expire or reassign it first"
            )
        if task_facts.shares_outputs(s, task_id, new_id):
            raise TaskError(
                f"task {task_id} holds outputs {annotator} judged or has in another task: "
                "one annotator judges an output once"
            )
        dbt.reset_held(s, task_id)
        log_change(s, campaign_id, task, f"{task.state} ({annotator})")
        dbt.set_task(s, task_id, annotator_id=new_id)
        return task_of(s, campaign_id, task_id)


@_retried
def expire(
    engine: Engine, campaign_id: int, task_id: int, now: datetime | None = None
) -> int | None:
    """Expire an abandoned task: what was judged stays; its unfinished slots become a new
    open task (returned; None when nothing was left)."""
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        return expire_in(s, campaign_id, task_id, now or utcnow())
