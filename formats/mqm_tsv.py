"""WMT's MQM TSV layout (google/wmt-mqm-human-evaluation): read and write.

One row per error, tab-separated, no quoting, a header row::

    system  doc  doc_id  seg_id  rater  source  target  category  severity

The erroneous text is marked ``<v>…</v>`` in the target (or in the source, for omissions
and source errors); a segment a rater found error-free has one row with category and
severity ``No-error``. Reading groups the rows into one :class:`Segment` per (system,
seg_id, rater) with its raw spans; what a valid span is comes from the caller
(:class:`SpanRules`; annotation.mqm_tsv imports the segments as a span campaign). Writing
gives one row per span (a "No-error" row for none), with the formula guard of
formats.spreadsheet: the trailing empty column ``tandem_formula_guard``, and a ``'`` before
text cells that start with = + - @.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from formats.problems import MAX_PROBLEMS, CampaignFileError, Problem, decode_utf8
from formats.rows import MQM_NAMES, Row, validate_rows
from formats.spreadsheet import is_guarded, restore

COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity")
OPEN, CLOSE = "<v>", "</v>"
NO_ERROR = "no-error"
NEUTRAL = "neutral"


#: The fields of a span as :attr:`Segment.spans` keeps it.
SPAN_KEYS = ("start", "end", "severity", "category", "side")
_SPAN_INDEX = {k: i for i, k in enumerate(SPAN_KEYS)}


class Span(tuple):  # type: ignore[type-arg]
    """A raw span read like its JSON object (``span["side"]``, ``dict(span)``), stored as
    a tuple: a dict per span was most of a big file's memory."""

    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:  # type: ignore[override]
        return tuple.__getitem__(self, _SPAN_INDEX[key] if isinstance(key, str) else key)

    def keys(self) -> tuple[str, ...]:
        return SPAN_KEYS


@dataclass(slots=True)  # slots: no __dict__ per segment (a million of them)
class Segment:
    """One rater's judgment of one (system, segment): clean texts and its spans (each a
    :class:`Span`; :meth:`span_dicts` gives them as JSON objects)."""

    row: int  # first data row (1-based) of the segment in the file
    system: str
    doc: str
    doc_id: str
    seg_id: str
    rater: str
    source: str
    target: str
    spans: tuple[Span, ...] = ()  # a tuple: a list per segment was 40 bytes more

    def span_dicts(self) -> list[dict[str, Any]]:
        return [dict(span) for span in self.spans]


@dataclass
class MqmFile:
    filename: str
    segments: list[Segment]
    categories: list[str]  # the file's top-level categories, in order of appearance
    neutral: int  # Neutral-severity rows (weight 0, not kept)
    #: rows whose <v> mark was malformed, kept as errors without a position (not strict)
    repaired: list[Problem] = field(default_factory=list)

    def notes(self) -> list[str]:
        """What the import changed, one line per repaired row (for reports)."""
        return [f"Note: {p}" for p in self.repaired]


_OPEN_RE = re.compile(re.escape(OPEN), re.IGNORECASE)
_CLOSE_RE = re.compile(re.escape(CLOSE), re.IGNORECASE)
_MARK_RE = re.compile(r"</?v>", re.IGNORECASE)


def unmark(text: str) -> tuple[str, tuple[int, int] | None]:
    """``"a <v>b</v> c"`` → ``("a b c", (2, 3))``; ``(text, None)`` without a mark. Marks
    are matched in any case (``<V>…</V>`` too). Raises ValueError for unbalanced or
    repeated marks."""
    if "<" not in text:  # most texts (sources above all) carry no mark
        return text, None
    opens = [m.start() for m in _OPEN_RE.finditer(text)]
    closes = [m.start() for m in _CLOSE_RE.finditer(text)]
    if not opens:
        if closes:
            raise ValueError(f"'{CLOSE}' without an opening '{OPEN}'")
        return text, None
    if len(opens) > 1 or len(closes) > 1:
        raise ValueError(f"more than one '{OPEN}…{CLOSE}' mark in one row")
    if not closes or closes[0] < opens[0]:
        raise ValueError(f"'{OPEN}' is not closed by '{CLOSE}'")
    i, j = opens[0], closes[0]
    clean = text[:i] + text[i + len(OPEN) : j] + text[j + len(CLOSE) :]
    return clean, (i, j - len(OPEN))


def strip_marks(text: str) -> str:
    """The text without any ``<v>`` / ``</v>`` (any case): a malformed row's clean text."""
    return _MARK_RE.sub("", text)


def mark(text: str, start: int, end: int) -> str:
    return text[:start] + OPEN + text[start:end] + CLOSE + text[end:]


def _decode(data: bytes, filename: str) -> str:
    return decode_utf8(
        data,
        filename,
        lambda _byte, line: (f"line {line} is not valid UTF-8", "Save the file as UTF-8."),
    )


