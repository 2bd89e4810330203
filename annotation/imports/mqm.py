"""WMT's MQM TSV layout (google/wmt-mqm-human-evaluation): import as a span campaign, export.

The layout itself (reading and writing) is :mod:`formats.mqm.tsv`; this module adds the
span rules and the database.

One row per error, tab-separated, no quoting, a header row::

    system  doc  doc_id  seg_id  rater  source  target  category  severity

The erroneous text is marked ``<v>…</v>`` in the target (or in the source, for omissions
and source errors); a segment a rater found error-free has one row with category and
severity ``No-error``. WMT's severities are Minor, Major, Critical (scored as Major) and
Neutral (weight 0: not kept, counted in the report); categories are the file's own
(``Accuracy/Mistranslation``, ``Fluency/Punctuation``, ``Non-translation!``, …).

Import: each (system, seg_id, rater) becomes one judgment — its spans, and the binary label
and MQM score derived from them (annotation.judging.spans) — by the annotator named by ``rater``;
the
item is ``seg_id`` (its ``doc`` is the item's document; WMT's within-document ``doc_id`` is
kept in the output's metadata). An error whose row marks no text in either the target or
the source is kept as a "missing" mark at the start of the source (its position is unknown).
The file has no reference column: items have no reference.

Export writes the same layout, one row per span of every current span judgment (a
"No-error" row for an empty one), so import → export → import keeps every span. Like every
Tandem TSV export it carries the formula guard (formats.spreadsheet): the trailing empty
column ``tandem_formula_guard``, and a ``'`` before text cells that start with = + - @.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from annotation.imports.importer import import_rows
from annotation.imports.reports import ImportReport
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import MAX_SPANS, SpanConfig, SpanError, Weights, derive, parse_spans
from db import Engine
from db.engine import session_scope
from db.judging import log
from db.schema.vocabulary import CampaignMode
from formats.mqm.tsv import MqmFile, Segment, SpanRules, segment_row
from formats.mqm.tsv_read import parse_mqm_tsv as parse_layout
from formats.mqm.tsv_read import scan
from formats.mqm.tsv_writer import write_mqm_tsv
from formats.problems import (
    DEFAULT_MAX_MB,
    CampaignFileError,
    Problem,
    check_campaign_name,
    check_size,
)
from formats.rows import MQM_NAMES, Row, checked_rows


def _span_problem(raw: dict[str, Any], target: str, source: str) -> str | None:
    """What is wrong with one raw span of a segment (annotation.judging.spans), None if nothing."""
    try:
        parse_spans([raw], target, source, categories=None)
    except SpanError as exc:
        return str(exc).removeprefix("span 1: ")
    return None


SPAN_RULES = SpanRules(problem=_span_problem, max_spans=MAX_SPANS)


def parse_mqm_tsv(
    data: bytes, filename: str, *, strict: bool = False, check_rows: bool = True
) -> MqmFile:
    """Read and validate a whole MQM TSV under the span rules (formats.mqm.tsv)."""
    return parse_layout(data, filename, SPAN_RULES, strict=strict, check_rows=check_rows)


@dataclass(frozen=True)
class MqmSummary:
    """What the Import page says of an MQM TSV before importing it."""

    judgments: int
    spans: int
    raters: int
    categories: list[str]
    neutral: int  # Neutral-severity rows (weight 0, not kept)
    repaired: list[Problem]  # rows whose malformed mark is kept without a position


def summarize_mqm_tsv(data: bytes, filename: str, *, strict: bool = False) -> MqmSummary:
    """Validate a whole MQM TSV as an import would (the span rules and the campaign-file
    rules), keeping counts only: bounded memory, like the import (formats.mqm.tsv_read).
    Raises :class:`CampaignFileError` listing the problems."""
    scanned = scan(data, filename, SPAN_RULES, strict)
    spans, raters = 0, set()

    def counted() -> Iterator[Row]:
        nonlocal spans
        for seg in scanned.segments():
            spans += len(seg.spans)
            raters.add(seg.rater)
            yield segment_row(seg)

    for _ in checked_rows(filename, counted(), MQM_NAMES):
        pass
    return MqmSummary(scanned.n_segments, spans, len(raters), list(scanned.categories),
                      scanned.neutral, scanned.repaired)  # fmt: skip


def import_mqm_tsv(
    engine: Engine,
    source: Path | bytes,
    campaign: str,
    *,
    filename: str | None = None,
    weights: Mapping[str, Any] | None = None,
    target_lang: str | None = None,
    max_mb: float = DEFAULT_MAX_MB,
    strict: bool = False,
) -> ImportReport:
    """Import an MQM TSV as a new span campaign (one transaction, all or nothing).

    Every problem is a :class:`CampaignFileError` naming the file and row; rows repaired
    (``strict`` false) are listed in the report."""
    started = time.perf_counter()
    if isinstance(source, Path):
        filename = filename or source.name
        check_size(source.stat().st_size, filename, max_mb)
        source = source.read_bytes()
    if not filename:
        raise ValueError("filename is needed for messages about raw bytes")
    check_size(len(source), filename, max_mb)
    check_campaign_name(campaign, filename)
    # pass 1 reads the rows; pass 2 hands out the segments as they are written, and the
    # campaign-file rules are applied then too (bounded memory: formats.mqm.tsv_read)
    scanned = scan(source, filename, SPAN_RULES, strict)
    if scanned.problems or not len(scanned.hashes):
        for _ in scanned.segments():  # the file's problems, before any campaign is made
            pass
    config = SpanConfig(
        categories=tuple(scanned.categories) or SpanConfig().categories,
        weights=Weights.from_mapping(weights),
    )
    notes = [f"Note: {p}" for p in scanned.repaired]
    segments = _judged_rows(scanned.segments(), config, filename)
    report = import_rows(
        engine,
        filename,
        checked_rows(filename, segments, MQM_NAMES),
        0,  # known once pass 2 is over
        campaign,
        settings={
            "mode": CampaignMode.SPANS.value,
            "target_lang": target_lang,
            "meta": {"source_file": filename, META_KEY: config.to_meta()},
        },
    )
    return replace(report, rows=scanned.n_segments, notes=notes).with_seconds(
        time.perf_counter() - started
    )


def _judged_rows(segments: Iterable[Segment], config: SpanConfig, filename: str) -> Iterator[Row]:
    """Each segment as a judged row, made as the import writes it (bounded memory)."""
    try:
        for seg in segments:
            spans = parse_spans(seg.span_dicts(), seg.target, seg.source, categories=None)
            label, score = derive(spans, config.weights)
            yield segment_row(seg, label, score, [s.to_json() for s in spans])
    except SpanError as exc:  # checked by the parser already; never a traceback
        raise CampaignFileError(
            [Problem(filename, str(exc), "Fix the file's error rows or the weights.")]
        ) from None


def export_mqm_tsv(engine: Engine, campaign_id: int) -> bytes:
    """The campaign's current span judgments in the MQM TSV layout (module docstring)."""
    with session_scope(engine) as s:
        judgments = log.current_span_judgments(s, campaign_id)
    return write_mqm_tsv(judgments)
