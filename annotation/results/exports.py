"""What a campaign owner takes away: the campaign file, annotations, results tables.

- :func:`export_campaign` — the campaign back in the long campaign-file format (CSV, TSV,
  JSONL, Parquet), the columns the importer reads, so import → export → import round-trips
  exactly: ``item_id, source, reference, system, output, doc_id, is_human, human_label,
  human_score, post_edit, annotator``, ``instructions`` and ``image`` when an item has
  some, and then the extra columns the file came with. One row per current judgment; an
  output with no judgment gets one row with the judgment columns empty.
  :func:`export_bundle` zips it with the images the items show.
- :func:`export_tutorial_answers` — every tutorial and check answer (who, attempt, item,
  feedback or silent, what it expected, what was given, what it missed), kept apart from
  the annotations and never in them.
- :func:`export_annotations` — the annotation log (current judgments by default, or every
  row of the append-only log) with annotator, time and assignment position, as CSV, JSONL
  or Parquet.

The results tables (estimates, pairwise verdicts, LaTeX) are in
:mod:`annotation.results.result_exports`.

Calibration sets live in :mod:`annotation.results.calibration`. One writer set serves every export
(:mod:`formats.writers`: ``to_delimited`` / ``to_csv``, ``to_jsonl``, ``to_parquet``).
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime
from typing import Any

from accounts.study import participant_ids
from annotation.campaign import pretask
from annotation.campaign.likert_scale import likert_scale
from annotation.campaign.statistics_settings import EXPORT_COLUMNS, read_statistics
from annotation.campaign.visibility import metric_visibility, shown_at
from annotation.judging.ai_prefill import export_columns as ai_export_columns
from annotation.queue.admin import annotator_overview
from db import Engine
from db.campaign.campaigns import campaign_images, campaign_rows
from db.engine import read_scope
from db.judging.log_export import annotation_log
from db.queue.task_facts import annotation_tasks
from db.reads.campaign import campaign_id
from db.scores.ai_spans import campaign_spans as campaign_ai_spans
from formats.forms.likert import score_to_point
from formats.readers import FILE_TYPES
from formats.rows import REQUIRED
from formats.writers import to_csv, to_delimited, to_jsonl, to_parquet

ANNOTATION_FORMATS = ("csv", "jsonl", "parquet")
ANNOTATION_COLUMNS = [
    "annotation_id",
    "item_id",
    "doc_id",
    "system",
    "annotator",
    "kind",
    "label",
    "score",
    "hter",
    "post_edit",
    "skip_reason",
    "seconds",
    "created_at",
    "assignment_position",
    "inclusion_prob",
    "assignment_kind",
    "supersedes_id",
    "current",
    "metrics_shown",  # whether the annotator saw metric scores then (empty: imported)
    "spans",  # error spans as JSON text (span campaigns), else empty
    "esa_score",
    "da_score",  # DA / SQM campaigns: the slider score 0–100, else empty
    "task_id",  # the task the judgment was given in (empty: the shared queue)
    "screen_position",  # comparative screens: 0-based place on the screen, else empty
    "screen_size",
    "preference",  # preference campaigns: 1 this output preferred, 0.5 tie, 0 the other one
    "strength",  # preference campaigns: slightly / clearly, else empty
    "reason",  # preference campaigns: the annotator's one-line reason, else empty
    "comment",  # the annotator's free-text comment on the judgment, else empty
    "participant_id",  # a study link's participant (accounts.study), else empty
    "participant_params",  # the platform's parameters at enrolment, JSON text
    "ai_spans",  # ESA^AI: the output's AI spans with their fate (kept/edited/deleted), JSON
    "span_origins",  # ESA^AI: per final span, ai / edited / new (JSON list)
    # the campaign's statistics settings at export time, the same in every row
    *EXPORT_COLUMNS,
]
#: Parquet types of the annotation columns (a column empty in every row keeps its type).
ANNOTATION_TYPES = {
    **dict.fromkeys(
        ("annotation_id", "label", "assignment_position", "supersedes_id", "task_id"), "int64"
    ),
    **dict.fromkeys(("screen_position", "screen_size"), "int64"),
    **dict.fromkeys(
        ("score", "hter", "seconds", "inclusion_prob", "esa_score", "da_score", "preference"),
        "double",
    ),
    **dict.fromkeys(("current", "metrics_shown"), "bool"),
    **dict.fromkeys(("alpha", "equivalence_margin", "measurable_difference", "power"), "double"),
    "planned_labels": "int64",
}
ANNOTATION_TYPES |= {c: "string" for c in ANNOTATION_COLUMNS if c not in ANNOTATION_TYPES}


class UnknownCampaign(KeyError):
    def __str__(self) -> str:
        return f"no campaign named {self.args[0]!r}"


def campaign_id_or_fail(engine: Engine, campaign: str) -> int:
    """The campaign's id; :class:`UnknownCampaign` when there is none of that name."""
    cid = campaign_id(engine, campaign)
    if cid is None:
        raise UnknownCampaign(campaign)
    return cid