def _check_utf8(data: bytes, filename: str) -> None:
    """Refuse bytes that are not UTF-8, checked in 1 MB chunks (no second copy of the
    file); the message comes from :func:`_decode`, which finds the line."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    chunk = 1 << 20
    try:
        for start in range(0, len(data), chunk):
            decoder.decode(data[start : start + chunk], final=start + chunk >= len(data))
    except UnicodeDecodeError:
        _decode(data, filename)
        raise


def _lines(data: bytes) -> Iterator[str]:
    """The file's lines, decoded as they are read (the whole text and a list of its lines
    were twice the file and more). Split on line feeds only, a CR before one dropped:
    str.splitlines would also split at U+2028, U+0085, … in text."""
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="\n")
    for line in stream:
        yield line.removesuffix("\n").removesuffix("\r")


def _header(lines: list[str], filename: str) -> tuple[list[str], bool]:
    """The header's column names (formula guard undone) and whether it is guarded."""
    if not lines or not lines[0].strip():
        raise CampaignFileError([Problem(filename, "is empty", f"Give the header {COLUMNS}.")])
    header = [h.strip() for h in lines[0].split("\t")]
    guarded = is_guarded(header)
    if guarded:
        header = [restore(h) for h in header[:-1]]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"the header lacks column(s) {missing}",
                    f"An MQM TSV has the columns {' '.join(COLUMNS)} (a 'comment' column "
                    "may follow).",
                )
            ]
        )
    return header, guarded


REPAIRED_FIX = (
    "Its position is unknown, so it is kept as an error of its severity and category without "
    "a position (a 'missing' mark at the start of the source), scored as usual. Fix the mark "
    "to keep its position, or import strictly (--strict, or 'Refuse malformed marks' on the "
    "Import page) to refuse the file instead."
)


@dataclass(frozen=True)
class SpanRules:
    """What makes a span valid, given by the caller (annotation.spans knows it): the
    problem with one raw span of a segment (None when valid) and the spans one judgment
    may hold."""

    problem: Callable[[dict[str, Any], str, str], str | None]
    max_spans: int


class _Parser:
    """The state of one pass over an MQM TSV's rows (see :func:`parse_mqm_tsv`)."""

    def __init__(
        self, filename: str, header: list[str], guarded: bool, strict: bool, rules: SpanRules
    ) -> None:
        self.filename, self.header, self.guarded, self.strict = filename, header, guarded, strict
        self.rules = rules
        self.width = len(header) + guarded
        self.required = 1 + max(header.index(c) for c in COLUMNS)
        self.problems: list[Problem] = []
        self.repaired: list[Problem] = []
        self.segments: dict[tuple[str, str, str], Segment] = {}
        self.categories: dict[str, None] = {}
        self.neutral = 0
        self.strings: dict[str, str] = {}  # one object per repeated text (ids, sources)

    def same(self, text: str) -> str:
        return self.strings.setdefault(text, text)

    def bad(self, n: int, message: str, fix: str, column: str | None = None) -> None:
        self.problems.append(Problem(self.filename, message, fix, row=n, line=n + 1, column=column))

    def record(self, number: int, line: str) -> dict[str, str] | None:
        values = line.split("\t")
        if self.required <= len(values) < self.width:  # trailing optional cells left out
            values += [""] * (self.width - len(values))
        if len(values) != self.width:
            self.bad(
                number,
                f"has {len(values)} fields but the header has {self.width}",
                "MQM TSV has no quoting: a tab or line break inside a text splits the row.",
            )
            return None
        cells = (restore(v) if self.guarded else v for v in values)
        return dict(zip(self.header, cells, strict=False))

    def texts(self, number: int, rec: dict[str, str], severity: str) -> tuple[Any, ...] | None:
        """(target, source, target mark, source mark) of a row; None if refused."""
        try:
            target, t_span = unmark(rec["target"])
            source, s_span = unmark(rec["source"])
            if t_span is not None and s_span is not None:
                raise ValueError("both target and source are marked")
        except ValueError as exc:
            if self.strict:
                self.bad(number, str(exc), "Mark the error with one <v>…</v> in target or source.")
                return None
            target, source = strip_marks(rec["target"]), strip_marks(rec["source"])
            if severity not in (NO_ERROR, NEUTRAL):
                where = Problem(self.filename, f"{exc}", REPAIRED_FIX, row=number, line=number + 1)
                self.repaired.append(where)
            return target, source, None, None
        return target, source, t_span, s_span

    def row(self, number: int, line: str) -> None:
        rec = self.record(number, line)
        if rec is None:
            return
        severity = rec["severity"].strip().casefold()
        category = rec["category"].strip()
        texts = self.texts(number, rec, severity)
        if texts is None:
            return
        target, source, t_span, s_span = texts
        for column in ("system", "seg_id", "rater"):
            if not rec[column].strip():
                fix = "Every row needs system, seg_id and rater."
                self.bad(number, f"'{column}' is empty", fix, column)
        key = tuple(self.same(rec[c].strip()) for c in ("system", "seg_id", "rater"))
        seg = self.segments.get(key)  # type: ignore[arg-type]
        if seg is None:
            same = self.same
            doc, doc_id = same(rec["doc"].strip()), same(rec["doc_id"].strip())
            seg = Segment(number, key[0], doc, doc_id, key[1], key[2], same(source), target)
            self.segments[key] = seg  # type: ignore[index]
        if (seg.source, seg.target) != (source, target):
            col = "target" if seg.target != target else "source"
            self.bad(
                number,
                f"the {col} differs from row {seg.row} of the same system, seg_id and rater",
                "All rows of one segment must hold the same text (apart from the <v> marks).",
                col,
            )
            return
        if severity == NO_ERROR or category.casefold() == NO_ERROR:
            return
        if severity == NEUTRAL:
            self.neutral += 1
            return
        self.span(number, seg, severity, category, target, source, t_span, s_span)

    def span(self, number: int, seg: Segment, severity: str, category: str, *texts: Any) -> None:
        target, source, t_span, s_span = texts
        side, (start, end) = (
            ("target", t_span) if t_span is not None else ("source", s_span or (0, 0))
        )
        if side == "target" and start == end:  # an empty mark in the output: a gap there
            side, start, end = "source", 0, 0
        raw = {"start": start, "end": end, "severity": severity, "category": category, "side": side}
        problem = self.rules.problem(raw, target, source)
        if problem:
            self.bad(number, problem, "Fix the severity or the category.")
            return
        max_spans = self.rules.max_spans
        if len(seg.spans) >= max_spans:
            if len(seg.spans) == max_spans:
                self.bad(
                    number,
                    f"system '{seg.system}', seg_id '{seg.seg_id}', rater '{seg.rater}' has more "
                    f"than {max_spans} error rows (from row {seg.row}); one judgment holds at "
                    f"most {max_spans} spans",
                    "Merge repeated errors of that segment, or remove rows.",
                )
                seg.spans += (Span(raw.values()),)  # once: past the limit, reported once
            return
        self.categories.setdefault(category.partition("/")[0].strip(), None)
        seg.spans += (Span(self.same(v) if isinstance(v, str) else v for v in raw.values()),)


