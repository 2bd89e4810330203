"""Import a campaign file into the database: validate and write it chunk by chunk, in one
transaction (a problem anywhere writes nothing).

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

import itertools
import secrets
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from annotation.imports.modes import stored_settings
from annotation.imports.reports import ImportReport, MetricCoverage
from annotation.imports.score_columns import ColumnScores, ScoresFile, campaign_score_columns
from annotation.imports.scores_import import check_signatures, coverage, refuse_archived
from annotation.imports.writer import IMPORT_ANNOTATOR, CampaignWriter
from db import Engine
from db.campaign import campaigns as repo
from db.engine import session_scope
from db.scores import metric_scores as score_store
from formats import item_images
from formats.campaign_file import CHUNK_ROWS, CLI_WORDING, Wording, stream_campaign_file
from formats.problems import DEFAULT_MAX_MB, CampaignFileError, Problem, check_campaign_name
from formats.readers import source_bytes
from formats.rows import CampaignFile, Row, validate_rows
from formats.scores_file import MetricSpec, metric_specs
from metrics.base import Progress

__all__ = ["IMPORT_ANNOTATOR", "import_campaign", "import_parsed", "import_rows"]


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
    chunk_rows: int = CHUNK_ROWS,
    images: Mapping[str, bytes] | None = None,
) -> ImportReport:
    """Validate ``source`` completely, then write it as one transaction.

    ``metrics``: columns to import as metric scores (``metric:NAME`` columns always are;
    :mod:`annotation.imports.score_columns`); ``ignore``: columns of the file to leave out (e.g. its
    judgments, so that it is judged again). Raises :class:`CampaignFileError` (nothing
    written) for any problem in the file, for a campaign name that exists when ``append`` is
    false, and for appended rows that clash with the campaign's existing items. ``wording``
    names the Import page's controls in hints instead of the command line's.

    The file is validated and written chunk by chunk (``chunk_rows`` rows) inside one
    transaction, in memory bounded by a small multiple of the file: a problem anywhere
    rolls back everything, so the database is exactly as before.

    A ``.zip`` source is a bundle: one campaign file and the image files its ``image``
    column names (formats.item_images); ``images`` are image files uploaded beside a plain
    campaign file (name → bytes). The images are stored with the campaign.
    """
    started = time.perf_counter()
    data, filename = source_bytes(source, filename, max_mb)
    if filename.lower().endswith(".zip"):
        try:
            inner, data, bundled = item_images.read_bundle(data, filename, max_mb)
        except ValueError as err:
            raise CampaignFileError(
                [Problem(filename, str(err), "Zip the campaign file and its images together.")]
            ) from err
        filename, images = f"{filename}:{inner}", {**bundled, **dict(images or {})}
    check_campaign_name(campaign, filename)
    tick = progress or (lambda done, total: None)
    stream = stream_campaign_file(
        data, filename, column_map, max_mb, ignore=ignore, wording=wording, chunk_rows=chunk_rows
    )
    scores = None
    if metrics or metric_specs(stream.columns, metrics):
        scores = campaign_score_columns(stream, data, metrics, wording=wording)
    total = max(data.count(b"\n"), 1)  # the progress bar's end: lines, ≥ rows
    with session_scope(engine) as s:
        camp = _target_campaign(s, campaign, filename, append, settings, wording or CLI_WORDING)
        writer = CampaignWriter(
            s, camp.id, camp.queue_seed or 0, filename, camp.mode, images,
            likert=(camp.meta or {}).get("likert"),
        )  # fmt: skip
        report, coverage = _write_chunks(s, writer, stream.chunks, scores, tick, total)
    return ImportReport(
        campaign=campaign,
        campaign_id=camp.id,
        rows=stream.n_rows,
        seconds=time.perf_counter() - started,
        metrics=coverage,
        **report,
    )


def _write_chunks(
    s: Any,
    writer: CampaignWriter,
    chunks: Iterable[list[Row]],
    scores: tuple[ScoresFile, list[MetricSpec]] | None,
    tick: Progress,
    total: int,
) -> tuple[dict[str, Any], list[MetricCoverage]]:
    """Write each validated chunk as it comes, in the caller's transaction: a problem in a
    later chunk raises (from ``chunks``, ``writer`` or the score columns) and the caller
    rolls the earlier chunks back. Nothing more is written once a problem is found."""
    columns = None if scores is None else ColumnScores(writer.filename, scores[1])
    signatures = None if scores is None else check_signatures(s, writer.campaign_id, scores[0])
    done = 0
    for rows in chunks:
        entries = [] if columns is None else columns.check(rows)
        if columns is None or not columns.problems:
            output_ids = writer.add(rows)
            if entries and output_ids:
                _insert_column_scores(s, scores[0], rows, output_ids, entries)  # type: ignore[index]
        done += len(rows)
        tick(min(done, total), total)
    if columns is not None:
        columns.raise_problems()
    report = writer.finish()
    tick(total, total)
    if scores is None or signatures is None or columns is None:
        return report, []
    return report, coverage(scores[0], *signatures, columns.counts, writer.n_outputs)


def _insert_column_scores(
    s: Any, scores: ScoresFile, rows: list[Row], output_ids: list[int], entries: list[Any]
) -> None:
    oid = {row.number: o for row, o in zip(rows, output_ids, strict=True)}
    score_store.insert_scores_in(
        s,
        [
            score_store.ScoreRow(oid[e.row], e.metric, scores.signature(e.metric), e.value)
            for e in entries
        ],
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


def _check_append_mode(
    filename: str, existing: Any, settings: Mapping[str, Any] | None, wording: Wording
) -> None:
    """Appended rows take the campaign's mode: a different one asked for is an error (the
    other settings are the new campaign's and do not apply when appending)."""
    mode = (settings or {}).get("mode")
    stored = (_stored(filename, settings) or {}).get("mode")
    if mode is not None and str(stored) != str(existing.mode):
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
    ``meta`` among them replaces the default one naming the source file), a preset mode
    stored as :func:`annotation.imports.modes.stored_settings` says."""
    columns = _stored(filename, {"meta": {"source_file": filename}, **dict(settings or {})}) or {}
    columns.setdefault("queue_seed", secrets.randbelow(2**31))  # a test or a replay pins it
    return repo.create_campaign(s, campaign, **columns)


def _stored(filename: str, settings: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """:func:`stored_settings`, a bad setting refused as a problem of the import."""
    try:
        return stored_settings(settings)
    except ValueError as err:
        raise CampaignFileError(
            [Problem(filename, str(err), "Choose the pair policy with --mode preference.")]
        ) from err


def import_parsed(
    engine: Engine,
    parsed: CampaignFile,
    campaign: str,
    *,
    settings: Mapping[str, Any] | None = None,
    names: Mapping[str, str] | None = None,
) -> ImportReport:
    """Write rows parsed elsewhere as a new campaign, in one transaction; ``settings`` are
    the campaign's columns (``meta`` included).

    The rows pass the campaign-file rules first (:func:`validate_rows`: limits, NUL bytes,
    one text per output; ``names`` are the file's column names for messages), so every
    import path refuses the same rows with the same :class:`CampaignFileError`."""
    check_campaign_name(campaign, parsed.filename)
    validate_rows(parsed.filename, parsed.rows, names)
    return import_rows(
        engine, parsed.filename, parsed.rows, len(parsed.rows), campaign, settings=settings
    )


def import_rows(
    engine: Engine,
    filename: str,
    rows: Iterable[Row],
    n_rows: int,
    campaign: str,
    *,
    settings: Mapping[str, Any] | None = None,
) -> ImportReport:
    """Write rows validated already (:func:`validate_rows`, e.g. by annotation.imports.mqm's
    parser) as a new campaign, a chunk at a time (``rows`` may be a generator: bounded
    memory), in one transaction."""
    started = time.perf_counter()
    check_campaign_name(campaign, filename)
    with session_scope(engine) as s:
        if repo.get_campaign(s, campaign) is not None:
            raise _name_taken(filename, campaign, "Choose a new campaign name.")
        camp = _create_campaign(s, campaign, filename, settings)
        writer = CampaignWriter(
            s, camp.id, camp.queue_seed or 0, filename, camp.mode,
            likert=(camp.meta or {}).get("likert"),
        )  # fmt: skip
        report, _ = _write_chunks(s, writer, _chunked(rows), None, lambda done, total: None, 1)
    return ImportReport(
        campaign=campaign,
        campaign_id=camp.id,
        rows=n_rows,
        seconds=time.perf_counter() - started,
        **report,
    )


def _chunked(rows: Iterable[Row]) -> Iterator[list[Row]]:
    it = iter(rows)
    while chunk := list(itertools.islice(it, CHUNK_ROWS)):
        yield chunk
