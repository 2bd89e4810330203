"""The scores file users bring, and metric-score columns of a campaign file: read them.

Scores file (CSV, TSV, JSONL or Parquet, read like a campaign file), one row per
(item, system, metric)::

    item_id,system,metric,score,higher_is_better,version
    s1,sysA,comet22,0.8412,true,Unbabel/wmt22-comet-da
    s1,sysA,metricx24,3.1,false,google/metricx-24-hybrid-xl

``higher_is_better`` (1/0, true/false, yes/no, higher/lower; empty = higher) and ``version``
are optional, but must agree across every row of one metric. In a campaign file, a column
``metric:NAME`` is the scores of metric NAME, and any other column can be used as one with
``--metric NAME=COLUMN`` (:class:`MetricSpec`). What a valid metric name, version and
direction are comes from the caller (:class:`MetricRules`; annotation.imports.score_columns gives
metrics.imported's). Every problem names the file, row and column and says what to do.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from formats.cells import raw_text
from formats.problems import DEFAULT_MAX_MB, MAX_LENGTH, MAX_PROBLEMS, CampaignFileError, Problem
from formats.readers import stream_records

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


def parse_score(value: Any) -> float | str | None:
    """A finite float; None for an empty cell; the original text when it is not a number."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        if isinstance(value, float) and math.isnan(value):
            return "NaN"
        return float(value) if math.isfinite(value) else str(value)
    text = raw_text(value).strip()
    if not text:
        return None
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


@dataclass(frozen=True)
class MetricRules:
    """What makes a metric name, version and direction valid, given by the caller
    (metrics.imported knows them): a problem text or None, and the direction cell read as
    True/False, None (empty) or the text it could not read."""

    name_problem: Callable[[str], str | None]
    version_problem: Callable[[str], str | None]
    parse_direction: Callable[[Any], bool | str | None]


@dataclass
class ScoreRows:
    """The validated rows of a scores file, and what each metric's rows stated."""

    entries: list[ScoreEntry]
    #: metric → (higher is better, first row stating it); absent: the file did not say
    direction: dict[str, tuple[bool, int]]
    #: metric → (version, first row stating it)
    version: dict[str, tuple[str, int]]
    n_rows: int = 0
    #: metric → (its first row, its number of rows), in the order of first appearance
    per_metric: dict[str, list[int]] = field(default_factory=dict)


def read_scores_file(
    data: bytes,
    filename: str,
    rules: MetricRules,
    max_mb: float = DEFAULT_MAX_MB,
    *,
    keep: bool = True,
) -> ScoreRows:
    """Read and validate a whole scores file as a stream; raise :class:`CampaignFileError`
    listing every problem (file, row, column, what to do). ``keep=False``: no entries are
    kept and duplicate outputs are left to the caller (an import finds them by output id,
    in bounded memory: formats.score_rows); ``n_rows`` and ``per_metric`` are counted."""
    header, records = stream_records(data, filename, max_mb)
    _check_header(header, filename)
    reader = _ScoresReader(filename, header, rules, keep)
    number = 0
    for number, (_, rec) in enumerate(records, start=1):
        if len(reader.problems) >= MAX_PROBLEMS:
            raise CampaignFileError(reader.problems, truncated=True)
        reader.row(number, rec)
    if not number:
        raise CampaignFileError(
            [Problem(filename, "has a header but no data rows", "Add at least one score row.")]
        )
    problems = reader.problems
    if problems:
        raise CampaignFileError(problems, truncated=len(problems) >= MAX_PROBLEMS)
    return ScoreRows(reader.entries, reader.direction, reader.version, number, reader.per_metric)


def _check_header(header: Sequence[str], filename: str) -> None:
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


