"""Metric scores users bring: a scores file, or score columns of a campaign file.

A scores file has one row per (item, system, metric): ``item_id``, ``system``, ``metric``,
``score``, and optionally ``higher_is_better`` and ``version`` (the same across every row of
one metric); :mod:`formats.scores_file` shows an example. A campaign file's ``metric:NAME``
column holds metric NAME's scores, and ``--metric NAME=COLUMN`` makes any other column one
(the Import page suggests them); such columns stay in the outputs' metadata as well, so
exports round-trip. An output without a score is allowed (partial coverage is reported), a
bad one is not: every problem names the file, row and column and says what to do, and
nothing is written (:mod:`annotation.imports.importer`).

Reading and checking the rows is :mod:`formats.scores_file`; this module gives it the metric
rules of :mod:`metrics.imported` and records the provenance in each metric's signature
(:class:`metrics.imported.ImportedSignature`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from formats.campaign_file import CLI_WORDING, Wording
from formats.problems import DEFAULT_MAX_MB, MAX_PROBLEMS, CampaignFileError, Problem
from formats.rows import CampaignFile
from formats.scores_file import (
    METRIC_PREFIX,
    OPTIONAL_SCORE_COLUMNS,
    SCORE_COLUMNS,
    MetricRules,
    MetricSpec,
    ScoreEntry,
    metric_specs,
    parse_score,
    read_scores_file,
)
from metrics.imported import (
    ImportedSignature,
    content_hash,
    name_problem,
    parse_direction,
    version_problem,
)

#: The metric rules of imported scores (metrics.imported) that the reader checks.
RULES = MetricRules(name_problem, version_problem, parse_direction)


@dataclass
class ScoresFile:
    """Validated imported scores of one file, ready to be matched with a campaign."""

    filename: str
    sha256: str
    #: metric name → its provenance signature
    metrics: dict[str, ImportedSignature]
    entries: list[ScoreEntry] = field(default_factory=list)
    #: metrics whose direction the file did not state (higher is better assumed)
    defaulted_direction: list[str] = field(default_factory=list)
    #: without entries (a file checked in a first pass): metric → [first row, rows]
    per_metric: dict[str, list[int]] = field(default_factory=dict)
    n_rows: int = 0

    def signature(self, metric: str) -> str:
        return str(self.metrics[metric])

    def counts(self) -> dict[str, int]:
        if not self.entries:
            return {m: self.per_metric.get(m, [0, 0])[1] for m in self.metrics}
        out = dict.fromkeys(self.metrics, 0)
        for e in self.entries:
            out[e.metric] += 1
        return out

    def first_rows(self) -> dict[str, int]:
        """Each metric's first row in the file."""
        first = {m: v[0] for m, v in self.per_metric.items()}
        for e in self.entries:
            first.setdefault(e.metric, e.row)
        return first


def parse_scores_file(
    data: bytes, filename: str, max_mb: float = DEFAULT_MAX_MB, *, keep: bool = True
) -> ScoresFile:
    """Read and validate a whole scores file (:func:`formats.scores_file.read_scores_file`);
    raise :class:`CampaignFileError` listing every problem (file, row, column, what to do).
    ``keep=False``: a first pass in bounded memory, without entries (an import reads them
    again, chunk by chunk: formats.score_rows) and without the duplicate-output check."""
    read = read_scores_file(data, filename, RULES, max_mb, keep=keep)
    sha = content_hash(data)
    names = list(dict.fromkeys(e.metric for e in read.entries)) or list(read.per_metric)
    return ScoresFile(
        filename=filename,
        sha256=sha,
        metrics={
            m: ImportedSignature.make(
                m,
                read.version.get(m, ("", 0))[0],
                read.direction.get(m, (True, 0))[0],
                filename,
                sha,
            )
            for m in names
        },
        entries=read.entries,
        defaulted_direction=[m for m in names if m not in read.direction],
        per_metric=read.per_metric,
        n_rows=read.n_rows,
    )


# ------------------------------------------------------------------ campaign-file columns


