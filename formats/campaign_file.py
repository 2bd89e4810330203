"""Reading and validating campaign files (CSV, TSV, JSONL, Parquet) in long format.

One row per (item, system): required columns ``item_id, source, reference, system, output``;
optional ``doc_id, human_label (0/1), human_score, post_edit, annotator, is_human,
instructions`` (markdown shown above the item, formats.instructions), ``image`` (a file of
the campaign's bundle, formats.item_images); any other
column is kept verbatim as the output's metadata. A file is read and validated completely
before anything is written; every problem names the file, the row, the column, and what to do.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from formats import cells, item_images
from formats import instructions as item_instructions
from formats.problems import DEFAULT_MAX_MB, MAX_PROBLEMS, CampaignFileError, Problem
from formats.readers import drop_as_read, read_records, stream_records
from formats.rows import OPTIONAL, REQUIRED, CampaignFile, Row, RowRules
from formats.wording import CLI_WORDING, WEB_WORDING, Wording

__all__ = ["CLI_WORDING", "WEB_WORDING", "Wording"]  # re-exported: importers name them here


def parse_column_map(pairs: Iterable[str]) -> dict[str, str]:
    """``["human_label=human_label_binary"]`` → ``{"human_label": "human_label_binary"}``."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        target, sep, source = pair.partition("=")
        if not sep or not target.strip() or not source.strip():
            raise ValueError(
                f"--map {pair!r}: expected TANDEM_COLUMN=FILE_COLUMN, "
                "e.g. --map human_label=human_label_binary"
            )
        mapping[target.strip()] = source.strip()
    return mapping


#: Column names other tools use for a Tandem column (WMT MQM, MLQE-PE, Appraise, Pearmut,
#: Label Studio exports): the Import page suggests them as mappings.
ALIASES: dict[str, tuple[str, ...]] = {
    "item_id": ("segment_id", "seg_id", "segid", "item", "id"),
    "source": ("src", "source_text", "original"),
    "reference": ("ref", "references", "reference_text"),
    "system": ("system_name", "sys", "model", "sysname"),
    "output": ("hypothesis", "hyp", "mt", "translation", "target", "candidate", "summary"),
    "doc_id": ("doc", "document", "document_id", "docid"),
    "human_label": ("human_label_binary", "label", "adequate", "binary_label"),
    "human_score": ("score_human", "mqm_score", "da_score", "da_mean"),
    "post_edit": ("pe", "postedit", "post_edited"),
    "annotator": ("rater", "rater_id", "annotator_id", "worker_id", "worker", "user"),
}


#: Columns that name a row's language pair ("en-de") or its target language ("de").
LANG_PAIR_COLUMNS = ("lang_pair", "langpair", "language_pair", "lp", "pair")
TARGET_LANG_COLUMNS = ("target_lang", "tgt_lang", "trg_lang", "target_language")
_LANG_PAIR = re.compile(r"([a-z]{2,3})\s*(?:-|_|→|->|>)\s*([a-z]{2,3})")
_LANG = re.compile(r"[a-z]{2,3}")


