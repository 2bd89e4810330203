"""Import AI error spans into an error-span campaign (ESA^AI, Zouhar et al. 2025), all or
nothing, and switch the campaign's prefill on.

Two file layouts: the AI-span file (formats.ai_spans_file: item_id, system, start, end,
severity[, category, confidence, model]; CSV, TSV, JSONL) and WMT's MQM TSV
(formats.mqm.tsv, read with annotation.imports.mqm's span rules), whose ``<v>…</v>`` marks in
the target become the spans (the first rater of each output; omission marks in the source
are left out: a prefill marks the output). Every row must name an output of the campaign;
its offsets must lie inside that output's text; one output's spans must not overlap (the
span widget shows one colour per character, so an overlapped span could not be told
apart); an MQM TSV's target must be the campaign's output text. The spans are stored in
``ai_spans`` (db.scores.ai_spans) under the import's source name, replacing the campaign's
earlier ones, and only before the first label: the prefill decides what annotators see,
so it cannot change under judgments already given. Whether the annotate page shows them
is the campaign setting ``ai_prefill`` (kept in ``campaigns.meta["ai_spans"]``, logged in
the setting log like every setting).
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from annotation.judging.ai_prefill import META_KEY
from db import Engine
from db.campaign import campaigns as repo
from db.campaign.lifecycle import CampaignArchived
from db.engine import session_scope
from db.queue import settings as dbset
from db.queue.claim import queue_transaction
from db.schema.vocabulary import CampaignMode
from db.scores import ai_spans as store
from formats.ai_spans_file import AiSpanRow, add_problem, stream_ai_spans_file
from formats.mqm.tsv import COLUMNS as MQM_COLUMNS
from formats.problems import DEFAULT_MAX_MB, MAX_PROBLEMS, CampaignFileError, Problem
from formats.readers import source_bytes

SETTING_KEY = "ai_prefill"  # its key in the campaign setting log
MAX_SOURCE = 200
INSERT_BATCH = 1_000  # span rows per INSERT while the file streams in (memory: ~0.5 MB)


@dataclass(frozen=True)
class AiSpansReport:
    campaign: str
    filename: str
    source: str
    outputs: int  # outputs the file names
    spans: int
    clean: int  # outputs the model called clean
    campaign_outputs: int
    prefill: bool
    notes: tuple[str, ...] = ()
    seconds: float = 0.0

    def summary(self) -> str:
        lines = [
            f"Imported {self.spans:,} AI span(s) from {self.filename} as '{self.source}' into "
            f"'{self.campaign}': {self.outputs:,} of {self.campaign_outputs:,} outputs "
            f"({self.clean:,} called clean by the model) in {self.seconds:.1f} s.",
            "Annotators see them pre-filled (ESA^AI)."
            if self.prefill
            else "Prefill is off: annotators do not see them.",
        ]
        return "\n".join([*lines, *self.notes])


def is_mqm_tsv(data: bytes, filename: str) -> bool:
    """An MQM TSV: a .tsv whose header has WMT's MQM columns."""
    if not filename.lower().endswith(".tsv"):
        return False
    header = data.split(b"\n", 1)[0].decode("utf-8-sig", "replace").strip().split("\t")
    return all(c in header for c in MQM_COLUMNS)


def _mqm_rows(data: bytes, filename: str) -> tuple[list[AiSpanRow], dict, list[str]]:
    """The MQM TSV's target spans as AI-span rows (first rater per output), each output's
    target text (to compare with the campaign's) and notes on what was left out."""
    from annotation.imports.mqm import parse_mqm_tsv

    parsed = parse_mqm_tsv(data, filename)
    rows: list[AiSpanRow] = []
    texts: dict[tuple[str, str], tuple[int, str]] = {}
    other_raters = omissions = 0
    for seg in parsed.segments:
        key = (seg.seg_id, seg.system)
        if key in texts:
            other_raters += 1
            continue
        texts[key] = (seg.row, seg.target)
        target = [sp for sp in seg.spans if sp["side"] == "target"]
        omissions += len(seg.spans) - len(target)
        for sp in target:
            rows.append(
                AiSpanRow(
                    seg.row,
                    seg.seg_id,
                    seg.system,
                    sp["start"],
                    sp["end"],
                    sp["severity"],
                    sp["category"],
                    None,
                    seg.rater,
                )
            )
        if not target:
            rows.append(AiSpanRow(seg.row, seg.seg_id, seg.system, *(None,) * 6))
    notes = []
    if other_raters:
        notes.append(f"Note: {other_raters:,} judgment(s) of a second rater left out.")
    if omissions:
        notes.append(f"Note: {omissions:,} omission mark(s) in the source left out.")
    return rows, texts, notes


