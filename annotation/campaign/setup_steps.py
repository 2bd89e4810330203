"""Where a campaign stands on the Annotators page's steps (set up → build → tasks → invite →
watch), and what each step has locked: the page reads as the order of the work."""

from __future__ import annotations

from dataclasses import dataclass

from db import Engine
from db.campaign.campaigns import campaign_meta
from db.engine import read_scope
from db.people.annotators import list_annotators
from db.queue import settings as dbset
from db.queue import task_facts
from db.queue import tasks as dbt


@dataclass(frozen=True)
class Stage:
    built: bool
    tasks: int
    annotators: int
    labels: int
    #: why the queue can no longer be re-built (None: it can, nobody has started)
    started: str | None

    def locks(self) -> dict[str, str]:
        """Step → what is fixed now and why (steps not yet reached have no entry)."""
        out: dict[str, str] = {}
        if self.labels:
            out["setup"] = (
                f"{self.labels:,} labels exist: the sampling unit (document order), "
                "comparative screens, span settings and the live plan (Statistics page) are "
                "locked (a change now would mix two designs in one sample)"
            )
        elif self.built:
            out["setup"] = (
                "the queue is built: paired, overlap and the attention rate shape the next "
                "build only; re-build below to apply them (possible until someone starts)"
            )
        if self.built:
            out["build"] = (
                f"built; re-building is refused now: {self.started}"
                if self.started
                else "built; nobody has started, so it can still be re-built"
            )
        if self.tasks:
            out["tasks"] = (
                f"{self.tasks:,} task(s) cut: they hold their slots in queue order; a "
                "re-build cuts them again at the same size"
            )
        if self.annotators:
            out["invite"] = f"{self.annotators:,} annotator(s) invited or enrolled"
        return out


def stage(engine: Engine, campaign_id: int) -> Stage:
    with read_scope(engine) as s:
        meta = campaign_meta(s, campaign_id)
        return Stage(
            built=int(meta.get("queue_builds", 0)) > 0,
            tasks=len(dbt.list_tasks(s, campaign_id)),
            annotators=sum(1 for a in list_annotators(s, campaign_id) if a.role == "annotator"),
            labels=dbset.current_label_count(s, campaign_id),
            started=task_facts.queue_untouched(s, campaign_id),
        )
