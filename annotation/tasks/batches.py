"""Tasks and quotas: the queue cut into batches of N items, each finished by one annotator
and ended by a completion code, as in Appraise (100-segment tasks with tokens), Pearmut and
Prolific (a completion code, then a hand-off URL).

Cutting walks the uncut queue in order and packs whole units into tasks of at most N slots
(one slot = one judgment screen, attention checks included):

- a unit is one slot, or in the paired design an item's outputs of one overlap slot (they are
  claimed together, db.queue.claim.claim_next, so they must stay in one task);
- when documents are judged in order (db.schema.vocabulary.documents_in_order), a run of consecutive
  units of one document is packed whole; a document longer than N is split at unit
  boundaries, and the cut says which documents were split.

Once a campaign has tasks, annotators work only through them: each annotator takes the next
open task (an administrator may assign one to them first) and claims only its slots. Slots
added or left uncut later wait for the next cut.

Quotas. *Per annotator*: how many tasks one annotator may take (a task an administrator
assigns them is the administrator's choice and not refused by it). *Per item*: how many
different annotators may see one source item. It does not add judgments: the overlap setting
alone decides how many judgments each output gets (the sample design the estimators read).
It only refuses to give an annotator a task whose items already have that many other
annotators; the task waits for someone who has them already. With overlap > 0 an output's
two judgments come from two people, so the quota must be ≥ 2.

Outcome and codes. A finished task passes when at least ``pass_share`` of its attention checks
were answered right (db.judging.log' rule, the one on the Annotators page); a task without
checks passes. The code is the administrator's pass or fail code when set (Prolific issues
one code per outcome and study, and checks submissions against it), else a generated
per-task code (60 random bits), which cannot be guessed or shared between workers and names
the task it came from (MTurk- and Appraise-style). Either is stored with the task.

Expiry. An expired task keeps what was judged; its unfinished slots go back to the pool as a
new open task (whole groups again, the same order), so the next annotator gets a task of
their own rather than half of someone else's. Every administrator action (pause, resume,
reassign, expire, cut, a setting) goes to the campaign's setting log with the label count,
like every setting, because it changes who judges what while labels arrive.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from annotation.queue import pair_policy
from annotation.queue.build import per_screen as _per_screen
from db import Engine
from db.campaign.campaigns import campaign_meta, set_campaign_meta_key
from db.clock import utcnow
from db.engine import read_scope
from db.people import study as dbstudy
from db.queue import claim as dbq
from db.queue import settings as dbset
from db.queue import task_facts
from db.queue import tasks as dbt
from db.schema.vocabulary import documents_in_order

KEY = "tasks"  # campaigns.meta[KEY]
#: The idle expiry (minutes) of a campaign with a study link whose timeout was never set:
#: a crowd participant who closes the tab would otherwise hold their task for ever (0 of N
#: done, nobody else can take it). An hour of no label (each label resets it): long enough
#: for a long document or a break, short enough that an abandoned task returns to the pool
#: within the hour; an expired task keeps what was judged. 0 set explicitly means never.
DEFAULT_STUDY_IDLE_MIN = 60
#: Crowd platforms whose hand-off is known: the completion URL, "{code}" the outcome's code.
#: Prolific checks each submission's code against the study's fixed completion codes, so
#: with it both codes must be set (a generated per-task code would be refused there).
PLATFORM_HANDOFF = {"prolific": "https://app.prolific.com/submissions/complete?cc={code}"}
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud or typed
CODE_LENGTH = 12  # 32^12 = 2^60 codes
MAX_TASK_SIZE = 10_000


class TaskError(ValueError):
    """A task action or setting that cannot be done; nothing was changed."""


@dataclass(frozen=True)
class TaskSettings:
    size: int | None = None  # the last cut's N
    per_annotator: int | None = None  # tasks one annotator may take; None: no limit
    per_item: int | None = None  # annotators one item may have; None: no limit
    pass_share: float = 0.8  # share of a task's attention checks to answer right
    handoff_url: str | None = None  # "{code}" is replaced by the code
    pass_code: str | None = None
    fail_code: str | None = None
    #: an active task idle this long expires; 0: never; None: not set (never, or
    #: :data:`DEFAULT_STUDY_IDLE_MIN` when the campaign has a study link)
    timeout_min: int | None = None
    platform: str | None = None  # a key of PLATFORM_HANDOFF: its hand-off and code rules
    #: where a participant who cannot take part goes (a failed tutorial, a full study);
    #: with a platform, ``screen_out_code`` makes it the platform's completion URL
    screen_out_url: str | None = None
    screen_out_code: str | None = None

    def idle_minutes(self, study: bool) -> int | None:
        """The idle expiry in force: the timeout set, else the study-link default; None:
        tasks never expire."""
        if self.timeout_min is None:
            return DEFAULT_STUDY_IDLE_MIN if study else None
        return self.timeout_min or None

    @property
    def screen_out(self) -> str | None:
        """The screen-out URL in force (None: the page only says why)."""
        if self.screen_out_url:
            return self.screen_out_url
        if self.platform in PLATFORM_HANDOFF and self.screen_out_code:
            return PLATFORM_HANDOFF[self.platform].replace("{code}", self.screen_out_code)
        return None

    @property
    def codes_text(self) -> str:
        if self.pass_code or self.fail_code:
            return "the administrator's pass / fail codes"
        return "a generated code per task (12 characters, unguessable)"

    @property
    def rule_text(self) -> str:
        return (
            f"A task passes when ≥ {self.pass_share:.0%} of its attention checks are answered "
            "right; every task holds its share of the campaign's checks, at least one when "
            "checks are on (a task of a campaign without checks passes)."
        )

    def needed(self, checks: int) -> int:
        """Right answers a task with ``checks`` attention checks needs to pass."""
        return math.ceil(self.pass_share * checks - 1e-9)

    def rule_for(self, checks: int) -> str:
        """The pass rule of one task, with its number of checks."""
        if not checks:
            return "This task has no attention check: it passes when finished."
        return (
            f"This task has {checks:,} attention check(s): it passes with at least "
            f"{self.needed(checks):,} answered right ({self.pass_share:.0%})."
        )


def settings_of(meta: dict[str, Any]) -> TaskSettings:
    raw = meta.get(KEY)
    if not isinstance(raw, dict):
        return TaskSettings()
    known = TaskSettings.__dataclass_fields__
    return TaskSettings(**{k: v for k, v in raw.items() if k in known})


def settings(engine: Engine, campaign_id: int) -> TaskSettings:
    with read_scope(engine) as s:
        return settings_of(campaign_meta(s, campaign_id))


def has_study(engine: Engine, campaign_id: int) -> bool:
    """Has the campaign a study link (live or revoked): the idle expiry's default applies."""
    with read_scope(engine) as s:
        return dbstudy.has_study_link(s, campaign_id)


