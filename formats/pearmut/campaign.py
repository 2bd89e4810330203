"""Pearmut's campaign file (Zouhar & Kocmi 2026, "Pearmut: Human Evaluation of Translation
Made Trivial"): read it into plain records, with no database.

A Pearmut campaign is one JSON object::

    {"campaign_id": "...", "info": {"protocol": "ESA", "assignment": "task-based", ...},
     "data": [ task: [ document: [ item: {"item_id", "src", "ref", "tgt": {system: text},
                                          "instructions", "error_spans", "validation"} ] ] ]}

With ``single-stream`` or ``dynamic`` assignment ``data`` is a list of documents (one shared
pool). ``error_spans`` pre-fills spans per system, offsets ``start_i``..``end_i`` with the end
*inclusive* (Pearmut's README); they are returned as ``[start, end)``. A ``[missing]`` mark
is ``start_i == end_i == len(text)``. ``validation`` (per system: a score range, expected
spans with tolerant ``[lo, hi]`` offsets, a warning) marks tutorial and attention-check
items; each output's rule is read by formats.tutorial_file, the reader of Pearmut's tutorial
files, into :attr:`PearmutItem.checks` (one reader of the block, so a campaign's check and a
tutorial file's grade alike). ``data_welcome`` (forms, welcome items) and ``data_random``
(random checks) are counted, not read.

Every problem names the task, document and item (1-based) and says what to do; what the file
holds that this reader does not turn into a record is listed in :attr:`PearmutCampaign.notes`.
Hostile input is bounded: the size (the caller's limit), the nesting depth
(:data:`MAX_DEPTH`), the length of every text (:data:`MAX_TEXT`), NaN/Infinity and duplicate
keys are refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from formats.cells import text_problem
from formats.problems import MAX_LENGTH, MAX_PROBLEMS, CampaignFileError, Problem
from formats.tutorial_file import TutorialFileError
from formats.tutorial_file import item as tutorial_item

#: Where a campaign imported from Pearmut keeps what an export writes back (its ``info``,
#: layout and validation items), in ``campaigns.meta``.
META_KEY = "pearmut"
PROTOCOLS = ("ESA", "cESA", "DA", "MQM")
ASSIGNMENTS = ("task-based", "single-stream", "dynamic")
SEVERITIES = ("minor", "major", "critical")
MAX_DEPTH = 32  # a Pearmut campaign nests ~10 deep (root, data, task, document, item, ...)
MAX_TEXT = 200_000  # characters in one source, reference, output or instruction
ITEM_KEYS = ("item_id", "src", "ref", "tgt", "instructions", "error_spans", "validation")
#: Elements Tandem cannot show (it shows text): media and embedded pages.
MEDIA = re.compile(r"<\s*(img|audio|video|iframe|source|embed|object)\b", re.IGNORECASE)


@dataclass(frozen=True)
class PearmutSpan:
    """A span in Tandem's convention, ``[start, end)``; ``missing``: Pearmut's [missing]
    mark after the text."""

    start: int
    end: int
    severity: str | None
    category: str | None
    missing: bool = False


@dataclass
class PearmutItem:
    """One occurrence of an item in ``data`` (``task`` None for a shared pool)."""

    task: int | None
    doc: int
    pos: int
    item_id: str
    src: str
    ref: str | None
    tgt: dict[str, str]
    instructions: str | None = None
    error_spans: dict[str, list[PearmutSpan]] = field(default_factory=dict)
    validation: dict[str, Any] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    #: system → its validation rule as a tutorial or check item (formats.tutorial_file's
    #: shape: score range, expected spans, loud or silent, spans shown marked)
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: system → why its validation rule is no check Tandem can grade
    unchecked: dict[str, str] = field(default_factory=dict)

    @property
    def place(self) -> str:
        task = "" if self.task is None else f"task {self.task + 1}, "
        return f"{task}document {self.doc + 1}, item {self.pos + 1}"

    @property
    def where(self) -> str:
        return f"{self.place} ('{self.item_id[:80]}')"

    @property
    def is_check(self) -> bool:
        """A tutorial or attention-check item: it has a ``validation`` block, or is
        ``skippable`` (Pearmut's mark of a tutorial item)."""
        return self.validation is not None or self.extras.get("skippable") is True

    def content(self) -> tuple[Any, ...]:
        """What must agree between two occurrences of one item id (the first is kept)."""
        return (
            self.src,
            self.ref,
            self.tgt,
            self.is_check,
            self.instructions,
            self.error_spans,
            self.validation,
            self.extras,
        )


@dataclass
class PearmutCampaign:
    filename: str
    campaign_id: str
    protocol: str
    assignment: str
    info: dict[str, Any]
    items: list[PearmutItem]  # every occurrence, in file order
    notes: list[str] = field(default_factory=list)
    #: ``data_welcome`` as the file has it (read by formats.pearmut.extras.welcome_form)
    welcome: Any = None

    def unique_items(self) -> dict[str, PearmutItem]:
        """item id → its first occurrence (later ones agree: checked on reading)."""
        out: dict[str, PearmutItem] = {}
        for it in self.items:
            out.setdefault(it.item_id, it)
        return out

    def layout(self) -> list[list[list[str]]]:
        """The item ids as ``data`` nests them (tasks → documents → items); a shared pool
        is one task."""
        tasks: dict[int, dict[int, list[str]]] = {}
        for it in self.items:
            tasks.setdefault(it.task or 0, {}).setdefault(it.doc, []).append(it.item_id)
        return [list(docs.values()) for _, docs in sorted(tasks.items())]


class _Refused(Exception):
    def __init__(self, message: str, fix: str) -> None:
        self.message, self.fix = message, fix


def load_json(data: bytes, filename: str, what: str = "a Pearmut campaign") -> Any:
    """The JSON value of ``data``; CampaignFileError for anything that is not strict JSON
    (NaN, duplicate keys) or nests deeper than :data:`MAX_DEPTH`."""

    def refuse(message: str, fix: str) -> CampaignFileError:
        return CampaignFileError([Problem(filename, message, fix)])

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise refuse(
            f"the file is not UTF-8 text (byte {exc.start})", "Save it as UTF-8."
        ) from None
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except RecursionError:
        raise refuse(f"the JSON nests too deeply to be {what}", _depth_fix()) from None
    except _Refused as exc:
        raise refuse(exc.message, exc.fix) from None
    except json.JSONDecodeError as exc:
        raise refuse(
            f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
            f"Export {what} as one JSON object.",
        ) from None
    depth, bad_text = _walk(value)
    if depth > MAX_DEPTH:
        raise refuse(f"the JSON nests deeper than {MAX_DEPTH} levels", _depth_fix())
    if bad_text is not None:
        raise refuse(
            f"the text {bad_text[:40]!r} holds a NUL byte or a lone surrogate escape",
            "Write every character in full; a database cannot store these.",
        )
    return value


def _depth_fix() -> str:
    return f"A Pearmut file nests about 10 levels; this one is not one (limit {MAX_DEPTH})."


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Refused(
                f"the key '{k[:80]}' appears twice in one object",
                "Keep one: JSON readers disagree on which of two equal keys wins.",
            )
        out[k] = v
    return out


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number", "Write a number or null.")


def _walk(value: Any) -> tuple[int, str | None]:
    """The nesting depth (stopping past the limit) and the first unstorable text."""
    deepest, stack, bad = 0, [(value, 1)], None
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            return d, bad
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
            if bad is None:
                bad = next((k for k in v if text_problem(k) is not None), None)
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
        elif bad is None and isinstance(v, str) and text_problem(v) is not None:
            bad = v
    return deepest, bad


def read_pearmut_campaign(data: bytes, filename: str) -> PearmutCampaign:
    """Parse a Pearmut campaign file; CampaignFileError listing every problem (module
    docstring)."""
    root = load_json(data, filename)
    problems: list[Problem] = []

    def bad(message: str, fix: str) -> None:
        problems.append(Problem(filename, message, fix))
        if len(problems) >= MAX_PROBLEMS:
            raise CampaignFileError(problems, truncated=True)

    if not isinstance(root, dict):
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    "the file is not a JSON object",
                    "A Pearmut campaign is one object with 'info', 'campaign_id' and 'data'.",
                )
            ]
        )
    info = root.get("info")
    if not isinstance(info, dict):
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    "'info' is missing or not an object",
                    "Give 'info' with 'protocol' and 'assignment'.",
                )
            ]
        )
    protocol = _protocol(info.get("protocol"), bad)
    assignment = info.get("assignment", "task-based")
    if assignment not in ASSIGNMENTS:
        bad(f"info.assignment is {str(assignment)[:40]!r}", f"Use one of {list(ASSIGNMENTS)}.")
    campaign_id = root.get("campaign_id")
    if not isinstance(campaign_id, str) or not campaign_id.strip() or len(campaign_id) > 200:
        bad("'campaign_id' is missing, empty or over 200 characters", "Give the campaign a name.")
        campaign_id = ""
    items = list(
        _items(root.get("data"), assignment != "task-based" and assignment in ASSIGNMENTS, bad)
    )
    _check_repeats(items, bad)
    if not items and not problems:
        bad("'data' holds no evaluation item", "Give at least one item with 'tgt'.")
    if problems:
        raise CampaignFileError(problems)
    campaign = PearmutCampaign(filename, campaign_id.strip(), protocol, assignment, info, items,
                               welcome=root.get("data_welcome"))  # fmt: skip
    campaign.notes.extend(_extra_notes(root))
    return campaign


