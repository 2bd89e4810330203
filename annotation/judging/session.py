"""The annotator's session: whose campaign an invite link opens, and what the page shows
(the held item, the group of its source, the progress).

Each action (annotation.judging.save: save a judgment, skip; annotation.judging.undo; a comparative
screen, annotation.judging.screen_judgments) is one transaction that finishes the held slot (a
compare-and-set on its claim version, db.queue.claim.finish) and ends with :func:`build_view`,
which claims the next one (db.queue.claim.claim_next); which slot comes next is the design's
business (annotation.queue.build, annotation.queue.active_sampling).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from annotation.queue import control_block
from annotation.queue.active_sampling import draw_round
from annotation.tasks import work as task_work
from db import Engine
from db.campaign import campaigns as campaign_repo
from db.clock import utcnow
from db.engine import read_scope, retry_transient
from db.judging import log
from db.queue import claim as dbq
from db.queue import slot_counts as dbcount
from db.queue import slot_display as dbshow
from db.schema.vocabulary import CampaignMode, SlotKind


class AccessDenied(PermissionError):
    """The annotator does not exist or their invite was revoked."""


class InvalidJudgment(ValueError):
    """The judgment does not fit the campaign's mode."""


class TutorialPending(InvalidJudgment):
    """The annotator has not passed the campaign's tutorial (or failed it twice): no real
    item is shown or saved until they pass it (annotation.judging.tutorial.pending)."""


class FormPending(InvalidJudgment):
    """The annotator has not answered the campaign's pre-task form: nothing (tutorial or
    item) is shown or saved until they do (annotation.campaign.pretask.save_answers)."""


class Busy(InvalidJudgment):
    """The database stayed busy with concurrent changes (deadlocks or serialization
    failures, retried db.engine.RETRY_ATTEMPTS times); nothing was saved. A kind of
    InvalidJudgment so that the pages show it as they show a refused judgment."""


BUSY = "The server was too busy to save that just now; nothing was saved. Please submit it again."
#: Decorates every annotator action: a transient failure is retried, never a traceback.
retried = retry_transient(lambda: Busy(BUSY))


@dataclass(frozen=True)
class CampaignView:
    id: int
    name: str
    mode: CampaignMode
    show_metrics: bool
    show_reference: bool
    #: A DA campaign's Likert scale (formats.forms.likert), drawn as labelled buttons
    likert: dict[str, Any] | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class Group:
    """The paired design's group of the shown output: every system's output for its source,
    in the queue's (shuffled, anonymous) order. ``position`` is the shown output's place
    (1-based) among the ``outputs``; for an attention check the degraded copy stands in
    for its original, so a check looks like any other output of its source."""

    position: int
    outputs: tuple[str, ...]
    #: Judged apart from the rest of its group (an attention check is claimed on its own,
    #: between groups): one at a time it has no "k of m", which would be the only position
    #: whose siblings never follow ("Output 6 of 13" shown between two groups of 1–13).
    alone: bool = False

    @property
    def size(self) -> int:
        return len(self.outputs)


@dataclass(frozen=True)
class Slot:
    """One output to judge. Carries no system name; ``kind`` stays on the server side of
    the page (it is never drawn)."""

    assignment_id: int
    claim_version: int
    output_id: int
    text: str
    source: str
    reference: str | None
    scores: dict[str, float | None] | None  # None when the campaign hides metrics
    kind: SlotKind = field(repr=False, default=SlotKind.REGULAR)
    #: Paired campaigns: the other systems' outputs for the same source (None: unpaired)
    group: Group | None = field(repr=False, default=None)
    #: Preference mode: the text shown beside ``text`` (annotation.judging.preference)
    pair_text: str | None = field(repr=False, default=None)
    #: The item's own instructions (markdown, no HTML: formats.instructions), shown above it
    instructions: str | None = None
    #: The name of the item's image, stored with the campaign (:func:`item_image`)
    image: str | None = None


