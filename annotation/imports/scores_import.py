"""Import a scores file into an existing campaign, all or nothing; store the scores of an
import (a scores file, or metric columns of a campaign file) once they all match the
campaign's outputs; report the imported metrics a campaign has."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from annotation.imports.reports import MetricCoverage, ScoresImportReport
from annotation.imports.score_columns import ScoresFile, parse_scores_file
from db import Engine
from db.campaign import campaigns as repo
from db.campaign.lifecycle import CampaignArchived, ensure_active
from db.engine import session_scope
from db.scores import metric_scores as score_store
from formats.problems import DEFAULT_MAX_MB, MAX_PROBLEMS, CampaignFileError, Problem
from formats.readers import source_bytes
from formats.score_rows import CHUNK_ROWS, OutputKeys, entry_chunks
from formats.scores_file import ScoreEntry
from metrics.imported import parse_signature


def import_scores(
    engine: Engine,
    source: Path | bytes,
    campaign: str,
    *,
    filename: str | None = None,
    max_mb: float = DEFAULT_MAX_MB,
    chunk_rows: int = CHUNK_ROWS,
) -> ScoresImportReport:
    """Add a scores file's metrics to an existing campaign, all or nothing.

    Raises :class:`CampaignFileError` (nothing written) for any problem in the file
    (:func:`annotation.imports.score_columns.parse_scores_file`), an unknown campaign, item, system
    or output, and a metric the campaign already has from another file (one signature per
    metric name) or with the other direction. Importing the same file again adds nothing.
    Bounded memory: the file is checked in a first pass, then matched and written chunk by
    chunk (``chunk_rows`` rows) in one transaction.
    """
    started = time.perf_counter()
    data, filename = source_bytes(source, filename, max_mb)
    scores = parse_scores_file(data, filename, max_mb, keep=False)  # first pass: the checks
    with session_scope(engine) as s:
        camp = repo.get_campaign(s, campaign)
        if camp is None:
            raise CampaignFileError(
                [
                    Problem(
                        filename,
                        f"there is no campaign named '{campaign}'",
                        "Import the campaign first, or choose one of the existing campaigns.",
                    )
                ]
            )
        score_store.lock_campaign(s, camp.id)
        refuse_archived(s, camp.id, filename)
        existing, by_name = check_signatures(s, camp.id, scores)
        _write_file_scores(s, camp.id, scores, entry_chunks(data, filename, max_mb, chunk_rows))
        n_outputs = score_store.count_outputs_in(s, camp.id)
        cid = camp.id
    return ScoresImportReport(
        campaign=campaign,
        campaign_id=cid,
        filename=filename,
        sha256=scores.sha256,
        rows=scores.n_rows,
        metrics=coverage(scores, existing, by_name, scores.counts(), n_outputs),
        seconds=time.perf_counter() - started,
        assumed_direction=scores.defaulted_direction,
    )


def _write_file_scores(
    s: Any, campaign_id: int, scores: ScoresFile, chunks: Iterable[list[ScoreEntry]]
) -> None:
    """The second pass: match each chunk with the campaign's outputs (one query a chunk)
    and store it; unmatched rows and repeated outputs raise at the end (the caller's
    transaction then rolls every chunk back). Nothing more is written after a problem."""
    systems = set(repo.existing_systems(s, campaign_id))
    keys, problems = OutputKeys(), []
    for chunk in chunks:
        outputs = score_store.output_ids_of(s, campaign_id, {e.item_id for e in chunk})
        items = {i for i, _ in outputs}
        rows: list[score_store.ScoreRow] = []
        for e in chunk:
            oid = outputs.get((e.item_id, e.system))
            if oid is None:
                problems.append(_unmatched(scores.filename, e, items, systems))
                continue
            keys.add(e.row, oid, e.metric)
            rows.append(score_store.ScoreRow(oid, e.metric, scores.signature(e.metric), e.value))
        if len(problems) >= MAX_PROBLEMS:
            break
        if not problems:
            score_store.insert_scores_in(s, rows)
    problems += _duplicates(s, scores.filename, keys, MAX_PROBLEMS - len(problems))
    if problems:
        problems.sort(key=lambda p: p.row or 0)
        raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=len(problems) >= MAX_PROBLEMS)


def _duplicates(s: Any, filename: str, keys: OutputKeys, limit: int) -> list[Problem]:
    found = keys.duplicates(max(limit, 0))
    names = score_store.output_names(s, {oid for _, _, oid, _ in found})
    return [
        Problem(
            filename,
            f"duplicate (item_id, system, metric) = ('{names[oid][0]}', '{names[oid][1]}', "
            f"'{metric}'); row {prev} has it already",
            "Keep one score per output and metric.",
            row=row,
            column="metric",
        )
        for row, prev, oid, metric in found
    ]


def write_scores(
    s: Any, campaign_id: int, scores: ScoresFile, outputs: dict[tuple[str, str], int]
) -> list[MetricCoverage]:
    """Match ``scores`` with the campaign's outputs and store them (caller's transaction).

    Every problem is collected first; nothing is written unless there is none.
    """
    existing, by_name = check_signatures(s, campaign_id, scores)
    items = {i for i, _ in outputs}
    systems = {sy for _, sy in outputs}
    problems: list[Problem] = []
    rows: list[score_store.ScoreRow] = []
    for e in scores.entries:
        if len(problems) >= MAX_PROBLEMS:
            break
        oid = outputs.get((e.item_id, e.system))
        if oid is not None:
            rows.append(score_store.ScoreRow(oid, e.metric, scores.signature(e.metric), e.value))
        else:
            problems.append(_unmatched(scores.filename, e, items, systems))
    if problems:
        raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=len(problems) >= MAX_PROBLEMS)
    score_store.insert_scores_in(s, rows)
    return coverage(scores, existing, by_name, scores.counts(), len(outputs))


def check_signatures(
    s: Any, campaign_id: int, scores: ScoresFile
) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """The campaign's imported signatures (signature → (name, n)) and their names (name →
    signature); raises :class:`CampaignFileError` for a metric of ``scores`` that clashes."""
    existing = score_store.imported_signatures(s, campaign_id)
    by_name: dict[str, str] = {name: sig for sig, (name, _) in existing.items()}
    problems = _signature_conflicts(scores, by_name)
    if problems:
        raise CampaignFileError(problems)
    return existing, by_name


def coverage(
    scores: ScoresFile,
    existing: dict[str, tuple[str, int]],
    by_name: dict[str, str],
    counts: dict[str, int],
    n_outputs: int,
) -> list[MetricCoverage]:
    """Per metric of ``scores`` (``counts`` scores in the file): what the campaign has now."""
    return [
        MetricCoverage(
            name=name,
            signature=str(sig),
            higher_is_better=sig.higher_is_better,
            n_added=0 if by_name.get(name) == str(sig) else counts[name],
            n_scored=existing.get(str(sig), (name, 0))[1]
            + (0 if by_name.get(name) == str(sig) else counts[name]),
            n_outputs=n_outputs,
            already=by_name.get(name) == str(sig),
        )
        for name, sig in scores.metrics.items()
    ]


def _signature_conflicts(scores: ScoresFile, by_name: dict[str, str]) -> list[Problem]:
    """A metric the campaign has already from another file, or with the other direction
    (``by_name``: the campaign's imported metric name → its signature)."""
    problems: list[Problem] = []
    first_row = scores.first_rows()
    for name, new in scores.metrics.items():
        old = by_name.get(name)
        if old is None or old == str(new):
            continue
        prev = parse_signature(old)
        assert prev is not None
        if prev.higher_is_better != new.higher_is_better:
            message = (
                f"conflicting direction: the campaign's metric '{name}' is "
                f"{'higher' if prev.higher_is_better else 'lower'}-is-better (imported from "
                f"'{prev.file}'), this file says "
                f"{'higher' if new.higher_is_better else 'lower'}-is-better"
            )
            fix = "Give the metric its direction as before, or import it under another name."
        else:
            message = (
                f"the campaign already has metric '{name}' from '{prev.file}' (sha256 "
                f"{prev.sha256[:12]}…); scores of one metric come from one file, so that they "
                "share one signature"
            )
            fix = (
                f"Import these scores under another metric name (e.g. '{name}_2'), or use a "
                "new campaign."
            )
        problems.append(
            Problem(scores.filename, message, fix, row=first_row.get(name), column="metric")
        )
    return problems


def _unmatched(filename: str, e: ScoreEntry, items: set[str], systems: set[str]) -> Problem:
    """A score whose output the campaign does not have: which part is missing."""
    if e.item_id not in items:
        return Problem(
            filename,
            f"item '{e.item_id}' is not in the campaign",
            "Use the campaign's item ids (an export of the campaign lists them), "
            "or remove the row.",
            row=e.row,
            column="item_id",
        )
    if e.system not in systems:
        return Problem(
            filename,
            f"system '{e.system}' is not in the campaign",
            f"Use one of the campaign's systems ({', '.join(sorted(systems))}), or remove the row.",
            row=e.row,
            column="system",
        )
    return Problem(
        filename,
        f"the campaign has no output of system '{e.system}' for item '{e.item_id}'",
        "Remove the row, or add the output to the campaign first.",
        row=e.row,
        column="system",
    )


def refuse_archived(s: Any, campaign_id: int, filename: str) -> None:
    """An archived campaign is read-only: nothing is added to it (checked once the campaign
    row is locked, so an archive cannot slip in between)."""
    try:
        ensure_active(s, campaign_id)
    except CampaignArchived as exc:
        raise CampaignFileError([Problem(filename, str(exc), "Nothing was added to it.")]) from None


def imported_coverage(engine: Engine, campaign: str, names: Sequence[str]) -> list[str]:
    """One line per imported metric ``names`` of ``campaign``: its provenance and how many
    outputs it scores (``cli.py score`` with imported names; nothing is computed).

    Raises :class:`metrics.base.MetricConfigError` for a campaign or a name it lacks.
    """
    from metrics.base import MetricConfigError
    from metrics.registry import METRIC_NAMES

    info = score_store.campaign_info(engine, campaign)
    if info is None:
        raise MetricConfigError(f"no campaign {campaign!r} (the `campaign` option)")
    stored = [
        (m, sig, n)
        for m, sig, n in score_store.campaign_signatures(engine, info.id)
        if parse_signature(sig) is not None
    ]
    n_outputs = score_store.count_outputs(engine, info.id)
    lines = []
    for name in names:
        found = [(sig, n) for m, sig, n in stored if m == name]
        if not found:
            have = ", ".join(sorted({m for m, _, _ in stored})) or "none"
            raise MetricConfigError(
                f"unknown metric {name!r}: not a built-in metric ({', '.join(METRIC_NAMES)}) "
                f"and not imported into campaign '{info.name}' (its imported metrics: {have}); "
                "add it with `cli.py import-scores`"
            )
        for sig, n in found:
            p = parse_signature(sig)
            assert p is not None
            lines.append(
                f"  {name}: imported (version {p.version or 'not given'}, "
                f"{'higher' if p.higher_is_better else 'lower'} is better, from {p.file}, "
                f"sha256 {p.sha256[:12]}…): {n:,} of {n_outputs:,} outputs scored"
                + (f", {n_outputs - n:,} without a score" if n < n_outputs else "")
                + "; nothing to compute."
            )
    return lines
