"""The annotator's clicks: show the held item, save a judgment, skip, undo.

Each action is one transaction that finishes the held slot (a compare-and-set on its claim
version, db.queue.finish) and claims the next one (db.queue.claim_next); which slot comes
next is the design's business (annotation.queue). views/annotate.py imports only this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from annotation.queue import draw_round
from db import Engine
from db import annotations as log
from db import queue as dbq
from db.campaigns import campaign_meta, set_campaign_meta_key
from db.clock import utcnow
from db.engine import session_scope
from db.vocabulary import CampaignMode, SlotKind

SKIP_REASONS = (
    "Cannot judge: source or output is broken",
    "I do not know one of the languages well enough",
    "Offensive or harmful content",
    "Other",
)


class AccessDenied(PermissionError):
    """The annotator does not exist or their invite was revoked."""


class InvalidJudgment(ValueError):
    """The judgment does not fit the campaign's mode."""


# ---------------------------------------------------------------- what the page shows


@dataclass(frozen=True)
class CampaignView:
    id: int
    name: str
    mode: CampaignMode
    show_metrics: bool
    show_reference: bool


@dataclass(frozen=True)
class Group:
    """The paired design's group of the shown output: every system's output for its source,
    in the queue's (shuffled, anonymous) order. ``position`` is the shown output's place
    (1-based) among the ``outputs``; for an attention check the degraded copy stands in
    for its original, so a check looks like any other output of its source."""

    position: int
    outputs: tuple[str, ...]

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
    #: Set by :func:`undo`: what it took back.
    undone: Undone | None = None


def _campaign_of(s: Any, annotator_id: int) -> dbq.AnnotatorCampaign:
    """The annotator's campaign, locking the annotator first (the one lock order, see
    db.queue); AccessDenied when the annotator is unknown or revoked."""
    camp = dbq.annotator_campaign(s, annotator_id)
    if camp is None or camp.revoked:
        raise AccessDenied("this invite link is not valid (unknown or revoked)")
    if camp.archived:
        raise AccessDenied(f"campaign {camp.name!r} is archived: it takes no judgments")
    return camp


def _group(s: Any, camp: dbq.AnnotatorCampaign, row: dbq.SlotRow) -> Group | None:
    """The paired group of a slot (None: unpaired campaign, or no item). An attention check
    sits in its original output's group with its degraded text in the original's place."""
    if not camp.paired or row.item_id is None:
        return None
    slot = 0 if row.kind == dbq.ATTENTION else row.slot
    members = dbq.item_group(s, camp.id, row.item_id, slot)
    ids = [oid for oid, _ in members]
    texts = [text for _, text in members]
    if row.output_id in ids:
        k = ids.index(row.output_id)
        texts[k] = row.text
    else:  # not in its item's group (a slot made outside annotation.queue): put it last
        k = len(texts)
        texts.append(row.text)
    return Group(position=k + 1, outputs=tuple(texts))


