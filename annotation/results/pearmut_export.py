"""A campaign in Pearmut's layouts: the campaign file (formats.pearmut.campaign) and the
annotation log (formats.pearmut.log), so that Pearmut, or WMT's scripts that read Pearmut's
log, take Tandem's items and judgments.

A campaign imported from Pearmut (annotation.imports.pearmut) is written back as it came:
the same tasks → documents → items layout, ``info``, per-item instructions and other keys,
prefilled ``error_spans`` (from its AI spans) and its validation items. Any other span or DA
campaign becomes one task of its documents (by ``doc_id``, in first-seen order; items
without a document are one document each).

The log has one line per (annotator, item): ``item`` and ``annotation`` are one-element
lists, ``item_i`` is the index of the item's document in the layout's first task holding
it. ``score`` is the ESA score (span campaigns that ask it), the DA score (DA), or null (MQM
without an overall score). Spans are written with Pearmut's inclusive ``end_i``; an
omission marked in the source becomes Pearmut's ``[missing]`` mark (``start_i == end_i ==``
the output's length), which loses its place in the source; a source-side error span has no
Pearmut form and is counted in :attr:`PearmutExport.notes`.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

from annotation.judging import comparative
from annotation.judging.span_judgments import META_KEY as SPANS_KEY
from annotation.judging.spans import SpanConfig
from db import Engine
from db.campaign.campaigns import campaign_meta, campaign_rows, get_campaign
from db.engine import read_scope
from db.judging.log_export import annotation_log
from db.schema.vocabulary import CampaignMode
from db.scores.ai_spans import campaign_spans
from formats.pearmut.campaign import META_KEY, PearmutSpan
from formats.pearmut.extras import form_welcome, slider_value
from formats.pearmut.log import campaign_json, log_jsonl, span_json


class NotPearmutShaped(ValueError):
    """A campaign Pearmut has no protocol for (binary labels, post-edits, SQM)."""


@dataclass
class PearmutExport:
    campaign_id: str
    campaign: bytes  # the campaign file
    log: bytes  # the annotation log (JSONL)
    lines: int
    notes: list[str] = field(default_factory=list)


def export_pearmut(engine: Engine, name: str) -> PearmutExport:
    """The campaign ``name`` in Pearmut's layouts (module docstring); KeyError for an
    unknown campaign, :class:`NotPearmutShaped` for a mode Pearmut lacks."""
    with read_scope(engine) as s:
        camp = get_campaign(s, name)
        if camp is None:
            raise KeyError(f"no campaign named {name!r}")
        cid, mode = camp.id, CampaignMode(camp.mode)
        meta = campaign_meta(s, cid)
        prefill = {k: list(v) for k, v in campaign_spans(s, cid).items()}
    saved = meta.get(META_KEY) if isinstance(meta.get(META_KEY), dict) else {}
    config = SpanConfig.from_meta(meta.get(SPANS_KEY))
    protocol = saved.get("protocol") or _protocol(mode, config, meta)
    items, docs = _items(engine, name, prefill)
    layout = saved.get("layout") or [_documents(items, docs)]
    checks = saved.get("validation_items") or {}
    data = [[[items.get(i) or checks[i] for i in doc if i in items or i in checks]
             for doc in task] for task in layout]  # fmt: skip
    info = saved.get("info") or {"assignment": "task-based", "protocol": protocol}
    if not saved and protocol == "MQM":
        info["mqm_categories"] = {c: [] for c in config.categories}
    campaign_id = saved.get("campaign_id") or name
    notes: list[str] = []
    grid = _likert_grid(meta, info)
    entries = list(_log(engine, cid, mode, config, items, layout, notes, grid))
    welcome = form_welcome(meta.get("pretask_form"))
    return PearmutExport(campaign_id, campaign_json(campaign_id, info, data, welcome),
                         log_jsonl(entries), len(entries), notes)  # fmt: skip


def _likert_grid(meta: dict[str, Any], info: dict[str, Any]) -> tuple[dict, float, float] | None:
    """A Likert campaign's (scale, slider min, step): the Pearmut slider it came from, or
    for a Tandem scale a slider 1 … n of step 1 added to ``info`` (its score is the point)."""
    likert = meta.get("likert")
    if not isinstance(likert, dict):
        return None
    came = meta.get("pearmut_slider")
    if isinstance(came, dict):
        return likert, float(came["low"]), float(came["step"])
    info.setdefault("sliders", [{"name": "Likert", "min": 1, "max": len(likert["labels"]),
                                 "step": 1}])  # fmt: skip
    return likert, 1.0, 1.0


def _protocol(mode: CampaignMode, config: SpanConfig, meta: dict[str, Any]) -> str:
    if mode == CampaignMode.DA:
        return "DA"
    if mode == CampaignMode.SPANS:
        if len(config.categories) > 1 or not config.ask_esa:
            return "MQM"  # categories, or spans without a score: not ESA
        return "cESA" if comparative.setting_of(meta).on else "ESA"
    raise NotPearmutShaped(
        f"a '{mode.value}' campaign has no Pearmut protocol (Pearmut has ESA, cESA, DA and "
        "MQM): export it with `cli.py export` instead"
    )


def _items(
    engine: Engine, name: str, prefill: dict[tuple[str, str], list[Any]]
) -> tuple[dict[str, dict[str, Any]], dict[str, str | None]]:
    """item id → the item in Pearmut's form; item id → its doc_id."""
    items: dict[str, dict[str, Any]] = {}
    docs: dict[str, str | None] = {}
    for r in campaign_rows(engine, name):
        ext = r["item_id"]
        if ext not in items:
            item: dict[str, Any] = {"item_id": ext, "src": r["source"]}
            if r["reference"] is not None:
                item["ref"] = r["reference"]
            item["tgt"] = {}
            om = r.get("meta") or {}
            if "pearmut_instructions" in om:  # Pearmut's own HTML, as it came
                item["instructions"] = om["pearmut_instructions"]
            elif r.get("instructions"):  # a campaign file's markdown, escaped for Pearmut's HTML
                item["instructions"] = html.escape(r["instructions"]).replace("\n", "<br>")
            if "pearmut_item" in om:
                item.update(json.loads(om["pearmut_item"]))
            items[ext], docs[ext] = item, r["doc_id"]
        items[ext]["tgt"][r["system"]] = r["output"]
        spans = prefill.get((ext, r["system"]))
        if spans:
            marked = [
                span_json(PearmutSpan(sp.start, sp.end, sp.severity, sp.category))
                for sp in spans
                if sp.start is not None
            ]
            items[ext].setdefault("error_spans", {})[r["system"]] = marked
    return items, docs


