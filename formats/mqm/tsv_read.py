"""Reading an MQM TSV in two streaming passes, in memory bounded by a small multiple of
the file: a segment's error rows may be anywhere in the file, so they cannot be
grouped as they are read without keeping every segment until the end.

Pass 1 (:func:`scan`) reads each line once, checks what one row can show alone (its
fields, its ``<v>`` marks, the key columns) and keeps three numbers per row in numpy
arrays: a 64-bit hash of its (system, seg_id, rater) key, the byte offset of its line and
its row number. Sorting the hashes (stably) groups each segment's rows, in file order.
Pass 2 (:meth:`MqmScan.segments`) hands out the segments in the order of their first row,
reading each one's lines again by offset, and checks what needs the whole segment (one
text for all its rows, each span, at most ``max_spans`` spans). Two keys of one hash are
told apart by their text, so a collision never merges segments.

The problems of both passes are merged in row order, as one pass over the rows would find
them; a file with problems in pass 1 has none of its segments handed out.
"""

from __future__ import annotations

import codecs
import heapq
import sys
from array import array
from collections.abc import Iterator
from typing import Any

import numpy as np

from formats.cells import text_problem
from formats.mqm.tsv import (
    COLUMNS,
    NEUTRAL,
    NO_ERROR,
    REPAIRED_FIX,
    MqmFile,
    Segment,
    Span,
    SpanRules,
    header_of,
    segment_row,
    strip_marks,
    unmark,
)
from formats.problems import MAX_PROBLEMS, CampaignFileError, Problem, decode_utf8
from formats.rows import MQM_NAMES, validate_rows
from formats.spreadsheet import restore

KEY_COLUMNS = ("system", "seg_id", "rater")


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


def _lines(data: bytes, start: int) -> Iterator[tuple[int, str]]:
    """(byte offset, text) of each line from ``start``: split on line feeds only (a CR
    before one dropped; str.splitlines would also split at U+2028, U+0085, … in text)."""
    end_of_data = len(data)
    pos = start
    while pos < end_of_data:
        end = data.find(b"\n", pos)
        if end < 0:
            end = end_of_data
        yield pos, data[pos:end].decode("utf-8").removesuffix("\r")
        pos = end + 1


def _row(problem: Problem) -> int:
    return problem.row or 0


class _Rows:
    """How one row is read and checked alone (both passes read rows this way)."""

    def __init__(
        self, filename: str, header: list[str], guarded: bool, strict: bool, rules: SpanRules
    ) -> None:
        self.filename, self.header, self.guarded, self.strict = filename, header, guarded, strict
        self.rules = rules
        self.width = len(header) + guarded
        self.required = 1 + max(header.index(c) for c in COLUMNS)

    def problem(self, n: int, message: str, fix: str, column: str | None = None) -> Problem:
        return Problem(self.filename, message, fix, row=n, line=n + 1, column=column)

    def record(self, number: int, line: str, problems: list[Problem]) -> dict[str, str] | None:
        values = line.split("\t")
        if self.required <= len(values) < self.width:  # trailing optional cells left out
            values += [""] * (self.width - len(values))
        if len(values) != self.width:
            problems.append(
                self.problem(
                    number,
                    f"has {len(values)} fields but the header has {self.width}",
                    "MQM TSV has no quoting: a tab or line break inside a text splits the row.",
                )
            )
            return None
        if self.guarded:
            values = [restore(v) for v in values]
        rec = dict(zip(self.header, values, strict=False))
        bad = [(c, text_problem(v)) for c, v in rec.items() if text_problem(v) is not None]
        for column, (message, fix) in bad:  # the text rule of every import
            problems.append(self.problem(number, f"{column} {message}", fix, column=column))
        return None if bad else rec

    def texts(
        self, number: int, rec: dict[str, str], severity: str, problems: list[Problem],
        repaired: list[Problem] | None,
    ) -> tuple[Any, ...] | None:  # fmt: skip
        """(target, source, target mark, source mark) of a row; None if refused. A
        malformed mark is a problem (strict) or noted in ``repaired`` when given."""
        try:
            target, t_span = unmark(rec["target"])
            source, s_span = unmark(rec["source"])
            if t_span is not None and s_span is not None:
                raise ValueError("both target and source are marked")
        except ValueError as exc:
            if self.strict:
                fix = "Mark the error with one <v>…</v> in target or source."
                problems.append(self.problem(number, str(exc), fix))
                return None
            target, source = strip_marks(rec["target"]), strip_marks(rec["source"])
            if repaired is not None and severity not in (NO_ERROR, NEUTRAL):
                repaired.append(Problem(self.filename, f"{exc}", REPAIRED_FIX, row=number,
                                        line=number + 1))  # fmt: skip
            return target, source, None, None
        return target, source, t_span, s_span


