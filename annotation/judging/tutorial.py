"""Tutorial items and a comprehension check before an annotator's first real item, as
Pearmut and Potato start annotators (tutorial items with feedback) and as Prolific asks of
a comprehension check (two attempts; who fails both is asked to return the study).

The organiser gives the tutorial as items with the expected label and an explanation
(``cli.py tutorial --campaign NAME --file tutorial.csv``: columns ``source, output,
expected_label, explanation``, optional ``reference``), and how many must be right to pass
(default: 80 %, rounded up). The annotator answers them one by one and sees after each
whether it was right and why; a round of all items is one attempt; they proceed when an
attempt reaches the pass mark, get a second attempt after a first failed one, and are
stopped after two failed attempts. Every answer is logged per annotator in its own table
(``tutorial_answers``, db.judging.tutorial), never in ``annotations``: no estimator reads it. The
tutorial lives in ``campaigns.meta[KEY]``; a change goes to the setting log.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from db import Engine
from db.campaign.campaigns import campaign_meta, set_campaign_meta_key
from db.engine import read_scope
from db.judging import tutorial as dbtut
from db.queue import claim as dbq
from db.queue import settings as dbset

KEY = "tutorial"
ATTEMPTS = 2  # Prolific: a comprehension check gives two attempts
MAX_ITEMS = 50


class TutorialError(ValueError):
    """A tutorial that cannot be set, or an answer out of turn; nothing was changed."""


@dataclass(frozen=True)
class TutorialItem:
    source: str
    output: str
    expected: int  # 1 adequate, 0 inadequate
    explanation: str
    reference: str | None = None


@dataclass(frozen=True)
class Tutorial:
    items: tuple[TutorialItem, ...]
    pass_needed: int

    @property
    def rule_text(self) -> str:
        return (
            f"{len(self.items)} tutorial item(s); {self.pass_needed} right to pass; "
            f"{ATTEMPTS} attempts"
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


@dataclass(frozen=True)
class Feedback:
    right: bool
    expected: int
    explanation: str
    #: after the attempt's last item: passed | retry | failed; None mid-attempt
    outcome: str | None
    score: int
    total: int


def tutorial_of(meta: dict[str, Any] | None) -> Tutorial | None:
    raw = (meta or {}).get(KEY)
    if not isinstance(raw, dict) or not raw.get("items"):
        return None
    items = tuple(TutorialItem(**i) for i in raw["items"])
    return Tutorial(items, int(raw.get("pass_needed") or math.ceil(0.8 * len(items))))


def tutorial(engine: Engine, campaign_id: int) -> Tutorial | None:
    with read_scope(engine) as s:
        return tutorial_of(campaign_meta(s, campaign_id))


def parse_csv(data: bytes) -> list[TutorialItem]:
    """Tutorial items of a CSV (``source, output, expected_label, explanation``, optional
    ``reference``); TutorialError naming the row for anything missing or wrong."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TutorialError("the tutorial file is not UTF-8 text") from exc
    rows = list(csv.DictReader(io.StringIO(text)))
    need = {"source", "output", "expected_label", "explanation"}
    missing = need - set(rows[0] if rows else ())
    if missing:
        raise TutorialError(f"the tutorial file needs the column(s) {', '.join(sorted(missing))}")
    items = []
    for k, r in enumerate(rows, start=2):
        label = (r["expected_label"] or "").strip().lower()
        if label not in ("0", "1", "adequate", "inadequate"):
            raise TutorialError(
                f"row {k}: expected_label must be 1/adequate or 0/inadequate, not {label!r}"
            )
        items.append(
            TutorialItem(
                source=(r["source"] or "").strip(),
                output=(r["output"] or "").strip(),
                expected=1 if label in ("1", "adequate") else 0,
                explanation=(r["explanation"] or "").strip(),
                reference=(r.get("reference") or "").strip() or None,
            )
        )
    return items


