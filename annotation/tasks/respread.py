"""Re-spreading a built queue nobody has started on: drop its tasks and unanswered slots,
build it again (fresh attention checks, spread evenly) and cut the tasks again at the last
size. Used after the attention rate or comparative mode changed, or to mend a queue built
before checks were spread evenly.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from annotation.queue.build import rebuild_in_order
from annotation.tasks.batches import Cut, TaskError, cut_within, settings_of
from db import Engine
from db.clock import utcnow
from db.queue import claim as dbq
from db.queue import settings as dbset
from db.queue import task_facts
from db.queue import tasks as dbt


@dataclass(frozen=True)
class Respread:
    dropped_slots: int
    attention_slots: int
    cut: Cut | None


def respread_checks(engine: Engine, campaign_id: int, now: datetime | None = None) -> Respread:
    """Mend a queue built before checks were spread evenly (or after the attention rate or
    comparative mode changed): before any annotator has claimed a slot or taken a task, drop
    the tasks and the unanswered slots, build the queue again (annotation.queue.build:
    fresh checks, spread evenly) and, when it had tasks, cut them again at the last size.
    TaskError (nothing changed) once work has started. Logged like every setting."""
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = dbset.campaign_for_update(s, campaign_id)
        started = task_facts.queue_untouched(s, campaign_id)
        if started is not None:
            raise TaskError(
                f"the queue cannot be re-spread: {started}; re-spreading moves slots that "
                "annotators may be holding (start a new campaign, or expire and re-cut)"
            )
        size = settings_of(camp.meta or {}).size
        had_tasks = dbt.delete_tasks(s, campaign_id) > 0
        report = rebuild_in_order(s, campaign_id)
        if report is None:
            raise TaskError("the queue is not built yet: build it first (nothing to re-spread)")
        dbset.log_setting_changes(s, campaign_id, {"queue.respread": (None, report.build)})
        redone = cut_within(s, campaign_id, size, now) if had_tasks and size else None
        history = (camp.meta or {}).get("queue_history", [])
        dropped = int(history[-1].get("replaced_unanswered", 0)) if history else 0
        return Respread(dropped, report.attention_slots, redone)
