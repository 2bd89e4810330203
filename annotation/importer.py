"""Import a campaign file into the database: validate everything, then write in one transaction.

Used by the admin page and by ``python cli.py import``. Judgments already in the file
(``human_label``, ``human_score``, ``post_edit``) become annotations by their ``annotator``
(or an annotator named ``imported``). They also get assignment rows, because the estimators
need an arrival order and inclusion probabilities for every label: the order is a seeded
random permutation of the labelled items (recorded in the campaign's metadata), and the
inclusion probability of an output is the share of its system's outputs that are labelled.
That is valid when the labelled rows are the whole pool (a census) or a random sample of it;
the report says which it is.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation.campaign_file import (
    DEFAULT_MAX_MB,
    MAX_PROBLEMS,
    CampaignFile,
    CampaignFileError,
    Problem,
    check_campaign_name,
    check_size,
    parse_campaign_file,
)
from annotation.queue import ImportedJudgment, record_imported
from db import Engine
from db import campaigns as repo
from db.engine import session_scope
from metrics.base import Progress

IMPORT_ANNOTATOR = "imported"


@dataclass(frozen=True)
class ImportReport:
    campaign: str
    campaign_id: int
    rows: int
    items_added: int
    systems_added: int
    outputs_added: int
    judgments_added: int
    annotators: int
    census: bool  # every output of the campaign has a judgment
    seconds: float

    def summary(self) -> str:
        text = (
            f"Imported {self.rows:,} rows into '{self.campaign}': {self.items_added:,} new items, "
            f"{self.systems_added} new systems, {self.outputs_added:,} new outputs, "
            f"{self.judgments_added:,} judgments by {self.annotators} annotator(s) "
            f"in {self.seconds:.2f} s."
        )
        if self.judgments_added and not self.census:
            text += (
                " Not every output is judged: estimates from these labels assume the judged "
                "outputs were a random sample."
            )
        return text


def import_campaign(
    engine: Engine,
    source: Path | bytes,
    campaign: str,
    *,
    filename: str | None = None,
    column_map: Mapping[str, str] | None = None,
    append: bool = False,
    settings: Mapping[str, Any] | None = None,
    max_mb: float = DEFAULT_MAX_MB,
    progress: Progress | None = None,
) -> ImportReport:
    """Validate ``source`` completely, then write it as one transaction.

    Raises :class:`CampaignFileError` (nothing written) for any problem in the file, for a
    campaign name that exists when ``append`` is false, and for appended rows that clash
    with the campaign's existing items.
    """
    started = time.perf_counter()
    if isinstance(source, Path):
        filename = filename or source.name
        data = _read_file(source, filename, max_mb)
    else:
        data = source
    if not filename:
        raise ValueError("filename is needed to tell the file type of raw bytes")
    check_campaign_name(campaign, filename)
    tick = progress or (lambda done, total: None)
    parsed = parse_campaign_file(data, filename, column_map, max_mb)
    tick(1, 4)

    with session_scope(engine) as s:
        existing = repo.get_campaign(s, campaign)
        if existing is not None and not append:
            raise CampaignFileError(
                [
                    Problem(
                        filename,
                        f"a campaign named '{campaign}' already exists",
                        "Append these rows to it (--append, or 'Append' in the app), "
                        "or choose a new campaign name.",
                    )
                ]
            )
        if existing is None:
            camp = repo.create_campaign(
                s,
                campaign,
                queue_seed=secrets.randbelow(2**31),
                meta={"source_file": filename},
                **dict(settings or {}),
            )
        else:
            camp = existing
        report = _write(s, camp.id, camp.queue_seed or 0, parsed, tick)
    return ImportReport(
        campaign=campaign,
        campaign_id=camp.id,
        rows=len(parsed.rows),
        seconds=time.perf_counter() - started,
        **report,
    )


def _read_file(path: Path, filename: str, max_mb: float) -> bytes:
    """The file's bytes, after checking it is a regular file within the size limit."""
    if not path.is_file():
        what = "a directory" if path.is_dir() else "not a regular file"
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"{path} is {what}" if path.exists() else f"{path}: no such file",
                    "Give the path of one CSV, TSV, JSONL or Parquet file.",
                )
            ]
        )
    check_size(path.stat().st_size, filename, max_mb)  # before reading it into memory
    return path.read_bytes()