def _unmatched_settings(
    filename: str, columns: Sequence[str], specs: Sequence[MetricSpec]
) -> list[Problem]:
    """A direction or version (``--lower-is-better``, ``--metric-version``) for a metric
    this import does not bring is a typo, never ignored (names are case-sensitive)."""
    brought = [s.name for s in metric_specs(columns, specs) if s.column]
    problems = []
    for spec in specs:
        if spec.column or spec.name in brought:
            continue
        options = [f"--lower-is-better {spec.name}"] if not spec.higher_is_better else []
        options += [f"--metric-version {spec.name}={spec.version}"] if spec.version else []
        near = [b for b in brought if b.casefold() == spec.name.casefold()]
        problems.append(
            Problem(
                filename,
                f"{' and '.join(options) or spec.name}: no imported metric is named "
                f"'{spec.name}'"
                + (f" (did you mean '{near[0]}'? names are case-sensitive)" if near else ""),
                "Name a metric of this import ("
                + (
                    ", ".join(brought)
                    or f"none: add --metric {spec.name}=COLUMN or a column "
                    f"'{METRIC_PREFIX}{spec.name}'"
                )
                + ").",
            )
        )
    return problems


def scores_from_campaign(
    parsed: CampaignFile,
    data: bytes,
    specs: Sequence[MetricSpec],
    *,
    wording: Wording | None = None,
) -> ScoresFile:
    """The imported scores of a validated campaign file (empty cells: no score).

    ``wording`` names the controls in hints (the command line's by default, or the Import
    page's). Raises :class:`CampaignFileError` listing problems.
    """
    scores, usable = campaign_score_columns(parsed, data, specs, wording=wording)
    columns = ColumnScores(parsed.filename, usable)
    scores.entries = columns.check(parsed.rows)
    columns.raise_problems()
    return scores


def campaign_score_columns(
    parsed: Any, data: bytes, specs: Sequence[MetricSpec], *, wording: Wording | None = None
) -> tuple[ScoresFile, list[MetricSpec]]:
    """The metrics of a campaign file's score columns (``parsed``: its filename, columns and
    extra columns; no rows needed) and the specs of the usable columns; the scores
    themselves come chunk by chunk from :class:`ColumnScores`. Raises
    :class:`CampaignFileError` listing problems."""
    wording = wording or CLI_WORDING
    filename = parsed.filename
    problems: list[Problem] = _unmatched_settings(filename, parsed.columns, specs)
    usable: list[MetricSpec] = []
    for spec in metric_specs(parsed.columns, specs):
        problem = _spec_problem(parsed, spec, wording, {u.name for u in usable})
        if problem is None:
            usable.append(spec)
        else:
            problems.append(problem)
    if problems:
        raise CampaignFileError(problems)
    sha = content_hash(data)
    scores = ScoresFile(
        filename=filename,
        sha256=sha,
        metrics={
            s.name: ImportedSignature.make(s.name, s.version, s.higher_is_better, filename, sha)
            for s in usable
        },
    )
    return scores, usable


def _spec_problem(
    parsed: CampaignFile, spec: MetricSpec, wording: Wording, taken: set[str]
) -> Problem | None:
    """Why a campaign-file column cannot be a metric's scores (None: it can)."""
    filename = parsed.filename
    where = wording.metric.format(name=spec.name, column=spec.column)
    if not spec.column:
        return Problem(
            filename,
            f"metric '{spec.name}': no column given",
            f"Add a column 'metric:{spec.name}' or map one to it.",
        )
    if spec.column not in parsed.columns:
        message = f"{where}: the file has no column '{spec.column}'"
        fix = f"Columns in the file: {', '.join(parsed.columns)}."
    elif spec.column not in parsed.extra_columns:
        message = f"{where}: '{spec.column}' is a Tandem column, not a score"
        fix = "Use a column that holds the metric's scores."
    elif problem := name_problem(spec.name) or version_problem(spec.version):
        message, fix = f"{where}: {problem}", "Choose another metric name (e.g. comet22)."
    elif spec.name in taken:
        message = f"{where}: two columns are named metric '{spec.name}'"
        fix = "Give each metric its own name."
    else:
        return None
    return Problem(filename, message, fix, column=spec.column)