def _protocol(value: Any, bad: Any) -> str:
    for p in PROTOCOLS:
        if isinstance(value, str) and value.casefold() == p.casefold():
            return p
    bad(f"info.protocol is {str(value)[:40]!r}", f"Use one of {list(PROTOCOLS)}.")
    return "ESA"


def _extra_notes(root: dict[str, Any]) -> Iterator[str]:
    for key in ("data_random", "data_goodbye"):  # data_welcome: the pre-task form
        value = root.get(key)
        if isinstance(value, list) and value:
            n = sum(len(d) if isinstance(d, list) else 1 for d in value)
            yield f"'{key}': {n:,} item(s) (forms, welcome or random check items) not imported"
    for key in sorted(
        set(root) - {"info", "campaign_id", "data", "data_welcome", "data_random", "data_goodbye"}
    ):
        yield f"top-level key '{key[:80]}' not imported"


def _items(data: Any, pooled: bool, bad: Any) -> Iterator[PearmutItem]:
    if not isinstance(data, list):
        bad("'data' is missing or not a list", "Give 'data' as tasks → documents → items.")
        return
    tasks = [data] if pooled else data
    for t, task in enumerate(tasks):
        if not isinstance(task, list):
            bad(f"task {t + 1} is not a list of documents", "Nest data as tasks → documents.")
            continue
        for d, doc in enumerate(task):
            if not isinstance(doc, list):
                where = f"document {d + 1}" if pooled else f"task {t + 1}, document {d + 1}"
                bad(f"{where} is not a list of items", "A document is a list of item objects.")
                continue
            for k, raw in enumerate(doc):
                item = _item(None if pooled else t, d, k, raw, bad)
                if item is not None:
                    yield item


