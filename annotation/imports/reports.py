"""What an import reports: rows, items, systems, outputs and judgments added, and per
imported metric how many of the campaign's outputs it scores."""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class ImportReport:
    campaign: str
    campaign_id: int
    rows: int
    items_added: int
    systems_added: int
    outputs_added: int
    judgments_added: int
    annotators: int
    census: bool  # every output of the campaign has a judgment
    seconds: float
    metrics: list[MetricCoverage] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the import repaired, one per line

    def summary(self) -> str:
        text = (
            f"Imported {self.rows:,} rows into '{self.campaign}': {self.items_added:,} new items, "
            f"{self.systems_added} new systems, {self.outputs_added:,} new outputs, "
            f"{self.judgments_added:,} judgments by {self.annotators} annotator(s) "
            f"in {self.seconds:.2f} s."
        )
        if self.judgments_added and not self.census:
            text += (
                " Not every output is judged: estimates from these labels assume the judged "
                "outputs were a random sample."
            )
        return "\n".join([text, *(m.line() for m in self.metrics), *self.notes])

    def with_seconds(self, seconds: float) -> ImportReport:
        return replace(self, seconds=seconds)


@dataclass(frozen=True)
class MetricCoverage:
    """One imported metric after an import: how many of the campaign's outputs it scores."""

    name: str
    signature: str
    higher_is_better: bool
    n_added: int  # scores this import stored
    n_scored: int  # outputs of the campaign with a score of this signature
    n_outputs: int  # outputs of the campaign
    already: bool = False  # the same file was imported before: nothing new

    @property
    def n_missing(self) -> int:
        return self.n_outputs - self.n_scored

    def line(self) -> str:
        what = "already imported from this file; " if self.already else ""
        text = (
            f"  {self.name} ({'higher' if self.higher_is_better else 'lower'} is better): "
            f"{what}{self.n_scored:,} of {self.n_outputs:,} outputs scored"
        )
        if self.n_missing:
            text += f", {self.n_missing:,} without a score"
        return text + "."


@dataclass(frozen=True)
class ScoresImportReport:
    """What :func:`import_scores` stored."""

    campaign: str
    campaign_id: int
    filename: str
    sha256: str
    rows: int
    metrics: list[MetricCoverage]
    seconds: float
    #: metrics whose direction the file did not state (higher is better was assumed)
    assumed_direction: list[str] = field(default_factory=list)

    def summary(self) -> str:
        head = (
            f"Imported {self.rows:,} scores of {len(self.metrics)} metric(s) from "
            f"{self.filename} (sha256 {self.sha256[:12]}…) into '{self.campaign}' in "
            f"{self.seconds:.2f} s:"
        )
        lines = [head, *(m.line() for m in self.metrics)]
        if self.assumed_direction:
            lines.append(
                f"  No higher_is_better given for {', '.join(self.assumed_direction)}: "
                "higher is better assumed (give false for error-like metrics such as MetricX)."
            )
        return "\n".join(lines)
