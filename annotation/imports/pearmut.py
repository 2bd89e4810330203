"""Import a Pearmut campaign file (and, optionally, its annotation log) as a new Tandem
campaign, all or nothing, in one transaction.

What maps where (docs/formats.md has the table, feature by feature):

- ``protocol``: ESA → the ``esa`` preset (annotation.imports.modes); cESA → ``esa`` with
  comparative screens on (annotation.judging.comparative); DA → ``da``; MQM → ``spans``
  (the file's ``mqm_categories`` as the taxonomy when given).
- documents → ``doc_id`` (a document's first item id) and the documents kept in order;
  the tasks → documents → items layout is kept in ``campaigns.meta["pearmut"]`` so that
  an export (annotation.results.pearmut_export) writes the same file back.
- ``error_spans`` → AI spans with the prefill on (ESA^AI, annotation.imports.ai_spans).
- items with ``validation`` → the campaign's tutorial and checks (annotation.judging.tutorial),
  one item per output, read by the reader of Pearmut's tutorial files
  (formats.tutorial_file, via formats.pearmut.campaign): the score range, the expected spans
  with their tolerant offsets and severities, ``missing`` omissions, the item's
  ``error_spans`` shown marked, a ``warning`` → a loud item (the warning shown when the
  answer is wrong), none → a silent check; graded as a tutorial file's items are. They are
  not campaign items, so no estimate reads them. ``score_greaterthan`` is kept for the
  export, not checked (listed).
- ``instructions`` (per item) → shown above the item, as markdown with the HTML tags
  dropped (formats.instructions.from_html), and exported as written; the
  campaign's ``info.instructions`` → the guidelines.
- a log (formats.pearmut.log) → judgments by the log's annotators, validated as the span or
  DA screens validate them (annotation.judging.span_judgments).

- ``info.sliders`` → one score per output: a slider of 2–11 whole steps → the campaign's
  Likert scale, a 0–100 one → the DA slider (formats.pearmut.extras.choose_slider; the
  others listed); ``data_welcome``'s questions → the pre-task form (welcome_form);
  ``info.textfield`` (not hidden) → the optional comment box.

Everything else the file holds is listed in :attr:`PearmutReport.not_imported`.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice, pairwise
from pathlib import Path
from typing import Any

from annotation.campaign import context
from annotation.campaign.guidelines import COMMENT_KEY, GUIDELINES_KEY
from annotation.imports.modes import ESA_MODE, stored_settings
from annotation.imports.writer import CampaignWriter
from annotation.judging import comparative, tutorial, tutorial_items
from annotation.judging.ai_prefill import META_KEY as AI_KEY
from annotation.judging.span_judgments import META_KEY as SPANS_KEY
from annotation.judging.span_judgments import judgment_fields
from annotation.judging.spans import SpanConfig, SpanError
from db import Engine
from db.campaign import campaigns as repo
from db.engine import session_scope
from db.schema.vocabulary import DOCUMENT_ORDER, CampaignMode
from db.scores import ai_spans as span_store
from formats.campaign_file import CHUNK_ROWS
from formats.instructions import from_html
from formats.pearmut.campaign import (
    META_KEY,
    SEVERITIES,
    PearmutCampaign,
    PearmutItem,
    read_pearmut_campaign,
)
from formats.pearmut.extras import read_slider, textfield_comment, welcome_form
from formats.pearmut.log import PearmutLog, read_pearmut_log
from formats.problems import (
    DEFAULT_MAX_MB,
    MAX_PROBLEMS,
    CampaignFileError,
    Problem,
    check_campaign_name,
)
from formats.readers import source_bytes
from formats.rows import Row, checked_rows

AI_SOURCE = "pearmut error_spans"
ESA_CATEGORY = "error"  # the ESA preset's one category (annotation.imports.modes)
#: info keys the import reads; any other is listed as not imported.
READ_INFO = {"protocol", "assignment", "instructions", "mqm_categories", "sliders", "textfield"}
#: Why common info keys have no Tandem counterpart (the report says it beside the key).
WHY = {
    "show_model_names": "Tandem hides system names from annotators",
    "shuffle": "Tandem's comparative screens shuffle outputs per annotator and item",
    "users": "annotators are invited in Tandem (Annotators page)",
    "validation_threshold": "Tandem's tutorial has its own pass mark",
    "instructions_goodbye": "Tandem's tasks end with their completion code",
    "dynamic_models": "Tandem's racing and active sampling are its adaptive designs",
}


@dataclass
class PearmutReport:
    campaign: str
    campaign_id: int
    protocol: str
    items: int
    systems: int
    outputs: int
    ai_spans: int
    tutorial_items: int
    judgments: int
    not_imported: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        lines = [
            f"Imported Pearmut campaign '{self.campaign}' ({self.protocol}): {self.items:,} "
            f"items, {self.systems:,} systems, {self.outputs:,} outputs, {self.ai_spans:,} AI "
            f"span(s), {self.tutorial_items:,} tutorial item(s), {self.judgments:,} "
            f"judgment(s) in {self.seconds:.1f} s.",
        ]
        if self.not_imported:
            lines.append("Not imported (Tandem cannot hold these yet):")
            lines.extend(f"  - {n}" for n in self.not_imported)
        return "\n".join(lines)


def import_pearmut(
    engine: Engine,
    source: Path | bytes,
    campaign: str | None = None,
    *,
    filename: str | None = None,
    log: Path | bytes | None = None,
    log_filename: str | None = None,
    max_mb: float = DEFAULT_MAX_MB,
    slider: str | None = None,
) -> PearmutReport:
    """Validate the file (and log) completely, then write the campaign in one transaction;
    :class:`CampaignFileError` and nothing written for any problem. ``campaign`` defaults
    to the file's ``campaign_id``; ``slider``: which of ``info.sliders`` is asked (default
    the first)."""
    started = time.perf_counter()
    data, filename = source_bytes(source, filename, max_mb)
    parsed = read_pearmut_campaign(data, filename)
    name = (campaign or parsed.campaign_id).strip()
    check_campaign_name(name, filename)
    judged = None
    if log is not None:
        log_data, log_filename = source_bytes(log, log_filename, max_mb)
        judged = read_pearmut_log(log_data, log_filename)
    plan = _Plan(parsed, judged, slider)
    if judged is not None:
        plan.notes.extend(judged.notes)
    with session_scope(engine) as s:
        if repo.get_campaign(s, name) is not None:
            raise CampaignFileError(
                [
                    Problem(
                        filename,
                        f"a campaign named '{name}' already exists",
                        "Choose a new campaign name (--campaign).",
                    )
                ]
            )
        camp = repo.create_campaign(
            s, name, queue_seed=secrets.randbelow(2**31), **stored_settings(plan.settings())
        )
        writer = CampaignWriter(
            s, camp.id, camp.queue_seed or 0, filename, camp.mode,
            likert=(camp.meta or {}).get("likert"),
        )  # fmt: skip
        # rows are built, checked (the campaign-file rules) and written a chunk at a time:
        # a problem in a later chunk raises and rolls back the chunks written before it
        rows = checked_rows(filename, _rows(plan, judged))
        while chunk := list(islice(rows, CHUNK_ROWS)):
            writer.add(chunk)
        counts = writer.finish()
        n_spans = _write_ai_spans(s, camp.id, plan)
    return PearmutReport(
        campaign=name,
        campaign_id=camp.id,
        protocol=parsed.protocol,
        items=counts["items_added"],
        systems=counts["systems_added"],
        outputs=counts["outputs_added"],
        ai_spans=n_spans,
        tutorial_items=len(plan.tutorial),
        judgments=counts["judgments_added"],
        not_imported=plan.notes,
        seconds=time.perf_counter() - started,
    )


@dataclass(frozen=True)
class PearmutPreview:
    """What an import would write, read with no database (the Import page's preview)."""

    campaign_id: str
    protocol: str
    items: int
    outputs: int
    systems: tuple[str, ...]
    tutorial_items: int
    not_imported: tuple[str, ...]


def preview_pearmut(data: bytes, filename: str, slider: str | None = None) -> PearmutPreview:
    """The file read and mapped as :func:`import_pearmut` would; CampaignFileError for any
    problem (the same ones the import raises)."""
    plan = _Plan(read_pearmut_campaign(data, filename), slider=slider)
    systems = sorted({s for it in plan.items.values() for s in it.tgt})
    return PearmutPreview(
        plan.parsed.campaign_id,
        plan.parsed.protocol,
        len(plan.items),
        sum(len(it.tgt) for it in plan.items.values()),
        tuple(systems),
        len(plan.tutorial),
        tuple(plan.notes),
    )


class _Plan:
    """The campaign's settings, items and tutorial, decided before anything is written."""

    def __init__(
        self, parsed: PearmutCampaign, judged: PearmutLog | None = None, slider: str | None = None
    ) -> None:
        self.parsed, self.filename = parsed, parsed.filename
        self.notes: list[str] = list(parsed.notes)
        info = parsed.info
        # one score per output, the pre-task form, the comment box (formats.pearmut.extras)
        self.slider = read_slider(self.filename, parsed.protocol, info.get("sliders"), slider)
        self.form, form_notes = welcome_form(parsed.welcome)
        self.comment, comment_notes = textfield_comment(info.get("textfield"))
        slider_notes = self.slider.notes if self.slider else []
        self.notes.extend([*slider_notes, *form_notes, *comment_notes])
        self.mode = {"ESA": ESA_MODE, "cESA": ESA_MODE, "DA": "da", "MQM": "spans"}[parsed.protocol]
        # Pearmut's MQM asks a 0–100 score with the spans; a log whose judgments carry none
        # (Tandem's own MQM campaigns exported) imports without it
        scored = judged is None or any(j.score is not None for j in judged.judgments)
        self.config = _span_config(parsed, self._refuse, scored)
        for key in sorted(set(info) - READ_INFO):
            why = f" ({WHY[key]})" if key in WHY else ""
            self.notes.append(f"info.{key[:80]} = {json.dumps(info[key])[:80]} not imported{why}")
        if parsed.assignment != "single-stream":
            self.notes.append(
                f"assignment '{parsed.assignment}': Tandem's queue assigns items (its tasks "
                "are batches of the queue); the file's layout is kept for the export"
            )
        unique = parsed.unique_items()
        self.items = {k: v for k, v in unique.items() if not v.is_check}
        checks = [v for v in unique.values() if v.is_check]
        if not self.items:
            raise self._refuse(
                f"all {len(checks):,} items are tutorial or check items (a 'validation' block "
                f"or 'skippable'), from {checks[0].where}: no item is left to evaluate",
                "Prefix the tutorial to the tasks of a campaign, as Pearmut's tutorials are "
                "used, or import the campaign's own items.",
            )
        self.tutorial = self._tutorial(checks)
        with_instr = sum(1 for v in self.items.values() if v.instructions)
        if with_instr:
            self.notes.append(
                f"per-item instructions of {with_instr:,} item(s) shown above the item as "
                "markdown (their HTML tags dropped) and exported as Pearmut wrote them"
            )
        self.docs = _documents(parsed)

    def _refuse(self, message: str, fix: str) -> CampaignFileError:
        return CampaignFileError([Problem(self.filename, message, fix)])

    def _tutorial(self, checks: list[PearmutItem]) -> list[dict[str, Any]]:
        """Each output's validation rule as the tutorial item formats.tutorial_file reads
        from Pearmut's tutorial JSON (formats.pearmut.campaign: the same reader), fitted to the
        campaign's screen as `cli.py tutorial` fits a file's items."""
        out: list[dict[str, Any]] = []
        mode = CampaignMode.SPANS if self.mode == ESA_MODE else CampaignMode(self.mode)
        ranked = 0
        for it in checks:
            if it.validation is None:
                self.notes.append(
                    f"{it.where}: a skippable tutorial item with no validation has no "
                    "expected answer: not imported (kept for the export)"
                )
            for system, why in it.unchecked.items():
                self.notes.append(f"{it.where}, system '{system[:80]}': {why}: not imported")
            for system, raw in it.checks.items():
                rules = it.validation.get(system) if it.validation else None
                rule = rules[0] if isinstance(rules, list) else rules
                ranked += isinstance(rule, dict) and "score_greaterthan" in rule
                raw = dict(raw)
                if mode.asks_slider and raw["spans"] is not None:
                    raw["spans"] = None  # a DA screen marks no span: its score is checked
                    if raw["score"] is None:
                        self.notes.append(
                            f"{it.where}, system '{system[:80]}': expected spans only, and a "
                            "DA screen asks a score: not imported"
                        )
                        continue
                    raw["prefill"] = []
                try:
                    tutorial_items.fits_mode(tutorial_items.item_of(raw), mode, len(out) + 1)
                except tutorial.TutorialError as exc:
                    self.notes.append(f"{it.where}, system '{system[:80]}': {exc}: not imported")
                    continue
                out.append(raw)
        if len(out) > tutorial.MAX_ITEMS:
            self.notes.append(
                f"{len(out) - tutorial.MAX_ITEMS:,} validation output(s) past Tandem's "
                f"{tutorial.MAX_ITEMS} tutorial items not imported"
            )
            out = out[: tutorial.MAX_ITEMS]
        if ranked:
            self.notes.append(
                f"score_greaterthan of {ranked:,} validation output(s) kept for the export, "
                "not checked (Tandem checks each output's own score range)"
            )
        return out

    def settings(self) -> dict[str, Any]:
        p = self.parsed
        meta: dict[str, Any] = {
            "source_file": self.filename,
            META_KEY: {
                "campaign_id": p.campaign_id,
                "protocol": p.protocol,
                "info": p.info,
                "layout": p.layout(),
                "validation_items": {
                    it.item_id: _raw_item(it) for it in p.unique_items().values() if it.is_check
                },
            },
            # documents judged whole, in order, with their earlier segments shown
            DOCUMENT_ORDER: {"on": True},
            context.KEY: {"on": True, "window": context.DEFAULT_WINDOW},
        }
        if self.config is not None:
            meta[SPANS_KEY] = self.config.to_meta()
        if p.protocol == "cESA":
            meta[comparative.KEY] = {"on": True, "outputs": None}
        if self.tutorial:
            need = tutorial.default_pass_mark([tutorial_items.item_of(i) for i in self.tutorial])
            meta[tutorial.KEY] = {"items": self.tutorial, "pass_needed": need}
        if isinstance(p.info.get("instructions"), str) and p.info["instructions"].strip():
            meta[GUIDELINES_KEY] = {"text": p.info["instructions"][:20000], "examples": ""}
        if any(it.error_spans for it in self.items.values()):
            meta[AI_KEY] = {"source": AI_SOURCE, "file": self.filename, "prefill": True}
        if self.slider is not None and self.slider.likert is not None:
            meta["likert"] = self.slider.likert  # and how a point maps back to the slider
            meta["pearmut_slider"] = {"name": self.slider.name, "low": self.slider.low,
                                      "step": self.slider.step}  # fmt: skip
        if self.form is not None:
            meta["pretask_form"] = self.form
        if self.comment:
            meta[COMMENT_KEY] = True
        return {"mode": self.mode, "paired": True, "meta": meta}


def _span_config(parsed: PearmutCampaign, refuse: Any, scored: bool) -> SpanConfig | None:
    if parsed.protocol in ("ESA", "cESA"):
        return None  # the ESA preset's own settings (annotation.imports.modes)
    if parsed.protocol != "MQM":
        return None
    cats = parsed.info.get("mqm_categories")
    if cats is None:
        return SpanConfig(ask_esa=scored)
    if not isinstance(cats, dict) or not all(isinstance(v, list) for v in cats.values()):
        raise refuse("info.mqm_categories is not {category: [subcategories]}", "Fix its shape.")
    try:
        return SpanConfig.from_meta(
            {"categories": [c for c in cats if c.strip()], "ask_esa": scored}
        )
    except SpanError as exc:
        raise refuse(f"info.mqm_categories: {exc}", "Give distinct category names.") from None


def _documents(parsed: PearmutCampaign) -> dict[str, str]:
    """item id → its document's id (the document's first item id, wherever it recurs)."""
    out: dict[str, str] = {}
    for doc in (d for task in parsed.layout() for d in task):
        for item_id in doc:
            out.setdefault(item_id, doc[0])
    return out


def _raw_item(it: PearmutItem) -> dict[str, Any]:
    """An item in Pearmut's own form (what the export writes back)."""
    from formats.pearmut.log import span_json

    raw: dict[str, Any] = {"item_id": it.item_id, "src": it.src}
    if it.ref is not None:
        raw["ref"] = it.ref
    raw["tgt"] = it.tgt
    if it.instructions is not None:
        raw["instructions"] = it.instructions
    if it.error_spans:
        raw["error_spans"] = {k: [span_json(s) for s in v] for k, v in it.error_spans.items()}
    if it.validation is not None:
        raw["validation"] = it.validation
    return raw | it.extras


def _rows(plan: _Plan, judged: PearmutLog | None) -> Iterator[Row]:
    by_output = _log_rows(plan, judged) if judged is not None else {}
    n = 0
    for item in plan.items.values():
        extras: dict[str, Any] = {}
        instructions = None
        if item.instructions is not None:
            extras["pearmut_instructions"] = item.instructions  # the HTML, for the export
            instructions = from_html(item.instructions) or None  # what the page shows
        if item.extras:
            extras["pearmut_item"] = json.dumps(item.extras, ensure_ascii=False)[:100_000]
        for system, text in item.tgt.items():
            fields_list = by_output.get((item.item_id, system)) or [{}]
            for fields in fields_list:
                n += 1
                yield Row(
                    number=n,
                    line=None,
                    item_id=item.item_id,
                    source=item.src,
                    reference=item.ref,
                    system=system,
                    instructions=instructions,
                    output=text,
                    doc_id=plan.docs.get(item.item_id),
                    extras=dict(extras),
                    **fields,
                )


def _log_rows(plan: _Plan, judged: PearmutLog) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The log's judgments as Row fields per output, checked against the items and the
    campaign's judging rules; CampaignFileError naming each bad line."""
    problems: list[Problem] = []
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    config = plan.config or (
        SpanConfig.from_meta(stored_settings({"mode": ESA_MODE})["meta"][SPANS_KEY])
        if plan.mode == ESA_MODE
        else None
    )
    skipped = 0

    def bad(line: int, message: str, fix: str) -> None:
        problems.append(Problem(judged.filename, message, fix, row=line))

    for j in judged.judgments:
        item = plan.items.get(j.item_id)
        where = f"item '{j.item_id[:80]}', system '{j.system[:80]}'"
        if item is None:
            if j.item_id in plan.parsed.unique_items():
                skipped += 1  # a tutorial item's answer
                continue
            bad(j.line, f"{where}: no such item in the campaign file", "Log and campaign differ.")
            continue
        if item.tgt.get(j.system) != j.text:
            bad(
                j.line,
                f"{where}: the logged output differs from the campaign file's",
                "Import the log with the campaign file it was collected on.",
            )
            continue
        fields = _fields(plan, config, item, j, bad)
        if fields is not None:
            out.setdefault((j.item_id, j.system), []).append(fields)
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=len(problems) >= MAX_PROBLEMS)
    if skipped:
        plan.notes.append(f"{skipped:,} logged answer(s) to tutorial items not imported")
    return out