def _item(task: int | None, doc: int, pos: int, raw: Any, bad: Any) -> PearmutItem | None:
    here = PearmutItem(task, doc, pos, "?", "", None, {})
    if not isinstance(raw, dict):
        bad(f"{here.place}: not an object", "An item is an object with 'tgt'.")
        return None
    item_id = raw.get("item_id")
    if not isinstance(item_id, str) or not item_id.strip() or len(item_id) > MAX_LENGTH["item_id"]:
        bad(
            f"{here.place}: 'item_id' is missing, empty, not a string or over "
            f"{MAX_LENGTH['item_id']} characters",
            "Give every item a unique item_id: Tandem keys items, outputs and judgments by it.",
        )
        return None
    here.item_id = item_id
    src, ref, instr = raw.get("src", ""), raw.get("ref"), raw.get("instructions")
    for name, value in (("src", src), ("ref", ref), ("instructions", instr)):
        if value is not None and not _text_ok(value):
            bad(
                f"{here.where}: '{name}' is not a string of at most {MAX_TEXT:,} characters",
                f"Give '{name}' as text.",
            )
            return None
    tgt = raw.get("tgt")
    if not isinstance(tgt, dict) or not tgt:
        bad(f"{here.where}: 'tgt' is missing or empty", "Give 'tgt' as {system: output text}.")
        return None
    for system, text in tgt.items():
        if (
            not system.strip()
            or len(system) > MAX_LENGTH["system"]
            or not _text_ok(text)
            or not text.strip()
        ):
            bad(
                f"{here.where}: system '{system[:80]}' has no output text, or its name or "
                "text is too long",
                "Give every system a non-empty output text.",
            )
            return None
    for name, value in (("src", src), ("ref", ref), *tgt.items()):
        if isinstance(value, str) and MEDIA.search(value):
            bad(
                f"{here.where}: '{name[:80]}' holds an image, audio, video or embedded page",
                "Tandem shows text only: give the text, or leave this item out.",
            )
            return None
    item = PearmutItem(task, doc, pos, item_id, src or "", ref, dict(tgt), instr)
    item.error_spans = _prefill(raw.get("error_spans"), item, bad)
    validation = raw.get("validation")
    if validation is not None:
        _read_validation(validation, item, raw.get("error_spans"), bad)
        item.validation = validation
    item.extras = {k: v for k, v in raw.items() if k not in ITEM_KEYS}
    return item