def study_idle_note(engine: Engine, campaign_id: int) -> tuple[bool, str]:
    """(a warning?, the sentence) on tasks' idle expiry, said when a study link is created
    (the page and ``cli.py study-link``): crowd participants close tabs."""
    minutes = settings(engine, campaign_id).timeout_min
    if minutes == 0:
        return True, (
            "Tasks never expire (idle expiry set to 0): a participant who closes the tab keeps "
            "their task held, nothing done, until you expire it. Set an idle expiry in the "
            f"task settings (the default with a study link is {DEFAULT_STUDY_IDLE_MIN} min)."
        )
    if minutes is None:
        return False, (
            f"A task idle for {DEFAULT_STUDY_IDLE_MIN} min expires (the default with a study "
            "link): a participant who closes the tab frees their task for the next one; what "
            "they judged is kept. Change it in the task settings."
        )
    return False, f"A task idle for {minutes} min expires (the task settings)."


def _positive(name: str, value: Any, allow_none: bool = True) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TaskError(f"{name} must be a whole number ≥ 1, not {value!r}")
    return value


def check_url(url: str | None, what: str = "hand-off URL", code: bool = True) -> str | None:
    """A hand-off URL: http(s) with a host; "{code}" is the only placeholder (``code``
    False: none, as in the screen-out URL, which carries no task's code)."""
    if url is None or not url.strip():
        return None
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise TaskError(f"the {what} must start with http:// or https://, not {url!r}")
    rest = url.replace("{code}", "") if code else url
    if rest.count("{") or rest.count("}"):
        only = "only placeholder is {code}" if code else "has no placeholder"
        raise TaskError(f"the {what}'s {only}" if code else f"the {what} {only}")
    return url


