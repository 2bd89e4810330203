"""Import AI error spans into an error-span campaign (ESA^AI, Zouhar et al. 2025), all or
nothing, and switch the campaign's prefill on.

Two file layouts: the AI-span file (formats.ai_spans_file: item_id, system, start, end,
severity[, category, confidence, model]; CSV, TSV, JSONL) and WMT's MQM TSV
(formats.mqm_tsv, read with annotation.imports.mqm's span rules), whose ``<v>…</v>`` marks in
the target become the spans (the first rater of each output; omission marks in the source
are left out: a prefill marks the output). Every row must name an output of the campaign;
its offsets must lie inside that output's text; one output's spans must not overlap (the
span widget shows one colour per character, so an overlapped span could not be told
apart); an MQM TSV's target must be the campaign's output text. The spans are stored in
``ai_spans`` (db.scores.ai_spans) under the import's source name, replacing the campaign's
earlier ones, and only before the first label: the prefill decides what annotators see,
so it cannot change under judgments already given. Whether the annotate page shows them
is the campaign setting ``ai_prefill`` (kept in ``campaigns.meta["ai_spans"]``, logged in
the setting log like every setting).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from annotation.judging.ai_prefill import META_KEY
from db import Engine
from db.campaign import campaigns as repo
from db.campaign.lifecycle import CampaignArchived
from db.engine import session_scope
from db.queue import settings as dbset
from db.queue.claim import queue_transaction
from db.schema.vocabulary import CampaignMode
from db.scores import ai_spans as store
from formats.ai_spans_file import AiSpanRow, read_ai_spans_file
from formats.mqm_tsv import COLUMNS as MQM_COLUMNS
from formats.problems import DEFAULT_MAX_MB, MAX_PROBLEMS, CampaignFileError, Problem
from formats.readers import source_bytes

SETTING_KEY = "ai_prefill"  # its key in the campaign setting log
MAX_SOURCE = 200


@dataclass(frozen=True)
class AiSpansReport:
    campaign: str
    filename: str
    source: str
    outputs: int  # outputs the file names
    spans: int
    clean: int  # outputs the model called clean
    campaign_outputs: int
    prefill: bool
    notes: tuple[str, ...] = ()
    seconds: float = 0.0

    def summary(self) -> str:
        lines = [
            f"Imported {self.spans:,} AI span(s) from {self.filename} as '{self.source}' into "
            f"'{self.campaign}': {self.outputs:,} of {self.campaign_outputs:,} outputs "
            f"({self.clean:,} called clean by the model) in {self.seconds:.1f} s.",
            "Annotators see them pre-filled (ESA^AI)."
            if self.prefill
            else "Prefill is off: annotators do not see them.",
        ]
        return "\n".join([*lines, *self.notes])


def is_mqm_tsv(data: bytes, filename: str) -> bool:
    """An MQM TSV: a .tsv whose header has WMT's MQM columns."""
    if not filename.lower().endswith(".tsv"):
        return False
    header = data.split(b"\n", 1)[0].decode("utf-8-sig", "replace").strip().split("\t")
    return all(c in header for c in MQM_COLUMNS)


def _mqm_rows(data: bytes, filename: str) -> tuple[list[AiSpanRow], dict, list[str]]:
    """The MQM TSV's target spans as AI-span rows (first rater per output), each output's
    target text (to compare with the campaign's) and notes on what was left out."""
    from annotation.imports.mqm import parse_mqm_tsv

    parsed = parse_mqm_tsv(data, filename)
    rows: list[AiSpanRow] = []
    texts: dict[tuple[str, str], tuple[int, str]] = {}
    other_raters = omissions = 0
    for seg in parsed.segments:
        key = (seg.seg_id, seg.system)
        if key in texts:
            other_raters += 1
            continue
        texts[key] = (seg.row, seg.target)
        target = [sp for sp in seg.spans if sp["side"] == "target"]
        omissions += len(seg.spans) - len(target)
        for sp in target:
            rows.append(
                AiSpanRow(
                    seg.row,
                    seg.seg_id,
                    seg.system,
                    sp["start"],
                    sp["end"],
                    sp["severity"],
                    sp["category"],
                    None,
                    seg.rater,
                )
            )
        if not target:
            rows.append(AiSpanRow(seg.row, seg.seg_id, seg.system, *(None,) * 6))
    notes = []
    if other_raters:
        notes.append(f"Note: {other_raters:,} judgment(s) of a second rater left out.")
    if omissions:
        notes.append(f"Note: {omissions:,} omission mark(s) in the source left out.")
    return rows, texts, notes


def _check_rows(
    rows: Iterable[AiSpanRow],
    outputs: dict[tuple[str, str], tuple[int, str]],
    filename: str,
    texts: dict[tuple[str, str], tuple[int, str]] | None = None,
) -> tuple[list[Problem], dict[int, list[AiSpanRow]]]:
    """Problems of the rows against the campaign's outputs, and the rows per output id."""
    problems: list[Problem] = []
    by_output: dict[int, list[AiSpanRow]] = {}

    def bad(row: int, column: str | None, message: str, fix: str) -> None:
        problems.append(Problem(filename, message, fix, row=row, column=column))

    for r in rows:
        found = outputs.get((r.item_id, r.system))
        if found is None:
            bad(
                r.row,
                "item_id",
                f"the campaign has no output of item '{r.item_id}' and system '{r.system}'",
                "Check item_id and system against the campaign file.",
            )
            continue
        oid, text = found
        if texts is not None and texts[(r.item_id, r.system)][1] != text:
            bad(
                r.row,
                "target",
                f"the target differs from the campaign's output of item "
                f"'{r.item_id}', system '{r.system}'",
                "Spans need the same output text.",
            )
            continue
        if r.start is not None and r.end is not None and r.end > len(text):
            bad(
                r.row,
                "end",
                f"[{r.start}, {r.end}) goes beyond the output ({len(text)} characters)",
                "Count offsets in Unicode code points (Python str indices).",
            )
            continue
        by_output.setdefault(oid, []).append(r)
    for spans in by_output.values():
        problems.extend(_overlaps(spans, filename))
    return problems, by_output


