"""What the Import page shows of a campaign file before anything is written: its header, the
first rows, and the whole file validated, read as a stream (one chunk of rows at a time):
the page's memory stays a small multiple of the file, as the import's does."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from formats.campaign_file import CHUNK_ROWS, CampaignStream, stream_campaign_file
from formats.problems import DEFAULT_MAX_MB, CampaignFileError, Problem
from formats.readers import stream_records
from formats.rows import Row
from formats.wording import Wording

#: The columns that carry a judgment of the row's output.
JUDGMENT_COLUMNS = ("human_label", "human_score", "post_edit")


@dataclass
class FileCheck:
    """What the import page shows before anything is written."""

    header: list[str]
    preview: list[dict[str, Any]]
    n_rows: int
    problems: list[Problem]
    truncated: bool = False
    n_judgments: int = 0  # rows that carry a judgment (human_label, human_score, post_edit)
    carried: list[str] = field(default_factory=list)  # judgment columns holding a value

    @property
    def ok(self) -> bool:
        return not self.problems


def check_campaign_file(
    data: bytes,
    filename: str,
    column_map: Mapping[str, str] | None = None,
    max_mb: float = DEFAULT_MAX_MB,
    preview_rows: int = 10,
    *,
    ignore: Iterable[str] = (),
    wording: Wording | None = None,
    validate: bool = True,
    chunk_rows: int = CHUNK_ROWS,
    on_stream: Callable[[CampaignStream], Callable[[list[Row]], None]] | None = None,
) -> FileCheck:
    """Preview the first rows and (``validate``) validate the whole file, without raising.

    The file is read to its end first (a damaged line anywhere makes it unreadable: no
    header), then validated chunk by chunk; ``on_stream`` is given the stream once its
    header is checked and returns what to do with each valid chunk (e.g. check its metric
    scores: annotation.imports.check)."""
    try:
        header, records = stream_records(data, filename, max_mb)
        first = list(itertools.islice(records, preview_rows))
        n_records = len(first) + sum(1 for _ in records)
    except CampaignFileError as exc:
        return FileCheck([], [], 0, exc.problems, exc.truncated)
    preview = [rec for _, rec in first]
    if not validate:
        return FileCheck(header, preview, n_records, [])
    judged, carried = 0, dict.fromkeys(JUDGMENT_COLUMNS, False)
    try:
        stream = stream_campaign_file(
            data,
            filename,
            column_map,
            max_mb,
            ignore=ignore,
            wording=wording,
            chunk_rows=chunk_rows,
        )
        each_chunk = on_stream(stream) if on_stream is not None else None
        for chunk in stream.chunks:
            judged += sum(r.has_judgment for r in chunk)
            for c in JUDGMENT_COLUMNS:  # an all-empty post_edit column carries none
                carried[c] = carried[c] or any(getattr(r, c) is not None for r in chunk)
            if each_chunk is not None:
                each_chunk(chunk)
    except CampaignFileError as exc:
        return FileCheck(header, preview, n_records, exc.problems, exc.truncated)
    return FileCheck(header, preview, stream.n_rows, [], n_judgments=judged,
                     carried=[c for c, v in carried.items() if v])  # fmt: skip
