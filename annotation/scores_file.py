"""Metric scores users bring: a scores file, or score columns of a campaign file.

Scores file (CSV, TSV, JSONL or Parquet, read like a campaign file), one row per
(item, system, metric)::

    item_id,system,metric,score,higher_is_better,version
    s1,sysA,comet22,0.8412,true,Unbabel/wmt22-comet-da
    s1,sysA,metricx24,3.1,false,google/metricx-24-hybrid-xl

``higher_is_better`` (1/0, true/false, yes/no, higher/lower; empty = higher) and ``version``
are optional, but must agree across every row of one metric. In a campaign file, a column
``metric:NAME`` is the scores of metric NAME, and any other column can be used as one with
``--metric NAME=COLUMN`` (the Import page suggests them); such columns stay in the outputs'
metadata as well, so exports round-trip. An output without a score is allowed (partial
coverage is reported), a bad one is not: every problem names the file, row and column and
says what to do, and nothing is written (:mod:`annotation.importer`).

The stored signature records the provenance (:class:`metrics.imported.ImportedSignature`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation.campaign_file import (
    CLI_WORDING,
    DEFAULT_MAX_MB,
    MAX_LENGTH,
    MAX_PROBLEMS,
    CampaignFile,
    CampaignFileError,
    Problem,
    Wording,
    read_records,
)
from metrics.imported import (
    ImportedSignature,
    content_hash,
    name_problem,
    parse_direction,
    version_problem,
)

SCORE_COLUMNS = ("item_id", "system", "metric", "score")
OPTIONAL_SCORE_COLUMNS = ("higher_is_better", "version")
METRIC_PREFIX = "metric:"


@dataclass(frozen=True)
class MetricSpec:
    """A campaign-file column used as the scores of an imported metric."""

    name: str
    column: str
    version: str = ""
    higher_is_better: bool = True


@dataclass(frozen=True)
class ScoreEntry:
    """One validated score: the output (item, system) and its value."""

    row: int
    item_id: str
    system: str
    metric: str
    value: float


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

    def signature(self, metric: str) -> str:
        return str(self.metrics[metric])

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(self.metrics, 0)
        for e in self.entries:
            out[e.metric] += 1
        return out


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value if isinstance(value, str) else str(value)


def parse_score(value: Any) -> float | str | None:
    """A finite float; None for an empty cell; the original text when it is not a number."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        if isinstance(value, float) and math.isnan(value):
            return "NaN"
        return float(value) if math.isfinite(value) else str(value)
    text = _text(value).strip()
    if not text:
        return None
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


# ------------------------------------------------------------------ the scores file