def _fields(
    plan: _Plan, config: SpanConfig | None, item: PearmutItem, j: Any, bad: Any
) -> dict[str, Any] | None:
    if config is None:  # DA
        if j.score is None:
            bad(
                j.line,
                f"item '{j.item_id[:80]}': a DA judgment without a score",
                "Give the score, or leave the line out.",
            )
            return None
        score = j.score
        if plan.slider is not None and plan.slider.likert is not None:
            score = plan.slider.point(score)  # the slider's value → the Likert point
        return {"annotator": j.user_id, "human_score": score}
    spans = []
    for sp in j.spans or ():
        if (sp.severity or "").casefold() not in SEVERITIES:
            bad(
                j.line,
                f"item '{j.item_id[:80]}': span severity {sp.severity!r} has no Tandem counterpart",
                f"Tandem's severities are {list(SEVERITIES)}.",
            )
            return None
        severity = sp.severity.casefold()  # type: ignore[union-attr]
        category = sp.category or (ESA_CATEGORY if plan.mode == ESA_MODE else "other")
        if sp.missing:  # Pearmut's [missing] mark: an omission, marked in the source
            spans.append(
                {
                    "start": len(item.src),
                    "end": len(item.src),
                    "side": "source",
                    "severity": severity,
                    "category": category,
                }
            )
        else:
            spans.append(
                {"start": sp.start, "end": sp.end, "severity": severity, "category": category}
            )
    try:
        f = judgment_fields(config, j.text, item.src, spans, j.score if config.ask_esa else None)
    except SpanError as exc:
        bad(
            j.line,
            f"item '{j.item_id[:80]}', system '{j.system[:80]}': {exc}",
            "Fix the judgment in the log.",
        )
        return None
    return {
        "annotator": j.user_id,
        "human_label": f["label"],
        "human_score": f["score"],
        "spans": f["spans"],
        "esa_score": f["esa_score"],
    }