# ------------------------------------------------------------------------ campaign file

LEADING = (*REQUIRED, "doc_id", "is_human", "human_label", "human_score", "post_edit", "annotator")
#: Parquet types of the campaign file's own columns (extra columns keep what they hold).
LEADING_TYPES = {c: "string" for c in LEADING} | {
    "is_human": "int64",
    "human_label": "int64",
    "human_score": "double",
}


def export_records(engine: Engine, campaign: str) -> tuple[list[str], list[dict[str, Any]]]:
    """Column names and one dict per row, values as stored (None for empty)."""
    rows = campaign_rows(engine, campaign)
    extras: list[str] = []
    seen: set[str] = set()
    for r in rows:
        for k in r["meta"]:
            if k not in seen:
                seen.add(k)
                extras.append(k)
    # the items' instructions, when any has some (a file without them exports as before)
    own = [c for c in ("instructions", "image") if any(r.get(c) for r in rows)]
    extras = [k for k in extras if k not in own]
    columns = [*LEADING, *own, *extras]
    records = []
    for r in rows:
        record = {c: r.get(c) for c in (*LEADING, *own)}
        record["is_human"] = int(bool(r["is_human"]))
        record.update({k: r["meta"].get(k) for k in extras})
        records.append(record)
    return columns, records


def export_campaign(engine: Engine, campaign: str, fmt: str) -> bytes:
    """The campaign as a file of type ``fmt`` (``csv``, ``tsv``, ``jsonl`` or ``parquet``)."""
    if fmt not in set(FILE_TYPES.values()):
        raise ValueError(f"unknown export format {fmt!r}; use csv, tsv, jsonl or parquet")
    columns, records = export_records(engine, campaign)
    if fmt in ("csv", "tsv"):
        return to_delimited(columns, records, "," if fmt == "csv" else "\t", reversible=True)
    if fmt == "jsonl":
        return to_jsonl(records)
    return to_parquet(columns, records, LEADING_TYPES)


def export_bundle(engine: Engine, campaign: str, fmt: str = "csv") -> bytes:
    """The campaign file (:func:`export_campaign`) and the images its items show, as the
    ZIP bundle the importer reads (``campaign.<fmt>`` beside each image under its name)."""
    data = export_campaign(engine, campaign, fmt)
    images = campaign_images(engine, campaign_id_or_fail(engine, campaign))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"campaign.{fmt}", data)
        for name, image in images.items():
            archive.writestr(name, image, compress_type=zipfile.ZIP_STORED)  # compressed already
    return out.getvalue()


# ------------------------------------------------------------------------ annotations


def export_annotations(
    engine: Engine, campaign: str, fmt: str, *, current_only: bool = True
) -> bytes:
    """The campaign's annotations as ``csv``, ``jsonl`` or ``parquet`` bytes.

    One row per annotation: ids, item, its document (``doc_id``), system, annotator, kind
    (label/skip[/undo]), label, score, HTER, post-edit, skip reason, seconds, created_at
    (ISO 8601), the assignment's position in the random queue order and inclusion
    probability, whether it was an attention check, what it supersedes, whether it is
    current, in span campaigns the error spans (JSON text) and the ESA score, and on a
    comparative screen the output's place (0-based) and the screen's size; and in every
    row the campaign's statistics settings (α, family, ε, racing, plan, design, estimand).
    """
    if fmt not in ANNOTATION_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(ANNOTATION_FORMATS)}")
    cid = campaign_id_or_fail(engine, campaign)
    records = annotation_log(engine, cid, current_only=current_only)
    _add_metrics_shown(engine, cid, records)
    _add_task_ids(engine, cid, records)
    _add_participants(engine, cid, records)
    _add_ai_spans(engine, cid, records)
    extra = _add_likert_points(engine, cid, records) + _add_form_answers(engine, cid, records)
    settings = {k: (None if v == "" else v)
                for k, v in read_statistics(engine, cid).export_columns().items()}  # fmt: skip
    for r in records:
        r.update(settings)
    columns = [*ANNOTATION_COLUMNS, *extra]
    if fmt == "csv":
        return to_csv(columns, records)
    if fmt == "jsonl":
        return to_jsonl(records)
    return to_parquet(columns, records, {**ANNOTATION_TYPES, "likert_point": "int64"})