@dataclass(frozen=True)
class ProgressCounts:
    mine_judged: int
    mine_skipped: int
    queue_total: int
    queue_finished: int
    queue_open: int
    #: Slots still there for this annotator: the ones they hold and the open ones they may
    #: take (not outputs they had before). Others may take some of them first.
    mine_left: int = 0
    #: ``mine_left`` is an upper bound: with overlap, the two open slots of one output count
    #: twice but the annotator can take only one; with active sampling, slots not drawn yet
    #: count, and a draw passes some of them. (Exact counts would scan the open queue on
    #: every label.)
    mine_left_at_most: bool = False

    @property
    def fraction(self) -> float:
        return self.queue_finished / self.queue_total if self.queue_total else 0.0

    @property
    def mine_done(self) -> int:
        return self.mine_judged + self.mine_skipped

    @property
    def mine_fraction(self) -> float:
        """The annotator's own share: done / (done + left)."""
        total = self.mine_done + self.mine_left
        return self.mine_done / total if total else 0.0

    @property
    def mine_left_text(self) -> str:
        bound = "up to " if self.mine_left_at_most and self.mine_left else ""
        return f"{bound}{self.mine_left:,} left for you"


@dataclass(frozen=True)
class Undone:
    """What an undo took back, for the page to say so."""

    what: str  # "your Adequate label", "your skip (“Other”)", …
    ordinal: int  # the annotator's n-th current judgment or skip (the one taken back)
    excerpt: str | None  # the start of the output as the annotator saw it
    group_position: int | None = None  # paired: its place among its source's outputs
    group_size: int | None = None
    back: bool = True  # its slot is theirs again and shown next

    @property
    def message(self) -> str:
        """Plain text (the page escapes it): what was undone and where."""
        where = f"your item {self.ordinal:,}"
        if self.group_position is not None and self.group_size:
            where += f" (output {self.group_position} of {self.group_size} for its source)"
        text = f"Undone: {self.what} on {where}"
        if self.excerpt:  # no second full stop after a quoted sentence
            text += f": “{self.excerpt}”" + ("" if self.excerpt[-1] in ".!?…。" else ".")
        else:
            text += "."
        if self.back:
            text += " The item is shown again: judge it anew."
        return text


@dataclass(frozen=True)
class View:
    campaign: CampaignView
    slot: Slot | None  # None: nothing left for this annotator
    progress: ProgressCounts
    #: Set when the previous action could not be saved (e.g. the claim expired and someone
    #: else took the item).
    notice: str | None = None
    #: Set by :func:`annotation.judging.undo.undo`: what it took back.
    undone: Undone | None = None
    #: A campaign cut into tasks: the annotator's task (countdown, completion code).
    task: task_work.TaskView | None = None


def campaign_of(s: Any, annotator_id: int) -> dbq.AnnotatorCampaign:
    """The annotator's campaign, locking the campaign (shared), the annotator and their
    task in progress, in that order, before any slot (the one lock order,
    docs/administration.md "Locks"); AccessDenied when the annotator is unknown or revoked,
    or the campaign archived or deleted; TutorialPending (nothing claimed or saved) while the
    campaign's tutorial is not passed."""
    camp = dbq.annotator_campaign(s, annotator_id)
    if camp is None or camp.revoked:
        raise AccessDenied("this invite link is not valid (unknown or revoked)")
    if camp.archived:
        raise AccessDenied(f"campaign {camp.name!r} is archived: it takes no judgments")
    if camp.form and not camp.form_answered:  # the pre-task form before the tutorial
        raise FormPending("answer the short form before your first task")
    if camp.tutorial:  # the tutorial first, whatever page, tab or call asks
        from annotation.judging.tutorial import pending

        why = pending(s, camp.id, annotator_id, camp.tutorial)
        if why is not None:
            raise TutorialPending(why)
    task_work.lock_current(s, camp.id, annotator_id)  # the task before any of its slots
    return camp


