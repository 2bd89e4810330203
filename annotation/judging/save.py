"""The annotator's judgments: save one (:func:`submit`, checked against the campaign's
mode) or skip the held item, each in one transaction that also claims the next item
(annotation.judging.session.build_view).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from annotation.judging.session import InvalidJudgment, View, build_view, campaign_of, retried
from annotation.tasks import work as task_work
from db import Engine
from db.clock import utcnow
from db.judging import log
from db.queue import claim as dbq
from db.queue import slot_display as dbshow
from db.schema.vocabulary import CampaignMode

SKIP_REASONS = (
    "Cannot judge: source or output is broken",
    "I do not know one of the languages well enough",
    "Offensive or harmful content",
    "Other",
)
OTHER_TAB = (
    "That item was already answered in another tab or window of yours; this answer was not "
    "saved. Here is your next item."
)
LOST_CLAIM = (
    "That item was not saved: it was idle longer than the campaign's claim timeout and was "
    "given to someone else. Here is your next item."
)


def why_refused(s: Any, assignment_id: int, annotator_id: int) -> str:
    """Why a held slot could not be finished. A slot still ours was answered (or undone) in
    another tab of ours; a slot of a task the administrator expired or reassigned (or the
    idle timeout expired) says so; otherwise its claim expired and someone else has it."""
    row = dbshow.slot_row(s, assignment_id)
    if row is not None and row.annotator_id == annotator_id:
        return OTHER_TAB
    if row is not None:  # the task changed under them: say what the administrator did
        task_lost = task_work.why_task_lost(s, row.campaign_id, assignment_id, annotator_id)
        if task_lost is not None:
            return task_lost
    return LOST_CLAIM


@retried
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
    da_score: float | None = None,
    comment: str | None = None,
) -> View:
    """Record a judgment of a held slot and return the next view, in one transaction.

    binary: ``label`` 1/0 required; post_edit: ``post_edit`` required (its HTER against the
    shown text is stored); both: ``label`` required, ``post_edit`` stored when given.

    A post-edit with the same words as the shown output (the box left untouched) counts as a
    post-edit only when the annotator confirmed it (``no_edit_needed``): otherwise HTER data
    would count every unedited click as a perfect translation. Unconfirmed, "both"
    stores the label with no post-edit and no HTER, and "post_edit" (which has nothing else
    to store) refuses. ``no_edit_needed`` alone stores the shown output (HTER 0); with a
    changed text it contradicts itself and is refused.

    spans: ``spans`` required (``[]`` = "no errors"), no ``label``: the label and the MQM
    score are derived from the spans (annotation.judging.span_judgments), as is ``esa_score``
    checked;
    da / sqm: ``da_score`` only (:func:`slider_fields`). ``comment``: the annotator's
    optional free text on the judgment (:func:`checked_comment`)."""
    now = now or utcnow()
    comment = checked_comment(comment)
    with dbq.queue_transaction(engine) as s:
        camp = campaign_of(s, annotator_id)
        check_mode(camp.mode, label, post_edit, no_edit_needed)
        row = dbshow.slot_row(s, assignment_id)
        if row is not None and camp.mode.asks_post_edit:
            post_edit = _confirmed_post_edit(camp.mode, row.text, post_edit, no_edit_needed)
        span_fields = span_judgment_fields(s, camp, row, label, spans, esa_score)
        span_fields |= slider_fields(camp.mode, da_score, camp.likert)
        label = span_fields.pop("label", label)
        if row is None or not dbq.finish(s, assignment_id, annotator_id, claim_version, dbq.DONE):
            notice = why_refused(s, assignment_id, annotator_id)
            return build_view(s, annotator_id, camp, now, notice)
        log.append(
            s,
            output_id=row.output_id,
            annotator_id=annotator_id,
            assignment_id=assignment_id,
            kind=log.ATTENTION if row.kind == dbq.ATTENTION else log.LABEL,
            label=label,
            post_edit=post_edit,
            hter=_hter(row.text, post_edit),
            seconds=seconds,
            created_at=now,
            comment=comment,
            **span_fields,
        )
        return build_view(s, annotator_id, camp, now, None)


#: Characters of one comment (a remark on the item, not a report).
MAX_COMMENT = 2_000


def checked_comment(comment: str | None) -> str | None:
    """A comment as stored: stripped, None when empty; InvalidJudgment for a NUL byte or
    one over :data:`MAX_COMMENT` characters (the page keeps the text for a shorter try)."""
    if comment is None or not comment.strip():
        return None
    if "\x00" in comment:
        raise InvalidJudgment("the comment contains a NUL byte; remove it")
    if len(comment) > MAX_COMMENT:
        raise InvalidJudgment(
            f"the comment is {len(comment):,} characters long; keep it under {MAX_COMMENT:,}"
        )
    return comment.strip()


def _hter(shown: str, post_edit: str | None) -> float | None:
    """HTER of a post-edit against the shown output (None without one)."""
    if post_edit is None:
        return None
    from metrics.hter import hter  # imported here: sign-in does not need it

    return hter(shown, post_edit)


def span_judgment_fields(
    s: Any,
    camp: dbq.AnnotatorCampaign,
    row: dbshow.SlotRow | None,
    label: int | None,
    spans: list[dict[str, Any]] | None,
    esa_score: float | None,
    config: Any = None,
) -> dict[str, Any]:
    """The span judgment's log fields (label and MQM score derived); {} outside span mode.
    ``config``: the campaign's span settings when the caller has read them (a screen of
    several outputs reads them once); None: read here."""
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
    from annotation.judging.span_judgments import config_of, judgment_fields
    from annotation.judging.spans import SpanError

    try:
        if config is None:
            config = config_of(s, camp.id)
        return judgment_fields(config, row.text, row.source, spans, esa_score)
    except SpanError as refused:
        raise InvalidJudgment(str(refused)) from None


def slider_fields(
    mode: CampaignMode, da_score: float | None, likert: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The DA / SQM score's log field: ``da_score`` in the slider's units (0–100; SQM a
    point 0–6; a Likert scale's point index 0 … n − 1), stored 0–100
    (annotation.judging.da_judgments); {} outside those modes, where a score is refused. A
    Likert judgment also keeps its point 1 … n as the judgment's ``score`` (as a campaign
    file's human_score gives it), so the campaign export writes the point back."""
    if not mode.asks_slider:
        if da_score is not None:
            raise InvalidJudgment("this campaign does not take a slider score")
        return {}
    from annotation.judging.da_judgments import checked_score

    stored = checked_score(mode, da_score, likert)
    if likert is not None and mode == CampaignMode.DA:
        return {"da_score": stored, "score": float(da_score) + 1}  # type: ignore[arg-type]
    return {"da_score": stored}