def parse_mqm_tsv(
    data: bytes, filename: str, rules: SpanRules, *, strict: bool = False, check_rows: bool = True
) -> MqmFile:
    """Read and validate a whole MQM TSV; CampaignFileError lists every problem.

    A row whose ``<v>`` mark is malformed (never closed, repeated, in both texts) is kept
    as an error of its severity without a position and listed in ``repaired``; with
    ``strict`` it is a problem instead. The rows then pass the campaign-file rules
    (formats.campaign_file.validate_rows): limits, NUL bytes, one text per output; with
    ``check_rows`` false the caller applies them (an import does, as it writes the rows:
    formats.rows.checked_rows)."""
    _check_utf8(data, filename)
    lines = _lines(data)
    header, guarded = _header([next(lines, "")], filename)
    parser = _Parser(filename, header, guarded, strict, rules)
    for number, line in enumerate(lines, start=1):
        if line.strip():
            parser.row(number, line)
        if len(parser.problems) >= MAX_PROBLEMS:
            break
    problems = parser.problems
    if problems:
        raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=len(problems) >= MAX_PROBLEMS)
    if not parser.segments:
        raise CampaignFileError([Problem(filename, "has no data rows", "Add the error rows.")])
    segments = list(parser.segments.values())
    parser.segments.clear()
    if check_rows:
        validate_rows(filename, (segment_row(seg) for seg in segments), MQM_NAMES)
    return MqmFile(filename, segments, list(parser.categories), parser.neutral, parser.repaired)


def segment_row(
    seg: Segment, label: int | None = None, score: float | None = None, spans: Any = None
) -> Row:
    """A segment as a campaign-file row (its judgment's label, score and spans)."""
    return Row(
        number=seg.row,
        line=seg.row + 1,
        item_id=seg.seg_id,
        source=seg.source,
        reference=None,
        system=seg.system,
        output=seg.target,
        doc_id=seg.doc or None,
        human_label=label,
        human_score=score,
        annotator=seg.rater,
        is_human=is_human_system(seg.system),
        extras={"wmt_doc_id": seg.doc_id},
        spans=spans,
    )


def is_human_system(name: str) -> bool:
    """WMT names human translations rated as systems ``ref-A``, ``refB``, ``Human-…``."""
    return name.casefold().startswith(("ref", "human"))
