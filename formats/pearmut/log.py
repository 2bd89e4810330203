"""Pearmut's annotation log (JSONL) and campaign file: read the log, write both, with no
database.

Each log line is one submitted document of one annotator::

    {"user_id": "alice", "item_i": 0, "item": [item, ...],
     "annotation": [{system: {"score": 85, "error_spans": [...], "textfield": ...}}, ...]}

``annotation[k]`` judges ``item[k]`` (None: skipped). A line whose ``annotation`` is
``"__RESET__"`` masks that annotator's earlier lines for the same ``item_i`` (all their
earlier lines when it has no ``item_i``), as Pearmut's task reset does. A later line for
the same (annotator, item, system) replaces an earlier one (Pearmut keeps the last
judgment). ``item_i`` strings (``welcome_0``, ``random_3``) are welcome, random-check and
goodbye items, which are counted and not read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from formats.pearmut.campaign import MAX_LENGTH, MAX_TEXT, PearmutSpan, load_json, parse_span
from formats.problems import MAX_PROBLEMS, CampaignFileError, Problem

RESET_MARKER = "__RESET__"


@dataclass(frozen=True)
class LogJudgment:
    """The last judgment of one output by one annotator (``line``: where it is, 1-based)."""

    line: int
    user_id: str
    item_id: str
    system: str
    text: str  # the output text the annotator saw
    score: float | None
    spans: tuple[PearmutSpan, ...] | None  # None: the protocol had no spans


@dataclass
class PearmutLog:
    filename: str
    judgments: list[LogJudgment]
    notes: list[str] = field(default_factory=list)


def read_pearmut_log(data: bytes, filename: str) -> PearmutLog:
    """The current judgments of a Pearmut annotation log (module docstring);
    CampaignFileError naming each bad line."""
    problems: list[Problem] = []

    def bad(line: int, message: str, fix: str) -> None:
        problems.append(Problem(filename, message, fix, row=line))
        if len(problems) >= MAX_PROBLEMS:
            raise CampaignFileError(problems, truncated=True)

    entries: list[tuple[int, dict[str, Any]]] = []
    counts = {"other": 0, "comment": 0, "reset": 0}
    for n, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            entry = load_json(raw, f"{filename} line {n}", "a Pearmut log line")
        except CampaignFileError as exc:
            bad(n, exc.problems[0].message, exc.problems[0].fix)
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("user_id"), str):
            bad(n, "not an object with a 'user_id'", "Each line is one Pearmut log entry.")
            continue
        if not entry["user_id"].strip() or len(entry["user_id"]) > MAX_LENGTH["annotator"]:
            bad(n, "'user_id' is empty or too long", "Give the annotator's id.")
            continue
        if entry.get("annotation") == RESET_MARKER:
            counts["reset"] += 1
            entries = [(m, e) for m, e in entries if not _reset_hits(entry, e)]
            continue
        if isinstance(entry.get("item_i"), str):
            counts["other"] += 1
            continue
        entries.append((n, entry))
    last: dict[tuple[str, str, str], LogJudgment] = {}
    for n, entry in entries:
        for j in _judgments(n, entry, bad, counts):
            last[(j.user_id, j.item_id, j.system)] = j
    if problems:
        raise CampaignFileError(problems)
    notes = []
    if counts["reset"]:
        notes.append(f"{counts['reset']:,} reset marker(s) applied: earlier judgments masked")
    if counts["other"]:
        notes.append(f"{counts['other']:,} welcome / random-check / goodbye line(s) not imported")
    if counts["comment"]:
        notes.append(f"{counts['comment']:,} comment / textfield value(s) not imported")
    return PearmutLog(filename, list(last.values()), notes)


def _reset_hits(reset: dict[str, Any], earlier: dict[str, Any]) -> bool:
    if earlier.get("user_id") != reset["user_id"]:
        return False
    return (
        "item_i" not in reset
        or reset.get("item_i") is None
        or (earlier.get("item_i") == reset.get("item_i"))
    )


def _judgments(
    n: int, entry: dict[str, Any], bad: Any, counts: dict[str, int]
) -> list[LogJudgment]:
    items, annotations = entry.get("item"), entry.get("annotation")
    if (
        not isinstance(items, list)
        or not isinstance(annotations, list)
        or len(items) != len(annotations)
    ):
        bad(
            n,
            "'item' and 'annotation' are not two lists of the same length",
            "Export the log with Pearmut's current version (each line carries its items).",
        )
        return []
    if entry.get("comment"):
        counts["comment"] += 1
    out = []
    for k, (item, ann) in enumerate(zip(items, annotations, strict=True), start=1):
        if ann is None:
            continue
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("item_id"), str)
            or not isinstance(item.get("tgt"), dict)
        ):
            bad(n, f"item {k} has no item_id or tgt", "Each logged item carries its item_id.")
            continue
        if not isinstance(ann, dict):
            bad(n, f"annotation {k} is not an object", "Give {system: {score, error_spans}}.")
            continue
        for system, judged in ann.items():
            text = item["tgt"].get(system)
            where = f"item {k} ('{item['item_id'][:80]}'), system '{system[:80]}'"
            if not isinstance(text, str) or len(text) > MAX_TEXT or not isinstance(judged, dict):
                bad(
                    n,
                    f"{where}: no such output in the logged item, or not an object",
                    "Each judged system must be in the item's tgt.",
                )
                continue
            score = judged.get("score")
            if score is not None and (
                isinstance(score, bool)
                or not isinstance(score, int | float)
                or not 0 <= score <= 100
            ):
                bad(
                    n,
                    f"{where}: score {str(score)[:40]!r} is not a number in 0–100",
                    "Give the score Pearmut's slider stored.",
                )
                continue
            if judged.get("textfield"):
                counts["comment"] += 1
            spans = judged.get("error_spans")
            parsed: tuple[PearmutSpan, ...] | None = None
            if spans is not None:
                if not isinstance(spans, list):
                    bad(n, f"{where}: error_spans is not a list", "Give a list of spans.")
                    continue
                found = [
                    parse_span(
                        s, text, f"line {n}, {where}, span {m}", lambda msg, fix: bad(n, msg, fix)
                    )
                    for m, s in enumerate(spans, 1)
                ]
                if any(p is None for p in found):
                    continue
                parsed = tuple(p for p in found if p is not None)
            out.append(
                LogJudgment(
                    n,
                    entry["user_id"],
                    item["item_id"],
                    system,
                    text,
                    None if score is None else float(score),
                    parsed,
                )
            )
    return out


# ---------------------------------------------------------------- writing


def span_json(span: PearmutSpan) -> dict[str, Any]:
    """A span in Pearmut's form (``end_i`` inclusive; a [missing] mark at the text's end)."""
    end = span.start if span.missing else span.end - 1
    return {
        "start_i": span.start,
        "end_i": end,
        "severity": span.severity,
        "category": span.category,
    }


def campaign_json(
    campaign_id: str, info: Mapping[str, Any], data: list[Any], welcome: list[Any] | None = None
) -> bytes:
    """A Pearmut campaign file (pretty-printed UTF-8 JSON, as Pearmut's examples are);
    ``welcome``: its ``data_welcome`` (the pre-task form, formats.pearmut.extras)."""
    doc: dict[str, Any] = {"info": dict(info), "campaign_id": campaign_id}
    if welcome:
        doc["data_welcome"] = welcome
    doc["data"] = data
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def log_jsonl(entries: Iterable[Mapping[str, Any]]) -> bytes:
    """A Pearmut annotation log: one JSON object per line, UTF-8."""
    return b"".join(
        (json.dumps(dict(e), ensure_ascii=False) + "\n").encode("utf-8") for e in entries
    )
