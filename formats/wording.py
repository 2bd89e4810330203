"""How an import's hints name the controls: the command line's flags or the Import page's."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Wording:
    """How hints name the controls: the command line's flags or the Import page's boxes."""

    mapping: str  # "--map {target}={source}"
    map_hint: str  # how to map a column of yours to {target}
    ignore_hint: str  # how to leave out the file's column {target}
    metric: str  # "--metric {name}={column}"

    def map(self, target: str, source: str) -> str:
        return self.mapping.format(target=target, source=source)


CLI_WORDING = Wording(
    mapping="--map {target}={source}",
    map_hint="map a column of yours to it with --map {target}=YOUR_COLUMN",
    ignore_hint="leave the file's '{target}' column out with --ignore {target}",
    metric="--metric {name}={column}",
)
WEB_WORDING = Wording(
    mapping="mapping '{target}' ← '{source}'",
    map_hint="choose a column of yours for '{target}' under 'Map columns'",
    ignore_hint="tick '{target}' under 'Ignore columns of the file'",
    metric="metric '{name}' ← column '{column}'",
)