def _view(
    s: Any,
    annotator_id: int,
    camp: dbq.AnnotatorCampaign,
    now: datetime,
    notice: str | None,
    undone: Undone | None = None,
) -> View:
    cutoff = now - timedelta(seconds=camp.claim_timeout_s)
    ids = dbq.claim_next(s, camp.id, annotator_id, now, cutoff, camp.paired)
    if not ids and draw_round(s, camp.id, now) is not None:  # active sampling's next round
        ids = dbq.claim_next(s, camp.id, annotator_id, now, cutoff, camp.paired)
    slot = None
    if ids:
        row = dbq.slot_row(s, ids[0])
        assert row is not None
        slot = Slot(
            assignment_id=row.assignment_id,
            claim_version=row.claim_version,
            output_id=row.output_id,
            text=row.text,
            source=row.source,
            reference=row.reference if camp.show_reference else None,
            scores=dbq.output_scores(s, row.output_id) if camp.show_metrics else None,
            kind=row.kind,
            group=_group(s, camp, row),
        )
    counts = dbq.queue_counts(s, camp.id)
    judged, skipped = log.annotator_judgment_counts(s, annotator_id)
    mine = dbq.annotator_slots(s, camp.id, annotator_id)
    total = sum(counts.values())
    return View(
        campaign=CampaignView(
            camp.id, camp.name, camp.mode, camp.show_metrics, camp.show_reference
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
    )


def next_view(engine: Engine, annotator_id: int, now: datetime | None = None) -> View:
    """The annotator's current item (claiming the next one when they hold none)."""
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = _campaign_of(s, annotator_id)
        return _view(s, annotator_id, camp, now, None)


OTHER_TAB = (
    "That item was already answered in another tab or window of yours; this answer was not "
    "saved. Here is your next item."
)
LOST_CLAIM = (
    "That item was not saved: it was idle longer than the campaign's claim timeout and was "
    "given to someone else. Here is your next item."
)


def _refused(s: Any, assignment_id: int, annotator_id: int) -> str:
    """Why a held slot could not be finished. Only a slot now held by someone else had its
    claim expire; a slot still ours was answered (or undone) in another tab of ours."""
    row = dbq.slot_row(s, assignment_id)
    if row is not None and row.annotator_id == annotator_id:
        return OTHER_TAB
    return LOST_CLAIM


def submit(
    engine: Engine,
    annotator_id: int,
    assignment_id: int,
    claim_version: int,
    *,
    label: int | None = None,
    post_edit: str | None = None,
    no_edit_needed: bool = False,
    seconds: float | None = None,
    now: datetime | None = None,
    spans: list[dict[str, Any]] | None = None,
    esa_score: float | None = None,
) -> View:
    """Record a judgment of a held slot and return the next view, in one transaction.

    binary: ``label`` 1/0 required; post_edit: ``post_edit`` required (its HTER against the
    shown text is stored); both: ``label`` required, ``post_edit`` stored when given.

    A post-edit with the same words as the shown output (the box left untouched) counts as a
    post-edit only when the annotator confirmed it (``no_edit_needed``): otherwise HTER data
    would count every unedited click as a perfect translation (issue 17). Unconfirmed, "both"
    stores the label with no post-edit and no HTER, and "post_edit" (which has nothing else
    to store) refuses. ``no_edit_needed`` alone stores the shown output (HTER 0); with a
    changed text it contradicts itself and is refused.

    spans: ``spans`` required (``[]`` = "no errors"), no ``label``: the label and the MQM
    score are derived from the spans (annotation.span_judgments), as is ``esa_score`` checked.
    """
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = _campaign_of(s, annotator_id)
        _check_mode(camp.mode, label, post_edit, no_edit_needed)
        row = dbq.slot_row(s, assignment_id)
        if row is not None and camp.mode.asks_post_edit:
            post_edit = _confirmed_post_edit(camp.mode, row.text, post_edit, no_edit_needed)
        span_fields = _span_fields(s, camp, row, label, spans, esa_score)
        label = span_fields.pop("label", label)
        if row is None or not dbq.finish(s, assignment_id, annotator_id, claim_version, dbq.DONE):
            return _view(s, annotator_id, camp, now, _refused(s, assignment_id, annotator_id))
        hter_value = None
        if post_edit is not None:
            from metrics.hter import hter

            hter_value = hter(row.text, post_edit)
        log.append(
            s,
            output_id=row.output_id,
            annotator_id=annotator_id,
            assignment_id=assignment_id,
            kind=log.ATTENTION if row.kind == dbq.ATTENTION else log.LABEL,
            label=label,
            post_edit=post_edit,
            hter=hter_value,
            seconds=seconds,
            created_at=now,
            **span_fields,
        )
        return _view(s, annotator_id, camp, now, None)


def _span_fields(
    s: Any,
    camp: dbq.AnnotatorCampaign,
    row: dbq.SlotRow | None,
    label: int | None,
    spans: list[dict[str, Any]] | None,
    esa_score: float | None,
) -> dict[str, Any]:
    """The span judgment's log fields (label and MQM score derived); {} outside span mode."""
    if not camp.mode.asks_spans:
        if spans is not None or esa_score is not None:
            raise InvalidJudgment("this campaign does not take error spans")
        return {}
    if label is not None:
        raise InvalidJudgment("a span campaign derives the label from the spans; send spans")
    if spans is None:
        raise InvalidJudgment("a span campaign needs the error spans ([] for no errors)")
    if not isinstance(spans, list | tuple):
        raise InvalidJudgment(
            f"the spans are a {type(spans).__name__}, not a list of spans ([] for no errors)"
        )
    if row is None:
        return {}
    # Imported here: span_judgments brings numpy (agreement), which sign-in does not need.
    from annotation.span_judgments import config_of, judgment_fields
    from annotation.spans import SpanError

    try:
        return judgment_fields(config_of(s, camp.id), row.text, row.source, spans, esa_score)
    except SpanError as refused:
        raise InvalidJudgment(str(refused)) from None


UNTOUCHED = (
    "The post-edit box still holds the output unchanged. Edit it, or tick "
    "“No edit needed” if the output needs no correction."
)
CONTRADICTION = (
    "“No edit needed” is ticked but the text was changed. Untick it to save your "
    "edit, or undo the edit."
)


def _check_mode(
    mode: str, label: int | None, post_edit: str | None, no_edit_needed: bool = False
) -> None:
    if label is not None and label not in (0, 1):
        raise InvalidJudgment("label must be 1 (adequate) or 0 (inadequate)")
    if mode == CampaignMode.BINARY and label is None:
        raise InvalidJudgment("a binary campaign needs a label")
    if mode == CampaignMode.BINARY and (post_edit is not None or no_edit_needed):
        raise InvalidJudgment("a binary campaign takes no post-edit")
    if mode == CampaignMode.POST_EDIT and post_edit is None and not no_edit_needed:
        raise InvalidJudgment("a post-edit campaign needs the post-edited text")
    if mode == CampaignMode.BOTH and label is None:
        raise InvalidJudgment("this campaign needs a label with the post-edit")


def untouched(shown: str, post_edit: str) -> bool:
    """The same words as the shown output: whitespace-only changes (a browser's line
    endings, a stray space) are no edit and would score HTER 0."""
    return post_edit.split() == shown.split()


def _confirmed_post_edit(
    mode: CampaignMode, shown: str, post_edit: str | None, no_edit_needed: bool
) -> str | None:
    """The post-edit to store (None: none) under the confirmation rule in :func:`submit`."""
    if no_edit_needed:
        if post_edit is not None and not untouched(shown, post_edit):
            raise InvalidJudgment(CONTRADICTION)
        return shown
    if post_edit is None or not untouched(shown, post_edit):
        return post_edit
    if mode == CampaignMode.POST_EDIT:
        raise InvalidJudgment(UNTOUCHED)
    return None


def skip(
    engine: Engine,
    annotator_id: int,
    assignment_id: int,
    claim_version: int,
    reason: str,
    seconds: float | None = None,
    now: datetime | None = None,
) -> View:
    """Skip a held slot with a reason (no judgment; the slot stays skipped) → next view."""
    now = now or utcnow()
    if not reason.strip():
        raise InvalidJudgment("a skip needs a reason")
    with dbq.queue_transaction(engine) as s:
        camp = _campaign_of(s, annotator_id)
        row = dbq.slot_row(s, assignment_id)
        if row is None or not dbq.finish(
            s, assignment_id, annotator_id, claim_version, dbq.SKIPPED
        ):
            return _view(s, annotator_id, camp, now, _refused(s, assignment_id, annotator_id))
        log.append(
            s,
            output_id=row.output_id,
            annotator_id=annotator_id,
            assignment_id=assignment_id,
            kind=log.SKIP,
            skip_reason=reason.strip(),
            seconds=seconds,
            created_at=now,
        )
        return _view(s, annotator_id, camp, now, None)


def undo(engine: Engine, annotator_id: int, now: datetime | None = None) -> View:
    """Take back the annotator's newest judgment or skip by appending an ``undo`` row; the
    item is theirs again and shown next. Repeated undos walk further back. The view's
    ``undone`` says what was taken back."""
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = _campaign_of(s, annotator_id)
        last = log.last_current_judgment(s, annotator_id)
        if last is None:
            return _view(s, annotator_id, camp, now, "Nothing to undo.")
        judged, skipped = log.annotator_judgment_counts(s, annotator_id)
        undone = _undone(s, camp, last, judged + skipped)
        log.append(
            s,
            output_id=last.output_id,
            annotator_id=annotator_id,
            assignment_id=last.assignment_id,
            kind=log.UNDO,
            supersedes_id=last.annotation_id,
            created_at=now,
        )
        if last.assignment_id is not None:
            dbq.reclaim_for_undo(s, last.assignment_id, annotator_id, now)
        return _view(s, annotator_id, camp, now, None, undone)


EXCERPT_CHARS = 60


def _excerpt(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= EXCERPT_CHARS else words[: EXCERPT_CHARS - 1].rstrip() + "…"


def _what(last: log.LastJudgment) -> str:
    """The judgment in the annotator's words (an attention answer reads like any label)."""
    if last.kind == log.SKIP:
        return f"your skip (“{last.skip_reason}”)" if last.skip_reason else "your skip"
    if last.spans is not None:
        n = len(last.spans)
        marked = "no errors marked" if not n else f"{n} error{'s' if n != 1 else ''} marked"
        return f"your error-span judgment ({marked})"
    label = {1: "Adequate", 0: "Inadequate"}.get(last.label) if last.label is not None else None
    if label is not None:
        return f"your {label} label" + (" and post-edit" if last.post_edit is not None else "")
    if last.post_edit is not None:
        return "your post-edit"
    return "your judgment"


def _undone(s: Any, camp: dbq.AnnotatorCampaign, last: log.LastJudgment, ordinal: int) -> Undone:
    row = dbq.slot_row(s, last.assignment_id) if last.assignment_id is not None else None
    group = _group(s, camp, row) if row is not None else None
    return Undone(
        what=_what(last),
        ordinal=ordinal,
        excerpt=_excerpt(row.text) if row is not None else None,
        group_position=group.position if group is not None and group.size > 1 else None,
        group_size=group.size if group is not None and group.size > 1 else None,
        back=last.assignment_id is not None,
    )


# ---------------------------------------------------------------- guidelines

#: campaigns.meta key of the guidelines the campaign's administrators write for annotators.
GUIDELINES_KEY = "guidelines"
MAX_GUIDELINES_CHARS = 20_000


@dataclass(frozen=True)
class Guidelines:
    """What the annotators of a campaign are told to do, written by its administrators.
    Markdown; the page renders it without HTML (item texts stay literal elsewhere)."""

    text: str = ""
    examples: str = ""
    updated_at: str | None = None  # ISO time of the last change
    labels_before: int | None = None  # current labels when it was last changed

    @property
    def empty(self) -> bool:
        return not (self.text.strip() or self.examples.strip())


def _guidelines_of(meta: dict[str, Any]) -> Guidelines:
    raw = meta.get(GUIDELINES_KEY)
    if not isinstance(raw, dict):
        return Guidelines()
    return Guidelines(
        text=str(raw.get("text") or ""),
        examples=str(raw.get("examples") or ""),
        updated_at=raw.get("updated_at"),
        labels_before=raw.get("labels_before"),
    )


def guidelines(engine: Engine, campaign_id: int) -> Guidelines:
    """The campaign's guidelines and examples (empty when none were written)."""
    with session_scope(engine) as s:
        return _guidelines_of(campaign_meta(s, campaign_id))


def set_guidelines(
    engine: Engine, campaign_id: int, text: str, examples: str = "", now: datetime | None = None
) -> Guidelines:
    """Store the campaign's guidelines and examples (``campaigns.meta``), with when and
    after how many labels they were changed. Empty texts remove them."""
    text, examples = text.strip(), examples.strip()
    for name, value in (("guidelines", text), ("examples", examples)):
        if len(value) > MAX_GUIDELINES_CHARS:
            raise ValueError(
                f"the {name} have {len(value):,} characters; at most "
                f"{MAX_GUIDELINES_CHARS:,} are kept"
            )
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        dbq.campaign_for_update(s, campaign_id)  # the meta JSON is rewritten whole
        old = _guidelines_of(campaign_meta(s, campaign_id))
        changes = {
            key: (before or None, after or None)
            for key, before, after in (
                ("guidelines", old.text, text),
                ("guideline_examples", old.examples, examples),
            )
            if before != after
        }
        if changes:  # in the campaign's setting log, like every setting (with the label count)
            dbq.log_setting_changes(s, campaign_id, changes)
        stored = {
            "text": text,
            "examples": examples,
            "updated_at": now.isoformat(),
            "labels_before": dbq.current_label_count(s, campaign_id),
        }
        set_campaign_meta_key(s, campaign_id, GUIDELINES_KEY, stored)
        return _guidelines_of({GUIDELINES_KEY: stored})
