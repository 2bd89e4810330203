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
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from annotation.import_reports import ImportReport
from annotation.imported_slots import ImportedJudgment, record_imported
from annotation.scores_file import scores_from_campaign
from annotation.scores_import import refuse_archived, write_scores
from db import Engine
from db import campaigns as repo
from db import scores as score_store
from db.engine import session_scope
from formats.campaign_file import CLI_WORDING, Wording, parse_campaign_file
from formats.problems import (
    DEFAULT_MAX_MB,
    MAX_PROBLEMS,
    CampaignFileError,
    Problem,
    check_campaign_name,
)
from formats.readers import source_bytes
from formats.rows import CampaignFile, validate_rows
from formats.scores_file import MetricSpec, metric_specs
from metrics.base import Progress

IMPORT_ANNOTATOR = "imported"


def import_campaign(
    engine: Engine,
    source: Path | bytes,
    campaign: str,
    *,
    filename: str | None = None,
    column_map: Mapping[str, str] | None = None,
    metrics: Sequence[MetricSpec] = (),
    ignore: Sequence[str] = (),
    append: bool = False,
    settings: Mapping[str, Any] | None = None,
    max_mb: float = DEFAULT_MAX_MB,
    progress: Progress | None = None,
    wording: Wording | None = None,
) -> ImportReport:
    """Validate ``source`` completely, then write it as one transaction.

    ``metrics``: columns to import as metric scores (``metric:NAME`` columns always are;
    :mod:`annotation.scores_file`); ``ignore``: columns of the file to leave out (e.g. its
    judgments, so that it is judged again). Raises :class:`CampaignFileError` (nothing
    written) for any problem in the file, for a campaign name that exists when ``append`` is
    false, and for appended rows that clash with the campaign's existing items. ``wording``
    names the Import page's controls in hints instead of the command line's.
    """
    started = time.perf_counter()
    data, filename = source_bytes(source, filename, max_mb)
    check_campaign_name(campaign, filename)
    tick = progress or (lambda done, total: None)
    parsed = parse_campaign_file(data, filename, column_map, max_mb, ignore=ignore, wording=wording)
    imported = (
        scores_from_campaign(parsed, data, metrics, wording=wording)
        if metrics or metric_specs(parsed.columns, metrics)
        else None
    )
    tick(1, 4)

    with session_scope(engine) as s:
        camp = _target_campaign(s, campaign, filename, append, settings, wording or CLI_WORDING)
        report = _write(s, camp.id, camp.queue_seed or 0, parsed, tick)
        coverage = (
            write_scores(s, camp.id, imported, repo.existing_output_keys(s, camp.id))
            if imported is not None
            else []
        )
    return ImportReport(
        campaign=campaign,
        campaign_id=camp.id,
        rows=len(parsed.rows),
        seconds=time.perf_counter() - started,
        metrics=coverage,
        **report,
    )


def _target_campaign(
    s: Any,
    campaign: str,
    filename: str,
    append: bool,
    settings: Mapping[str, Any] | None,
    wording: Wording,
) -> Any:
    """The campaign the rows go to: a new one, or (``append``) the existing one, locked and
    checked to be active and of the mode asked for."""
    existing = repo.get_campaign(s, campaign)
    if existing is not None and not append:
        raise _name_taken(
            filename,
            campaign,
            "Append these rows to it (--append, or 'Append' in the app), "
            "or choose a new campaign name.",
        )
    if existing is None:
        return _create_campaign(s, campaign, filename, settings)
    _check_append_mode(filename, existing, settings, wording)
    score_store.lock_campaign(s, existing.id)
    refuse_archived(s, existing.id, filename)
    return existing


def _write(
    s: Any, campaign_id: int, seed: int, parsed: CampaignFile, tick: Progress
) -> dict[str, Any]:
    items = repo.existing_items(s, campaign_id)
    systems = repo.existing_systems(s, campaign_id)
    outputs = repo.existing_output_keys(s, campaign_id)
    new_items, new_systems = _new_rows(campaign_id, parsed, items, outputs, systems)

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
    outputs_added = _insert_outputs(s, parsed, outputs, item_ids, systems)
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
        "outputs_added": outputs_added,
        "judgments_added": len(judged),
        "annotators": n_annotators,
        "census": bool(judged) and n_judged_outputs == n_outputs_total,
    }