def _overlaps(rows: list[AiSpanRow], filename: str) -> list[Problem]:
    marked = sorted((r for r in rows if r.start is not None), key=lambda r: (r.start, r.end))
    clean = [r for r in rows if r.start is None]
    problems = []
    if clean and marked:
        problems.append(
            Problem(
                filename,
                "an output both called clean (empty span) and given spans",
                "Drop the empty row or the spans.",
                row=clean[0].row,
            )
        )
    for a, b in pairwise(marked):
        if b.start < a.end:
            problems.append(
                Problem(
                    filename,
                    f"span [{b.start}, {b.end}) overlaps [{a.start}, {a.end}) of "
                    f"row {a.row} in the same output",
                    "Merge the two spans (keep the more "
                    "severe), or drop one: the annotate page shows one span per character.",
                    row=b.row,
                    column="start",
                )
            )
    return problems


def _locked_campaign(s: Any, campaign: str, filename: str) -> int:
    def refuse(message: str, fix: str) -> CampaignFileError:
        return CampaignFileError([Problem(filename, message, fix)])

    camp = repo.get_campaign(s, campaign)
    if camp is None:
        raise refuse(f"there is no campaign named '{campaign}'", "Import the campaign first.")
    try:
        dbset.campaign_for_update(s, camp.id)
    except CampaignArchived as exc:
        raise refuse(str(exc), "Nothing was added to it.") from None
    if camp.mode != CampaignMode.SPANS.value:
        raise refuse(
            f"campaign '{campaign}' is a {camp.mode} campaign",
            "AI spans pre-fill error-span (MQM/ESA) campaigns: import it with mode spans.",
        )
    labels = dbset.current_label_count(s, camp.id)
    if labels:
        raise refuse(
            f"campaign '{campaign}' has {labels:,} labels already",
            "The prefill decides what annotators see: import AI spans before the first "
            "label (or start a new campaign).",
        )
    return int(camp.id)


def import_ai_spans(
    engine: Engine,
    data_source: Path | bytes,
    campaign: str,
    *,
    source: str,
    filename: str | None = None,
    prefill: bool = True,
    max_mb: float = DEFAULT_MAX_MB,
) -> AiSpansReport:
    """Store a file's AI spans for ``campaign`` (replacing earlier ones) and set its prefill
    setting, in one transaction; :class:`CampaignFileError` and nothing changed for any
    problem (module docstring)."""
    started = time.perf_counter()
    data, filename = source_bytes(data_source, filename, max_mb)
    source = source.strip()
    if not source or len(source) > MAX_SOURCE:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"the source name {source!r} is empty or too long",
                    f"Name the model or run in 1–{MAX_SOURCE} characters (--source).",
                )
            ]
        )
    texts, notes = None, []
    if is_mqm_tsv(data, filename):
        rows, texts, notes = _mqm_rows(data, filename)
    else:
        rows = read_ai_spans_file(data, filename, max_mb)
    with queue_transaction(engine) as s:
        cid = _locked_campaign(s, campaign, filename)
        outputs = store.output_texts(s, cid)
        problems, by_output = _check_rows(rows, outputs, filename, texts)
        if problems:
            truncated = len(problems) > MAX_PROBLEMS
            raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=truncated)
        n = store.replace_campaign_spans(s, cid, _db_rows(by_output, source))
        _set_setting(s, cid, {"source": source, "file": filename, "prefill": prefill})
    clean = sum(1 for spans in by_output.values() if spans[0].start is None)
    return AiSpansReport(
        campaign,
        filename,
        source,
        len(by_output),
        n - clean,
        clean,
        len(outputs),
        prefill,
        tuple(notes),
        time.perf_counter() - started,
    )


def _db_rows(by_output: dict[int, list[AiSpanRow]], source: str) -> Iterable[dict[str, Any]]:
    for oid, spans in by_output.items():
        for r in spans:
            yield {
                "output_id": oid,
                "start": r.start,
                "end": r.end,
                "severity": r.severity,
                "category": r.category,
                "confidence": r.confidence,
                "model": r.model,
                "source": source,
            }


def _set_setting(s: Any, campaign_id: int, value: dict[str, Any]) -> None:
    before = repo.campaign_meta(s, campaign_id).get(META_KEY)
    if before != value:
        dbset.log_setting_changes(s, campaign_id, {SETTING_KEY: (before, value)})
    repo.set_campaign_meta_key(s, campaign_id, META_KEY, value)


def prefill_setting(engine: Engine, campaign_id: int) -> dict[str, Any] | None:
    """The campaign's ESA^AI setting ({"source", "file", "prefill"}), None when never set."""
    with session_scope(engine) as s:
        value = repo.campaign_meta(s, campaign_id).get(META_KEY)
    return dict(value) if isinstance(value, dict) else None


def set_prefill(engine: Engine, campaign_id: int, on: bool) -> None:
    """Switch the prefill on or off (logged); refused once labels exist, like the import."""
    with queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        before = repo.campaign_meta(s, campaign_id).get(META_KEY)
        if not isinstance(before, dict):
            raise ValueError("the campaign has no AI spans: import them first")
        labels = dbset.current_label_count(s, campaign_id)
        if labels and bool(before.get("prefill")) != on:
            raise ValueError(
                f"the campaign has {labels:,} labels already; the prefill cannot change now"
            )
        _set_setting(s, campaign_id, {**before, "prefill": on})
