"""What a scoring run did: one :class:`MetricRun` per stored key, gathered in a
:class:`ScoreReport` (returned by :func:`metrics.scoring.score_campaign`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from metrics.bertscore import Baseline


@dataclass
class MetricRun:
    """What one scoring run did for one stored metric key."""

    key: str
    signature: str
    higher_is_better: bool
    n_outputs: int = 0  # outputs considered (the campaign's, or the ones asked for)
    n_already: int = 0  # had a score with this signature before the run
    n_scored: int = 0  # scored and stored by this run
    n_no_reference: int = 0  # skipped: the item has no reference
    n_empty: int = 0  # scored with an empty/whitespace output or reference


@dataclass
class ScoreReport:
    """Result of :func:`score_campaign` (one :class:`MetricRun` per stored key)."""

    campaign_id: int
    campaign: str
    runs: list[MetricRun] = field(default_factory=list)
    seconds: float = 0.0
    #: BERTScore inputs truncated to the model's maximum length (warned in the log).
    n_truncated: int = 0
    baseline: Baseline | None = None

    @property
    def n_scored(self) -> int:
        return sum(r.n_scored for r in self.runs)

    @property
    def n_no_reference(self) -> int:
        """Outputs skipped for lack of a reference (per metric; the same for all)."""
        return max((r.n_no_reference for r in self.runs), default=0)

    def run(self, key: str) -> MetricRun:
        return next(r for r in self.runs if r.key == key)

    def summary(self) -> str:
        lines = [f"Scored campaign '{self.campaign}' in {self.seconds:.1f} s:"]
        for r in self.runs:
            line = (
                f"  {r.key}: {r.n_scored:,} new, {r.n_already:,} already scored"
                f" of {r.n_outputs:,} outputs"
            )
            if r.n_no_reference:
                line += f"; {r.n_no_reference:,} skipped (item has no reference)"
            if r.n_empty:
                line += f"; {r.n_empty:,} with an empty output/reference (defined score)"
            lines.append(line)
        if self.n_truncated:
            lines.append(
                f"  BERTScore: {self.n_truncated:,} input(s) truncated to the model's maximum "
                "length (see the log)."
            )
        return "\n".join(lines)
