"""Batch scoring of a campaign: find what is missing → compute in chunks → store.

:func:`score_campaign` is what ``cli.py score`` and the admin page's button call. For each
requested metric it builds the signature, asks :mod:`db.scores.metric_scores` which outputs already
have
a score with that signature, computes only the missing ones (sacrebleu metrics on a process
pool over all cores when the batch is large, BERTScore with the model loaded once per
process) and stores them chunk by chunk, so an interrupted run keeps what it finished and a
second run on unchanged data only reads. Newly imported outputs are scored the same way
(``output_ids=`` for a few outputs on demand).

Items without a reference (``Item.reference`` is NULL) are skipped by reference-based
metrics and counted in :attr:`MetricRun.n_no_reference`; an empty or whitespace-only
output or reference gets the family's defined score
(:data:`metrics.registry.EMPTY_INPUT_SCORES`) and is counted in :attr:`MetricRun.n_empty`.

Choosing and storing a metric's binary threshold from the human labels is
:func:`annotation.results.calibration.calibrate_and_save`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from db.campaign.lifecycle import archived_reason
from db.scores import metric_scores as store
from metrics import ter_fast
from metrics.base import Metric, MetricConfigError, Progress
from metrics.bertscore import Baseline, BertScoreConfig, BertScoreMetric
from metrics.cost_model import total_seconds
from metrics.features import FeaturesMetric
from metrics.registry import build_metrics
from metrics.sacrebleu_metrics import SacrebleuMetric, make_pool, score_many, worth_parallel
from metrics.score_report import MetricRun, ScoreReport

#: Metrics that score an output without a reference (the others skip such outputs).
REFERENCE_FREE: tuple[str, ...] = ("features",) if not FeaturesMetric.needs_reference else ()

#: Outputs per stored chunk (sacrebleu) and per BERTScore chunk.
SACREBLEU_CHUNK = 5000
BERTSCORE_CHUNK = 2048  # ≈ 150 MB of token embeddings for MiniLM at most


def _is_empty(text: str | None) -> bool:
    return text is None or not text.strip()


class _Plan(NamedTuple):
    """One metric's part of a run: its signatures, what is stored, what is left to score."""

    metric: Metric
    signatures: dict[str, str]
    done_by_key: dict[str, set[int]]
    todo: list[store.OutputText]


