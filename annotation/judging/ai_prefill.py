"""ESA^AI on the annotate page and in the export: the AI spans an output starts with, and
what became of them in the judgment.

The prefill is the output's AI spans (annotation.imports.ai_spans) as span-widget spans, each
tagged ``ai`` (the AI span's id) and ``ai_state`` "unchecked" until the annotator accepts
it. A category the campaign does not offer becomes its ``other`` category (else its last):
the widget's keys and lists offer only the campaign's taxonomy.

Provenance is derived by position, the same rule on the page (a span drawn as the AI's)
and in the export:

- a final span equal to an AI span (start, end, severity) is ``ai`` (kept unchanged);
- one that overlaps an AI span otherwise is ``edited`` (severity or extent changed);
- any other is ``new``;
- an AI span that no final span equals or overlaps was ``deleted``; else ``kept`` or
  ``edited``.

A span the annotator deleted and then drew again at the same place counts as kept: the
judgment stores its final spans only, not the clicks that made them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from annotation.judging.spans import SpanError, parse_spans
from db import Engine
from db.campaign import campaigns as repo
from db.engine import read_scope
from db.scores import ai_spans as store

META_KEY = "ai_spans"  # campaigns.meta: {"source", "file", "prefill"} (annotation.imports.ai_spans)

__all__ = ["export_columns", "is_prefilled", "prefill_category", "prefill_spans", "provenance"]


def is_prefilled(engine: Engine, campaign_id: int) -> bool:
    """Does the campaign show AI spans pre-filled (ESA^AI)?"""
    with read_scope(engine) as s:
        value = repo.campaign_meta(s, campaign_id).get(META_KEY)
    return isinstance(value, dict) and bool(value.get("prefill"))


def prefill_category(category: str | None, categories: Sequence[str]) -> str:
    """The campaign category an AI span's category maps to (module docstring)."""
    if category:
        top = category.partition("/")[0].strip().casefold()
        for c in categories:
            if c.casefold() in (category.strip().casefold(), top):
                return c
    lowered = [c.casefold() for c in categories]
    return categories[lowered.index("other")] if "other" in lowered else categories[-1]


def prefill_spans(
    engine: Engine, output_id: int, text: str, categories: Sequence[str]
) -> list[dict[str, Any]]:
    """The output's AI spans as the page's spans ({start, end, severity, category, side,
    ai, ai_state}); spans that do not fit ``text`` are left out (never raised on)."""
    with read_scope(engine) as s:
        stored = store.output_spans(s, output_id)
    out = []
    for sp in stored:
        if sp.start is None or sp.end is None or sp.severity is None:
            continue
        raw = {
            "start": sp.start,
            "end": sp.end,
            "severity": sp.severity,
            "category": prefill_category(sp.category, categories),
            "side": "target",
        }
        try:
            (parsed,) = parse_spans([raw], text, "", categories)
        except (SpanError, ValueError):
            continue
        out.append(parsed.to_json() | {"ai": sp.id, "ai_state": "unchecked"})
    return out


def _key(span: Mapping[str, Any]) -> tuple[int, int, str]:
    return int(span["start"]), int(span["end"]), str(span["severity"])


def _overlap(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return int(a["start"]) < int(b["end"]) and int(b["start"]) < int(a["end"])


def provenance(
    final: Sequence[Mapping[str, Any]], ai: Sequence[Mapping[str, Any]]
) -> tuple[list[str], list[str]]:
    """(per final span: ai | edited | new; per AI span: kept | edited | deleted), by the
    rule of the module docstring. Omission marks in the source are always new."""
    target = [(n, f) for n, f in enumerate(final) if f.get("side", "target") == "target"]
    exact = {_key(a) for a in ai}
    origins = ["new"] * len(final)
    for n, f in target:
        if _key(f) in exact:
            origins[n] = "ai"
        elif any(_overlap(f, a) for a in ai):
            origins[n] = "edited"
    fates = []
    for a in ai:
        if any(_key(f) == _key(a) for _, f in target):
            fates.append("kept")
        elif any(_overlap(f, a) for _, f in target):
            fates.append("edited")
        else:
            fates.append("deleted")
    return origins, fates


def export_columns(
    spans: Sequence[Mapping[str, Any]] | None, ai: Sequence[Any]
) -> tuple[list[dict[str, Any]], list[str]]:
    """For one judgment: the AI spans of its output with their fate (JSON-ready) and the
    origin of each of its final spans."""
    ai_json = [
        {
            "start": a.start,
            "end": a.end,
            "severity": a.severity,
            "category": a.category,
            "confidence": a.confidence,
            "model": a.model,
            "source": a.source,
        }
        for a in ai
        if a.start is not None
    ]
    origins, fates = provenance(list(spans or []), ai_json)
    return [a | {"fate": f} for a, f in zip(ai_json, fates, strict=True)], origins
