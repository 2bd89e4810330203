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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from annotation.campaign_file import (
    CLI_WORDING,
    DEFAULT_MAX_MB,
    MAX_PROBLEMS,
    CampaignFile,
    CampaignFileError,
    Problem,
    Wording,
    check_campaign_name,
    check_size,
    parse_campaign_file,
    validate_rows,
)
from annotation.queue import ImportedJudgment, record_imported
from annotation.scores_file import (
    MetricSpec,
    ScoresFile,
    metric_specs,
    parse_scores_file,
    scores_from_campaign,
)
from db import Engine
from db import campaigns as repo
from db import scores as score_store
from db.engine import session_scope
from db.lifecycle import CampaignArchived, ensure_active
from metrics.base import Progress
from metrics.imported import parse_signature

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
    metrics: list[MetricCoverage] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the import repaired, one per line

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
        return "\n".join([text, *(m.line() for m in self.metrics), *self.notes])

    def with_seconds(self, seconds: float) -> ImportReport:
        return replace(self, seconds=seconds)


@dataclass(frozen=True)
class MetricCoverage:
    """One imported metric after an import: how many of the campaign's outputs it scores."""

    name: str
    signature: str
    higher_is_better: bool
    n_added: int  # scores this import stored
    n_scored: int  # outputs of the campaign with a score of this signature
    n_outputs: int  # outputs of the campaign
    already: bool = False  # the same file was imported before: nothing new

    @property
    def n_missing(self) -> int:
        return self.n_outputs - self.n_scored

    def line(self) -> str:
        what = "already imported from this file; " if self.already else ""
        text = (
            f"  {self.name} ({'higher' if self.higher_is_better else 'lower'} is better): "
            f"{what}{self.n_scored:,} of {self.n_outputs:,} outputs scored"
        )
        if self.n_missing:
            text += f", {self.n_missing:,} without a score"
        return text + "."


