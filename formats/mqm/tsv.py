"""WMT's MQM TSV layout (google/wmt-mqm-human-evaluation): read and write.

One row per error, tab-separated, no quoting, a header row::

    system  doc  doc_id  seg_id  rater  source  target  category  severity

The erroneous text is marked ``<v>…</v>`` in the target (or in the source, for omissions
and source errors); a segment a rater found error-free has one row with category and
severity ``No-error``. Reading (formats.mqm.tsv_read, in two streaming passes) groups the
rows into one :class:`Segment` per (system, seg_id, rater) with its raw spans; what a valid
span is comes from the caller (:class:`SpanRules`; annotation.imports.mqm imports the segments
as a span campaign). Writing gives one row per span (a "No-error" row for none), with the
formula guard of
formats.spreadsheet: the trailing empty column ``tandem_formula_guard``, and a ``'`` before
text cells that start with = + - @.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from formats.problems import CampaignFileError, Problem
from formats.rows import Row
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


def header_of(line: str, filename: str) -> tuple[list[str], bool]:
    """The header's column names (formula guard undone) and whether it is guarded."""
    if not line.strip():
        raise CampaignFileError([Problem(filename, "is empty", f"Give the header {COLUMNS}.")])
    header = [h.strip() for h in line.split("\t")]
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
    """What makes a span valid, given by the caller (annotation.judging.spans knows it): the
    problem with one raw span of a segment (None when valid) and the spans one judgment
    may hold."""

    problem: Callable[[dict[str, Any], str, str], str | None]
    max_spans: int


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