class _Ticker:
    """Adds up (done, total) of the steps into one campaign-wide progress callback."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.base = progress, total, 0

    def step(self, n_units: int) -> Progress:
        base = self.base
        self.base += n_units

        def cb(done: int, total: int) -> None:
            if self.progress and total:
                self.progress(base + round(n_units * done / total), self.total)

        return cb

    def finish(self) -> None:
        if self.progress:
            self.progress(self.total, self.total)


def score_campaign(
    engine,  # type: ignore[no-untyped-def]
    campaign_id: int | str,
    metric_names: str | Iterable[str] | None = None,
    progress: Progress | None = None,
    *,
    bertscore: BertScoreConfig | None = None,
    output_ids: Iterable[int] | None = None,
    workers: int | None = None,
) -> ScoreReport:
    """Score every output of a campaign that has no score yet for each metric's signature.

    ``campaign_id``: id or name. ``metric_names``: e.g. ``"bleu,chrf,ter,bertscore"``
    (None → :data:`metrics.registry.DEFAULT_METRICS`; unknown names raise
    :class:`~metrics.base.MetricConfigError` listing the known ones). ``progress(done,
    total)`` is called as chunks finish. ``output_ids`` restricts the run to some outputs
    (on-demand scoring of new ones). ``workers``: sacrebleu processes (None = all cores when
    the batch is large enough, 1 = serial).
    """
    started = time.perf_counter()
    info = store.campaign_info(engine, campaign_id)
    if info is None:
        raise MetricConfigError(f"no campaign {campaign_id!r} (the `campaign` option)")
    if (archived := archived_reason(engine, info.id)) is not None:
        raise MetricConfigError(archived)
    metrics = build_metrics(metric_names, info.target_lang, bertscore)
    outputs = store.outputs_with_references(engine, info.id, output_ids)
    report = ScoreReport(campaign_id=info.id, campaign=info.name)

    for m in metrics:
        if isinstance(m, BertScoreMetric):
            _prepare_bertscore(engine, info.id, m, outputs, report)

    plans = _plan_runs(engine, info.id, metrics, outputs, report)
    ticker = _Ticker(progress, sum(len(p.todo) * len(p.metric.keys) for p in plans))
    _score_sacrebleu(engine, plans, report, ticker, workers)
    _score_bertscore(engine, plans, report, ticker)
    _score_features(engine, info.id, plans, report, ticker)
    ticker.finish()
    report.seconds = time.perf_counter() - started
    return report


def _plan_runs(
    engine,  # type: ignore[no-untyped-def]
    campaign_id: int,
    metrics: Sequence[Metric],
    outputs: Sequence[store.OutputText],
    report: ScoreReport,
) -> list[_Plan]:
    """Per metric: signatures, then the outputs missing a score for any of its keys (one
    :class:`MetricRun` per key added to ``report``)."""
    plans: list[_Plan] = []
    for m in metrics:
        sigs = m.signatures()
        done_by_key = {k: store.scored_output_ids(engine, campaign_id, sigs[k]) for k in m.keys}
        todo, n_no_reference = _missing(m, outputs, done_by_key)
        for k in m.keys:
            run = MetricRun(k, sigs[k], m.higher_is_better(k), n_outputs=len(outputs))
            run.n_already = sum(1 for o in outputs if o.output_id in done_by_key[k])
            run.n_no_reference = n_no_reference
            report.runs.append(run)
        plans.append(_Plan(m, sigs, done_by_key, todo))
    return plans


def _score_sacrebleu(
    engine,  # type: ignore[no-untyped-def]
    plans: Sequence[_Plan],
    report: ScoreReport,
    ticker: _Ticker,
    workers: int | None,
) -> None:
    """sacrebleu metrics with the same to-do list share chunks and one process pool."""
    groups: dict[tuple[int, ...], list[_Plan]] = {}
    for plan in plans:
        if isinstance(plan.metric, SacrebleuMetric) and plan.todo:
            groups.setdefault(tuple(o.output_id for o in plan.todo), []).append(plan)
    for group in groups.values():
        todo = group[0].todo
        evaluations = len(todo) * len(group)
        if any(g.metric.name == "ter" for g in group):
            ter_fast.warm()  # compiled once here, not once per pool process
        pool = (
            make_pool()
            if (workers is None and worth_parallel(evaluations)) or (workers or 1) > 1
            else None
        )
        try:
            for start in range(0, len(todo), SACREBLEU_CHUNK):
                chunk = todo[start : start + SACREBLEU_CHUNK]
                scored = score_many(
                    [g.metric for g in group],  # type: ignore[misc]
                    [o.text for o in chunk],
                    [o.reference or "" for o in chunk],
                    progress=ticker.step(len(chunk) * len(group)),
                    workers=1 if pool is None else None,
                    executor=pool,
                )
                rows = []
                for plan in group:
                    rows += _rows(plan, chunk, scored, report)
                store.insert_scores(engine, rows)
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)  # a cancelled job stops at once


def _score_bertscore(
    engine,  # type: ignore[no-untyped-def]
    plans: Sequence[_Plan],
    report: ScoreReport,
    ticker: _Ticker,
) -> None:
    for plan in plans:
        m, todo = plan.metric, plan.todo
        if not isinstance(m, BertScoreMetric) or not todo:
            continue
        m.n_truncated = 0
        for start in range(0, len(todo), BERTSCORE_CHUNK):
            chunk = todo[start : start + BERTSCORE_CHUNK]
            scored = m.score(
                [o.text for o in chunk],
                [o.reference or "" for o in chunk],
                progress=ticker.step(len(chunk) * len(m.keys)),
            )
            store.insert_scores(engine, _rows(plan, chunk, scored, report))
        report.n_truncated += m.n_truncated


def _score_features(
    engine,  # type: ignore[no-untyped-def]
    campaign_id: int,
    plans: Sequence[_Plan],
    report: ScoreReport,
    ticker: _Ticker,
) -> None:
    for plan in plans:
        if isinstance(plan.metric, FeaturesMetric) and plan.todo:
            sources = store.item_sources(engine, campaign_id)
            todo = plan.todo
            scored = plan.metric.score(
                [o.text for o in todo], [o.reference or "" for o in todo],
                progress=ticker.step(len(todo) * len(plan.metric.keys)),
                sources=[sources.get(o.item_id) for o in todo],
            )  # fmt: skip
            store.insert_scores(engine, _rows(plan, todo, scored, report))


def _missing(
    m: Metric, outputs: Sequence[store.OutputText], done_by_key: dict[str, set[int]]
) -> tuple[list[store.OutputText], int]:
    """The outputs that lack a score for one of ``m``'s keys, and how many of the others
    are skipped because their item has no reference."""
    todo, n_no_reference = [], 0
    for o in outputs:
        if all(o.output_id in done_by_key[k] for k in m.keys):
            continue
        if m.needs_reference and o.reference is None:
            n_no_reference += 1
            continue
        todo.append(o)
    return todo, n_no_reference


@dataclass(frozen=True)
class PendingWork:
    """What a scoring run of one metric would have to do (nothing is computed)."""

    metric: str  # the registry name ("bleu", "bertscore")
    n_outputs: int
    n_todo: int
    #: BERTScore with rescale and no stored campaign baseline: the run computes it first.
    needs_baseline: bool = False
    #: Serial seconds of the to-do by :mod:`metrics.cost_model` (text length counted).
    seconds: float = 0.0
    #: Outputs this metric cannot score because their item has no reference.
    n_no_reference: int = 0
    needs_reference: bool = True


def pending_work(
    engine,  # type: ignore[no-untyped-def]
    campaign_id: int | str,
    metric_names: str | Iterable[str] | None = None,
    *,
    bertscore: BertScoreConfig | None = None,
) -> list[PendingWork]:
    """Per metric, how many of the campaign's outputs a :func:`score_campaign` call with the
    same arguments would score: the planning half of that function, without computing."""
    info = store.campaign_info(engine, campaign_id)
    if info is None:
        raise MetricConfigError(f"no campaign {campaign_id!r} (the `campaign` option)")
    outputs = store.outputs_with_references(engine, info.id)
    work = []
    for m in build_metrics(metric_names, info.target_lang, bertscore):
        needs_baseline = False
        if isinstance(m, BertScoreMetric):
            if m.config.idf:
                m.set_idf_documents(store.item_references(engine, info.id))
            if m.config.rescale:
                stored = store.get_baseline(engine, info.id, m.model_signature())
                needs_baseline = stored is None
                if stored is not None:
                    m.set_baseline(
                        Baseline(
                            stored.precision, stored.recall, stored.f1, stored.n_pairs, stored.seed
                        )
                    )
        if needs_baseline:  # no score can carry a baseline that does not exist yet
            todo = [o for o in outputs if not (m.needs_reference and o.reference is None)]
            n_no_reference = len(outputs) - len(todo)
        else:
            sigs = m.signatures()
            done = {k: store.scored_output_ids(engine, info.id, sigs[k]) for k in m.keys}
            todo, n_no_reference = _missing(m, outputs, done)
        work.append(
            PendingWork(
                m.name, len(outputs), len(todo), needs_baseline,
                seconds=_todo_seconds(m, todo), n_no_reference=n_no_reference,
                needs_reference=m.needs_reference,
            )
        )  # fmt: skip
    return work


def _todo_seconds(m: Metric, todo: Sequence[store.OutputText]) -> float:
    """Serial seconds of a metric's to-do; sacrebleu scores each distinct pair once."""
    pairs: Iterable[tuple[str | None, str | None]] = [(o.text, o.reference) for o in todo]
    if isinstance(m, SacrebleuMetric):
        pairs = set(pairs)  # type: ignore[arg-type]
    return total_seconds(m.name, pairs)


