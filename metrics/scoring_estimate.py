"""How long a scoring run should take, before it starts, and learning from the real times.

:func:`estimate_scoring` counts what is missing per metric
(:func:`metrics.scoring.pending_work`) and multiplies by seconds per output from
:mod:`metrics.cost_model` (text length per metric), scaled by **the machine as it is now**
(:func:`measure_machine`: a calibration run of a few hundredths of a CPU-second, timed at
estimate time), then corrected by the ratio of real to estimated time of this server's last
runs (stored in app_settings, :func:`learn_factor`). The job that runs the scoring is
:mod:`metrics.scoring_job`.

The calibration scores fixed synthetic pairs with chrF and reads two numbers: the CPU
seconds they take per second of the cost model (``cpu_ratio``: a faster or slower CPU) and
the share of the wall clock the process got (``share`` = CPU / wall: 1 on an idle machine,
0.12 at a load of 18 on 2 cores, measured). The serial scoring time is the cost model's
seconds × ``cpu_ratio`` / ``share``; the start-up costs (the worker's interpreter and
imports, the pool's processes, the model, the TER compile) are CPU seconds on the machine
they were measured on and are scaled the same way. A constant start-up (3 s) was 4.7×
short under a load of 20: the worker's imports take 1.3 CPU-seconds, 11 s of wall clock
there.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from db.admin.settings import get_setting, set_setting
from metrics import ter_fast
from metrics.bertscore import BertScoreConfig
from metrics.cost_model import BERTSCORE_SECONDS_PER_OUTPUT, total_seconds
from metrics.registry import KEYS
from metrics.sacrebleu_metrics import available_cores, worth_parallel
from metrics.scoring import REFERENCE_FREE, PendingWork, pending_work

#: Start-up costs in CPU seconds of the machine they were measured on (its ``cpu_ratio``
#: :data:`REFERENCE_CPU_RATIO`): the worker's interpreter and imports (1.0–1.5 CPU-s
#: measured), each of the sacrebleu pool's spawned processes (they import the worker's
#: module again), loading the BERTScore model.
START_S = 1.3
POOL_START_S = 1.3
BERTSCORE_LOAD_S = 6.0
#: CPU seconds per cost-model second of the calibration on the machine the start-up costs
#: were measured on (chrF: 0.21–0.24; the cost model's figures are wall seconds of a busy
#: machine).
REFERENCE_CPU_RATIO = 0.22
#: The calibration's CPU budget, and how long a measurement is reused (consecutive
#: estimates agree, and a page does not pay it on every draw).
CALIBRATION_CPU_S = 0.02
CALIBRATION_REUSE_S = 30.0
#: v3: the estimate reads the machine at estimate time; factors learned against the
#: unscaled defaults (v2) would count the load twice.
_FACTOR_KEY = "scoring_time_factor_v3:{family}"


@dataclass(frozen=True)
class Machine:
    """The machine as a calibration run found it (module docstring)."""

    cpu_ratio: float = REFERENCE_CPU_RATIO  # CPU seconds per cost-model second
    share: float = 1.0  # CPU seconds per wall second the process got

    @property
    def per_model_second(self) -> float:
        """Wall seconds per cost-model second now."""
        return self.cpu_ratio / self.share

    @property
    def per_start_second(self) -> float:
        """Wall seconds per start-up CPU-second now."""
        return self.cpu_ratio / REFERENCE_CPU_RATIO / self.share

    def describe(self) -> str:
        return f"this machine gives it {self.share:.0%} of a core now"


_WORDS = "the a cat dog house river mountain talk people sea ship light morning evening city"


def _calibration_pairs() -> list[tuple[str, str]]:
    """40 fixed pairs of 12–21 words (a seeded draw): chrF's cost is its characters."""
    rng, words = random.Random(0), _WORDS.split()
    sizes = [12 + k % 10 for k in range(40)]
    return [(" ".join(rng.choices(words, k=n)), " ".join(rng.choices(words, k=n))) for n in sizes]


_PAIRS = _calibration_pairs()
_last: dict[str, Any] = {}


