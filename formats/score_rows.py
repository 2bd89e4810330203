"""The second pass of a scores-file import, in bounded memory: the rows of a file already
validated (formats.scores_file.read_scores_file with ``keep=False``) as chunks of entries,
and the duplicate outputs among them found from one int per row, not a dict of tuples."""

from __future__ import annotations

from array import array
from collections.abc import Iterator

import numpy as np

from formats.cells import raw_text
from formats.problems import DEFAULT_MAX_MB
from formats.readers import stream_records
from formats.scores_file import ScoreEntry, parse_score

CHUNK_ROWS = 5_000


def entry_chunks(
    data: bytes, filename: str, max_mb: float = DEFAULT_MAX_MB, chunk_rows: int = CHUNK_ROWS
) -> Iterator[list[ScoreEntry]]:
    """The entries of a validated scores file, ``chunk_rows`` at a time."""
    _, records = stream_records(data, filename, max_mb)
    chunk: list[ScoreEntry] = []
    for number, (_, rec) in enumerate(records, start=1):
        score = parse_score(rec.get("score"))
        assert isinstance(score, float), "the file was validated first"
        names = (raw_text(rec.get(c)).strip() for c in ("item_id", "system", "metric"))
        chunk.append(ScoreEntry(number, *names, score))
        if len(chunk) >= chunk_rows:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class OutputKeys:
    """(output id, metric) of every row packed in one int64, with its row: 16 bytes a row.
    Duplicates are found once, at the end, by sorting."""

    def __init__(self) -> None:
        self.keys, self.rows = array("q"), array("q")
        self.metrics: dict[str, int] = {}

    def add(self, row: int, output_id: int, metric: str) -> None:
        self.keys.append(output_id << 20 | self.metrics.setdefault(metric, len(self.metrics)))
        self.rows.append(row)

    def duplicates(self, limit: int) -> list[tuple[int, int, int, str]]:
        """Up to ``limit`` rows repeating an earlier row's output and metric, in row order:
        (row, the earlier row, output id, metric)."""
        if not self.keys:
            return []
        keys = np.frombuffer(self.keys, dtype=np.int64)
        rows = np.frombuffer(self.rows, dtype=np.int64)
        order = np.argsort(keys, kind="stable")  # rows are in file order: firsts come first
        sorted_keys = keys[order]
        starts = np.ones(len(keys), dtype=bool)
        starts[1:] = sorted_keys[1:] != sorted_keys[:-1]
        first = np.maximum.accumulate(np.where(starts, np.arange(len(keys)), 0))
        repeats = np.flatnonzero(~starts)
        found = sorted(
            (int(rows[order[k]]), int(rows[order[first[k]]]), int(sorted_keys[k])) for k in repeats
        )[:limit]
        names = {v: k for k, v in self.metrics.items()}
        return [(row, prev, key >> 20, names[key & 0xFFFFF]) for row, prev, key in found]
