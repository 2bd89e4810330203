"""Preference mode: two outputs of one source side by side; the annotator says which is
better, or that they tie.

The queue drew the pair with a recorded probability (annotation.queue.pairs). Which output
is shown on the left is decided per judgment, by a hash of (annotator, slot): random across
annotators and slots, the same on every reload of the page (so a reload shows the same
screen), and recorded with the judgment (``screen_position``: 0 if ``output_id`` was on
the left, 1 if on the right), so position bias can be measured. One judgment is one row of
the append-only log (db.judging.log): ``output_id`` and ``pair_output_id`` the two outputs,
``preference`` 1.0 / 0.5 / 0.0 for ``output_id`` preferred / a tie / the other preferred,
an optional ``strength`` ("slightly" or "clearly"; none for a tie) and one-line
``reason``, and the pair's ``inclusion_prob``. Undo and skip are the other modes' own
(annotation.judging.undo, annotation.judging.save.skip): one slot, one row.

An attention check shows a real output beside its degraded copy (the same ``output_id``
twice); it passes when the original is preferred, not tied. Its row stores ``label`` 0 when
the original won (the check's expected label, as for a binary check: the degraded copy is
not adequate) and 1 otherwise, so tasks and the Annotators page grade it as any check;
``preference`` and ``screen_position`` refer to the original.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from annotation.judging.save import why_refused
from annotation.judging.session import InvalidJudgment, View, build_view, campaign_of, retried
from annotation.judging.sides import first_on_left
from db import Engine
from db.clock import utcnow
from db.judging import log
from db.queue import claim as dbq
from db.queue import slot_display as dbshow

LEFT, RIGHT, TIE = "left", "right", "tie"
CHOICES = (LEFT, RIGHT, TIE)
STRENGTHS = ("slightly", "clearly")
MAX_REASON = 300  # characters of the one-line reason


@dataclass(frozen=True)
class PairScreen:
    """What the page shows: the source (and reference) and the two texts, left and right."""

    assignment_id: int
    claim_version: int
    source: str
    reference: str | None
    left: str
    right: str


def pair_screen(annotator_id: int, view: View) -> PairScreen | None:
    """The screen of the held pair (None: nothing held, or not a pair slot)."""
    slot = view.slot
    if slot is None or slot.pair_text is None:
        return None
    first, second = slot.text, slot.pair_text
    if not first_on_left(annotator_id, slot.assignment_id):
        first, second = second, first
    return PairScreen(
        slot.assignment_id, slot.claim_version, slot.source, slot.reference, first, second
    )


def checked_choice(
    choice: object, strength: object, reason: object
) -> tuple[str, str | None, str | None]:
    """The judgment's fields as stored: the choice, the strength (None for a tie or when not
    given) and the reason (whitespace collapsed to one line; None when empty).
    InvalidJudgment names what is wrong."""
    if choice not in CHOICES:
        raise InvalidJudgment(
            f"a preference is {LEFT!r} (key 1), {RIGHT!r} (key 2) or {TIE!r} (key 0), "
            f"not {choice!r}"
        )
    if strength is not None and strength not in STRENGTHS:
        raise InvalidJudgment(
            f"the strength is 'slightly' or 'clearly' (or none), not {strength!r}"
        )
    if reason is not None and not isinstance(reason, str):
        raise InvalidJudgment(f"the reason is one line of text, not a {type(reason).__name__}")
    line = " ".join((reason or "").split())
    if len(line) > MAX_REASON:
        raise InvalidJudgment(
            f"the reason has {len(line):,} characters: keep it to one line of at most {MAX_REASON}"
        )
    return str(choice), None if choice == TIE else strength, line or None  # type: ignore[return-value]


@retried
def submit_preference(
    engine: Engine,
    annotator_id: int,
    assignment_id: int,
    claim_version: int,
    choice: str,
    *,
    strength: str | None = None,
    reason: str | None = None,
    seconds: float | None = None,
    now: datetime | None = None,
) -> View:
    """Record the annotator's preference for the held pair and return the next view, in one
    transaction. ``choice``: ``"left"``, ``"right"`` or ``"tie"`` as the page showed the
    pair (:func:`first_on_left` says which output that was). A slot whose claim was lost
    saves nothing and the view says why (annotation.judging.save.why_refused)."""
    now = now or utcnow()
    choice, strength, reason = checked_choice(choice, strength, reason)
    with dbq.queue_transaction(engine) as s:
        camp = campaign_of(s, annotator_id)
        if not camp.mode.asks_preference:
            raise InvalidJudgment(
                f"this campaign's mode is {camp.mode.value!r}: it takes no preferences"
            )
        row = dbshow.slot_row(s, assignment_id)
        if row is not None and row.pair_output_id is None:
            raise InvalidJudgment("this slot shows one output: it is not a pair to compare")
        if row is None or not dbq.finish(s, assignment_id, annotator_id, claim_version, dbq.DONE):
            return build_view(
                s, annotator_id, camp, now, why_refused(s, assignment_id, annotator_id)
            )
        check = row.kind == dbq.ATTENTION
        # output_id's side: the slot's first text, or for a check the original (second)
        output_left = first_on_left(annotator_id, assignment_id) != check
        won = {LEFT: 1.0, RIGHT: 0.0, TIE: 0.5}[choice]
        preference = won if output_left else 1.0 - won
        log.append(
            s,
            output_id=row.output_id,
            annotator_id=annotator_id,
            assignment_id=assignment_id,
            kind=log.ATTENTION if check else log.LABEL,
            label=(0 if preference == 1.0 else 1) if check else None,
            seconds=seconds,
            created_at=now,
            screen_position=0 if output_left else 1,
            screen_size=2,
            pair_output_id=row.pair_output_id,
            preference=preference,
            strength=strength,
            reason=reason,
            inclusion_prob=dbshow.slot_inclusion_prob(s, assignment_id),
        )
        return build_view(s, annotator_id, camp, now, None)
