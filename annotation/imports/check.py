"""The Import page's check of a campaign file and its metric-score columns before anything is
written, in one streaming pass (formats.campaign_check): no list of the file's rows or score
entries is kept, only counts, so the page's memory, like the import's, is a small multiple of the
file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from annotation.imports.score_columns import ColumnScores, ScoresFile, campaign_score_columns
from formats.campaign_check import FileCheck, check_campaign_file
from formats.campaign_file import CHUNK_ROWS
from formats.problems import CampaignFileError, Problem
from formats.scores_file import MetricSpec, metric_specs
from formats.wording import Wording


def check_campaign_upload(
    data: bytes,
    filename: str,
    column_map: Mapping[str, str] | None,
    specs: Sequence[MetricSpec],
    *,
    ignore: Iterable[str] = (),
    wording: Wording | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> tuple[FileCheck, ScoresFile | None]:
    """The file checked as :func:`check_campaign_file` does, and its metric scores (None if
    it brings none): their metrics and how many rows each scores. The file's own problems
    come first; the scores' are given only for a file that is otherwise valid."""
    found: dict[str, Any] = {"scores": None, "columns": None, "problems": []}

    def on_stream(stream: Any) -> Any:
        if not (specs or metric_specs(stream.columns, specs)):
            return None
        try:
            found["scores"], usable = campaign_score_columns(stream, data, specs, wording=wording)
        except CampaignFileError as exc:
            found["problems"], found["truncated"] = exc.problems, exc.truncated
            return None
        found["columns"] = columns = ColumnScores(filename, usable)
        return lambda chunk: _check_scores(columns, chunk, found)

    check = check_campaign_file(
        data,
        filename,
        column_map,
        ignore=ignore,
        wording=wording,
        chunk_rows=chunk_rows,
        on_stream=on_stream,
    )
    if check.problems:
        return check, None
    columns: ColumnScores | None = found["columns"]
    problems: list[Problem] = found["problems"] or (columns.problems if columns else [])
    if problems:
        return replace(check, problems=problems, truncated=found.get("truncated", False)), None
    scores: ScoresFile | None = found["scores"]
    if scores is not None and columns is not None:
        scores.per_metric = {m: [0, n] for m, n in columns.counts.items()}
    return check, scores


def _check_scores(columns: ColumnScores, chunk: list[Any], found: dict[str, Any]) -> None:
    """One chunk's scores checked (their entries are not kept); past the problem cap the
    rest of the file is only validated."""
    if found["problems"]:
        return
    try:
        columns.check(chunk)
    except CampaignFileError as exc:
        found["problems"], found["truncated"] = exc.problems, exc.truncated
