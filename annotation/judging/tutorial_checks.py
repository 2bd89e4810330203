"""Grading a tutorial or check answer against what its item expects: a label, a score range,
error spans with tolerant offsets and optional severities, or an omission; each unmet
expectation said in words the annotator reads.

Spans are matched one to one (Kuhn's augmenting paths on the bipartite graph of expected
and given spans, an edge where a given span meets an expected one's offsets and severity):
every expected span needs its own given span, and a given span that meets none is an error
marked where none was expected. An expected omission is met by a mark in the source
("missing here", start = end) or by a span over the output's ``[missing]`` marker.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

MISSING_MARK = "[missing]"


def _fits(span: dict[str, Any], want: dict[str, Any], output: str) -> bool:
    severity = want.get("severity")
    if severity is not None and _severity(span) != _severity_of(severity):
        return False
    if want.get("missing"):
        if span.get("side") == "source":
            return span["start"] == span["end"]
        marked = output[span["start"] : span["end"]].casefold()
        return MISSING_MARK in marked
    if span.get("side", "target") != "target":
        return False
    (s_lo, s_hi), (e_lo, e_hi) = want["start"], want["end"]
    return s_lo <= span["start"] <= s_hi and e_lo <= span["end"] <= e_hi


def _severity(span: dict[str, Any]) -> str:
    return _severity_of(str(span.get("severity", "")))


def _severity_of(severity: str) -> str:
    # ESA has minor and major; MQM's critical is scored as major (WMT's weights), and a
    # tutorial that expects "major" accepts it
    value = severity.lower()
    return "major" if value == "critical" else value


def match(
    given: Sequence[dict[str, Any]], wanted: Sequence[dict[str, Any]], output: str
) -> list[int | None]:
    """For each wanted span, the index of the given span matched to it (None: unmet); a
    maximum one-to-one matching."""
    edges = [[g for g, span in enumerate(given) if _fits(span, w, output)] for w in wanted]
    owner: dict[int, int] = {}

    def augment(w: int, seen: set[int]) -> bool:
        for g in edges[w]:
            if g in seen:
                continue
            seen.add(g)
            if g not in owner or augment(owner[g], seen):
                owner[g] = w
                return True
        return False

    for w in range(len(wanted)):
        augment(w, set())
    out: list[int | None] = [None] * len(wanted)
    for g, w in owner.items():
        out[w] = g
    return out


def describe_span(want: dict[str, Any], output: str) -> str:
    severity = f" ({want['severity']})" if want.get("severity") else ""
    if want.get("missing"):
        return f"an omission{severity}"
    start, end = (sum(want["start"]) // 2, sum(want["end"]) // 2)  # the middle of each range
    words = (
        want.get("text") or output[start:end].strip() or output[want["start"][0] : want["end"][1]]
    )
    words = words if len(words) <= 40 else words[:37] + "…"
    return f"an error on “{words}”{severity}"


def choice_words(choice: str, shown: tuple[str, str] = ("first", "second")) -> str:
    """A preference answer in words ("first", "second" or "tie"); ``shown`` names the
    first and second output as the reader saw them (e.g. ("right", "left"))."""
    if choice == "tie":
        return "a tie"
    return f"the {shown[0] if choice == 'first' else shown[1]} output better"


def describe_winner(winner: str, tie_ok: bool, shown: tuple[str, str] = ("first", "second")) -> str:
    """What a preference item expects, in words."""
    if winner == "tie":
        return "the two outputs tie"
    return choice_words(winner, shown) + (" (a tie accepted)" if tie_ok else "")


def grade(
    item: Any,
    label: int | None = None,
    score: float | None = None,
    spans: Sequence[dict[str, Any]] | None = None,
    preference: str | None = None,
    shown: tuple[str, str] = ("first", "second"),
) -> list[str]:
    """What the answer misses of ``item``'s expectations ([] : right). ``item`` has
    ``label``, ``score`` ([lo, hi]), ``spans`` (expected spans) and ``output``, and for a
    pair ``winner`` and ``tie_ok``; ``preference`` is "first", "second" or "tie", said with
    the outputs named as ``shown``."""
    problems = []
    winner = getattr(item, "winner", None)
    if winner is not None:
        ok = preference == winner or (preference == "tie" and getattr(item, "tie_ok", False))
        if not ok:
            said = "no choice" if preference is None else choice_words(preference, shown)
            problems.append(f"expected {describe_winner(winner, item.tie_ok, shown)}, not {said}")
    if item.label is not None and label != item.label:
        want = "adequate" if item.label else "inadequate"
        problems.append(f"the output is {want}")
    if item.score is not None:
        lo, hi = item.score
        wanted = f"{lo:g}" if lo == hi else f"from {lo:g} to {hi:g}"
        if score is None:
            problems.append(f"the score should be {wanted}; none was given")
        elif not lo <= score <= hi:
            problems.append(f"the score should be {wanted}, not {score:g}")
    if item.spans is not None:
        given = list(spans or [])
        matched = match(given, item.spans, item.output)
        for want, g in zip(item.spans, matched, strict=True):
            if g is None:
                problems.append(f"{describe_span(want, item.output)} was not marked")
        extra = len(given) - sum(g is not None for g in matched)
        if extra:
            where = "where none was expected" if not item.spans else "beyond the expected ones"
            problems.append(f"{extra} error span(s) marked {where}")
    return problems