def suggest_target_lang(header: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str | None:
    """The target language a file's ``lang_pair`` ("en-de" → "de") or ``target_lang``
    column names, when every non-empty value of ``rows`` (the preview) names the same one;
    None otherwise (no such column, mixed pairs, an unreadable value)."""
    named = {h.strip().lower(): h for h in header}
    for names, pattern, group in (
        (TARGET_LANG_COLUMNS, _LANG, 0),
        (LANG_PAIR_COLUMNS, _LANG_PAIR, 2),
    ):
        column = next((named[n] for n in names if n in named), None)
        if column is None:
            continue
        found = set()
        for row in rows:
            value = str(row.get(column) or "").strip().lower()
            if not value:
                continue
            match = pattern.fullmatch(value)
            if match is None:
                return None
            found.add(match.group(group))
        if len(found) == 1:
            return found.pop()
        return None
    return None


def suggest_column_map(header: Sequence[str]) -> dict[str, str]:
    """Tandem column → a column of ``header`` that other tools use for it, for every Tandem
    column the file lacks (the first alias found, in :data:`ALIASES` order)."""
    present = set(header)
    lower = {h.lower(): h for h in header}
    out: dict[str, str] = {}
    for target, names in ALIASES.items():
        if target in present:
            continue
        for name in names:
            col = lower.get(name)
            if col is not None and col not in out.values() and col not in (*REQUIRED, *OPTIONAL):
                out[target] = col
                break
    return out


def parse_campaign_file(
    data: bytes,
    filename: str,
    column_map: Mapping[str, str] | None = None,
    max_mb: float = DEFAULT_MAX_MB,
    *,
    ignore: Iterable[str] = (),
    wording: Wording | None = None,
) -> CampaignFile:
    """Read and validate a whole file; raise :class:`CampaignFileError` listing problems.

    ``ignore``: columns of the file to leave out (e.g. its ``human_label`` when the file is
    to be judged again); ``wording`` words the hints for the app (default: command line).
    """
    header, records = read_records(data, filename, max_mb)
    return _validate(filename, header, records, column_map, ignore, wording or CLI_WORDING)


@dataclass(frozen=True)
class TypedColumn:
    """An optional column whose cells must parse; ``parse`` gives back the raw text when a
    cell does not, and the row then gets the problem "<column> is <text><expected>"."""

    name: str
    parse: Callable[[Any], Any]
    expected: str
    fix: str


#: The rules of a campaign file's columns, one line each.
TYPED_COLUMNS = (
    TypedColumn("human_label", cells.label, ", not 0 or 1",
                "Use 1 for adequate, 0 for inadequate, or leave it empty."),
    TypedColumn("human_score", cells.score, ", not a finite number",
                "Use a number (e.g. 0.75), or leave it empty."),
    TypedColumn("is_human", cells.boolean, "", "Use 1/0 or true/false."),
)  # fmt: skip
NON_EMPTY = (  # (column, message, fix)
    ("item_id", "item_id is empty", "Give every row an item id."),
    ("system", "system is empty", "Give every row a system name."),
    ("output", "output is empty or whitespace only",
     "Supply the system's output text, or remove the row."),
)  # fmt: skip
BINARY_FIX = "Store text in this column (decode it, or base64-encode it), or drop the column."
NUL_FIX = (
    "Remove NUL characters; they are often left by a damaged export or a UTF-16 file saved "
    "under a .csv name."
)

Add = Callable[[int, "int | None", "str | None", str, str], None]


def _column_problems(
    filename: str,
    header: list[str],
    column_map: Mapping[str, str],
    ignored: set[str],
    wording: Wording,
) -> list[Problem]:
    """Columns to ignore that the file lacks; mappings from a missing column, or onto a
    column the file already has."""
    found = f"Columns in the file: {', '.join(header) or '(none)'}."
    problems = [
        Problem(filename, f"cannot ignore column '{col}': the file has no such column", found,
                column=col)
        for col in ignored if col not in header
    ]  # fmt: skip
    for target, source in column_map.items():
        mapping = wording.map(target, source)
        if source not in header or source in ignored:
            why = " (it is ignored)" if source in ignored else ""
            problems.append(Problem(filename, f"{mapping}: the file has no column '{source}'{why}",
                                    found, column=source))  # fmt: skip
        elif target in header and target != source and target not in ignored:
            fix = (f"To use '{source}' instead, {wording.ignore_hint.format(target=target)}; "
                   "or leave out the mapping.")  # fmt: skip
            problems.append(Problem(filename, f"{mapping}: the file already has a column "
                                    f"'{target}'", fix, column=target))  # fmt: skip
    return problems


def _header_problems(
    filename: str, header: list[str], columns: list[str], has_rows: bool, wording: Wording
) -> list[Problem]:
    """Missing required columns, then no data rows, then NUL bytes in column names (the
    first kind found is reported alone)."""
    missing = [
        Problem(filename, f"missing required column '{c}'",
                f"Add it, or {wording.map_hint.format(target=c)}. Required: "
                f"{', '.join(REQUIRED)}; found: {', '.join(header) or '(none)'}.", column=c)
        for c in REQUIRED if c not in columns
    ]  # fmt: skip
    if missing:
        return missing
    if not has_rows:
        return [Problem(filename, "has a header but no data rows", "Add at least one row.")]
    return [
        Problem(filename, f"the column name {h!r} contains a NUL byte",
                "Remove the NUL character from the header.")
        for h in header if "\x00" in h
    ]  # fmt: skip


def _row(number: int, line: int | None, rec: dict[str, Any], extra_columns: list[str],
         add: Add) -> Row:  # fmt: skip
    """One record as a :class:`Row`, with a problem for each cell that breaks a rule."""
    for col, value in rec.items():
        if cells.is_binary(value):
            add(number, line, col, f"{col} holds binary data (bytes), not text", BINARY_FIX)
        elif cells.has_nul(value):
            add(number, line, col, f"{col} contains a NUL byte (\\x00)", NUL_FIX)
    for col, message, fix in NON_EMPTY:
        if not cells.text(rec.get(col)).strip():
            add(number, line, col, message, fix)
    typed: dict[str, Any] = {}
    for rule in TYPED_COLUMNS:
        value = rule.parse(rec.get(rule.name))
        if isinstance(value, str):  # did not parse
            add(number, line, rule.name, f"{rule.name} is {value!r}{rule.expected}", rule.fix)
            value = None
        typed[rule.name] = value
    optional = {c: cells.optional_text(rec.get(c))
                for c in ("reference", "doc_id", "post_edit", "annotator")}  # fmt: skip
    instructions = cells.optional_text(rec.get("instructions"))
    if instructions is not None and not instructions.strip():
        instructions = None
    if instructions is not None and not cells.has_nul(instructions):
        bad = item_instructions.problem(instructions)
        if bad is not None:
            add(number, line, "instructions", *bad)
            instructions = None
    image = cells.optional_text(rec.get("image"))
    image = image.strip() if image is not None and image.strip() else None
    if image is not None and not cells.has_nul(image):
        bad = item_images.name_problem(image)
        if bad is not None:
            add(number, line, "image", *bad)
            image = None
    return Row(
        number=number,
        line=line,
        item_id=cells.text(rec.get("item_id")).strip(),
        source=cells.text(rec.get("source")),
        system=cells.text(rec.get("system")).strip(),
        output=cells.text(rec.get("output")),
        human_label=typed["human_label"],
        human_score=typed["human_score"],
        is_human=bool(typed["is_human"]),
        extras={c: cells.extra(rec.get(c)) for c in extra_columns},
        instructions=instructions,
        image=image,
        **optional,
    )


#: Rows per validated chunk of a streamed import (each is written before the next is read).
CHUNK_ROWS = 5_000


@dataclass
class CampaignStream:
    """A campaign file being validated as it is read: ``chunks`` yields lists of valid rows
    while no problem has been found; once one is, the rest is only checked, and the end of
    the file raises :class:`CampaignFileError` with every problem (the caller, writing each
    chunk inside one transaction, then rolls it all back). ``n_rows``: set at the end."""

    filename: str
    columns: list[str]
    extra_columns: list[str]
    chunks: Iterator[list[Row]]
    n_rows: int = 0


def stream_campaign_file(
    data: bytes,
    filename: str,
    column_map: Mapping[str, str] | None = None,
    max_mb: float = DEFAULT_MAX_MB,
    *,
    ignore: Iterable[str] = (),
    wording: Wording | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> CampaignStream:
    """Check the header now (raising :class:`CampaignFileError`) and validate the rows as
    the returned stream's chunks are consumed, in bounded memory."""
    header, records = stream_records(data, filename, max_mb)
    return _stream(filename, header, records, column_map, ignore, wording or CLI_WORDING,
                   chunk_rows)  # fmt: skip


def _stream(
    filename: str,
    header: list[str],
    records: Iterator[tuple[int | None, dict[str, Any]]],
    column_map: Mapping[str, str] | None,
    ignore: Iterable[str],
    wording: Wording,
    chunk_rows: int,
) -> CampaignStream:
    ignored, column_map = set(ignore), dict(column_map or {})
    problems = _column_problems(filename, header, column_map, ignored, wording)
    if problems:
        raise CampaignFileError(problems)
    if ignored:  # the records' ignored cells are left out row by row below
        header = [h for h in header if h not in ignored]
    rename = {source: target for target, source in column_map.items()}
    columns = [rename.get(h, h) for h in header]
    first = next(records, None)  # "no data rows" is reported before a NUL in a name
    problems = _header_problems(filename, header, columns, first is not None, wording)
    if problems:
        raise CampaignFileError(problems)
    extra_columns = [c for c in columns if c not in REQUIRED and c not in OPTIONAL]
    stream = CampaignStream(filename, columns, extra_columns, iter(()))
    rows = itertools.chain([first], records) if first is not None else records
    stream.chunks = _chunks(stream, rows, rename, ignored, chunk_rows)
    return stream


def _chunks(
    stream: CampaignStream,
    records: Iterator[tuple[int | None, dict[str, Any]]],
    rename: dict[str, str],
    ignored: set[str],
    chunk_rows: int,
) -> Iterator[list[Row]]:
    filename, problems = stream.filename, []

    def add(row: int, line: int | None, column: str | None, message: str, fix: str) -> None:
        problems.append(Problem(filename, message, fix, row=row, line=line, column=column))

    rules, chunk, number = RowRules(), [], 0
    for line, raw in records:
        if len(problems) >= MAX_PROBLEMS:
            raise CampaignFileError(problems, truncated=True)
        number += 1
        rec = {rename.get(k, k): v for k, v in raw.items() if k not in ignored}
        row = _row(number, line if line != number + 1 else None, rec, stream.extra_columns, add)
        rules.check(row, add)  # "line" only where it adds something to "row"
        if not problems:  # after the first problem rows are only checked, never handed out
            chunk.append(row)
            if len(chunk) >= chunk_rows:
                yield chunk
                chunk = []
    stream.n_rows = number
    if problems:
        raise CampaignFileError(problems, truncated=len(problems) >= MAX_PROBLEMS)
    if chunk:
        yield chunk


def _validate(
    filename: str,
    header: list[str],
    records: list[tuple[int | None, dict[str, Any]]],
    column_map: Mapping[str, str] | None,
    ignore: Iterable[str] = (),
    wording: Wording = CLI_WORDING,
) -> CampaignFile:
    """The whole file's rows (each record is dropped once it is a Row)."""
    stream = _stream(filename, header, drop_as_read(records), column_map, ignore, wording,
                     CHUNK_ROWS)  # fmt: skip
    rows = [row for chunk in stream.chunks for row in chunk]
    return CampaignFile(filename, stream.columns, stream.extra_columns, rows)