def _check_code(name: str, code: str | None) -> str | None:
    if code is None or not code.strip():
        return None
    code = code.strip()
    if len(code) > 100 or any(c.isspace() for c in code):
        raise TaskError(f"the {name} code must be one word of at most 100 characters")
    return code


def _checked(new: TaskSettings, overlap: float) -> TaskSettings:
    _positive("the per-annotator quota", new.per_annotator)
    _positive("the per-item quota", new.per_item)
    if new.timeout_min is not None and new.timeout_min != 0:
        _positive("the task timeout (minutes; 0: never)", new.timeout_min)
    if new.platform is not None and new.platform not in PLATFORM_HANDOFF:
        raise TaskError(
            f"unknown platform {new.platform!r}: one of {', '.join(PLATFORM_HANDOFF)} (or none)"
        )
    share = new.pass_share
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
        raise TaskError(f"the pass share must be between 0 and 1, not {share!r}")
    if new.per_item is not None and overlap > 0 and new.per_item < 2:
        raise TaskError(
            f"the campaign's overlap ({overlap:.0%}) gives some outputs a second annotator: "
            "a per-item quota below 2 would leave those judgments undone"
        )
    pass_code, fail_code = _check_code("pass", new.pass_code), _check_code("fail", new.fail_code)
    if (pass_code is None) != (fail_code is None):
        raise TaskError("set both the pass and the fail code, or neither (generated codes)")
    if pass_code is not None and pass_code == fail_code:
        raise TaskError(
            "the pass and the fail code are the same: a failed task could not be told from "
            "a passed one; give the platform's two different codes"
        )
    handoff_url = check_url(new.handoff_url)
    if new.platform in PLATFORM_HANDOFF:
        if pass_code is None:
            raise TaskError(
                f"{new.platform} checks each submission against the study's fixed completion "
                "codes: set its pass and fail codes (a generated per-task code would be "
                "refused there)"
            )
        handoff_url = handoff_url or PLATFORM_HANDOFF[new.platform]
    return TaskSettings(
        **{
            **asdict(new),
            "pass_share": float(share),
            "handoff_url": handoff_url,
            "pass_code": pass_code,
            "fail_code": fail_code,
            "screen_out_url": check_url(new.screen_out_url, "screen-out URL", code=False),
            "screen_out_code": _check_code("screen-out", new.screen_out_code),
        }
    )


def _shown(key: str, value: Any) -> Any:
    """A setting as the log keeps it: codes are not written into the log."""
    if key in ("pass_code", "fail_code", "screen_out_code") and value is not None:
        return "(set)"
    return value


def set_settings(engine: Engine, campaign_id: int, **changes: Any) -> TaskSettings:
    """Change task settings (names of :class:`TaskSettings`); each change is logged."""
    unknown = set(changes) - set(TaskSettings.__dataclass_fields__)
    if unknown:
        raise TaskError(f"unknown task setting(s): {', '.join(sorted(unknown))}")
    with dbq.queue_transaction(engine) as s:
        camp = dbset.campaign_for_update(s, campaign_id)
        old = settings_of(camp.meta or {})  # the locked row holds the meta already
        new = _checked(TaskSettings(**{**asdict(old), **changes}), camp.overlap)
        diff = {
            f"tasks.{k}": (_shown(k, getattr(old, k)), _shown(k, v))
            for k, v in asdict(new).items()
            if getattr(old, k) != v
        }
        if diff:
            dbset.log_setting_changes(s, campaign_id, diff)
            set_campaign_meta_key(s, campaign_id, KEY, asdict(new))
        return new


# ---------------------------------------------------------------- cutting