def _add_likert_points(engine: Engine, cid: int, records: list[dict[str, Any]]) -> list[str]:
    """A Likert campaign's rows: ``likert_point`` (1 … n, from the stored score
    100·(p − 1)/(n − 1)) and ``likert_label``; the columns added ([] without a scale)."""
    scale = likert_scale(engine, cid)
    if scale is None:
        return []
    n = len(scale["labels"])
    for r in records:
        score = r.get("da_score")
        point = None if score is None else score_to_point(float(score), n)
        r["likert_point"] = point
        r["likert_label"] = None if point is None else scale["labels"][point - 1]
    return ["likert_point", "likert_label"]


def _add_form_answers(engine: Engine, cid: int, records: list[dict[str, Any]]) -> list[str]:
    """Each row's annotator's answers to the pre-task form (``form_<field>`` columns, empty
    for annotators who gave none); the columns added ([] without a form)."""
    columns, table = pretask.answers_table(engine, cid)
    fields = columns[2:]
    if pretask.form(engine, cid) is None and not any(t.get(c) for t in table for c in fields):
        return []
    by_name = {t["annotator"]: t for t in table}
    for r in records:
        answers = by_name.get(r.get("annotator"), {})
        r.update({c: answers.get(c) for c in fields})
    return fields


def export_tutorial_answers(engine: Engine, campaign: str, fmt: str) -> bytes:
    """The campaign's tutorial and check answers as ``csv`` or ``jsonl`` bytes, one row an
    answer (annotation.judging.tutorial.answer_rows; ``answered_at`` in ISO 8601)."""
    from annotation.judging.tutorial import ANSWER_COLUMNS, answer_rows

    if fmt not in ("csv", "jsonl"):
        raise ValueError(f"unknown format {fmt!r}; use csv or jsonl")
    rows = answer_rows(engine, campaign_id_or_fail(engine, campaign))
    for r in rows:
        at = r["answered_at"]
        r["answered_at"] = at.isoformat() if isinstance(at, datetime) else at
    return to_csv(ANSWER_COLUMNS, rows) if fmt == "csv" else to_jsonl(rows)


def _add_metrics_shown(engine: Engine, cid: int, records: list[dict[str, Any]]) -> None:
    """Per row, whether metric scores were beside the item when it was given (the setting
    in force at ``created_at``); empty for judgments imported with a file."""
    visibility = metric_visibility(engine, cid)
    imported = {w.name for w in annotator_overview(engine, cid) if w.role == "import"}
    for r in records:
        when = datetime.fromisoformat(r["created_at"]) if r["created_at"] else None
        r["metrics_shown"] = None if r["annotator"] in imported else shown_at(visibility, when)


def _add_task_ids(engine: Engine, cid: int, records: list[dict[str, Any]]) -> None:
    """Per row, the task its judgment was given in (None: the shared queue)."""
    with read_scope(engine) as s:
        of = annotation_tasks(s, cid)
    for r in records:
        r["task_id"] = of.get(r["annotation_id"])


def _add_participants(engine: Engine, cid: int, records: list[dict[str, Any]]) -> None:
    """Per row, the study participant who gave it and their platform's parameters (empty
    for invited and imported annotators)."""
    by_name = {p.participant_id: p for p in participant_ids(engine, cid).values()}
    for r in records:
        p = by_name.get(r["annotator"])
        r["participant_id"] = p.participant_id if p else None
        r["participant_params"] = json.dumps(p.params, sort_keys=True) if p else None


def _add_ai_spans(engine: Engine, cid: int, records: list[dict[str, Any]]) -> None:
    """ESA^AI: per judgment with spans, its output's AI spans and what became of them, and
    where each final span came from (annotation.judging.ai_prefill); empty elsewhere."""
    with read_scope(engine) as s:
        ai = campaign_ai_spans(s, cid)
    for r in records:
        r["ai_spans"] = r["span_origins"] = None
        spans = ai.get((r["item_id"], r["system"]))
        if spans is None or r["spans"] is None:
            continue
        fates, origins = ai_export_columns(json.loads(r["spans"]), spans)
        r["ai_spans"], r["span_origins"] = json.dumps(fates), json.dumps(origins)