def measure_machine(
    wall: Callable[[], float] = time.perf_counter,
    cpu: Callable[[], float] = time.process_time,
    reuse_s: float = CALIBRATION_REUSE_S,
) -> Machine:
    """Score the calibration pairs with chrF for :data:`CALIBRATION_CPU_S` of CPU and read
    the machine from the wall and CPU clocks (module docstring); a measurement younger than
    ``reuse_s`` is reused. 0.02 s on an idle machine, about 0.2 s at a load of 18 on 2
    cores."""
    if _last and 0 <= wall() - _last["at"] < reuse_s:
        return _last["machine"]
    from sacrebleu.metrics import CHRF

    chrf = CHRF()
    chrf.sentence_score(*_PAIRS[0][:1], [_PAIRS[0][1]])  # imports and caches: not timed
    passes, w0, c0 = 0, wall(), cpu()
    while True:
        for hyp, ref in _PAIRS:
            chrf.sentence_score(hyp, [ref])
        passes += 1
        spent_cpu, spent_wall = cpu() - c0, wall() - w0
        if spent_cpu >= CALIBRATION_CPU_S or passes >= 50:
            break
    model = passes * total_seconds("chrf", _PAIRS)
    found = Machine(
        cpu_ratio=min(10.0, max(0.01, spent_cpu / model)),
        share=min(1.0, max(0.02, spent_cpu / spent_wall)) if spent_wall > 0 else 1.0,
    )
    _last.update(at=wall(), machine=found)
    return found


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
    machine: Machine = field(default_factory=Machine)

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
            f"{w.metric} ~{format_seconds(w.seconds * self.machine.per_model_second * self.factor)}"
            for w in self.work
            if w.n_todo and w.metric != "bertscore"
        )
        no_reference = _no_reference_note(self.work)
        if not self.n_todo:
            if no_reference:
                return no_reference
            return "Everything chosen is scored already: nothing to do."
        basis = "and this server's earlier runs" if self.learned else "and benchmark figures"
        text = (
            f"To score: {', '.join(parts)} outputs. Estimated time: about "
            f"{format_seconds(self.seconds)} (from a calibration run just now: "
            f"{self.machine.describe()}, {basis}; counts text length per metric"
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


def default_seconds(
    work: Sequence[PendingWork], machine: Machine | None = None
) -> dict[str, float]:
    """Wall seconds per family from the cost model (:mod:`metrics.cost_model`: text length
    per metric) on ``machine`` (None: the reference machine, idle), the sacrebleu part
    shared by the pool's processes when the run uses a pool."""
    machine = machine or Machine()
    out = {"sacrebleu": 0.0, "bertscore": 0.0}
    evaluations = 0
    for w in work:
        if w.metric == "bertscore":
            n = w.n_todo + (w.n_outputs if w.needs_baseline else 0)
            out["bertscore"] += n * BERTSCORE_SECONDS_PER_OUTPUT * machine.per_model_second
        else:
            out["sacrebleu"] += w.seconds * machine.per_model_second
            evaluations += w.n_todo
    if out["sacrebleu"] and worth_parallel(evaluations):
        out["sacrebleu"] = (
            out["sacrebleu"] / parallel_speedup() + POOL_START_S * machine.per_start_second
        )
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


def _fixed_seconds(work: Sequence[PendingWork], machine: Machine, in_process: bool) -> float:
    """Start-up costs no learned factor scales, on ``machine``: the worker (none when scored
    in this process), the model, compiling the TER core."""
    seconds = START_S if any(w.n_todo for w in work) and not in_process else 0.0
    if any(w.metric == "bertscore" and w.n_todo for w in work):
        seconds += BERTSCORE_LOAD_S
    if any(w.metric == "ter" and w.n_todo for w in work) and not ter_fast.compiled():
        seconds += ter_fast.COMPILE_S
    return seconds * machine.per_start_second


def estimate_scoring(
    engine: Any,
    campaign_id: int,
    metrics: Sequence[str],
    *,
    idf: bool = False,
    rescale: bool = False,
    in_process: bool = False,
    bertscore: BertScoreConfig | None = None,
    machine: Machine | None = None,
) -> Estimate:
    """What scoring would do and how long it should take: the cost model's seconds per
    family on the machine as measured now (``machine``; None: :func:`measure_machine`)
    times the learned factor, plus start-up costs (``in_process``: scored in this process,
    as ``cli.py score`` does, so no worker process starts)."""
    config = bertscore or BertScoreConfig(idf=idf, rescale=rescale)
    work = tuple(pending_work(engine, campaign_id, metrics, bertscore=config))
    if not any(w.n_todo for w in work):
        return Estimate(work, 0.0, False, _factor(engine, "sacrebleu") or 1.0)
    machine = machine or measure_machine()
    seconds, learned = 0.0, False
    for family, base in default_seconds(work, machine).items():
        if base <= 0:
            continue
        factor = _factor(engine, family)
        learned = learned or factor is not None
        seconds += base * (factor or 1.0)
    seconds += _fixed_seconds(work, machine, in_process)
    return Estimate(work, seconds, learned, _factor(engine, "sacrebleu") or 1.0, machine)


def learn_factor(engine: Any, family: str, predicted: float, actual: float) -> None:
    """Move the family's correction factor towards actual / predicted (runs of > 1 s)."""
    if predicted <= 0 or actual < 1.0:
        return
    ratio = min(20.0, max(0.05, actual / predicted))
    old = _factor(engine, family)
    new = ratio if old is None else 0.5 * old + 0.5 * ratio
    set_setting(engine, _FACTOR_KEY.format(family=family), f"{new:.4f}")
