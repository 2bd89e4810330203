"""What to keep before a campaign is deleted: its exports, made by annotation.exports.

The Campaigns page offers them as downloads and ``cli.py campaign delete --export-dir``
writes them, before anything is deleted: the whole annotation log (every row, undone ones
too), the campaign file (the import format, judgments included) and the results table.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.exports import (
    MIME,
    campaign_results,
    export_annotations,
    export_campaign,
    results_csv,
)
from db import Engine


@dataclass(frozen=True)
class KeptFile:
    label: str
    file_name: str
    mime: str
    data: bytes


def final_exports(engine: Engine, name: str) -> tuple[list[KeptFile], list[str]]:
    """The campaign's exports, and a note for each that could not be made (e.g. results of
    a campaign without judgments)."""
    files = [
        KeptFile(
            "Annotations, every row (CSV)",
            f"{name}-annotations.csv",
            MIME["csv"],
            export_annotations(engine, name, "csv", current_only=False),
        ),
        KeptFile(
            "Campaign file (CSV)", f"{name}.csv", MIME["csv"], export_campaign(engine, name, "csv")
        ),
    ]
    notes = []
    try:
        results = results_csv(campaign_results(engine, name))
    except (ValueError, ArithmeticError) as exc:
        notes.append(f"results: not available ({exc})")
    else:
        files.append(KeptFile("Results (CSV)", f"{name}-results.csv", MIME["csv"], results))
    return files, notes