def _documents(items: dict[str, dict[str, Any]], docs: dict[str, str | None]) -> list[list[str]]:
    grouped: dict[Any, list[str]] = {}
    for ext in items:
        grouped.setdefault(docs[ext] if docs[ext] is not None else ("", ext), []).append(ext)
    return list(grouped.values())


def _log(
    engine: Engine,
    cid: int,
    mode: CampaignMode,
    config: SpanConfig,
    items: dict[str, dict[str, Any]],
    layout: list[list[list[str]]],
    notes: list[str],
    grid: tuple[dict, float, float] | None = None,
) -> Any:
    doc_index: dict[str, int] = {}
    for task in layout:
        for d, doc in enumerate(task):
            for ext in doc:
                doc_index.setdefault(ext, d)
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    source_spans = 0
    for row in annotation_log(engine, cid):
        if row["kind"] != "label" or row["item_id"] not in items:
            continue
        judged: dict[str, Any] = {"score": _score(mode, config, row)}
        if grid is not None and judged["score"] is not None:  # the slider's own value
            judged["score"] = slider_value(judged["score"], *grid)
        if mode == CampaignMode.SPANS:
            text = items[row["item_id"]]["tgt"][row["system"]]
            spans, dropped = _spans(json.loads(row["spans"] or "[]"), len(text), config)
            source_spans += dropped
            judged["error_spans"] = spans
        key = (row["annotator"], row["item_id"])
        grouped.setdefault(key, {})[row["system"]] = judged
    if source_spans:
        notes.append(f"{source_spans:,} error span(s) in the source have no Pearmut form")
    for (annotator, ext), annotation in grouped.items():
        yield {
            "user_id": annotator,
            "item_i": doc_index.get(ext, 0),
            "item": [items[ext]],
            "annotation": [annotation],
        }


def _score(mode: CampaignMode, config: SpanConfig, row: dict[str, Any]) -> float | None:
    if mode == CampaignMode.DA:
        return row["da_score"]
    return row["esa_score"] if config.ask_esa else None


def _spans(
    spans: list[dict[str, Any]], n_chars: int, config: SpanConfig
) -> tuple[list[dict[str, Any]], int]:
    """Spans in Pearmut's form; how many have none. A campaign of one category (ESA marks
    a severity only) writes Pearmut's null category."""
    out, dropped = [], 0
    for sp in spans:
        category = None if len(config.categories) == 1 else sp["category"]
        if sp.get("side", "target") == "source":
            if sp["start"] != sp["end"]:
                dropped += 1
                continue
            out.append(span_json(PearmutSpan(n_chars, n_chars, sp["severity"], category, True)))
            continue
        out.append(span_json(PearmutSpan(sp["start"], sp["end"], sp["severity"], category)))
    return out, dropped


__all__ = ["NotPearmutShaped", "PearmutExport", "export_pearmut"]