class _Checked:
    """The rows of one import checked against the campaign's outputs as they stream in
    (nothing of the file is kept but four integers per span): the output exists, the
    offsets fit its text, an output is not both clean and given spans, and its spans do not
    overlap. Overlap is found at once for a span after an overlapping one of the same
    output in file order (a sorted file: a file of millions of overlapping spans is refused
    at its 50th problem), else by one sort of all spans at the end
    (:meth:`overlaps`, O(n log n)). Every problem goes to the shared list, which refuses at
    :data:`MAX_PROBLEMS` (formats.ai_spans_file.add_problem)."""

    def __init__(self, outputs: dict[tuple[str, str], tuple[int, str]], filename: str,
                 problems: list[Problem], texts: dict | None = None) -> None:  # fmt: skip
        self.outputs, self.filename, self.problems, self.texts = outputs, filename, problems, texts
        self.spans = {k: array("i") for k in ("output", "start", "end", "row")}
        self.clean: dict[int, int] = {}  # output id → the row calling it clean
        #: output id → (start, end, row) of its span reaching furthest so far in file order,
        #: and the start of the last one (a span starting before it: the file is not sorted)
        self.reach: dict[int, tuple[int, int, int, int]] = {}

    def bad(self, row: int, column: str | None, message: str, fix: str) -> None:
        add_problem(self.problems, Problem(self.filename, message, fix, row=row, column=column))

    def row(self, r: AiSpanRow) -> int | None:
        """Check one row; its output id when it is good (it may be stored), else None."""
        found = self.outputs.get((r.item_id, r.system))
        if found is None:
            self.bad(r.row, "item_id",
                     f"the campaign has no output of item '{r.item_id}' and system '{r.system}'",
                     "Check item_id and system against the campaign file.")  # fmt: skip
            return None
        oid, text = found
        if self.texts is not None and self.texts[(r.item_id, r.system)][1] != text:
            self.bad(r.row, "target", "the target differs from the campaign's output of "
                     f"item '{r.item_id}', system '{r.system}'",
                     "Spans need the same output text.")  # fmt: skip
            return None
        if r.start is None or r.end is None:
            if oid in self.reach:
                self._clean_and_spans(r.row)
                return None
            self.clean.setdefault(oid, r.row)
            return oid
        if r.end > len(text):
            self.bad(r.row, "end", f"[{r.start}, {r.end}) goes beyond the output "
                     f"({len(text)} characters)",
                     "Count offsets in Unicode code points (Python str indices).")  # fmt: skip
            return None
        if oid in self.clean:
            self._clean_and_spans(self.clean[oid])
            return None
        self._follow(oid, r)
        for key, value in zip(self.spans, (oid, r.start, r.end, r.row), strict=True):
            self.spans[key].append(value)
        return oid

    def _clean_and_spans(self, row: int) -> None:
        self.bad(row, None, "an output both called clean (empty span) and given spans",
                 "Drop the empty row or the spans.")  # fmt: skip

    def _follow(self, oid: int, r: AiSpanRow) -> None:
        """The at-once overlap check against the output's spans read before."""
        assert r.start is not None and r.end is not None
        seen = self.reach.get(oid)
        if seen is None:
            self.reach[oid] = (r.start, r.end, r.row, r.start)
            return
        start, end, row, last = seen
        if last <= r.start < end:  # in order and inside the furthest reach: an overlap
            self._overlap(r.start, r.end, r.row, start, end, row)
        if r.end > end:
            start, end, row = r.start, r.end, r.row
        self.reach[oid] = (start, end, row, max(last, r.start))

    def _overlap(self, b_start: int, b_end: int, b_row: int, a_start: int, a_end: int,
                 a_row: int) -> None:  # fmt: skip
        self.bad(b_row, "start", f"span [{b_start}, {b_end}) overlaps [{a_start}, {a_end}) "
                 f"of row {a_row} in the same output", "Merge the two spans (keep the more "
                 "severe), or drop one: the annotate page shows one span per character.",
                 )  # fmt: skip

    def overlaps(self) -> None:
        """Every output's spans sorted by (start, end), all outputs in one sort: two spans
        of an output overlap exactly when some neighbours in that order do (a span that
        overlaps a later one overlaps the one right after it), so neighbours are compared."""
        out, start, end, row = (np.frombuffer(self.spans[k], dtype=np.int32)
                                for k in ("output", "start", "end", "row"))  # fmt: skip
        if len(out) < 2:
            return
        order = np.lexsort((end, start, out))
        o, st, en = out[order], start[order], end[order]
        clash = np.flatnonzero((o[1:] == o[:-1]) & (st[1:] < en[:-1]))
        for k in clash[:MAX_PROBLEMS]:
            a, b = order[k], order[k + 1]
            self._overlap(int(start[b]), int(end[b]), int(row[b]), int(start[a]),
                          int(end[a]), int(row[a]))  # fmt: skip

    @property
    def n_outputs(self) -> int:
        """Outputs the file names (with spans, or called clean)."""
        with_spans = np.unique(np.frombuffer(self.spans["output"], dtype=np.int32))
        return len(with_spans) + len(self.clean)

    @property
    def n_spans(self) -> int:
        return len(self.spans["output"])