@dataclass(frozen=True)
class ScoresImportReport:
    """What :func:`import_scores` stored."""

    campaign: str
    campaign_id: int
    filename: str
    sha256: str
    rows: int
    metrics: list[MetricCoverage]
    seconds: float
    #: metrics whose direction the file did not state (higher is better was assumed)
    assumed_direction: list[str] = field(default_factory=list)

    def summary(self) -> str:
        head = (
            f"Imported {self.rows:,} scores of {len(self.metrics)} metric(s) from "
            f"{self.filename} (sha256 {self.sha256[:12]}…) into '{self.campaign}' in "
            f"{self.seconds:.2f} s:"
        )
        lines = [head, *(m.line() for m in self.metrics)]
        if self.assumed_direction:
            lines.append(
                f"  No higher_is_better given for {', '.join(self.assumed_direction)}: "
                "higher is better assumed (give false for error-like metrics such as MetricX)."
            )
        return "\n".join(lines)


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
    if isinstance(source, Path):
        filename = filename or source.name
        data = _read_file(source, filename, max_mb)
    else:
        data = source
    if not filename:
        raise ValueError("filename is needed to tell the file type of raw bytes")
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
        existing = repo.get_campaign(s, campaign)
        if existing is not None and not append:
            raise _name_taken(
                filename,
                campaign,
                "Append these rows to it (--append, or 'Append' in the app), "
                "or choose a new campaign name.",
            )
        if existing is None:
            camp = _create_campaign(s, campaign, filename, settings)
        else:
            _check_append_mode(filename, existing, settings, wording or CLI_WORDING)
            camp = existing
            score_store.lock_campaign(s, camp.id)
            _refuse_archived(s, camp.id, filename)
        report = _write(s, camp.id, camp.queue_seed or 0, parsed, tick)
        coverage = (
            _write_scores(s, camp.id, imported, repo.existing_output_keys(s, camp.id))
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


def import_scores(
    engine: Engine,
    source: Path | bytes,
    campaign: str,
    *,
    filename: str | None = None,
    max_mb: float = DEFAULT_MAX_MB,
) -> ScoresImportReport:
    """Add a scores file's metrics to an existing campaign, all or nothing.

    Raises :class:`CampaignFileError` (nothing written) for any problem in the file
    (:func:`annotation.scores_file.parse_scores_file`), an unknown campaign, item, system
    or output, and a metric the campaign already has from another file (one signature per
    metric name) or with the other direction. Importing the same file again adds nothing.
    """
    started = time.perf_counter()
    if isinstance(source, Path):
        filename = filename or source.name
        data = _read_file(source, filename, max_mb)
    else:
        data = source
    if not filename:
        raise ValueError("filename is needed to tell the file type of raw bytes")
    scores = parse_scores_file(data, filename, max_mb)
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
        _refuse_archived(s, camp.id, filename)
        coverage = _write_scores(s, camp.id, scores, repo.existing_output_keys(s, camp.id))
        cid = camp.id
    return ScoresImportReport(
        campaign=campaign,
        campaign_id=cid,
        filename=filename,
        sha256=scores.sha256,
        rows=len(scores.entries),
        metrics=coverage,
        seconds=time.perf_counter() - started,
        assumed_direction=scores.defaulted_direction,
    )


def _write_scores(
    s: Any, campaign_id: int, scores: ScoresFile, outputs: dict[tuple[str, str], int]
) -> list[MetricCoverage]:
    """Match ``scores`` with the campaign's outputs and store them (caller's transaction).

    Every problem is collected first; nothing is written unless there is none.
    """
    filename = scores.filename
    problems: list[Problem] = []
    items = {i for i, _ in outputs}
    systems = {sy for _, sy in outputs}
    existing = score_store.imported_signatures(s, campaign_id)  # sig → (name, n)
    by_name: dict[str, str] = {name: sig for sig, (name, _) in existing.items()}
    first_row: dict[str, int] = {}
    for e in scores.entries:
        first_row.setdefault(e.metric, e.row)
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
        problems.append(Problem(filename, message, fix, row=first_row.get(name), column="metric"))
    rows: list[score_store.ScoreRow] = []
    for e in scores.entries:
        if len(problems) >= MAX_PROBLEMS:
            break
        oid = outputs.get((e.item_id, e.system))
        if oid is not None:
            rows.append(score_store.ScoreRow(oid, e.metric, scores.signature(e.metric), e.value))
        elif e.item_id not in items:
            problems.append(
                Problem(
                    filename,
                    f"item '{e.item_id}' is not in the campaign",
                    "Use the campaign's item ids (an export of the campaign lists them), "
                    "or remove the row.",
                    row=e.row,
                    column="item_id",
                )
            )
        elif e.system not in systems:
            problems.append(
                Problem(
                    filename,
                    f"system '{e.system}' is not in the campaign",
                    f"Use one of the campaign's systems ({', '.join(sorted(systems))}), "
                    "or remove the row.",
                    row=e.row,
                    column="system",
                )
            )
        else:
            problems.append(
                Problem(
                    filename,
                    f"the campaign has no output of system '{e.system}' for item '{e.item_id}'",
                    "Remove the row, or add the output to the campaign first.",
                    row=e.row,
                    column="system",
                )
            )
    if problems:
        raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=len(problems) >= MAX_PROBLEMS)
    score_store.insert_scores_in(s, rows)
    counts = scores.counts()
    return [
        MetricCoverage(
            name=name,
            signature=str(sig),
            higher_is_better=sig.higher_is_better,
            n_added=0 if by_name.get(name) == str(sig) else counts[name],
            n_scored=existing.get(str(sig), (name, 0))[1]
            + (0 if by_name.get(name) == str(sig) else counts[name]),
            n_outputs=len(outputs),
            already=by_name.get(name) == str(sig),
        )
        for name, sig in scores.metrics.items()
    ]


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


def _refuse_archived(s: Any, campaign_id: int, filename: str) -> None:
    """An archived campaign is read-only: nothing is added to it (checked once the campaign
    row is locked, so an archive cannot slip in between)."""
    try:
        ensure_active(s, campaign_id)
    except CampaignArchived as exc:
        raise CampaignFileError([Problem(filename, str(exc), "Nothing was added to it.")]) from None


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
