"""What the live monitor reports: per-system and per-pair statuses and the whole report.

Plain frozen records filled by :class:`estimators.live.monitor.CampaignMonitor` (and
:mod:`estimators.live.document_report`): each pair carries its confidence sequence's
interval, its anytime p-value, the Holm-adjusted p-value, the verdict
(:mod:`estimators.base.verdicts`; docs/statistics-notes.md §3) and the forecast of the labels
still needed (:mod:`estimators.live.forecast`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from estimators.base.multiple import RankSet
from estimators.base.result import EstimateResult
from estimators.base.verdicts import ErrorRate, Outcome, PairVerdict
from estimators.documents.clustered import DocumentUnit
from estimators.sampling import active
from estimators.sequences.designs import LiveDesign

Verdict = str  # "A better" | "B better" | "not yet" | "no difference larger than x"


@dataclass(frozen=True)
class PoolCoverage:
    """What the monitor could use of one system's or one pair's pool of items."""

    #: items in the pool: the system's outputs, or the items both systems of a pair answered
    pool: int
    #: items of the campaign left out because an output is missing
    no_output: int
    #: pool items lacking a chosen metric score: their labels count, without the control
    no_metric: int


@dataclass(frozen=True)
class SystemStatus:
    name: str
    result: EstimateResult
    rank: RankSet
    coverage: PoolCoverage | None = None


def is_decided(verdict: Verdict) -> bool:
    """ "A better" or "B better": the pair has a significant winner."""
    return verdict.endswith("better")


@dataclass(frozen=True)
class PairStatus:
    a: str
    b: str
    result: EstimateResult
    p_value: float
    p_holm: float
    verdict: Verdict
    #: More items to label for both systems until the confidence sequence is forecast to
    #: exclude 0: smallest t with CS half-width(σ̂, t) < |Δ̂|
    #: (:func:`estimators.live.forecast.forecast_labels_needed`); 0 when decided,
    #: ``None`` when the pool cannot get there. It predicts the monitor's own
    #: decision time (median realised / forecast 1.42 in tests/estimators/live/test_monitor.py).
    labels_needed: int | None
    # : The planner's fixed-n forecast
    # (:func:`estimators.planning.labels_needed.labels_still_needed`, 80 %
    #: power at level 1 − α/m, se = σ̂/√n): what a fixed-n test would need. 0 can mean "a
    #: fixed-n test would already call it" while the anytime-valid verdict still waits.
    labels_needed_planner: int | None = None
    forecast_method: str = "cs_width"
    coverage: PoolCoverage | None = None
    #: what ``labels_needed`` is: "forecast" (under the design in force), "floor" (labels to
    #: the 30-label floor, below which no forecast is made), "decided", "pool exhausted"
    #: (every item of the pair's pool is labelled) or "plan spent" (group-sequential design
    #: past its planned maximum: no α left)
    needed_basis: str = "forecast"
    #: the three-way outcome (:class:`estimators.base.verdicts.Outcome`)
    outcome: Outcome = Outcome.UNDECIDED
    #: ε, the smallest difference that matters (equivalence margin of the plan)
    margin: float = 0.05
    #: the betting design's e-value K_t(0) (1 for other designs; ∞ when the labelled part
    #: alone excludes 0)
    e_value: float = 1.0
    #: the level the procedure in force reads this pair at next (α/(m − r) under Holm)
    read_level: float = float("nan")
    #: documents as the unit: more completed documents until the verdict is forecast
    #: (``labels_needed`` is then that times the mean document size)
    documents_needed: int | None = None

    @property
    def settled(self) -> bool:
        """A better, B better, or no difference larger than ε: nothing left to learn."""
        return self.outcome != Outcome.UNDECIDED

    def pair_verdict(self) -> PairVerdict:
        """The outcome as a :class:`estimators.base.verdicts.PairVerdict` (for the queue)."""
        lo, hi = self.result.ci
        return PairVerdict(self.a, self.b, self.outcome, self.margin, exact=lo == hi)

    @property
    def decided(self) -> bool:
        """One system is significantly better ("no difference larger than x" is not a win)."""
        return is_decided(self.verdict)

    @property
    def verdict_text(self) -> str:
        return self.verdict.replace("A better", f"{self.a} better").replace(
            "B better", f"{self.b} better"
        )


@dataclass(frozen=True)
class MonitorReport:
    systems: list[SystemStatus]
    pairs: list[PairStatus]
    alpha: float
    mode: str
    notes: list[str] = field(default_factory=list)
    #: the live design in force (:class:`estimators.sequences.designs.LiveDesign`)
    design: str = LiveDesign.ASYMPCS
    #: the planned labels per system the sequences are tuned to (``None``: each pool's size)
    planned_labels: int | None = None
    #: True: estimand = the campaign's own items (finite pool); False: μ over annotators
    finite_pool: bool = False
    #: Active sampling: per system / pair name, the design's ESS and measured saving.
    designs: dict[str, active.DesignSummary] = field(default_factory=dict)
    #: the error rate the pair verdicts control (Holm's FWER or e-BH's FDR)
    error_rate: ErrorRate = ErrorRate.FWER
    #: ε, the smallest difference that matters
    margin: float = 0.05
    #: set when the plan's labels per system exceed the pool (what that means, in words)
    plan_note: str | None = None
    #: documents judged in order: the unit and its counts
    #: (:class:`estimators.documents.clustered.DocumentUnit`); ``None`` when segments are the unit
    documents: DocumentUnit | None = None

    def pair_verdicts(self) -> list[PairVerdict]:
        """Every pair's three-way outcome (:class:`estimators.base.verdicts.PairVerdict`)."""
        return [p.pair_verdict() for p in self.pairs]

    @property
    def items_without_metric(self) -> dict[str, int]:
        """System name → outputs lacking a chosen metric score (used without the control)."""
        return {
            s.name: s.coverage.no_metric
            for s in self.systems
            if s.coverage is not None and s.coverage.no_metric
        }

    def rows(self) -> list[dict]:
        """One flat dict per pair, for tables and exports."""
        out = []
        for p in self.pairs:
            r = p.result
            out.append(
                {
                    "a": p.a,
                    "b": p.b,
                    "estimate": r.estimate,
                    "low": r.low,
                    "high": r.high,
                    "n": r.n_human,
                    "p_value": p.p_value,
                    "p_holm": p.p_holm,
                    "verdict": p.verdict_text,
                    "outcome": str(p.outcome),
                    "margin": p.margin,
                    "error_rate": str(self.error_rate),
                    "alpha": self.alpha,
                    "labels_needed": p.labels_needed,
                    "labels_needed_basis": p.needed_basis,
                    "labels_needed_planner": p.labels_needed_planner,
                    "pool": None if p.coverage is None else p.coverage.pool,
                    "no_metric": None if p.coverage is None else p.coverage.no_metric,
                    "design": self.design,
                    "t_star": r.diagnostics.get("t_star"),
                    "estimand": "test set" if self.finite_pool else "superpopulation",
                }
            )
            if self.documents is not None:
                out[-1]["unit"] = "document"
                out[-1]["documents"] = r.diagnostics.get("documents")
                out[-1]["documents_needed"] = p.documents_needed
        return out


def settled_pairs(report: MonitorReport) -> list[PairVerdict]:
    """The pairs whose outcome is settled (A better, B better, or no difference larger
    than ε): what a racing queue may stop sampling for. Each outcome is anytime-valid, so a
    decision to stop drawing that depends only on past labels leaves every later verdict
    valid (:mod:`estimators.base.verdicts`)."""
    return [v for v in report.pair_verdicts() if v.settled]