def _write_ai_spans(s: Any, campaign_id: int, plan: _Plan) -> int:
    """The prefilled spans as AI spans (refusing overlaps, as the AI-span import does);
    spans Tandem's prefill cannot show are listed as not imported."""
    outputs = span_store.output_texts(s, campaign_id)
    rows: list[dict[str, Any]] = []
    problems: list[Problem] = []
    left_out = 0
    for item in plan.items.values():
        for system, spans in item.error_spans.items():
            oid = outputs[(item.item_id, system)][0]
            kept = [
                sp
                for sp in spans
                if not sp.missing and (sp.severity or "").casefold() in SEVERITIES
            ]
            left_out += len(spans) - len(kept)
            kept.sort(key=lambda sp: (sp.start, sp.end))
            for a, b in pairwise(kept):
                if b.start < a.end:
                    problems.append(
                        Problem(
                            plan.filename,
                            f"{item.where}, system '{system[:80]}': prefilled span "
                            f"{b.start}..{b.end - 1} overlaps {a.start}..{a.end - 1}",
                            "Merge or drop one: the annotate page shows one span per character.",
                        )
                    )
            rows.extend(
                {
                    "output_id": oid,
                    "start": sp.start,
                    "end": sp.end,
                    "severity": str(sp.severity).casefold(),
                    "category": sp.category,
                    "confidence": None,
                    "model": None,
                    "source": AI_SOURCE,
                }
                for sp in kept
            )
            if not spans:  # the model called the output clean
                rows.append(
                    {
                        "output_id": oid,
                        "start": None,
                        "end": None,
                        "severity": None,
                        "category": None,
                        "confidence": None,
                        "model": None,
                        "source": AI_SOURCE,
                    }
                )
    if problems:
        raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=len(problems) > MAX_PROBLEMS)
    if left_out:
        plan.notes.append(
            f"{left_out:,} prefilled span(s) with no severity, a neutral severity or a "
            "[missing] mark not imported (Tandem's prefill marks the output with minor / "
            "major / critical)"
        )
    if rows:  # a new campaign: nothing to delete first, but an import replaces, always
        span_store.delete_campaign_spans(s, campaign_id)
        span_store.insert_spans(s, rows)
    return sum(1 for r in rows if r["start"] is not None)  # spans, not "clean" rows