@dataclass(frozen=True)
class Cut:
    task_ids: list[int]
    sizes: list[int]
    #: documents longer than N, split across tasks: (doc id, slots)
    split_documents: list[tuple[str, int]] = field(default_factory=list)
    #: attention checks in each task
    checks: list[int] = field(default_factory=list)
    #: comparative mode: screens per task (the cut's unit; ``sizes`` count slots)
    screens: list[int] = field(default_factory=list)

    @property
    def summary(self) -> str:
        if not self.task_ids:
            return (
                "Nothing to cut: no open slot is outside a task (all are cut already, or the "
                "queue is not built yet: Annotators page, Build / extend queue)."
            )
        text = (
            f"Cut {len(self.task_ids):,} task(s) of {min(self.sizes):,}–{max(self.sizes):,} "
            f"items ({sum(self.sizes):,} in all)."
        )
        if self.screens:
            text += (
                f" Comparative screens: {min(self.screens):,}–{max(self.screens):,} per task "
                "(the task size counts screens)."
            )
        if self.checks and max(self.checks):
            text += (
                f" Each holds {min(self.checks):,}–{max(self.checks):,} attention checks, "
                "spread between its items."
            )
        if self.split_documents:
            docs = ", ".join(f"{d} ({n})" for d, n in self.split_documents[:5])
            more = len(self.split_documents) - 5
            text += f" Longer than a task, split across tasks: {docs}" + (
                f" and {more} more." if more > 0 else "."
            )
        return text


def units(slots: list[dbt.CutSlot], paired: bool) -> list[list[dbt.CutSlot]]:
    """The uncut slots in claim units, in queue order of each unit's first slot: a paired
    item's outputs of one overlap slot together, every other slot alone."""
    groups: dict[Any, list[dbt.CutSlot]] = {}
    for sl in slots:
        key: Any = sl.id
        if paired and sl.kind == dbq.REGULAR and sl.item_id is not None:
            key = ("item", sl.item_id, sl.slot)
        groups.setdefault(key, []).append(sl)
    return sorted(groups.values(), key=lambda g: g[0].position)


def _documents(us: list[list[dbt.CutSlot]]) -> list[list[list[dbt.CutSlot]]]:
    """Consecutive units of one document together (an attention check joins the run it
    sits in)."""
    runs: list[list[list[dbt.CutSlot]]] = []
    current: str | None = None
    for u in us:
        doc = u[0].doc_id
        regular = u[0].kind == dbq.REGULAR
        if runs and (not regular or doc == current):
            runs[-1].append(u)
            continue
        runs.append([u])
        current = doc if regular else current
    return runs


def _with_checks(us: list[list[dbt.CutSlot]]) -> list[list[dbt.CutSlot]]:
    """Each attention check joined to the unit it follows, so that a task takes the checks
    placed among its units (annotation.queue.build.spread_checks) and not those of the next
    task; a check at the queue's head stays alone."""
    out: list[list[dbt.CutSlot]] = []
    for u in us:
        if u[0].kind == dbq.ATTENTION and out:
            out[-1] = out[-1] + u
        else:
            out.append(u)
    return out