class MqmScan:
    """An MQM TSV after pass 1: what the rows showed alone, and where each row is."""

    def __init__(self, data: bytes, filename: str, rules: SpanRules, strict: bool) -> None:
        self.data, self.filename = data, filename
        _check_utf8(data, filename)
        start = 3 if data.startswith(codecs.BOM_UTF8) else 0
        lines = _lines(data, start)
        header, guarded = header_of(next(lines, (0, ""))[1], filename)
        self.rows = _Rows(filename, header, guarded, strict, rules)
        self.problems: list[Problem] = []  # pass 1's, then pass 2's (merged by row)
        self.repaired: list[Problem] = []
        self.categories: dict[str, None] = {}
        self.neutral = 0
        self.n_segments = 0  # counted by pass 2
        self.n_found = 0  # pass 2's problems left out of its list (past the first)
        hashes, offsets, numbers = array("q"), array("q"), array("q")
        for number, (offset, line) in enumerate(lines, start=1):
            if line.strip():
                key = self._row(number, line)
                if key is not None:
                    hashes.append(hash(key))
                    offsets.append(offset)
                    numbers.append(number)
            if len(self.problems) >= MAX_PROBLEMS:
                break
        self.hashes = np.frombuffer(hashes, dtype=np.int64)
        self.offsets = np.frombuffer(offsets, dtype=np.int64)
        self.numbers = np.frombuffer(numbers, dtype=np.int64)

    def _row(self, number: int, line: str) -> str | None:
        """Pass 1 over one row: its problems alone; its key (None if it has no segment)."""
        rec = self.rows.record(number, line, self.problems)
        if rec is None:
            return None
        severity = rec["severity"].strip().casefold()
        category = rec["category"].strip()
        if self.rows.texts(number, rec, severity, self.problems, self.repaired) is None:
            return None
        for column in KEY_COLUMNS:
            if not rec[column].strip():
                fix = "Every row needs system, seg_id and rater."
                self.problems.append(self.rows.problem(number, f"'{column}' is empty", fix, column))
        if severity == NEUTRAL and category.casefold() != NO_ERROR:
            self.neutral += 1
        elif severity != NO_ERROR and category.casefold() != NO_ERROR:
            self.categories.setdefault(category.partition("/")[0].strip(), None)
        return "\t".join(rec[c].strip() for c in KEY_COLUMNS)

    # ------------------------------------------------------------------ pass 2

    def segments(self) -> Iterator[Segment]:
        """Every segment, in the order of its first row, checked as a whole; at the end
        CampaignFileError lists the problems of both passes (none is handed out once a
        problem is known: a caller writing them rolls back)."""
        order = np.argsort(self.hashes, kind="stable")  # each hash's rows, in file order
        sorted_hashes = self.hashes[order]
        starts = np.flatnonzero(np.r_[True, sorted_hashes[1:] != sorted_hashes[:-1]])
        starts = starts[: len(order)]  # no row: no group
        del sorted_hashes
        ends = np.r_[starts[1:], len(order)]
        by_first_row = np.argsort(order[starts], kind="stable")
        pending: list[tuple[int, int, Segment]] = []  # a collision's later segments
        found: list[Problem] = []
        self.n_segments = 0
        for g in by_first_row:
            rows = order[starts[g] : ends[g]]
            segs = self._segment(rows, found)
            if len(found) > 2 * MAX_PROBLEMS:  # keep the first by row (they are all counted)
                self.n_found += len(found) - MAX_PROBLEMS
                found[:] = sorted(found, key=_row)[:MAX_PROBLEMS]
            first = int(self.numbers[rows[0]])
            while pending and pending[0][0] < first:
                yield from self._hand_out(heapq.heappop(pending)[2], found)
            for seg in segs[1:]:
                heapq.heappush(pending, (seg.row, id(seg), seg))
            yield from self._hand_out(segs[0], found)
        while pending:
            yield from self._hand_out(heapq.heappop(pending)[2], found)
        self._raise(found)
        if not self.n_segments:
            raise CampaignFileError([Problem(self.filename, "has no data rows",
                                             "Add the error rows.")])  # fmt: skip

    def _hand_out(self, seg: Segment, found: list[Problem]) -> Iterator[Segment]:
        self.n_segments += 1
        if not self.problems and not found:
            yield seg

    def _raise(self, found: list[Problem]) -> None:
        problems = sorted([*self.problems, *found], key=_row)  # stable: a row's in order
        if problems:
            truncated = len(problems) + self.n_found >= MAX_PROBLEMS
            raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=truncated)

    def _segment(self, rows: np.ndarray, found: list[Problem]) -> list[Segment]:
        """The segments of one hash's rows (one, unless two keys share the hash)."""
        by_key: dict[str, Segment] = {}
        for k in rows:
            number = int(self.numbers[k])
            offset = int(self.offsets[k])
            end = self.data.find(b"\n", offset)
            line = self.data[offset : end if end >= 0 else len(self.data)].decode("utf-8")
            self._add_row(number, line.removesuffix("\r"), by_key, found)
        return list(by_key.values())

    def _add_row(
        self, number: int, line: str, by_key: dict[str, Segment], found: list[Problem]
    ) -> None:
        """Pass 2 over one row: add it to its segment (a problem if it does not fit)."""
        rows = self.rows
        rec = rows.record(number, line, [])
        assert rec is not None  # pass 1 kept only rows with a record and texts
        severity = rec["severity"].strip().casefold()
        category = rec["category"].strip()
        target, source, t_span, s_span = rows.texts(number, rec, severity, [], None)  # type: ignore[misc]
        key = "\t".join(rec[c].strip() for c in KEY_COLUMNS)
        seg = by_key.get(key)
        if seg is None:
            # one string object per id (an import keeps each row's item id until its
            # end: a million copies of 250,000 ids were half the file again)
            system, seg_id, rater = map(sys.intern, key.split("\t"))
            doc, doc_id = sys.intern(rec["doc"].strip()), sys.intern(rec["doc_id"].strip())
            seg = by_key[key] = Segment(number, system, doc, doc_id, seg_id, rater, source,
                                        target)  # fmt: skip
        if (seg.source, seg.target) != (source, target):
            col = "target" if seg.target != target else "source"
            found.append(rows.problem(
                number,
                f"the {col} differs from row {seg.row} of the same system, seg_id and rater",
                "All rows of one segment must hold the same text (apart from the <v> marks).",
                col,
            ))  # fmt: skip
            return
        if severity in (NO_ERROR, NEUTRAL) or category.casefold() == NO_ERROR:
            return
        side, (start, end) = (
            ("target", t_span) if t_span is not None else ("source", s_span or (0, 0))
        )
        if side == "target" and start == end:  # an empty mark in the output: a gap there
            side, start, end = "source", 0, 0
        raw = {"start": start, "end": end, "severity": severity, "category": category, "side": side}
        problem = rows.rules.problem(raw, target, source)
        if problem:
            found.append(rows.problem(number, problem, "Fix the severity or the category."))
            return
        max_spans = rows.rules.max_spans
        if len(seg.spans) >= max_spans:
            if len(seg.spans) == max_spans:
                found.append(rows.problem(
                    number,
                    f"system '{seg.system}', seg_id '{seg.seg_id}', rater '{seg.rater}' has "
                    f"more than {max_spans} error rows (from row {seg.row}); one judgment "
                    f"holds at most {max_spans} spans",
                    "Merge repeated errors of that segment, or remove rows.",
                ))  # fmt: skip
                seg.spans += (Span(raw.values()),)  # once: past the limit, reported once
            return
        seg.spans += (Span(raw.values()),)