def parse_scores_file(data: bytes, filename: str, max_mb: float = DEFAULT_MAX_MB) -> ScoresFile:
    """Read and validate a whole scores file; raise :class:`CampaignFileError` listing
    every problem (file, row, column, what to do)."""
    header, records = read_records(data, filename, max_mb)
    problems: list[Problem] = []
    missing = [c for c in SCORE_COLUMNS if c not in header]
    if missing:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"missing required column '{c}'",
                    f"A scores file has the columns {', '.join(SCORE_COLUMNS)} (and optionally "
                    f"{', '.join(OPTIONAL_SCORE_COLUMNS)}); "
                    f"found: {', '.join(header) or '(none)'}.",
                    column=c,
                )
                for c in missing
            ]
        )
    unknown = [c for c in header if c not in SCORE_COLUMNS + OPTIONAL_SCORE_COLUMNS]
    if unknown:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"unknown column '{c}'",
                    "A scores file has only the columns "
                    f"{', '.join(SCORE_COLUMNS + OPTIONAL_SCORE_COLUMNS)}: remove it (one row "
                    "per item, system and metric; several metrics go in several rows).",
                    column=c,
                )
                for c in unknown
            ]
        )
    if not records:
        raise CampaignFileError(
            [Problem(filename, "has a header but no data rows", "Add at least one score row.")]
        )

    def add(row: int, column: str | None, message: str, fix: str) -> None:
        problems.append(Problem(filename, message, fix, row=row, column=column))

    entries: list[ScoreEntry] = []
    first_row: dict[tuple[str, str, str], int] = {}
    direction: dict[str, tuple[bool, int]] = {}
    version: dict[str, tuple[str, int]] = {}
    bad_names: set[str] = set()
    for number, (_, rec) in enumerate(records, start=1):
        if len(problems) >= MAX_PROBLEMS:
            raise CampaignFileError(problems, truncated=True)
        cells = {c: rec.get(c) for c in header}
        for col, value in cells.items():
            if isinstance(value, bytes | bytearray | dict | list | tuple):
                add(
                    number,
                    col,
                    f"{col} holds {type(value).__name__} data, not a value",
                    "Store plain text or numbers in a scores file.",
                )
                cells[col] = None
            elif isinstance(value, str) and "\x00" in value:
                add(number, col, f"{col} contains a NUL byte (\\x00)", "Remove it.")
                cells[col] = None
        item_id = _text(cells["item_id"]).strip()
        system = _text(cells["system"]).strip()
        metric = _text(cells["metric"]).strip()
        for col, value in (("item_id", item_id), ("system", system), ("metric", metric)):
            if not value:
                add(number, col, f"{col} is empty", f"Give every row its {col}.")
            elif col in MAX_LENGTH and len(value) > MAX_LENGTH[col]:
                add(
                    number,
                    col,
                    f"{col} is {len(value):,} characters long, over the limit of {MAX_LENGTH[col]}",
                    "Use the id the campaign has.",
                )
        if metric and metric not in bad_names:
            problem = name_problem(metric)
            if problem:
                bad_names.add(metric)
                add(
                    number,
                    "metric",
                    problem,
                    "Rename the metric (e.g. comet22, metricx24_xl, llm_judge).",
                )
        score = parse_score(cells["score"])
        if score is None:
            add(
                number,
                "score",
                "score is empty",
                "Leave the row out for an output without a score (partial coverage is "
                "allowed), or give a number.",
            )
        elif isinstance(score, str):
            add(
                number,
                "score",
                f"score is {score!r}, not a finite number",
                "Use a number (e.g. 0.8412); NaN and infinity are not scores.",
            )
        if "higher_is_better" in header:
            higher = parse_direction(cells["higher_is_better"])
            if isinstance(higher, str):
                add(
                    number,
                    "higher_is_better",
                    f"higher_is_better is {higher!r}",
                    "Use true (larger is better, e.g. COMET) or false (smaller is better, e.g. "
                    "MetricX, TER), or leave it empty for true.",
                )
            elif higher is not None and metric:
                first = direction.setdefault(metric, (higher, number))
                if first[0] != higher:
                    add(
                        number,
                        "higher_is_better",
                        f"metric '{metric}' is {'higher' if higher else 'lower'}-is-better "
                        f"here but {'higher' if first[0] else 'lower'}-is-better in row "
                        f"{first[1]}",
                        "Give one direction for all rows of a metric.",
                    )
        if "version" in header and metric:
            ver = _text(cells["version"]).strip()
            problem = version_problem(ver)
            if problem:
                add(number, "version", problem, "Use a plain version string.")
            elif ver:  # an empty cell states nothing
                first_v = version.setdefault(metric, (ver, number))
                if first_v[0] != ver:
                    add(
                        number,
                        "version",
                        f"metric '{metric}' has version {ver!r} here but {first_v[0]!r} in row "
                        f"{first_v[1]}",
                        "Give one version for all rows of a metric, or "
                        "import the two versions under different metric names.",
                    )
        if item_id and system and metric:
            key = (item_id, system, metric)
            first_n = first_row.setdefault(key, number)
            if first_n != number:
                add(
                    number,
                    "metric",
                    f"duplicate (item_id, system, metric) = ('{item_id}', '{system}', "
                    f"'{metric}'); row {first_n} has it already",
                    "Keep one score per output and metric.",
                )
            elif isinstance(score, float):
                entries.append(ScoreEntry(number, item_id, system, metric, score))
    if problems:
        raise CampaignFileError(problems, truncated=len(problems) >= MAX_PROBLEMS)
    sha = content_hash(data)
    names = list(dict.fromkeys(e.metric for e in entries))
    return ScoresFile(
        filename=filename,
        sha256=sha,
        metrics={
            m: ImportedSignature.make(
                m,
                version.get(m, ("", 0))[0],
                direction.get(m, (True, 0))[0],
                filename,
                sha,
            )
            for m in names
        },
        entries=entries,
        defaulted_direction=[m for m in names if m not in direction],
    )


