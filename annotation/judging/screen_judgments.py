"""Comparative screens: every output of a screen saved with its place on it, all or nothing
(annotation.judging.comparative builds the screens)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from annotation.judging.save import (
    check_mode,
    checked_comment,
    slider_fields,
    span_judgment_fields,
    why_refused,
)
from annotation.judging.session import InvalidJudgment, View, build_view, campaign_of, retried
from db import Engine
from db.campaign.campaigns import campaign_meta
from db.clock import utcnow
from db.judging import log
from db.queue import claim as dbq
from db.queue import slot_display as dbshow


@dataclass(frozen=True)
class ScreenJudgment:
    """One output's judgment on a comparative screen: its held slot, its 0-based place on
    the screen, and the judgment in the campaign's mode (a label, spans and ESA score, or a
    DA / SQM score in the slider's units), with the annotator's optional free-text comment
    on that output (annotation.judging.save.checked_comment)."""

    assignment_id: int
    claim_version: int
    position: int
    label: int | None = None
    spans: list[dict[str, Any]] | None = None
    esa_score: float | None = None
    da_score: float | None = None
    comment: str | None = None


class _ScreenLost(Exception):
    """A slot of the screen could not be finished: roll the whole screen back."""

    def __init__(self, assignment_id: int) -> None:
        self.assignment_id = assignment_id


@retried
def submit_screen(
    engine: Engine,
    annotator_id: int,
    judgments: list[ScreenJudgment],
    screen_size: int,
    *,
    seconds: float | None = None,
    now: datetime | None = None,
) -> View:
    """Save every output of a comparative screen with its place on it, in ONE transaction,
    and return the next view. All or nothing: an invalid judgment raises
    :class:`InvalidJudgment`, and a slot whose claim was lost rolls the whole screen back
    (the view says so); nothing is saved in either case. The checks are
    :func:`annotation.judging.save.submit`'s. ``seconds`` (the screen's time) is shared equally by
    its outputs."""
    now = now or utcnow()
    _check_screen(judgments, screen_size)
    share = None if seconds is None else round(seconds / len(judgments), 3)
    try:
        with dbq.queue_transaction(engine) as s:
            camp = campaign_of(s, annotator_id)
            rows = _check_real_screen(s, camp, annotator_id, judgments, screen_size)
            config = _span_config(s, camp)
            for j in judgments:
                _save_on_screen(s, camp, annotator_id, j, screen_size, share, now,
                                rows[j.assignment_id], config)  # fmt: skip
            return build_view(s, annotator_id, camp, now, None)
    except _ScreenLost as lost:
        with dbq.queue_transaction(engine) as s:
            camp = campaign_of(s, annotator_id)
            notice = why_refused(s, lost.assignment_id, annotator_id)
            return build_view(s, annotator_id, camp, now, notice)


#: The most outputs a screen shows (annotation.judging.comparative.MAX_OUTPUTS).
MAX_SCREEN = 20


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_screen(judgments: list[ScreenJudgment], screen_size: int) -> None:
    """The screen's shape, before anything is read or written: whole numbers for the size,
    slots, claim versions and positions, and a size the screen can have."""
    if not isinstance(judgments, list | tuple) or not judgments:
        raise InvalidJudgment("a screen needs at least one judgment")
    if not all(isinstance(j, ScreenJudgment) for j in judgments):
        raise InvalidJudgment("every judgment of a screen is a ScreenJudgment")
    if not _whole(screen_size) or not 1 <= screen_size <= MAX_SCREEN:
        raise InvalidJudgment(
            f"screen_size {screen_size!r} is not a whole number from 1 to {MAX_SCREEN}"
        )
    for j in judgments:
        for name in ("assignment_id", "claim_version", "position"):
            if not _whole(getattr(j, name)):
                raise InvalidJudgment(f"{name} {getattr(j, name)!r} is not a whole number")
    positions = sorted(j.position for j in judgments)
    if len(set(positions)) != len(positions) or positions[0] < 0 or positions[-1] >= screen_size:
        raise InvalidJudgment(
            f"screen positions {positions} are not distinct places on a screen of {screen_size}"
        )
    if len({j.assignment_id for j in judgments}) != len(judgments):
        raise InvalidJudgment("one output appears twice on the screen")
    for j in judgments:  # before any write: a comment refused names its output
        try:
            checked_comment(j.comment)
        except InvalidJudgment as refused:
            raise InvalidJudgment(f"output {j.position + 1}: {refused}") from None


def _span_config(s: Any, camp: dbq.AnnotatorCampaign) -> Any:
    """The campaign's span settings, read once for the whole screen (None: no spans)."""
    if not camp.mode.asks_spans:
        return None
    # Imported here: span_judgments brings numpy (agreement), which sign-in does not need.
    from annotation.judging.span_judgments import config_of

    return config_of(s, camp.id)


