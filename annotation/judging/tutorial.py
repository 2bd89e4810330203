"""Tutorials and validated checks before an annotator's first real item, as Pearmut and
Potato start annotators (items with feedback, silent checks) and as Prolific asks of a
comprehension check (two attempts; who fails both is asked to return the study).

Each item (annotation.judging.tutorial_items) expects a label, a score range or error spans
(annotation.judging.tutorial_checks grades the answer) and is loud (the annotator sees what
the answer missed and the item's warning) or silent (recorded only, not in the pass mark:
80 % of the loud items, rounded up, unless set). A round of all items is one attempt; the
annotator proceeds when an attempt reaches the pass mark, gets a second attempt after a
failed first, and is stopped after two; a third is refused in words. :func:`pending` is
asked by every action of the annotator (annotation.judging.session.campaign_of), so no page
or call gets around it. Every answer is kept whole per annotator in its own table
(``tutorial_answers``, db.judging.tutorial), never in ``annotations``: no estimator reads it.
The tutorial lives in ``campaigns.meta[KEY]``; a change goes to the setting log.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from annotation.judging import tutorial_checks as checks
from annotation.judging.tutorial_items import (
    MAX_ITEMS,
    TutorialError,
    TutorialItem,
    chosen_side,
    fits_mode,
    item_of,
    pair_sides,
    parse_csv,
    parse_file,
    shown_item,
    stored,
    written_item,
)
from db import Engine
from db.campaign.campaigns import campaign_meta, campaign_mode, set_campaign_meta_key
from db.engine import read_scope
from db.judging import tutorial as dbtut
from db.queue import claim as dbq
from db.queue import settings as dbset
from db.schema.vocabulary import CampaignMode

KEY = "tutorial"
ATTEMPTS = 2  # Prolific: a comprehension check gives two attempts
#: Names other modules take from here (the items and their files: tutorial_items).
__all__ = ["MAX_ITEMS", "TutorialError", "TutorialItem", "parse_csv", "parse_file",
           "written_item"]  # fmt: skip


@dataclass(frozen=True)
class Tutorial:
    items: tuple[TutorialItem, ...]
    pass_needed: int

    @property
    def loud(self) -> tuple[int, ...]:
        """The indexes of the items that give feedback and count towards the pass mark."""
        return tuple(k for k, it in enumerate(self.items) if not it.silent)

    @property
    def rule_text(self) -> str:
        silent = len(self.items) - len(self.loud)
        checks_text = f" ({silent} silent check(s), recorded only)" if silent else ""
        return (
            f"{len(self.items)} tutorial item(s){checks_text}; {self.pass_needed} of "
            f"{len(self.loud)} right to pass; {ATTEMPTS} attempts"
        )


@dataclass(frozen=True)
class Status:
    """Where an annotator stands: ``todo`` (``item`` to answer, in ``attempt``), ``passed``
    or ``failed`` (two attempts below the pass mark)."""

    state: str
    attempt: int
    index: int
    item: TutorialItem | None
    total: int
    pass_needed: int
    right_so_far: int
    #: the campaign's mode: what the tutorial's screen asks for (a label, a score, spans)
    mode: CampaignMode = CampaignMode.BINARY


@dataclass(frozen=True)
class Feedback:
    right: bool
    expected: int | None
    explanation: str
    #: after the attempt's last item: passed | retry | failed; None mid-attempt
    outcome: str | None
    score: int
    total: int
    #: what the answer missed, in the annotator's words ([] when right)
    problems: tuple[str, ...] = ()
    #: the item's warning, shown when the answer was wrong
    warning: str | None = None
    #: a silent check: nothing of this is shown to the annotator
    silent: bool = False
    expects: str = ""
    #: the item's output and the answer given, in words ("score 40 · “walked” minor")
    output: str = ""
    given: str = ""


THIRD_ATTEMPT = (
    "You have used both attempts at the tutorial: a third attempt is not allowed, and this "
    "answer was not recorded."
)
PASSED_ALREADY = "You passed the tutorial already: this answer was not recorded."
PENDING = (
    "Finish the tutorial before the task: nothing was saved. Reload the page to see the tutorial."
)
FAILED = (
    "You did not pass the tutorial in two attempts, so this answer was not saved. Thank you "
    "for your time; please return the study on your platform."
)


def tutorial_of(meta: dict[str, Any] | None) -> Tutorial | None:
    raw = (meta or {}).get(KEY)
    if not isinstance(raw, dict) or not raw.get("items"):
        return None
    items = tuple(item_of(i) for i in raw["items"])
    need = raw.get("pass_needed")
    return Tutorial(items, int(need) if need is not None else default_pass_mark(items))


def default_pass_mark(items: tuple[TutorialItem, ...] | list[TutorialItem]) -> int:
    """80 % of the items that give feedback, rounded up (0 when all are silent checks)."""
    return math.ceil(0.8 * sum(1 for it in items if not it.silent))


def tutorial(engine: Engine, campaign_id: int) -> Tutorial | None:
    with read_scope(engine) as s:
        return tutorial_of(campaign_meta(s, campaign_id))


def set_tutorial(
    engine: Engine, campaign_id: int, items: list[TutorialItem], pass_needed: int | None = None
) -> Tutorial | None:
    """Set the campaign's tutorial (an empty list removes it); logged. TutorialError
    (nothing changed) for an empty text, a feedback item without an explanation, an
    expectation the campaign's screen does not ask for, over 50 items, or a pass mark
    outside 1..(items with feedback)."""
    if len(items) > MAX_ITEMS:
        raise TutorialError(f"a tutorial has at most {MAX_ITEMS} items ({len(items)} given)")
    for k, it in enumerate(items, start=1):
        if not it.source or not it.output or not (it.explanation or it.silent or it.warning):
            raise TutorialError(f"tutorial item {k} needs a source, an output and an explanation")
        if it.label not in (0, 1, None):
            raise TutorialError(f"tutorial item {k}: the expected label is 0 or 1")
    loud = sum(1 for it in items if not it.silent)
    need = pass_needed if pass_needed is not None else default_pass_mark(items)
    if items and not (1 if loud else 0) <= need <= loud:
        raise TutorialError(f"the pass mark must be from 1 to {loud}, not {need}")
    new = {"items": [stored(i) for i in items], "pass_needed": need} if items else None
    with dbq.queue_transaction(engine) as s:
        camp = dbset.campaign_for_update(s, campaign_id)
        for k, it in enumerate(items, start=1):
            fits_mode(it, CampaignMode(camp.mode), k)
        old = tutorial_of(campaign_meta(s, campaign_id))
        was = None if old is None else {"items": len(old.items), "pass_needed": old.pass_needed}
        now = None if new is None else {"items": len(items), "pass_needed": need}
        if was != now or new is not None:
            dbset.log_setting_changes(s, campaign_id, {KEY: (was, now)})
        set_campaign_meta_key(s, campaign_id, KEY, new)
    return tutorial_of({KEY: new})


def _status(tut: Tutorial, rows: list[tuple]) -> Status:  # type: ignore[type-arg]
    n = len(tut.items)
    loud = set(tut.loud)
    by_attempt: dict[int, list[tuple[int, bool]]] = {}
    for row in rows:
        by_attempt.setdefault(int(row[1]), []).append((int(row[2]), bool(row[4])))

    def right(answers: list[tuple[int, bool]]) -> int:
        return sum(ok for index, ok in answers if index in loud)

    done = [a for a, r in sorted(by_attempt.items()) if len(r) >= n]
    passed = [a for a in done if right(by_attempt[a]) >= tut.pass_needed]
    if passed:
        return Status("passed", passed[0], n, None, n, tut.pass_needed, 0)
    if len(done) >= ATTEMPTS:
        return Status("failed", len(done), n, None, n, tut.pass_needed, 0)
    attempt = len(done) + 1
    current = by_attempt.get(attempt, [])
    index = len(current)
    return Status("todo", attempt, index, tut.items[index], n, tut.pass_needed, right(current))


def status(engine: Engine, campaign_id: int, annotator_id: int) -> Status | None:
    """Where the annotator stands (None: the campaign has no tutorial)."""
    with read_scope(engine) as s:
        tut = tutorial_of(campaign_meta(s, campaign_id))
        if tut is None:
            return None
        now = _status(tut, dbtut.answers(s, campaign_id, annotator_id))
        return replace(now, mode=CampaignMode(campaign_mode(s, campaign_id) or "binary"))


def pending(
    s: Any, campaign_id: int, annotator_id: int, stored: dict[str, Any] | None = None
) -> str | None:
    """Why the annotator may not judge real items yet (inside their action's transaction:
    the tutorial unfinished, or failed twice), None when they may. Every action of an
    annotator asks this (annotation.judging.session.campaign_of), so no page, tab or call
    gets around the tutorial. ``stored``: the tutorial as the caller read it with the
    campaign (one query fewer)."""
    tut = tutorial_of({KEY: stored} if stored is not None else campaign_meta(s, campaign_id))
    if tut is None:
        return None
    now = _status(tut, dbtut.answers(s, campaign_id, annotator_id))
    if now.state == "passed":
        return None
    return FAILED if now.state == "failed" else PENDING


def answer(
    engine: Engine, campaign_id: int, annotator_id: int, index: int, label: int | None = None,
    *, score: float | None = None, spans: list[dict[str, Any]] | None = None,
    preference: str | None = None,
) -> Feedback:  # fmt: skip
    """Record the annotator's answer to tutorial item ``index`` of their current attempt and
    say whether it was right and why. TutorialError (nothing written) when it is not their
    turn for that item (a double click, a stale page), the tutorial is passed, or both
    attempts are used (a third is refused, :data:`THIRD_ATTEMPT`). ``preference``: a pair
    item's answer as shown — "left", "right" or "tie" — the sides those of
    :func:`pair_sides`."""
    if preference not in ("left", "right", "tie", None):
        raise TutorialError("a tutorial preference is 'left', 'right' or 'tie'")
    if label not in (0, 1, None):
        raise TutorialError("a tutorial answer is 1 (adequate) or 0 (inadequate)")
    if score is not None and (not isinstance(score, int | float) or not 0 <= score <= 100):
        raise TutorialError("a tutorial score is a number from 0 to 100")
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)  # one answer at a time per campaign
        tut = tutorial_of(campaign_meta(s, campaign_id))
        if tut is None:
            raise TutorialError("this campaign has no tutorial")
        now = _status(tut, dbtut.answers(s, campaign_id, annotator_id))
        if now.state == "failed":
            raise TutorialError(THIRD_ATTEMPT)
        if now.state == "passed":
            raise TutorialError(PASSED_ALREADY)
        if now.index != index:
            raise TutorialError("this tutorial item was answered already: the page moves on")
        item = tut.items[index]
        given = _checked_spans(item, spans)
        first_left = pair_sides(annotator_id, index)
        chosen = chosen_side(preference, first_left)
        shown = ("left", "right") if first_left else ("right", "left")
        problems = checks.grade(item, label, score, given, chosen, shown)
        right = not problems
        stored = {"label": label, "score": score, "spans": given, "problems": problems,
                  **({"preference": chosen} if chosen else {})}  # fmt: skip
        dbtut.add_answer(s, campaign_id, annotator_id, now.attempt, index, label, right,
                         datetime.now(UTC), stored)  # fmt: skip
        tally = now.right_so_far + int(right and not item.silent)
        outcome = None
        if index + 1 == len(tut.items):
            if tally >= tut.pass_needed:
                outcome = "passed"
            else:
                outcome = "retry" if now.attempt < ATTEMPTS else "failed"
        return Feedback(right, item.label, item.explanation, outcome, tally, len(tut.loud),
                        tuple(problems), item.warning, item.silent, *shown_item(item, shown),
                        _given(item, label, score, given, chosen, shown))  # fmt: skip


def _given(item: TutorialItem, label: int | None, score: float | None,
           spans: list[dict[str, Any]] | None, chosen: str | None = None,
           shown: tuple[str, str] = ("first", "second")) -> str:  # fmt: skip
    """The answer in words, for the feedback beside what was expected."""
    parts = [] if chosen is None else [checks.choice_words(chosen, shown)]
    if label is not None:
        parts.append("adequate" if label else "inadequate")
    if score is not None:
        parts.append(f"score {score:g}")
    if spans is not None:
        marks = []
        for sp in spans:
            if sp.get("side") == "source" and sp["start"] == sp["end"]:
                marks.append(f"an omission ({sp['severity']})")
            else:
                text = item.output if sp.get("side", "target") == "target" else item.source
                marks.append(f"“{text[sp['start'] : sp['end']]}” ({sp['severity']})")
        parts.append("errors: " + ", ".join(marks) if marks else "no errors")
    return " · ".join(parts)


def _checked_spans(
    item: TutorialItem, spans: list[dict[str, Any]] | None
) -> list[dict[str, Any]] | None:
    """The answer's spans validated against the item's texts (as a judgment's are)."""
    if spans is None:
        return None
    from annotation.judging.spans import SpanError, parse_spans

    try:
        return [p.to_json() for p in parse_spans(spans, item.output, item.source, None)]
    except SpanError as refused:
        raise TutorialError(str(refused)) from None


def _tally(tut: Tutorial, mine: list[tuple]) -> tuple[Status, int, int, int]:  # type: ignore[type-arg]
    """Status, right feedback answers in the deciding attempt, silent checks right and
    answered (every attempt)."""
    st = _status(tut, mine)
    loud = set(tut.loud)
    score = sum(1 for r in mine if r[1] == st.attempt and r[4] and r[2] in loud)
    silent = [r for r in mine if r[2] not in loud]
    return st, score, sum(1 for r in silent if r[4]), len(silent)


def results(engine: Engine, campaign_id: int) -> dict[int, str]:
    """Annotator id → their tutorial result for the Annotators page ("passed (attempt 1,
    5/5)", "failed (2 attempts)", "in progress"; "· silent checks 1/2" when there are
    some); empty without a tutorial."""
    with read_scope(engine) as s:
        tut = tutorial_of(campaign_meta(s, campaign_id))
        if tut is None:
            return {}
        rows = dbtut.answers(s, campaign_id)
    by: dict[int, list[tuple]] = {}  # type: ignore[type-arg]
    for r in rows:
        by.setdefault(int(r[0]), []).append(r)
    out = {}
    for annotator, mine in by.items():
        st, score, silent_right, silent_n = _tally(tut, mine)
        if st.state == "passed":
            text = f"passed (attempt {st.attempt}, {score}/{len(tut.loud)})"
        elif st.state == "failed":
            text = f"failed ({ATTEMPTS} attempts)"
        else:
            text = f"in progress (attempt {st.attempt})"
        if silent_n:
            text += f" · silent checks {silent_right}/{silent_n}"
        out[annotator] = text
    return out


ANSWER_COLUMNS = ("annotator", "attempt", "item", "kind", "expects", "right", "label", "score",
                  "spans", "preference", "problems", "answered_at")  # fmt: skip


def answer_rows(engine: Engine, campaign_id: int) -> list[dict[str, Any]]:
    """Every tutorial and check answer of the campaign, one row each (the export's
    ``tutorial_answers`` table): who, which attempt and item, what it expected, what was
    given and what it missed."""
    with read_scope(engine) as s:
        tut = tutorial_of(campaign_meta(s, campaign_id))
        rows = dbtut.answer_details(s, campaign_id)
    out = []
    for name, attempt, index, label, correct, kept, at in rows:
        item = tut.items[index] if tut is not None and index < len(tut.items) else None
        kept = kept or {}
        given = kept.get("spans")
        out.append({
            "annotator": name, "attempt": attempt, "item": index + 1,
            "kind": "" if item is None else ("silent check" if item.silent else "tutorial"),
            "expects": "" if item is None else item.expects, "right": bool(correct),
            "label": label, "score": kept.get("score"),
            "spans": "" if given is None else json.dumps(given, ensure_ascii=False),
            "preference": kept.get("preference") or "",
            "problems": "; ".join(kept.get("problems") or ()), "answered_at": at,
        })  # fmt: skip
    return out