# ------------------------------------------------------------------ campaign-file columns


def parse_metric_specs(
    pairs: Iterable[str],
    lower_is_better: Iterable[str] = (),
    versions: Iterable[str] = (),
) -> list[MetricSpec]:
    """``["comet22=comet"]``, ``lower_is_better=["metricx"]``, ``versions=["comet22=2.2"]``
    → metric specs (the CLI's ``--metric``, ``--lower-is-better``, ``--metric-version``)."""
    columns: dict[str, str] = {}
    for pair in pairs:
        name, sep, column = pair.partition("=")
        if not sep or not name.strip() or not column.strip():
            raise ValueError(
                f"--metric {pair!r}: expected NAME=COLUMN, e.g. --metric comet22=comet_score"
            )
        if name.strip() in columns:
            raise ValueError(
                f"--metric {pair!r}: metric '{name.strip()}' is given twice (also "
                f"--metric {name.strip()}={columns[name.strip()]}); give each metric once, "
                "or import the second column under another name"
            )
        columns[name.strip()] = column.strip()
    version_of: dict[str, str] = {}
    for pair in versions:
        name, sep, ver = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(
                f"--metric-version {pair!r}: expected NAME=VERSION, "
                "e.g. --metric-version comet22=Unbabel/wmt22-comet-da"
            )
        if version_of.get(name.strip(), ver.strip()) != ver.strip():
            raise ValueError(
                f"--metric-version {pair!r}: metric '{name.strip()}' is given two versions "
                f"('{version_of[name.strip()]}' and '{ver.strip()}'); give one"
            )
        version_of[name.strip()] = ver.strip()
    lower = {n.strip() for n in lower_is_better}
    return [MetricSpec(n, c, version_of.get(n, ""), n not in lower) for n, c in columns.items()] + [
        # Direction or version of a `metric:NAME` column: a spec without a column yet.
        MetricSpec(n, "", version_of.get(n, ""), n not in lower)
        for n in dict.fromkeys([*version_of, *lower])
        if n not in columns
    ]