def _text_ok(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_TEXT


def _prefill(raw: Any, item: PearmutItem, bad: Any) -> dict[str, list[PearmutSpan]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        bad(f"{item.where}: 'error_spans' is not an object", "Give {system: [spans]}.")
        return {}
    out: dict[str, list[PearmutSpan]] = {}
    for system, spans in raw.items():
        if system not in item.tgt:
            bad(
                f"{item.where}: 'error_spans' names system '{system[:80]}', which has no output",
                "Name a system of 'tgt'.",
            )
            continue
        if not isinstance(spans, list):
            bad(f"{item.where}: error_spans of '{system[:80]}' is not a list", "Give a list.")
            continue
        parsed = [
            parse_span(s, item.tgt[system], f"{item.where}, system '{system[:80]}', span {n}", bad)
            for n, s in enumerate(spans, 1)
        ]
        out[system] = [p for p in parsed if p is not None]
    return out


def parse_span(raw: Any, text: str, where: str, bad: Any) -> PearmutSpan | None:
    """One Pearmut span (``start_i``..``end_i`` inclusive) as ``[start, end)``; a problem
    (via ``bad``) for anything outside ``text``."""
    if not isinstance(raw, dict):
        bad(f"{where}: not an object", "A span is {start_i, end_i, severity, category}.")
        return None
    a, b = raw.get("start_i"), raw.get("end_i")
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (a, b)):
        bad(f"{where}: start_i / end_i are not whole numbers", "Give character offsets.")
        return None
    severity, category = raw.get("severity"), raw.get("category")
    if severity is not None and not (isinstance(severity, str) and len(severity) <= 40):
        bad(f"{where}: severity is not a string", "Use minor or major.")
        return None
    if category is not None and not (isinstance(category, str) and len(category) <= 200):
        bad(f"{where}: category is not a string of at most 200 characters", "Use a name.")
        return None
    if a == b == len(text):
        return PearmutSpan(a, a, severity, category, missing=True)
    if not 0 <= a <= b < len(text):
        bad(
            f"{where}: characters {a}..{b} are not inside the output ({len(text)} characters)",
            "Offsets count Unicode code points from 0; end_i is the last character, inclusive.",
        )
        return None
    return PearmutSpan(a, b + 1, severity, category)


#: formats.tutorial_file's column names in Pearmut's words, for a refused validation block.
_PEARMUT_WORDS = {
    "expected_score": "score",
    "expected_spans": "error_spans",
    "error_spans": "the item's error_spans (shown marked)",
    "explanation": "warning",  # a Pearmut item's warning is its explanation
    "source": "src",
    "output": "tgt",
}


def _read_validation(raw: Any, item: PearmutItem, prefill: Any, bad: Any) -> None:
    """Each output's validation rule read as a tutorial or check item by
    formats.tutorial_file (the one reader of Pearmut's validation block: score range,
    expected spans with tolerant ``start_i`` / ``end_i``, ``missing``, ``warning`` → loud,
    none → silent) into ``item.checks``; what it cannot check goes to ``item.unchecked``."""
    if not isinstance(raw, dict):
        bad(f"{item.where}: 'validation' is not an object", "Give {system: rule}.")
        return
    for system, rules in raw.items():
        here = f"{item.where}, system '{system[:80]}'"
        if system not in item.tgt:
            bad(
                f"{item.where}: 'validation' names system '{system[:80]}', which has no output",
                "Name a system of 'tgt'.",
            )
            continue
        if isinstance(rules, list) and len(rules) == 1:
            rules = rules[0]  # Pearmut writes one rule as a one-element list too
        if isinstance(rules, list):
            bad(
                f"{here}: validation gives {len(rules)} rules for one output",
                "Give one rule (score, error_spans, warning) per output.",
            )
            continue
        if not isinstance(rules, dict):
            bad(
                f"{here}: the validation rule is not an object",
                "Give {score, error_spans, warning}.",
            )
            continue
        if rules.get("score") is None and rules.get("error_spans") is None:
            item.unchecked[system] = "validation gives neither a score range nor error_spans"
            continue
        if not item.src.strip():
            item.unchecked[system] = "a validation item without a source (a tutorial shows one)"
            continue
        single = {
            "src": item.src,
            "ref": item.ref,
            "tgt": {system: item.tgt[system]},
            "instructions": item.instructions,
            "validation": {system: rules},
            "error_spans": (prefill or {}).get(system) if isinstance(prefill, dict) else None,
        }
        try:
            item.checks[system] = tutorial_item(single, "validation", 1)
        except TutorialFileError as refused:
            for p in refused.problems:
                column = _PEARMUT_WORDS.get(p.column or "", p.column or "validation")
                bad(f"{here}: validation {column} {p.message}", p.fix)


def _check_repeats(items: list[PearmutItem], bad: Any) -> None:
    """An item id may recur (the same item in several tasks) only with the same content."""
    first: dict[str, PearmutItem] = {}
    for it in items:
        seen = first.setdefault(it.item_id, it)
        if seen is not it and seen.content() != it.content():
            bad(
                f"{it.where}: item_id '{it.item_id}' is also {seen.where} with a different "
                "source, reference, outputs, instructions, error_spans, validation or other keys",
                "Give every distinct item its own item_id.",
            )
