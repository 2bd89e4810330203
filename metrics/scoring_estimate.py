"""How long a scoring run should take, before it starts, and learning from the real times.

:func:`estimate_scoring` counts what is missing per metric
(:func:`metrics.scoring.pending_work`) and multiplies by seconds per output: defaults from
:mod:`metrics.cost_model` (text length per metric), corrected by the ratio of real to
estimated time of this server's last runs (stored in app_settings, :func:`learn_factor`),
so it learns the machine it runs on. The job that runs the scoring is
:mod:`metrics.scoring_job`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from db.admin.settings import get_setting, set_setting
from metrics import ter_fast
from metrics.bertscore import BertScoreConfig
from metrics.cost_model import BERTSCORE_SECONDS_PER_OUTPUT
from metrics.registry import KEYS
from metrics.sacrebleu_metrics import available_cores, worth_parallel
from metrics.scoring import REFERENCE_FREE, PendingWork, pending_work

START_S = 3.0  # the worker's interpreter and imports
BERTSCORE_LOAD_S = 6.0  # loading the model
POOL_START_S = 1.5  # the sacrebleu pool's processes and their imports
#: v2: the defaults became per-text-length (metrics.cost_model); factors of the old
#: per-output defaults do not apply to them.
_FACTOR_KEY = "scoring_time_factor_v2:{family}"


def _factor(engine: Any, family: str) -> float | None:
    raw = get_setting(engine, _FACTOR_KEY.format(family=family))
    return float(raw) if raw else None


@dataclass(frozen=True)
class Estimate:
    """What a scoring run would do and how long it should take."""

    work: tuple[PendingWork, ...]
    seconds: float
    #: True when corrected by this server's earlier runs (else the default figures).
    learned: bool
    #: The learned factor of the sacrebleu metrics (1.0 before any run), for the per-metric
    #: figures of :meth:`describe`.
    factor: float = 1.0

    @property
    def n_todo(self) -> int:
        return sum(w.n_todo for w in self.work)

    @property
    def units(self) -> int:
        """Progress units of the run: outputs × stored keys (BERTScore has three)."""
        return sum(w.n_todo * len(KEYS[w.metric]) for w in self.work)

    def describe(self) -> str:
        parts = [
            f"{w.metric} {w.n_todo:,} of {w.n_outputs:,}"
            + (" (+ a campaign baseline)" if w.needs_baseline else "")
            for w in self.work
        ]
        each = "; ".join(
            f"{w.metric} ~{format_seconds(w.seconds * self.factor)}"
            for w in self.work
            if w.n_todo and w.metric != "bertscore"
        )
        no_reference = _no_reference_note(self.work)
        if not self.n_todo:
            if no_reference:
                return no_reference
            return "Everything chosen is scored already: nothing to do."
        basis = "from this server's earlier runs" if self.learned else "from benchmark figures"
        text = (
            f"To score: {', '.join(parts)} outputs. Estimated time: about "
            f"{format_seconds(self.seconds)} ({basis}; counts text length per metric"
            + (f"; one process: {each}" if each else "")
            + ")."
        )
        return f"{text} {no_reference}" if no_reference else text

    def error(self, actual_s: float) -> str:
        """The estimate against the real run time, e.g. for the run's report."""
        return estimate_error(self.seconds, actual_s)


def estimate_error(estimate_s: float | None, actual_s: float | None) -> str:
    """ "took 1 min 05 s, estimated 50 s (1.3× the estimate)"; "" without both times."""
    if not estimate_s or actual_s is None:
        return ""
    return (
        f"took {format_seconds(actual_s)}, estimated {format_seconds(estimate_s)} "
        f"({_ratio(actual_s / estimate_s)}× the estimate)"
    )