class ColumnScores:
    """The scores in a campaign file's usable score columns, one per output and metric,
    chunk by chunk; problems are collected (:meth:`raise_problems`). A further judgment row
    of an output must repeat its score: only a row with an annotator can have one
    (formats.rows.RowRules), so only those rows' scores are remembered."""

    def __init__(self, filename: str, usable: Sequence[MetricSpec]) -> None:
        self.filename, self.usable = filename, list(usable)
        self.problems: list[Problem] = []
        self.first: dict[tuple[str, str, str], tuple[float, int]] = {}
        self.counts = dict.fromkeys((s.name for s in usable), 0)

    def check(self, rows: Sequence[Any]) -> list[ScoreEntry]:
        """The entries of ``rows`` (all of them, even after a problem)."""
        entries: list[ScoreEntry] = []
        for row in rows:
            for spec in self.usable:
                entry = self._entry(row, spec)
                if entry is not None:
                    entries.append(entry)
                    self.counts[spec.name] += 1
        return entries

    def _entry(self, row: Any, spec: MetricSpec) -> ScoreEntry | None:
        value = parse_score(row.extras.get(spec.column))
        if value is None:
            return None
        if isinstance(value, str):
            fix = "Use a number, or leave the cell empty for an output without a score."
            self._problem(row, spec, f"{spec.column} is {value!r}, not a finite number", fix)
            return None
        key = (row.item_id, row.system, spec.name)
        first = self.first.get(key)
        if first is not None:  # a further judgment row of the same output
            if first[0] != value:
                self._problem(
                    row, spec, f"{spec.column} is {value!r} here but {first[0]!r} in row "
                    f"{first[1]} of the same output",
                    "An output has one score per metric: repeat the same value.",
                )  # fmt: skip
            return None
        if row.annotator:
            self.first[key] = (value, row.number)
        return ScoreEntry(row.number, row.item_id, row.system, spec.name, value)

    def _problem(self, row: Any, spec: MetricSpec, message: str, fix: str) -> None:
        self.problems.append(Problem(self.filename, message, fix, row=row.number,
                                     line=row.line, column=spec.column))  # fmt: skip
        if len(self.problems) >= MAX_PROBLEMS:
            raise CampaignFileError(self.problems, truncated=True)

    def raise_problems(self) -> None:
        if self.problems:
            raise CampaignFileError(self.problems, truncated=len(self.problems) >= MAX_PROBLEMS)


# ------------------------------------------------------------------ export


def export_scores(engine: Any, campaign: str, fmt: str) -> bytes:
    """The campaign's imported metric scores as a scores file of type ``fmt`` (``csv``,
    ``tsv``, ``jsonl`` or ``parquet``), direction and version included, so that another
    campaign with the same items and systems imports them back exactly
    (:func:`annotation.imports.scores_import.import_scores`)."""
    from annotation.results.exports import campaign_id_or_fail
    from db.scores.metric_scores import imported_score_rows
    from formats.writers import to_delimited, to_jsonl, to_parquet
    from metrics.imported import parse_signature

    columns = [*SCORE_COLUMNS, *OPTIONAL_SCORE_COLUMNS]
    records = []
    for item, system, metric, signature, value in imported_score_rows(
        engine, campaign_id_or_fail(engine, campaign)
    ):
        sig = parse_signature(signature)
        assert sig is not None
        records.append(
            {
                "item_id": item,
                "system": system,
                "metric": metric,
                "score": value,
                "higher_is_better": sig.higher_is_better,
                "version": sig.version,
            }
        )
    if fmt in ("csv", "tsv"):
        return to_delimited(columns, records, "," if fmt == "csv" else "\t", reversible=True)
    if fmt == "jsonl":
        return to_jsonl(records)
    if fmt == "parquet":
        types = dict.fromkeys(columns, "string") | {"score": "double", "higher_is_better": "bool"}
        return to_parquet(columns, records, types)
    raise ValueError(f"unknown export format {fmt!r}; use csv, tsv, jsonl or parquet")