def _screens(unit: list[dbt.CutSlot], per_screen: int | None) -> int:
    """Judgment screens of a unit: one per slot, or in comparative mode one per
    ``per_screen`` outputs of an item (a check is a screen of its own)."""
    if per_screen is None:
        return len(unit)
    checks = sum(1 for sl in unit if sl.kind == dbq.ATTENTION)
    return checks + -(-(len(unit) - checks) // per_screen)


def plan_cut(
    slots: list[dbt.CutSlot],
    size: int,
    paired: bool,
    by_document: bool,
    per_screen: int | None = None,
) -> tuple[list[list[int]], list[tuple[str, int]]]:
    """Slot ids per task (at most ``size`` screens each, unless one unit is bigger) and the
    documents split across tasks. ``per_screen``: comparative mode's outputs per screen (a
    task of N then holds N screens, as the module docstring counts). When the queue has
    attention checks, every task gets at least one: a last task without one joins the one
    before, and a size so small that another task would have none is refused (TaskError).
    Pure: the tests call it directly."""
    us = _with_checks(units(slots, paired))
    blocks = _documents(us) if by_document else [[u] for u in us]
    tasks: list[list[int]] = []
    split: list[tuple[str, int]] = []
    current: list[int] = []
    used = 0
    for block in blocks:
        n = sum(_screens(u, per_screen) for u in block)
        if current and used + n > size:
            tasks.append(current)
            current, used = [], 0
        if n > size and by_document:
            split.append((str(block[0][0].doc_id), sum(len(u) for u in block)))
        for u in block:
            w = _screens(u, per_screen)
            if current and used + w > size:
                tasks.append(current)
                current, used = [], 0
            current += [sl.id for sl in u]
            used += w
    if current:
        tasks.append(current)
    return _every_task_checked(tasks, slots, size), split


def _every_task_checked(
    tasks: list[list[int]], slots: list[dbt.CutSlot], size: int
) -> list[list[int]]:
    """Tasks that each hold an attention check when the queue has any (a task without one
    would pass unchecked): the last joins the one before; another without one is refused."""
    checks = {sl.id for sl in slots if sl.kind == dbq.ATTENTION}
    if not checks:
        return tasks
    if len(tasks) > 1 and not checks.intersection(tasks[-1]):
        tasks = [*tasks[:-2], tasks[-2] + tasks[-1]]
    empty = [k + 1 for k, task in enumerate(tasks) if not checks.intersection(task)]
    if empty:
        per_task = len(checks) / len(tasks)
        raise TaskError(
            f"tasks of {size:,} would leave {len(empty):,} of {len(tasks):,} task(s) without an "
            f"attention check ({per_task:.1f} per task at the queue's rate), and a task without "
            "checks cannot be checked: cut bigger tasks (at least "
            f"{-(-size // max(per_task, 1e-9)):,.0f}), or raise the attention rate and "
            "re-spread the checks (Annotators page, or `cli.py tasks respread`)"
        )
    return tasks


def cut(engine: Engine, campaign_id: int, size: int, now: datetime | None = None) -> Cut:
    """Cut the campaign's uncut open slots into new open tasks of at most ``size`` screens."""
    _positive("the task size", size, allow_none=False)
    if size > MAX_TASK_SIZE:
        raise TaskError(f"a task of {size:,} items is too big (at most {MAX_TASK_SIZE:,})")
    with dbq.queue_transaction(engine) as s:
        return cut_within(s, campaign_id, size, now or utcnow())


def cut_within(s: Any, campaign_id: int, size: int, now: datetime) -> Cut:
    camp = dbset.campaign_for_update(s, campaign_id)
    if pair_policy.policy_of(camp.meta) == pair_policy.ADAPTIVE:
        raise TaskError(pair_policy.NO_TASKS)
    slots = dbt.uncut_slots(s, campaign_id)
    per_screen = _per_screen(camp.meta or {}, camp.paired)
    plans, split = plan_cut(slots, size, camp.paired, documents_in_order(camp.meta), per_screen)
    first = dbt.next_ordinal(s, campaign_id)
    ids = [dbt.insert_task(s, campaign_id, first + k, p, now) for k, p in enumerate(plans)]
    if ids:
        old = settings_of(camp.meta or {})
        changes: dict[str, tuple[Any, Any]] = {"tasks.cut": (first - 1, first - 1 + len(ids))}
        if old.size != size:
            changes["tasks.size"] = (old.size, size)
            set_campaign_meta_key(s, campaign_id, KEY, {**asdict(old), "size": size})
        dbset.log_setting_changes(s, campaign_id, changes)  # one label count for both
    kinds = {sl.id: sl.kind for sl in slots}
    checks = [sum(1 for i in p if kinds[i] == dbq.ATTENTION) for p in plans]
    screens = []
    if per_screen is not None:  # the size counted screens: say how many each task has
        by_id = {sl.id: sl for sl in slots}
        for p in plans:
            us = _with_checks(units([by_id[i] for i in p], camp.paired))
            screens.append(sum(_screens(u, per_screen) for u in us))
    return Cut(ids, [len(p) for p in plans], split, checks, screens)


def check_counts(engine: Engine, campaign_id: int) -> dict[int, int]:
    """Task id → its attention checks (the pass rule of each task counts them)."""
    with read_scope(engine) as s:
        return task_facts.check_counts(s, campaign_id)