def slot_group(s: Any, camp: dbq.AnnotatorCampaign, row: dbshow.SlotRow) -> Group | None:
    """The paired group of a slot (None: unpaired campaign, or no item). An attention check
    sits in its original output's group with its degraded text in the original's place."""
    if not camp.paired or row.item_id is None:
        return None
    slot = 0 if row.kind == dbq.ATTENTION else row.slot
    members = dbshow.item_group(s, camp.id, row.item_id, slot)
    ids = [oid for oid, _ in members]
    texts = [text for _, text in members]
    if row.output_id in ids:
        k = ids.index(row.output_id)
        texts[k] = row.text
    else:  # not in its item's group (a slot made outside annotation.queue.build): put it last
        k = len(texts)
        texts.append(row.text)
    return Group(position=k + 1, outputs=tuple(texts), alone=row.kind == dbq.ATTENTION)


def build_view(
    s: Any,
    annotator_id: int,
    camp: dbq.AnnotatorCampaign,
    now: datetime,
    notice: str | None,
    undone: Undone | None = None,
    start_task: bool = False,
) -> View:
    cutoff = now - timedelta(seconds=camp.claim_timeout_s)
    task, task_id = task_work.annotator_task(s, camp.id, annotator_id, now, start=start_task)
    ids: list[int] = []
    if camp.control:  # the shared control block: this annotator's slots, made once
        control_block.ensure_slots(s, camp.id, annotator_id, camp.control)
    if task is None or task_id is not None:  # a task campaign claims from the task only
        claim = (s, camp.id, annotator_id, now, cutoff, camp.paired, camp.blocks, task_id,
                 camp.control is not None)  # fmt: skip
        ids = dbq.claim_next(*claim)
        if not ids and draw_round(s, camp.id, now) is not None:  # active sampling's round
            ids = dbq.claim_next(*claim)
    if task is not None and task_id is not None:
        task = task_work.after_claim(s, camp.id, task, ids, now)
    slot = None
    if ids:
        row = dbshow.slot_row(s, ids[0])
        assert row is not None
        slot = Slot(
            assignment_id=row.assignment_id,
            claim_version=row.claim_version,
            output_id=row.output_id,
            text=row.text,
            source=row.source,
            reference=row.reference if camp.show_reference else None,
            scores=dbshow.output_scores(s, row.output_id) if camp.show_metrics else None,
            kind=row.kind,
            group=slot_group(s, camp, row),
            pair_text=row.pair_text,
            instructions=row.instructions,
            image=row.image,
        )
    counts = dbcount.queue_counts(s, camp.id)
    judged, skipped = log.annotator_judgment_counts(s, annotator_id)
    mine = dbcount.annotator_slots(s, camp.id, annotator_id)
    total = sum(counts.values())
    return View(
        campaign=CampaignView(
            camp.id,
            camp.name,
            camp.mode,
            camp.show_metrics,
            camp.show_reference,
            likert=camp.likert,
        ),
        slot=slot,
        progress=ProgressCounts(
            mine_judged=judged,
            mine_skipped=skipped,
            queue_total=total,
            queue_finished=counts[dbq.DONE] + counts[dbq.SKIPPED] + counts[dbq.PASSED],
            queue_open=counts[dbq.OPEN],
            mine_left=max(counts[dbq.OPEN] - mine.open_not_theirs, 0) + mine.held,
            mine_left_at_most=camp.overlap > 0 or mine.pending,
        ),
        notice=notice,
        undone=undone,
        task=task,
    )


@retried
def next_view(engine: Engine, annotator_id: int, now: datetime | None = None) -> View:
    """The annotator's current item (claiming the next one when they hold none)."""
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = campaign_of(s, annotator_id)
        return build_view(s, annotator_id, camp, now, None)


@retried
def start_next_task(engine: Engine, annotator_id: int, now: datetime | None = None) -> View:
    """The annotator asks for another task after finishing one (quotas permitting)."""
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = campaign_of(s, annotator_id)
        return build_view(s, annotator_id, camp, now, None, start_task=True)


def item_image(engine: Engine, campaign_id: int, name: str) -> tuple[str, bytes] | None:
    """(media type, bytes) of an image stored with the campaign, for the page to draw
    itself; None when the campaign has none of that name."""
    with read_scope(engine) as s:
        return campaign_repo.campaign_image(s, campaign_id, name)