def _ratio(value: float) -> str:
    """1.3, 0.45, 12 (never "1.5e+02")."""
    return f"{value:.2f}" if value < 1 else f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _no_reference_note(work: Sequence[PendingWork]) -> str:
    """Which chosen metrics cannot score which outputs for lack of references, and which
    metrics can score without one."""
    blocked = [w for w in work if w.n_no_reference and w.needs_reference]
    if not blocked:
        return ""
    n = max(w.n_no_reference for w in blocked)
    names = ", ".join(w.metric for w in blocked)
    free = ", ".join(REFERENCE_FREE) or "none"
    whose = "all" if n == blocked[0].n_outputs else f"{n:,} of {blocked[0].n_outputs:,}"
    return (
        f"{names} compare each output with its item's reference, and {whose} outputs have "
        f"no reference: these metrics cannot score them. Metrics that need no reference: "
        f"{free} (or import scores of a reference-free metric with the campaign file)."
    )


def format_seconds(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def default_seconds(work: Sequence[PendingWork]) -> dict[str, float]:
    """Seconds per family from the cost model (:mod:`metrics.cost_model`: text length per
    metric), the sacrebleu part shared by the pool's processes when the run uses a pool."""
    out = {"sacrebleu": 0.0, "bertscore": 0.0}
    evaluations = 0
    for w in work:
        if w.metric == "bertscore":
            n = w.n_todo + (w.n_outputs if w.needs_baseline else 0)
            out["bertscore"] += n * BERTSCORE_SECONDS_PER_OUTPUT
        else:
            out["sacrebleu"] += w.seconds
            evaluations += w.n_todo
    if out["sacrebleu"] and worth_parallel(evaluations):
        out["sacrebleu"] = out["sacrebleu"] / parallel_speedup() + POOL_START_S
    return out


def parallel_speedup() -> float:
    """What the sacrebleu pool gains over one process: the cores, when they are free; less
    when other work keeps them busy (cores × cores / load, from the 1-minute load average;
    at load 15 on 2 cores a pool measured no gain)."""
    cores = available_cores()
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover - no load average on this system
        return float(cores)
    return min(float(cores), max(1.0, cores * cores / max(load, 1.0)))


def _fixed_seconds(work: Sequence[PendingWork]) -> float:
    """Start-up costs no factor scales: the worker, the model, compiling the TER core."""
    seconds = START_S if any(w.n_todo for w in work) else 0.0
    if any(w.metric == "bertscore" and w.n_todo for w in work):
        seconds += BERTSCORE_LOAD_S
    if any(w.metric == "ter" and w.n_todo for w in work) and not ter_fast.compiled():
        seconds += ter_fast.COMPILE_S
    return seconds


def estimate_scoring(
    engine: Any,
    campaign_id: int,
    metrics: Sequence[str],
    *,
    idf: bool = False,
    rescale: bool = False,
    in_process: bool = False,
    bertscore: BertScoreConfig | None = None,
) -> Estimate:
    """What scoring would do and how long it should take: the cost model's seconds per
    family times the learned factor, plus start-up costs (``in_process``: scored in this
    process, as ``cli.py score`` does, so no worker process starts)."""
    config = bertscore or BertScoreConfig(idf=idf, rescale=rescale)
    work = tuple(pending_work(engine, campaign_id, metrics, bertscore=config))
    seconds, learned = 0.0, False
    for family, base in default_seconds(work).items():
        if base <= 0:
            continue
        factor = _factor(engine, family)
        learned = learned or factor is not None
        seconds += base * (factor or 1.0)
    seconds += _fixed_seconds(work) - (START_S if in_process and seconds else 0.0)
    return Estimate(work, seconds, learned, _factor(engine, "sacrebleu") or 1.0)


def learn_factor(engine: Any, family: str, predicted: float, actual: float) -> None:
    """Move the family's correction factor towards actual / predicted (runs of > 1 s)."""
    if predicted <= 0 or actual < 1.0:
        return
    ratio = min(20.0, max(0.05, actual / predicted))
    old = _factor(engine, family)
    new = ratio if old is None else 0.5 * old + 0.5 * ratio
    set_setting(engine, _FACTOR_KEY.format(family=family), f"{new:.4f}")
