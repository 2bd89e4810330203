"""score_many shares the work with its pool: this process scores chunks while the pool's
processes start or work (so progress moves at once), a broken pool falls back to this
process, and every way gives exactly the serial scores."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

from metrics.sacrebleu_metrics import SacrebleuMetric, score_many

_HYPS = [f"Das ist Satz {i} aus dem Test, mit {i % 7} Wörtern mehr." for i in range(400)]
_REFS = [f"Dies ist der Satz {i} im Test mit ein paar Wörtern." for i in range(400)]
_METRICS = [SacrebleuMetric("bleu"), SacrebleuMetric("chrf"), SacrebleuMetric("ter")]


class _SlowPool:
    """A pool whose every task takes ``delay`` seconds before its (real) result."""

    def __init__(self, delay: float) -> None:
        self.delay, self.submitted = delay, 0

    def submit(self, fn, *args):  # type: ignore[no-untyped-def]
        self.submitted += 1
        fut: Future[list[float]] = Future()
        threading.Timer(self.delay, lambda: fut.set_result(fn(*args))).start()
        return fut


class _BrokenPool:
    def submit(self, fn, *args):  # type: ignore[no-untyped-def]
        raise BrokenProcessPool("gone")


def test_this_process_scores_while_the_pool_is_slow() -> None:
    serial = score_many(_METRICS, _HYPS, _REFS, workers=1)
    moves: list[float] = []
    started = time.monotonic()
    pool = _SlowPool(delay=3.0)
    shared = score_many(
        _METRICS,
        _HYPS,
        _REFS,
        lambda d, t: moves.append(time.monotonic()),
        executor=pool,  # type: ignore[arg-type]
    )
    assert shared == serial
    assert pool.submitted >= 1
    assert moves[0] - started < 2.5  # before any pool task could finish
    assert len(moves) > pool.submitted  # this process scored chunks of its own


def test_a_broken_pool_falls_back_to_this_process() -> None:
    serial = score_many(_METRICS, _HYPS, _REFS, workers=1)
    calls: list[tuple[int, int]] = []
    broken = score_many(
        _METRICS,
        _HYPS,
        _REFS,
        lambda d, t: calls.append((d, t)),
        executor=_BrokenPool(),  # type: ignore[arg-type]
    )
    assert broken == serial and calls[-1] == (1200, 1200)
