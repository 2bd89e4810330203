"""Comparative mode: several systems' outputs of one source judged on one screen.

The paired design already claims every system's output of an item together
(db.queue.claim.claim_next); in comparative mode the page shows them all at once (or ``outputs``
of them per screen), in an order shuffled per annotator and item, without system names, and
one submit saves every output's judgment with its place on the screen
(annotation.judging.screen_judgments.submit_screen). Each judgment stays a per-output label on its
item, so
the paired estimators read them as paired data, and ``screen_position`` lets the dashboard
measure position bias (estimators.judgments.position_bias).

The order is a hash of (annotator, item, output): the same on every reload, different for
each annotator. With ``outputs`` = K below the item's number of outputs, the held outputs
are shown K at a time (the first K of that order, then the next ones).

An attention check is claimed alone. It is shown among its source's other outputs (the
degraded copy in its original's place), so a screen with a check looks like any other; only
the check's answer is stored, the others on that screen are not the annotator's to judge.

In an error-span campaign (cESA, as Pearmut calls it) each output on the screen gets its own
error spans and, when the campaign asks, its own ESA score; the label and MQM score of each
are derived as on the single-output span page (annotation.judging.span_judgments), so the position
bias estimator reads the derived labels.

The setting lives in ``campaigns.meta[KEY] = {"on": bool, "outputs": int | None}``; it needs
the paired design and a binary or error-span campaign, can change only before the first
label, and every change is logged with the label count (db.queue.settings.log_setting_changes).
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from annotation.campaign.meta_settings import switch_setting
from annotation.judging import session
from annotation.judging.screen_judgments import ScreenJudgment, submit_screen
from annotation.judging.undo import FINISHED_TASK, undo
from annotation.queue.build import queue_paired
from annotation.tasks import work as task_work
from db import Engine
from db.campaign.campaigns import campaign_meta
from db.clock import utcnow
from db.engine import read_scope
from db.judging import log
from db.queue import claim as dbq
from db.queue import settings as dbset
from db.queue import slot_display as dbshow
from db.schema.vocabulary import CampaignMode, SlotKind

KEY = "comparative"  # campaigns.meta[KEY]; the setting log's key
MIN_OUTPUTS, MAX_OUTPUTS = 2, 20
#: Labels, or error spans (with the ESA score when asked), per output on a screen. Post-edits
# : are not: a screen has no edit box per output (annotation.judging.screen_judgments.submit_screen
# refuses).
MODES = (CampaignMode.BINARY, CampaignMode.SPANS, CampaignMode.DA, CampaignMode.SQM)
HELP = (
    "Show all outputs of one source on one screen (or K of them at a time), shuffled per "
    "annotator, system names hidden; one submit saves each output's judgment with its place "
    "on the screen. Needs the paired design; set before the first label."
)


@dataclass(frozen=True)
class ComparativeSetting:
    on: bool = False
    outputs: int | None = None  # outputs per screen; None = all of the source's


def setting_of(meta: dict[str, Any] | None) -> ComparativeSetting:
    raw = (meta or {}).get(KEY) or {}
    outputs = raw.get("outputs")
    return ComparativeSetting(bool(raw.get("on")), int(outputs) if outputs else None)


def comparative_setting(engine: Engine, campaign_id: int) -> ComparativeSetting:
    with read_scope(engine) as s:
        return setting_of(campaign_meta(s, campaign_id))


def _logged(setting: ComparativeSetting) -> dict[str, Any]:
    return {"on": setting.on, "outputs": setting.outputs}


def set_comparative(engine: Engine, campaign_id: int, on: bool, outputs: int | None = None) -> bool:
    """Switch comparative mode; returns whether anything changed; a queue nobody has started
    on is re-spread (annotation.tasks.respread.respread_checks), as checks are a share of screens.
    ValueError (nothing
    changed): an ``outputs`` outside 2..20, an unpaired campaign, a campaign with post-edits, or
    any label already given (screens and one-at-a-time judgments would be mixed)."""
    if outputs is not None and (
        isinstance(outputs, bool) or not MIN_OUTPUTS <= int(outputs) <= MAX_OUTPUTS
    ):
        raise ValueError(
            f"outputs per screen must be a whole number from {MIN_OUTPUTS} to {MAX_OUTPUTS} "
            "(or none: all outputs of the source)"
        )
    new = ComparativeSetting(bool(on), None if outputs is None else int(outputs))
    changed = switch_setting(engine, campaign_id, KEY, new, setting_of, _logged, _check_allowed)
    if changed and _has_checks(engine, campaign_id):  # checks are a share of screens
        from annotation.tasks.batches import TaskError
        from annotation.tasks.respread import respread_checks

        with contextlib.suppress(TaskError):  # not built, or started: the queue stays
            respread_checks(engine, campaign_id)
    return changed


def _has_checks(engine: Engine, campaign_id: int) -> bool:
    with read_scope(engine) as s:
        return float(dbset.campaign_settings(s, campaign_id)["attention_rate"] or 0) > 0


def _check_allowed(s: Any, camp: Any, meta: dict[str, Any], new: ComparativeSetting) -> None:
    n = dbset.current_label_count(s, camp.id)
    if n:
        raise ValueError(
            f"the campaign has {n:,} labels already: comparative mode is set before the first "
            "label (or in a new campaign), so that all its judgments are given the same way"
        )
    if new.on and CampaignMode(camp.mode).asks_preference:
        raise ValueError(
            "a preference campaign already shows two outputs of a source side by side: "
            "comparative mode is for label, span and slider campaigns"
        )
    if new.on and not camp.paired:
        raise ValueError(
            "comparative mode needs the paired design (all systems' outputs of an item "
            "claimed together): switch `paired` on first"
        )
    if new.on and queue_paired(meta) is False:
        raise ValueError(
            "the queue was built unpaired (each output queued on its own, in random order), "
            "so a screen would show one output of one system: build the queue again in the "
            "paired design first (it has no labels yet: Annotators page, Re-build the queue, "
            "or `cli.py tasks respread`), then switch comparative mode on"
        )
    if new.on and CampaignMode(camp.mode) not in MODES:
        raise ValueError(
            "comparative mode takes binary labels, error spans or DA / SQM scores; this "
            "campaign's mode is "
            f"{CampaignMode(camp.mode).value!r}, which asks for post-edits: a post-edit is "
            "typed into one output's box, so these campaigns are judged one output at a time"
        )


# ---------------------------------------------------------------- the screen


@dataclass(frozen=True)
class ScreenOutput:
    """One output on the screen. ``assignment_id`` None: shown beside an attention check
    only (not the annotator's to judge; its answer is not stored). ``output_id``: the
    output whose text is shown (None for an attention check's or a decoy's text: nothing
    imported about the output, such as ESA^AI spans, belongs to it)."""

    text: str
    assignment_id: int | None
    claim_version: int = 0
    output_id: int | None = None


@dataclass(frozen=True)
class Screen:
    source: str
    reference: str | None
    outputs: tuple[ScreenOutput, ...]

    @property
    def size(self) -> int:
        return len(self.outputs)


def order_key(annotator_id: int, item_id: int | None, member: str) -> bytes:
    """The screen order: a hash of annotator, item and output (stable across reloads)."""
    return hashlib.blake2b(f"{annotator_id}:{item_id}:{member}".encode(), digest_size=8).digest()


def screen(engine: Engine, annotator_id: int, view: session.View) -> Screen | None:
    """The screen for the annotator's held outputs (None: nothing held). A read only."""
    if view.slot is None:
        return None
    setting = comparative_setting(engine, view.campaign.id)
    per_screen = setting.outputs or MAX_OUTPUTS
    with read_scope(engine) as s:
        rows = [dbshow.slot_row(s, i) for i in log.held_slot_ids(s, view.campaign.id, annotator_id)]
    # one source per screen: the one the session shows (after an undo the annotator may
    # hold the undone screen and the next one)
    first = next((r for r in rows if r is not None and r.output_id == view.slot.output_id), None)
    if first is None:
        return None
    rows = [r for r in rows if r is not None and (r.item_id, r.slot) == (first.item_id, first.slot)
            and r.kind == first.kind]  # fmt: skip
    if first.kind == SlotKind.ATTENTION and view.slot.group is not None:
        return _check_screen(annotator_id, first, view.slot, per_screen)
    keyed = sorted(rows, key=lambda r: order_key(annotator_id, r.item_id, str(r.output_id)))
    shown = keyed[:per_screen]
    return Screen(
        source=first.source,
        reference=view.slot.reference,
        outputs=tuple(
            ScreenOutput(
                r.text,
                r.assignment_id,
                r.claim_version,
                r.output_id if r.kind == SlotKind.REGULAR else None,
            )
            for r in shown
        ),
    )


def _check_screen(
    annotator_id: int, row: dbshow.SlotRow, slot: session.Slot, per_screen: int
) -> Screen:
    """An attention check among its source's other outputs (those are shown only)."""
    group = slot.group
    assert group is not None
    mine = group.position - 1
    members = [(f"g{k}", text) for k, text in enumerate(group.outputs) if k != mine]
    members.sort(key=lambda m: order_key(annotator_id, row.item_id, m[0]))
    members = [*members[: per_screen - 1], (f"g{mine}", row.text)]
    members.sort(key=lambda m: order_key(annotator_id, row.item_id, m[0]))
    return Screen(
        source=row.source,
        reference=slot.reference,
        outputs=tuple(
            ScreenOutput(text, row.assignment_id if key == f"g{mine}" else None,
                         row.claim_version if key == f"g{mine}" else 0)
            for key, text in members
        ),
    )  # fmt: skip


def submit(
    engine: Engine,
    annotator_id: int,
    shown: Screen,
    judgments: dict[int, dict[str, Any]],
    *,
    seconds: float | None = None,
    now: datetime | None = None,
) -> session.View:
    """Save a screen: ``judgments`` maps a screen position to that output's judgment
    (``label``, ``spans`` and ``esa_score``, or ``da_score``; ``comment``, the annotator's
    optional free text on that output). Every output the annotator
    holds on the screen needs one (InvalidJudgment, nothing saved); decoys beside a check
    are ignored. A position that is not a place on this screen, or a judgment with another
    key than :data:`JUDGMENT_KEYS`, is refused by name (InvalidJudgment)."""
    _check_judgments(shown, judgments)
    missing = [k + 1 for k, o in enumerate(shown.outputs)
               if o.assignment_id is not None and k not in judgments]  # fmt: skip
    if missing:
        raise session.InvalidJudgment(
            "judge every output on the screen before saving: output(s) "
            + ", ".join(map(str, missing))
            + " have no judgment yet"
        )
    rows = [
        ScreenJudgment(o.assignment_id, o.claim_version, k, **judgments[k])
        for k, o in enumerate(shown.outputs)
        if o.assignment_id is not None
    ]
    return submit_screen(engine, annotator_id, rows, shown.size, seconds=seconds, now=now)


JUDGMENT_KEYS = ("label", "spans", "esa_score", "da_score", "comment")


def _check_judgments(shown: Screen, judgments: Any) -> None:
    """The shape of a submitted screen: a mapping from places on this screen (whole numbers
    0..size-1) to mappings of :data:`JUDGMENT_KEYS`; the values are checked by the mode."""
    if not isinstance(judgments, dict):
        raise session.InvalidJudgment(
            f"the judgments are a {type(judgments).__name__}, not a mapping from screen "
            "positions to judgments"
        )
    for position, judgment in judgments.items():
        if isinstance(position, bool) or not isinstance(position, int):
            raise session.InvalidJudgment(
                f"screen position {position!r} is not a whole number (0 to {shown.size - 1})"
            )
        if not 0 <= position < shown.size:
            raise session.InvalidJudgment(
                f"screen position {position} is not on this screen of {shown.size} outputs "
                f"(0 to {shown.size - 1})"
            )
        if not isinstance(judgment, dict):
            raise session.InvalidJudgment(
                f"the judgment at screen position {position} is a {type(judgment).__name__}, "
                f"not a mapping of {', '.join(JUDGMENT_KEYS)}"
            )
        unknown = sorted(map(str, set(judgment) - set(JUDGMENT_KEYS)))
        if unknown:
            raise session.InvalidJudgment(
                f"the judgment at screen position {position} has unknown key(s) "
                f"{', '.join(map(repr, unknown))}: a screen judgment takes "
                f"{', '.join(JUDGMENT_KEYS)}"
            )


@session.retried
def undo_screen(engine: Engine, annotator_id: int, now: datetime | None = None) -> session.View:
    """Take back the annotator's last screen whole (one ``undo`` row per output, its slots
    theirs again); a judgment given alone is undone as annotation.judging.undo.undo does."""
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = session.campaign_of(s, annotator_id)  # the annotator's lock: one undo at a time
        rows = log.last_screen(s, annotator_id)
        if rows:
            if not task_work.undo_allowed(s, rows[0].assignment_id, annotator_id):
                return session.build_view(s, annotator_id, camp, now, FINISHED_TASK)
            for r in rows:
                log.append(s, output_id=r.output_id, annotator_id=annotator_id,
                           assignment_id=r.assignment_id, kind=log.UNDO,
                           supersedes_id=r.annotation_id, created_at=now)  # fmt: skip
                if r.assignment_id is not None:
                    dbq.reclaim_for_undo(s, r.assignment_id, annotator_id, now)
            undone = ScreenUndone(what=f"your judgments of the {len(rows)} outputs of your "
                                  "last screen", ordinal=len(rows), excerpt=None)  # fmt: skip
            return session.build_view(s, annotator_id, camp, now, None, undone)
    return undo(engine, annotator_id, now)


@dataclass(frozen=True)
class ScreenUndone(session.Undone):
    """What an undo of a whole screen took back."""

    @property
    def message(self) -> str:
        return f"Undone: {self.what}. The screen is shown again: judge it anew."


# ---------------------------------------------------------------- position bias


def position_bias(engine: Engine, campaign_id: int, alpha: float = 0.05) -> Any:
    """Position bias of the campaign's comparative labels (estimators.judgments.position_bias) on
    its
    most common screen size; None when fewer than two complete screens exist."""
    import numpy as np

    from estimators.judgments.position_bias import position_bias as estimate
    from estimators.judgments.position_bias import screens_matrix

    with read_scope(engine) as s:
        rows = log.screen_labels(s, campaign_id)
    if not rows:
        return None
    sizes = [r[3] for r in rows]
    size = max(set(sizes), key=sizes.count)
    kept = [r for r in rows if r[3] == size]
    screen = np.array([f"{r[0]}|{r[1].isoformat()}" for r in kept])
    y = screens_matrix(screen, np.array([r[2] for r in kept]), np.array([r[4] for r in kept]), size)
    return estimate(y, binary=True, alpha=alpha)