UNTOUCHED = (
    "The post-edit box still holds the output unchanged. Edit it, or tick "
    "“No edit needed” if the output needs no correction."
)
CONTRADICTION = (
    "“No edit needed” is ticked but the text was changed. Untick it to save your "
    "edit, or undo the edit."
)


def check_mode(
    mode: str, label: int | None, post_edit: str | None, no_edit_needed: bool = False
) -> None:
    if CampaignMode(mode).asks_preference:
        raise InvalidJudgment(
            "a preference campaign takes a choice between two outputs (1, 2 or 0 for a tie), "
            "not a label: annotation.judging.preference.submit_preference"
        )
    if label is not None and label not in (0, 1):
        raise InvalidJudgment("label must be 1 (adequate) or 0 (inadequate)")
    if CampaignMode(mode).asks_slider and (label is not None or post_edit is not None):
        raise InvalidJudgment("a DA / SQM campaign takes a slider score only")
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


@retried
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
        camp = campaign_of(s, annotator_id)
        row = dbshow.slot_row(s, assignment_id)
        if row is None or not dbq.finish(
            s, assignment_id, annotator_id, claim_version, dbq.SKIPPED
        ):
            notice = why_refused(s, assignment_id, annotator_id)
            return build_view(s, annotator_id, camp, now, notice)
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
        return build_view(s, annotator_id, camp, now, None)