def scan(data: bytes, filename: str, rules: SpanRules, strict: bool = False) -> MqmScan:
    """Pass 1 over an MQM TSV (module docstring); its :meth:`MqmScan.segments` is pass 2."""
    return MqmScan(data, filename, rules, strict)


def parse_mqm_tsv(
    data: bytes, filename: str, rules: SpanRules, *, strict: bool = False, check_rows: bool = True
) -> MqmFile:
    """Read and validate a whole MQM TSV into a list of segments (small files, tests,
    AI-span files; an import streams them: :func:`scan`); CampaignFileError lists every
    problem.

    A row whose ``<v>`` mark is malformed (never closed, repeated, in both texts) is kept
    as an error of its severity without a position and listed in ``repaired``; with
    ``strict`` it is a problem instead. The rows then pass the campaign-file rules
    (formats.campaign_file.validate_rows): limits, NUL bytes, one text per output; with
    ``check_rows`` false the caller applies them (an import does, as it writes the rows:
    formats.rows.checked_rows)."""
    scanned = scan(data, filename, rules, strict)
    segments = list(scanned.segments())
    if check_rows:
        validate_rows(filename, (segment_row(seg) for seg in segments), MQM_NAMES)
    return MqmFile(filename, segments, list(scanned.categories), scanned.neutral, scanned.repaired)