def set_tutorial(
    engine: Engine, campaign_id: int, items: list[TutorialItem], pass_needed: int | None = None
) -> Tutorial | None:
    """Set the campaign's tutorial (an empty list removes it); logged. TutorialError
    (nothing changed) for an empty text or explanation, a label not 0/1, over 50 items, or
    a pass mark outside 1..items."""
    if len(items) > MAX_ITEMS:
        raise TutorialError(f"a tutorial has at most {MAX_ITEMS} items ({len(items)} given)")
    for k, it in enumerate(items, start=1):
        if not it.source or not it.output or not it.explanation:
            raise TutorialError(f"tutorial item {k} needs a source, an output and an explanation")
        if it.expected not in (0, 1):
            raise TutorialError(f"tutorial item {k}: the expected label is 0 or 1")
    need = pass_needed if pass_needed is not None else math.ceil(0.8 * len(items))
    if items and not 1 <= need <= len(items):
        raise TutorialError(f"the pass mark must be from 1 to {len(items)}, not {need}")
    new = {"items": [asdict(i) for i in items], "pass_needed": need} if items else None
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        old = tutorial_of(campaign_meta(s, campaign_id))
        was = None if old is None else {"items": len(old.items), "pass_needed": old.pass_needed}
        now = None if new is None else {"items": len(items), "pass_needed": need}
        if was != now or new is not None:
            dbset.log_setting_changes(s, campaign_id, {KEY: (was, now)})
        set_campaign_meta_key(s, campaign_id, KEY, new)
    return tutorial_of({KEY: new})


def _status(tut: Tutorial, rows: list[tuple]) -> Status:  # type: ignore[type-arg]
    n = len(tut.items)
    by_attempt: dict[int, list[bool]] = {}
    for _a, attempt, _index, _label, correct in rows:
        by_attempt.setdefault(int(attempt), []).append(bool(correct))
    done = [a for a, r in sorted(by_attempt.items()) if len(r) >= n]
    if any(sum(by_attempt[a]) >= tut.pass_needed for a in done):
        return Status("passed", max(done), n, None, n, tut.pass_needed, 0)
    if len(done) >= ATTEMPTS:
        return Status("failed", len(done), n, None, n, tut.pass_needed, 0)
    attempt = len(done) + 1
    current = by_attempt.get(attempt, [])
    index = len(current)
    return Status("todo", attempt, index, tut.items[index], n, tut.pass_needed, sum(current))


def status(engine: Engine, campaign_id: int, annotator_id: int) -> Status | None:
    """Where the annotator stands (None: the campaign has no tutorial)."""
    with read_scope(engine) as s:
        tut = tutorial_of(campaign_meta(s, campaign_id))
        if tut is None:
            return None
        return _status(tut, dbtut.answers(s, campaign_id, annotator_id))


def answer(engine: Engine, campaign_id: int, annotator_id: int, index: int, label: int) -> Feedback:
    """Record the annotator's answer to tutorial item ``index`` of their current attempt and
    say whether it was right and why. TutorialError (nothing written) when it is not their
    turn for that item (a double click, a stale page) or the tutorial is over for them."""
    if label not in (0, 1):
        raise TutorialError("a tutorial answer is 1 (adequate) or 0 (inadequate)")
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)  # one answer at a time per campaign
        tut = tutorial_of(campaign_meta(s, campaign_id))
        if tut is None:
            raise TutorialError("this campaign has no tutorial")
        now = _status(tut, dbtut.answers(s, campaign_id, annotator_id))
        if now.state != "todo" or now.index != index:
            raise TutorialError("this tutorial item was answered already: the page moves on")
        item = tut.items[index]
        right = label == item.expected
        dbtut.add_answer(s, campaign_id, annotator_id, now.attempt, index, label, right,
                         datetime.now(UTC))  # fmt: skip
        score = now.right_so_far + int(right)
        outcome = None
        if index + 1 == len(tut.items):
            if score >= tut.pass_needed:
                outcome = "passed"
            else:
                outcome = "retry" if now.attempt < ATTEMPTS else "failed"
        return Feedback(right, item.expected, item.explanation, outcome, score, len(tut.items))


def results(engine: Engine, campaign_id: int) -> dict[int, str]:
    """Annotator id → their tutorial result for the Annotators page ("passed (attempt 1,
    5/5)", "failed (2 attempts)", "in progress"); empty without a tutorial."""
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
        st = _status(tut, mine)
        if st.state == "passed":
            score = sum(1 for r in mine if r[1] == st.attempt and r[4])
            out[annotator] = f"passed (attempt {st.attempt}, {score}/{st.total})"
        elif st.state == "failed":
            out[annotator] = f"failed ({ATTEMPTS} attempts)"
        else:
            out[annotator] = f"in progress (attempt {st.attempt})"
    return out