def metric_specs(header: Sequence[str], specs: Sequence[MetricSpec] = ()) -> list[MetricSpec]:
    """The metrics a campaign file brings: the ``metric:NAME`` columns of ``header`` plus
    the explicit ``specs`` (a spec without a column sets a ``metric:NAME`` column's
    direction or version)."""
    explicit = {s.name: s for s in specs if s.column}
    settings = {s.name: s for s in specs if not s.column}
    out = list(explicit.values())
    taken = {s.column for s in out}
    for col in header:
        if col.startswith(METRIC_PREFIX) and col not in taken:
            name = col[len(METRIC_PREFIX) :].strip()
            if name in explicit:
                continue
            base = settings.get(name)
            out.append(
                MetricSpec(
                    name, col, base.version if base else "", base.higher_is_better if base else True
                )
            )
    return out


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
    wording = wording or CLI_WORDING
    filename = parsed.filename
    problems: list[Problem] = _unmatched_settings(filename, parsed.columns, specs)
    specs = metric_specs(parsed.columns, specs)
    usable: list[MetricSpec] = []
    seen_names: set[str] = set()
    for spec in specs:
        where = wording.metric.format(name=spec.name, column=spec.column)
        if not spec.column:
            problems.append(
                Problem(
                    filename,
                    f"metric '{spec.name}': no column given",
                    f"Add a column 'metric:{spec.name}' or map one to it.",
                )
            )
            continue
        if spec.column not in parsed.columns:
            problems.append(
                Problem(
                    filename,
                    f"{where}: the file has no column '{spec.column}'",
                    f"Columns in the file: {', '.join(parsed.columns)}.",
                    column=spec.column,
                )
            )
            continue
        if spec.column not in parsed.extra_columns:
            problems.append(
                Problem(
                    filename,
                    f"{where}: '{spec.column}' is a Tandem column, not a score",
                    "Use a column that holds the metric's scores.",
                    column=spec.column,
                )
            )
            continue
        problem = name_problem(spec.name) or version_problem(spec.version)
        if problem:
            problems.append(
                Problem(
                    filename,
                    f"{where}: {problem}",
                    "Choose another metric name (e.g. comet22).",
                    column=spec.column,
                )
            )
            continue
        if spec.name in seen_names:
            problems.append(
                Problem(
                    filename,
                    f"{where}: two columns are named metric '{spec.name}'",
                    "Give each metric its own name.",
                    column=spec.column,
                )
            )
            continue
        seen_names.add(spec.name)
        usable.append(spec)
    if problems:
        raise CampaignFileError(problems)

    entries: list[ScoreEntry] = []
    first: dict[tuple[str, str, str], tuple[float, int]] = {}
    for row in parsed.rows:
        for spec in usable:
            value = parse_score(row.extras.get(spec.column))
            if value is None:
                continue
            if isinstance(value, str):
                problems.append(
                    Problem(
                        filename,
                        f"{spec.column} is {value!r}, not a finite number",
                        "Use a number, or leave the cell empty for an output without a score.",
                        row=row.number,
                        line=row.line,
                        column=spec.column,
                    )
                )
                if len(problems) >= MAX_PROBLEMS:
                    raise CampaignFileError(problems, truncated=True)
                continue
            key = (row.item_id, row.system, spec.name)
            if key in first:  # a further judgment row of the same output
                if first[key][0] != value:
                    problems.append(
                        Problem(
                            filename,
                            f"{spec.column} is {value!r} here but "
                            f"{first[key][0]!r} in row {first[key][1]} of the same output",
                            "An output has one score per metric: repeat the same value.",
                            row=row.number,
                            line=row.line,
                            column=spec.column,
                        )
                    )
                continue
            first[key] = (value, row.number)
            entries.append(ScoreEntry(row.number, row.item_id, row.system, spec.name, value))
    if problems:
        raise CampaignFileError(problems, truncated=len(problems) >= MAX_PROBLEMS)
    sha = content_hash(data)
    return ScoresFile(
        filename=filename,
        sha256=sha,
        metrics={
            s.name: ImportedSignature.make(s.name, s.version, s.higher_is_better, filename, sha)
            for s in usable
        },
        entries=entries,
    )


def suggest_metric_columns(
    header: Sequence[str], preview: Sequence[Mapping[str, Any]], taken: Iterable[str] = ()
) -> list[str]:
    """Columns that look like metric scores: ``metric:*`` ones, and columns whose name
    says score/metric/prob/qe (not a Tandem column) with numbers in the preview rows."""
    taken = set(taken)
    hints = (
        "score",
        "metric",
        "comet",
        "bleurt",
        "metricx",
        "qe",
        "prob",
        "logprob",
        "judge",
        "rating",
    )
    out = []
    for col in header:
        if col in taken:
            continue
        if col.startswith(METRIC_PREFIX):
            out.append(col)
            continue
        low = col.lower()
        if not any(h in low for h in hints):
            continue
        values = [parse_score(r.get(col)) for r in preview]
        if (
            values
            and all(isinstance(v, float) or v is None for v in values)
            and any(isinstance(v, float) for v in values)
        ):
            out.append(col)
    return out


# ------------------------------------------------------------------ export


def export_scores(engine: Any, campaign: str, fmt: str) -> bytes:
    """The campaign's imported metric scores as a scores file of type ``fmt`` (``csv``,
    ``tsv``, ``jsonl`` or ``parquet``), direction and version included, so that another
    campaign with the same items and systems imports them back exactly
    (:func:`annotation.importer.import_scores`)."""
    from annotation.exports import campaign_id_or_fail, to_delimited, to_jsonl, to_parquet
    from db.scores import imported_score_rows
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