def _rows(
    plan: _Plan,
    chunk: Sequence[store.OutputText],
    scored: dict[str, list[float]],
    report: ScoreReport,
) -> list[store.ScoreRow]:
    rows = []
    for k in plan.metric.keys:
        run = report.run(k)
        for o, v in zip(chunk, scored[k], strict=True):
            if o.output_id in plan.done_by_key[k]:
                continue
            rows.append(store.ScoreRow(o.output_id, k, plan.signatures[k], float(v)))
            run.n_scored += 1
            if _is_empty(o.text) or _is_empty(o.reference):
                run.n_empty += 1
    return rows


def _prepare_bertscore(
    engine,  # type: ignore[no-untyped-def]
    campaign_id: int,
    m: BertScoreMetric,
    outputs: Sequence[store.OutputText],
    report: ScoreReport,
) -> None:
    """Campaign-dependent BERTScore settings: idf documents and the rescale baseline."""
    if m.config.idf:
        m.set_idf_documents(store.item_references(engine, campaign_id))
    if not m.config.rescale:
        return
    model_signature = m.model_signature()
    stored = store.get_baseline(engine, campaign_id, model_signature)
    if stored is None:
        # Baseline from ALL the campaign's outputs, not only the ones asked for.
        every = store.outputs_with_references(engine, campaign_id)
        refs = {o.item_id: o.reference for o in every if o.reference is not None}
        b = m.compute_baseline([o.text for o in every], [o.item_id for o in every], refs)
        stored = store.save_baseline(
            engine,
            campaign_id,
            model_signature,
            store.StoredBaseline(b.precision, b.recall, b.f1, b.n_pairs, b.seed),
        )
    report.baseline = Baseline(
        stored.precision, stored.recall, stored.f1, stored.n_pairs, stored.seed
    )
    m.set_baseline(report.baseline)
