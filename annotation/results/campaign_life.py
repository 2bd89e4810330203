"""What to keep before a campaign is deleted: its exports, made by annotation.results.exports.

The Campaigns page offers them as downloads and ``cli.py campaign delete --export-dir``
writes them, before anything is deleted: the whole annotation log (every row, undone ones
too), the campaign file (the import format, judgments included) and the results table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from annotation.results.exports import export_annotations, export_campaign
from annotation.results.result_exports import campaign_results, results_csv
from db import Engine
from formats.writers import MIME, to_csv


def _annotations(engine: Engine, name: str) -> bytes:
    return export_annotations(engine, name, "csv", current_only=False)


def _campaign_file(engine: Engine, name: str) -> bytes:
    return export_campaign(engine, name, "csv")


def _results(engine: Engine, name: str) -> bytes:
    """The results table, or a one-row CSV saying why there is none (so a deletion is never
    blocked by a campaign whose estimates cannot be computed)."""
    try:
        return results_csv(campaign_results(engine, name))
    except (ValueError, ArithmeticError) as exc:
        return to_csv(["note"], [{"note": f"results not available: {exc}"}])


@dataclass(frozen=True)
class FinalExport:
    label: str
    suffix: str
    make: Callable[[Engine, str], bytes]
    mime: str = MIME["csv"]

    def file_name(self, name: str) -> str:
        return f"{name}{self.suffix}"


FINAL_EXPORTS = (
    FinalExport("Annotations, every row (CSV)", "-annotations.csv", _annotations),
    FinalExport("Campaign file (CSV)", ".csv", _campaign_file),
    FinalExport("Results (CSV)", "-results.csv", _results),
)


def final_exports(engine: Engine, name: str) -> list[tuple[str, bytes]]:
    """(file name, bytes) of each export kept before deleting campaign ``name``."""
    return [(f.file_name(name), f.make(engine, name)) for f in FINAL_EXPORTS]