def _write(
    s: Any, campaign_id: int, seed: int, parsed: CampaignFile, tick: Progress
) -> dict[str, Any]:
    filename = parsed.filename
    items = repo.existing_items(s, campaign_id)
    systems = repo.existing_systems(s, campaign_id)
    outputs = repo.existing_output_keys(s, campaign_id)

    problems: list[Problem] = []
    new_items: dict[str, dict[str, Any]] = {}
    new_systems: dict[str, bool] = {}
    for row in parsed.rows:
        if row.item_id in items:
            _, src, ref = items[row.item_id]
            if (src, ref) != (row.source, row.reference):
                problems.append(
                    Problem(
                        filename,
                        f"item '{row.item_id}' is already in the campaign with a different "
                        "source or reference",
                        "Use the campaign's text for this item, or a new item id.",
                        row=row.number,
                        column="source" if src != row.source else "reference",
                    )
                )
        elif row.item_id not in new_items:
            new_items[row.item_id] = {
                "campaign_id": campaign_id,
                "external_id": row.item_id,
                "source": row.source,
                "reference": row.reference,
                "doc_id": row.doc_id,
                "meta": {},
            }
        if (row.item_id, row.system) in outputs:
            problems.append(
                Problem(
                    filename,
                    f"('{row.item_id}', '{row.system}') is already in the campaign",
                    "Remove the row: appending adds new outputs only.",
                    row=row.number,
                    column="system",
                )
            )
        if row.system not in systems:
            new_systems[row.system] = new_systems.get(row.system, False) or row.is_human
    if problems:
        raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=len(problems) > MAX_PROBLEMS)

    names = list(new_systems)
    ids = repo.insert_systems(
        s,
        [{"campaign_id": campaign_id, "name": n, "is_human": new_systems[n]} for n in names],
    )
    systems.update(zip(names, ids, strict=True))
    ext_ids = list(new_items)
    ids = repo.insert_items(s, [new_items[e] for e in ext_ids])
    item_ids = {ext: v[0] for ext, v in items.items()} | dict(zip(ext_ids, ids, strict=True))
    tick(2, 4)

    output_rows: list[dict[str, Any]] = []
    output_keys: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for row in parsed.rows:
        key = (row.item_id, row.system)
        if key in outputs or key in seen:  # later rows of a pair are further judgments
            continue
        seen.add(key)
        output_keys.append(key)
        output_rows.append(
            {
                "item_id": item_ids[row.item_id],
                "system_id": systems[row.system],
                "text": row.output,
                "meta": _json_safe(row.extras),
            }
        )
    ids = repo.insert_outputs(s, output_rows)
    outputs.update(zip(output_keys, ids, strict=True))
    tick(3, 4)

    judged = [r for r in parsed.rows if r.has_judgment]
    n_annotators = 0
    if judged:
        annotators = repo.ensure_annotators(
            s, campaign_id, {r.annotator or IMPORT_ANNOTATOR for r in judged}
        )
        n_annotators = len(annotators)
        _write_judgments(s, campaign_id, seed, judged, outputs, systems, annotators)
    tick(4, 4)

    n_outputs_total = len(outputs)
    n_judged_outputs = len({(r.item_id, r.system) for r in judged})
    return {
        "items_added": len(new_items),
        "systems_added": len(new_systems),
        "outputs_added": len(output_rows),
        "judgments_added": len(judged),
        "annotators": n_annotators,
        "census": bool(judged) and n_judged_outputs == n_outputs_total,
    }


def _write_judgments(
    s: Any,
    campaign_id: int,
    seed: int,
    judged: list[Any],
    outputs: dict[tuple[str, str], int],
    systems: dict[str, int],
    annotators: dict[str, int],
) -> None:
    per_system_total: dict[str, int] = {}
    for _, sysname in outputs:
        per_system_total[sysname] = per_system_total.get(sysname, 0) + 1
    per_system_judged: dict[str, set[str]] = {}
    for r in judged:
        per_system_judged.setdefault(r.system, set()).add(r.item_id)
    # The arrival order (positions) is the queue's design: annotation.queue.record_imported.
    assignment_ids = record_imported(
        s,
        campaign_id,
        seed,
        [
            ImportedJudgment(
                item=r.item_id,
                output_id=outputs[(r.item_id, r.system)],
                annotator_id=annotators[r.annotator or IMPORT_ANNOTATOR],
                inclusion_prob=len(per_system_judged[r.system]) / per_system_total[r.system],
            )
            for r in judged
        ],
    )
    edited = [r for r in judged if r.post_edit is not None]
    hters: dict[int, float] = {}
    if edited:
        from metrics.hter import hter_many  # sacrebleu is only needed for post-edits

        values = hter_many([r.output for r in edited], [r.post_edit for r in edited])
        hters = {id(r): v for r, v in zip(edited, values, strict=True)}
    # Annotations are written in file order (so exports reproduce it); the random arrival
    # order lives in the assignments' positions.
    by_file_row = sorted(zip(judged, assignment_ids, strict=True), key=lambda t: t[0].number)
    annotation_rows = []
    for r, assignment_id in by_file_row:
        annotation_rows.append(
            {
                "output_id": outputs[(r.item_id, r.system)],
                "annotator_id": annotators[r.annotator or IMPORT_ANNOTATOR],
                "assignment_id": assignment_id,
                "kind": "label",
                "label": r.human_label,
                "score": r.human_score,
                "post_edit": r.post_edit,
                "hter": hters.get(id(r)),
            }
        )
    repo.insert_judgments(s, annotation_rows)


def _json_safe(values: dict[str, Any]) -> dict[str, Any]:
    """Metadata values as JSON can store them (NaN → None, numpy scalars → Python)."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        if isinstance(v, float) and v != v:
            v = None
        elif hasattr(v, "item") and not isinstance(v, list | dict | str):
            v = v.item()
        out[k] = v
    return out