def _check_real_screen(
    s: Any, camp: dbq.AnnotatorCampaign, annotator_id: int, judgments: list[ScreenJudgment],
    screen_size: int,
) -> dict[int, dbshow.SlotRow | None]:  # fmt: skip
    """The submitted screen is the one the annotator holds: a screen of regular outputs
    judges the annotator's held outputs of one source, all of them (or the first
    ``outputs`` per screen), and its ``screen_size`` is their number, since the
    position-bias analysis and cESA read the stored size. (A check's screen holds one slot
    of the annotator's among decoys: its size is the group's, checked against the limit.)
    A slot no longer held is left to the save's compare-and-set (the view says why).
    Returns the judged slots' rows, read once for the checks and the saves."""
    by_id = {j.assignment_id: dbshow.slot_row(s, j.assignment_id) for j in judgments}
    rows = list(by_id.values())
    first = next((r for r in rows if r is not None and r.annotator_id == annotator_id), None)
    if first is None or first.kind == dbq.ATTENTION:
        return by_id
    meta = campaign_meta(s, camp.id) or {}
    per_screen = (meta.get("comparative") or {}).get("outputs") or MAX_SCREEN
    held = [by_id[i] if i in by_id else dbshow.slot_row(s, i)
            for i in log.held_slot_ids(s, camp.id, annotator_id)]  # fmt: skip
    key = (first.item_id, first.slot, first.kind)
    same = {r.assignment_id for r in held if r is not None and (r.item_id, r.slot, r.kind) == key}
    judged = {j.assignment_id for j in judgments}
    if not judged <= same:
        raise InvalidJudgment("the screen mixes outputs of different sources (or checks)")
    expected = min(len(same), int(per_screen))
    if screen_size != expected or len(judged) != expected:
        raise InvalidJudgment(
            f"screen_size {screen_size} with {len(judged)} judgment(s) does not match the "
            f"screen: it shows {expected} outputs of this source to judge"
        )
    return by_id


def _save_on_screen(
    s: Any,
    camp: dbq.AnnotatorCampaign,
    annotator_id: int,
    j: ScreenJudgment,
    screen_size: int,
    seconds: float | None,
    now: datetime,
    row: dbshow.SlotRow | None,
    config: Any,
) -> None:
    """One output of a screen (``row``: its slot, as the checks read it in this transaction;
    ``config``: the campaign's span settings), with :func:`annotation.judging.save.submit`'s
    checks (raises; never half-saves)."""
    if camp.mode.asks_post_edit:
        raise InvalidJudgment("a comparative screen takes no post-edits")
    check_mode(camp.mode, j.label, None)
    span_fields = span_judgment_fields(s, camp, row, j.label, j.spans, j.esa_score, config)
    label = span_fields.pop("label", j.label)
    span_fields |= slider_fields(camp.mode, j.da_score, camp.likert)
    if row is None or not dbq.finish(s, j.assignment_id, annotator_id, j.claim_version, dbq.DONE):
        raise _ScreenLost(j.assignment_id)
    log.append(
        s,
        output_id=row.output_id,
        annotator_id=annotator_id,
        assignment_id=j.assignment_id,
        kind=log.ATTENTION if row.kind == dbq.ATTENTION else log.LABEL,
        label=label,
        seconds=seconds,
        created_at=now,
        screen_position=j.position,
        screen_size=screen_size,
        comment=checked_comment(j.comment),
        **span_fields,
    )