def _new_rows(
    campaign_id: int,
    parsed: CampaignFile,
    items: dict[str, Any],
    outputs: dict[tuple[str, str], int],
    systems: dict[str, int],
) -> tuple[dict[str, dict[str, Any]], dict[str, bool]]:
    """The items (external id → row) and systems (name → is human) the rows add; raises
    :class:`CampaignFileError` for rows that clash with the campaign's existing ones."""
    filename = parsed.filename
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
    return new_items, new_systems


def _insert_outputs(
    s: Any,
    parsed: CampaignFile,
    outputs: dict[tuple[str, str], int],
    item_ids: dict[str, int],
    systems: dict[str, int],
) -> int:
    """Insert one output per new (item, system) pair (``outputs`` gains their ids); the
    number inserted."""
    output_keys: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()

    def output_rows() -> Iterator[dict[str, Any]]:
        # a generator: the insert takes them a chunk at a time (bounded memory)
        for row in parsed.rows:
            key = (row.item_id, row.system)
            if key in outputs or key in seen:  # later rows of a pair are further judgments
                continue
            seen.add(key)
            output_keys.append(key)
            yield {
                "item_id": item_ids[row.item_id],
                "system_id": systems[row.system],
                "text": row.output,
                "meta": _json_safe(row.extras),
            }

    ids = repo.insert_outputs(s, output_rows())
    outputs.update(zip(output_keys, ids, strict=True))
    return len(output_keys)


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
    # The arrival order (positions) is the queue's design (annotation.imported_slots).
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
                "spans": r.spans,
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


def _check_append_mode(
    filename: str, existing: Any, settings: Mapping[str, Any] | None, wording: Wording
) -> None:
    """Appended rows take the campaign's mode: a different one asked for is an error (the
    other settings are the new campaign's and do not apply when appending)."""
    mode = (settings or {}).get("mode")
    if mode is not None and str(mode) != str(existing.mode):
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"campaign '{existing.name}' is a '{existing.mode}' campaign; appended rows "
                    f"cannot be annotated in mode '{mode}'",
                    "Leave out the mode (--mode) to append in the campaign's own mode, or "
                    "import the rows as a new campaign."
                    if wording is CLI_WORDING
                    else "Appended rows take the campaign's mode, or import them as a new "
                    "campaign.",
                )
            ]
        )


def _name_taken(filename: str, campaign: str, what_to_do: str) -> CampaignFileError:
    return CampaignFileError(
        [Problem(filename, f"a campaign named '{campaign}' already exists", what_to_do)]
    )


def _create_campaign(s: Any, campaign: str, filename: str, settings: Mapping[str, Any] | None):  # type: ignore[no-untyped-def]
    """A new campaign row with its recorded queue seed; ``settings`` are its columns (a
    ``meta`` among them replaces the default one naming the source file)."""
    return repo.create_campaign(
        s,
        campaign,
        queue_seed=secrets.randbelow(2**31),
        **{"meta": {"source_file": filename}, **dict(settings or {})},
    )


def import_parsed(
    engine: Engine,
    parsed: CampaignFile,
    campaign: str,
    *,
    settings: Mapping[str, Any] | None = None,
    names: Mapping[str, str] | None = None,
) -> ImportReport:
    """Write rows parsed elsewhere (e.g. annotation.mqm_tsv's) as a new campaign, in one
    transaction; ``settings`` are the campaign's columns (``meta`` included).

    The rows pass the campaign-file rules first (:func:`validate_rows`: limits, NUL bytes,
    one text per output; ``names`` are the file's column names for messages), so every
    import path refuses the same rows with the same :class:`CampaignFileError`."""
    started = time.perf_counter()
    check_campaign_name(campaign, parsed.filename)
    validate_rows(parsed.filename, parsed.rows, names)
    with session_scope(engine) as s:
        if repo.get_campaign(s, campaign) is not None:
            raise _name_taken(parsed.filename, campaign, "Choose a new campaign name.")
        camp = _create_campaign(s, campaign, parsed.filename, settings)
        report = _write(s, camp.id, camp.queue_seed or 0, parsed, lambda done, total: None)
    return ImportReport(
        campaign=campaign,
        campaign_id=camp.id,
        rows=len(parsed.rows),
        seconds=time.perf_counter() - started,
        **report,
    )