def _locked_campaign(s: Any, campaign: str, filename: str) -> int:
    def refuse(message: str, fix: str) -> CampaignFileError:
        return CampaignFileError([Problem(filename, message, fix)])

    camp = repo.get_campaign(s, campaign)
    if camp is None:
        raise refuse(f"there is no campaign named '{campaign}'", "Import the campaign first.")
    try:
        dbset.campaign_for_update(s, camp.id)
    except CampaignArchived as exc:
        raise refuse(str(exc), "Nothing was added to it.") from None
    if camp.mode != CampaignMode.SPANS.value:
        raise refuse(
            f"campaign '{campaign}' is a {camp.mode} campaign",
            "AI spans pre-fill error-span (MQM/ESA) campaigns: import it with mode spans.",
        )
    labels = dbset.current_label_count(s, camp.id)
    if labels:
        raise refuse(
            f"campaign '{campaign}' has {labels:,} labels already",
            "The prefill decides what annotators see: import AI spans before the first "
            "label (or start a new campaign).",
        )
    return int(camp.id)


def import_ai_spans(
    engine: Engine,
    data_source: Path | bytes,
    campaign: str,
    *,
    source: str,
    filename: str | None = None,
    prefill: bool = True,
    max_mb: float = DEFAULT_MAX_MB,
) -> AiSpansReport:
    """Store a file's AI spans for ``campaign`` (replacing earlier ones) and set its prefill
    setting, in one transaction; :class:`CampaignFileError` and nothing changed for any
    problem (module docstring)."""
    started = time.perf_counter()
    data, filename = source_bytes(data_source, filename, max_mb)
    source = source.strip()
    if not source or len(source) > MAX_SOURCE:
        raise CampaignFileError(
            [
                Problem(
                    filename,
                    f"the source name {source!r} is empty or too long",
                    f"Name the model or run in 1–{MAX_SOURCE} characters (--source).",
                )
            ]
        )
    texts, notes = None, []
    problems: list[Problem] = []
    if is_mqm_tsv(data, filename):
        mqm_rows, texts, notes = _mqm_rows(data, filename)
        rows: Iterable[AiSpanRow] = mqm_rows
    else:
        rows = stream_ai_spans_file(data, filename, problems, max_mb)
    with queue_transaction(engine) as s:
        cid = _locked_campaign(s, campaign, filename)
        outputs = store.output_texts(s, cid)
        check = _Checked(outputs, filename, problems, texts)
        store.delete_campaign_spans(s, cid)  # the file's rows replace them, or nothing does
        batch: list[dict[str, Any]] = []
        for r in rows:
            oid = check.row(r)
            if oid is not None and not problems:  # after a problem nothing more is written
                batch.append(_db_row(oid, r, source))
                if len(batch) >= INSERT_BATCH:
                    store.insert_spans(s, batch)
                    batch = []
        if not problems:
            check.overlaps()
        if problems:  # the transaction rolls back: nothing of the file is kept
            raise CampaignFileError(problems)
        store.insert_spans(s, batch)
        _set_setting(s, cid, {"source": source, "file": filename, "prefill": prefill})
    return AiSpansReport(
        campaign,
        filename,
        source,
        check.n_outputs,
        check.n_spans,
        len(check.clean),
        len(outputs),
        prefill,
        tuple(notes),
        time.perf_counter() - started,
    )


def _db_row(oid: int, r: AiSpanRow, source: str) -> dict[str, Any]:
    return {"output_id": oid, "start": r.start, "end": r.end, "severity": r.severity,
            "category": r.category, "confidence": r.confidence, "model": r.model,
            "source": source}  # fmt: skip


def _set_setting(s: Any, campaign_id: int, value: dict[str, Any]) -> None:
    before = repo.campaign_meta(s, campaign_id).get(META_KEY)
    if before != value:
        dbset.log_setting_changes(s, campaign_id, {SETTING_KEY: (before, value)})
    repo.set_campaign_meta_key(s, campaign_id, META_KEY, value)


def prefill_setting(engine: Engine, campaign_id: int) -> dict[str, Any] | None:
    """The campaign's ESA^AI setting ({"source", "file", "prefill"}), None when never set."""
    with session_scope(engine) as s:
        value = repo.campaign_meta(s, campaign_id).get(META_KEY)
    return dict(value) if isinstance(value, dict) else None


def set_prefill(engine: Engine, campaign_id: int, on: bool) -> None:
    """Switch the prefill on or off (logged); refused once labels exist, like the import."""
    with queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        before = repo.campaign_meta(s, campaign_id).get(META_KEY)
        if not isinstance(before, dict):
            raise ValueError("the campaign has no AI spans: import them first")
        labels = dbset.current_label_count(s, campaign_id)
        if labels and bool(before.get("prefill")) != on:
            raise ValueError(
                f"the campaign has {labels:,} labels already; the prefill cannot change now"
            )
        _set_setting(s, campaign_id, {**before, "prefill": on})