class _ScoresReader:
    """The state of one pass over a scores file's rows (see :func:`read_scores_file`)."""

    def __init__(
        self, filename: str, header: Sequence[str], rules: MetricRules, keep: bool
    ) -> None:
        self.filename, self.header, self.rules, self.keep = filename, header, rules, keep
        self.per_metric: dict[str, list[int]] = {}
        self.problems: list[Problem] = []
        self.entries: list[ScoreEntry] = []
        self.first_row: dict[tuple[str, str, str], int] = {}
        self.direction: dict[str, tuple[bool, int]] = {}
        self.version: dict[str, tuple[str, int]] = {}
        self.bad_names: set[str] = set()

    def add(self, row: int, column: str | None, message: str, fix: str) -> None:
        self.problems.append(Problem(self.filename, message, fix, row=row, column=column))

    def row(self, number: int, rec: Mapping[str, Any]) -> None:
        cells = self.cells(number, rec)
        item_id = raw_text(cells["item_id"]).strip()
        system = raw_text(cells["system"]).strip()
        metric = raw_text(cells["metric"]).strip()
        self.names(number, item_id, system, metric)
        score = self.score(number, cells["score"])
        if "higher_is_better" in self.header:
            self.check_direction(number, metric, cells["higher_is_better"])
        if "version" in self.header and metric:
            self.check_version(number, metric, raw_text(cells["version"]).strip())
        if metric and isinstance(score, float):
            self.per_metric.setdefault(metric, [number, 0])[1] += 1
        if item_id and system and metric and self.keep:
            key = (item_id, system, metric)
            first_n = self.first_row.setdefault(key, number)
            if first_n != number:
                self.add(
                    number,
                    "metric",
                    f"duplicate (item_id, system, metric) = ('{item_id}', '{system}', "
                    f"'{metric}'); row {first_n} has it already",
                    "Keep one score per output and metric.",
                )
            elif isinstance(score, float):
                self.entries.append(ScoreEntry(number, item_id, system, metric, score))

    def cells(self, number: int, rec: Mapping[str, Any]) -> dict[str, Any]:
        """The row's cells; one holding data that is not a value (or a NUL) becomes None."""
        cells = {c: rec.get(c) for c in self.header}
        for col, value in cells.items():
            if isinstance(value, bytes | bytearray | dict | list | tuple):
                self.add(
                    number,
                    col,
                    f"{col} holds {type(value).__name__} data, not a value",
                    "Store plain text or numbers in a scores file.",
                )
                cells[col] = None
            elif isinstance(value, str) and "\x00" in value:
                self.add(number, col, f"{col} contains a NUL byte (\\x00)", "Remove it.")
                cells[col] = None
        return cells

    def names(self, number: int, item_id: str, system: str, metric: str) -> None:
        for col, value in (("item_id", item_id), ("system", system), ("metric", metric)):
            if not value:
                self.add(number, col, f"{col} is empty", f"Give every row its {col}.")
            elif col in MAX_LENGTH and len(value) > MAX_LENGTH[col]:
                self.add(
                    number,
                    col,
                    f"{col} is {len(value):,} characters long, over the limit of {MAX_LENGTH[col]}",
                    "Use the id the campaign has.",
                )
        if metric and metric not in self.bad_names:
            problem = self.rules.name_problem(metric)
            if problem:
                self.bad_names.add(metric)
                self.add(
                    number,
                    "metric",
                    problem,
                    "Rename the metric (e.g. comet22, metricx24_xl, llm_judge).",
                )

    def score(self, number: int, cell: Any) -> float | str | None:
        score = parse_score(cell)
        if score is None:
            self.add(
                number,
                "score",
                "score is empty",
                "Leave the row out for an output without a score (partial coverage is "
                "allowed), or give a number.",
            )
        elif isinstance(score, str):
            self.add(
                number,
                "score",
                f"score is {score!r}, not a finite number",
                "Use a number (e.g. 0.8412); NaN and infinity are not scores.",
            )
        return score

    def check_direction(self, number: int, metric: str, cell: Any) -> None:
        higher = self.rules.parse_direction(cell)
        if isinstance(higher, str):
            self.add(
                number,
                "higher_is_better",
                f"higher_is_better is {higher!r}",
                "Use true (larger is better, e.g. COMET) or false (smaller is better, e.g. "
                "MetricX, TER), or leave it empty for true.",
            )
        elif higher is not None and metric:
            first = self.direction.setdefault(metric, (higher, number))
            if first[0] != higher:
                self.add(
                    number,
                    "higher_is_better",
                    f"metric '{metric}' is {'higher' if higher else 'lower'}-is-better "
                    f"here but {'higher' if first[0] else 'lower'}-is-better in row "
                    f"{first[1]}",
                    "Give one direction for all rows of a metric.",
                )

    def check_version(self, number: int, metric: str, ver: str) -> None:
        problem = self.rules.version_problem(ver)
        if problem:
            self.add(number, "version", problem, "Use a plain version string.")
        elif ver:  # an empty cell states nothing
            first_v = self.version.setdefault(metric, (ver, number))
            if first_v[0] != ver:
                self.add(
                    number,
                    "version",
                    f"metric '{metric}' has version {ver!r} here but {first_v[0]!r} in row "
                    f"{first_v[1]}",
                    "Give one version for all rows of a metric, or "
                    "import the two versions under different metric names.",
                )


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


def suggest_metric_columns(
    header: Sequence[str], preview: Sequence[Mapping[str, Any]], taken: Iterable[str] = ()
) -> list[str]:
    """Columns that look like metric scores: ``metric:*`` ones, and columns whose name
    says score/metric/prob/qe (not a Tandem column) with numbers in the preview rows."""
    taken = set(taken)
    hints = ("score", "metric", "comet", "bleurt", "metricx", "qe", "prob", "logprob",
             "judge", "rating")  # fmt: skip
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
        numbers = [isinstance(v, float) for v in values]
        if any(numbers) and all(n or v is None for n, v in zip(numbers, values, strict=True)):
            out.append(col)
    return out
