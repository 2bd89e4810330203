"""The scoring estimate counts text length per metric, the run reports its error against
the estimate (job message, CLI), long texts are scored in small chunks so progress moves,
and a campaign without references is told why reference-based metrics have nothing to do
(not "Everything chosen is scored already"). The estimate reads the machine at estimate
time (a calibration run): a machine that gives the process a quarter of a core makes every
part of it 4× longer, start-up included (a constant start-up was 4.7× short at load 20)."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from db.admin import jobs as store
from db.engine import get_engine
from metrics import sacrebleu_metrics
from metrics.cost_model import output_seconds
from metrics.sacrebleu_metrics import SacrebleuMetric, score_many
from metrics.scoring_estimate import Machine, estimate_error, estimate_scoring, measure_machine
from metrics.scoring_job import start_scoring
from tests.metrics.conftest import make_campaign

_SHORT = "Das ist ein kurzer Satz."
_LONG = " ".join(f"Wort{i % 37} und noch ein Satz Nummer {i}." for i in range(60))


def _rows(text: str, n: int = 20, ref: str | None = "Das ist ein Satz.") -> list:  # type: ignore[type-arg]
    return [(f"i{j}", ref, f"S{s}", f"{text} {j} {s}") for j in range(n) for s in range(2)]


def test_a_campaign_without_references_says_why_nothing_is_scored(engine) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, _rows(_SHORT, 5, ref=None))
    est = estimate_scoring(engine, cid, ["bleu", "chrf", "ter"])
    text = est.describe()
    assert est.n_todo == 0
    assert "Everything chosen is scored already" not in text
    assert "bleu, chrf, ter" in text and "all outputs have no reference" in text
    assert "cannot score" in text and "features" in text


def test_some_outputs_without_references_are_named_beside_the_estimate(engine) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, [*_rows(_SHORT, 4), ("n1", None, "S0", "ohne Referenz")])
    text = estimate_scoring(engine, cid, ["bleu"]).describe()
    assert "To score: bleu 8 of 9" in text and "1 of 9 outputs have no reference" in text


def test_the_estimate_grows_with_text_length_per_metric(engine) -> None:  # type: ignore[no-untyped-def]
    short, _ = make_campaign(engine, _rows(_SHORT), name="short")
    long, _ = make_campaign(engine, _rows(_LONG, ref=_LONG), name="long")
    for metric, at_least in [("bleu", 10.0), ("ter", 100.0)]:
        a = estimate_scoring(engine, short, [metric], in_process=True)
        b = estimate_scoring(engine, long, [metric], in_process=True)
        assert a.work[0].n_todo == b.work[0].n_todo == 40
        assert b.work[0].seconds > at_least * a.work[0].seconds, (metric, a, b)
    # TER grows faster than linearly in length (its shift search), BLEU linearly.
    ratio_ter = output_seconds("ter", _LONG, _LONG) / output_seconds("ter", _SHORT, _SHORT)
    ratio_bleu = output_seconds("bleu", _LONG, _LONG) / output_seconds("bleu", _SHORT, _SHORT)
    assert ratio_ter > 5 * ratio_bleu


def test_long_texts_are_scored_in_small_chunks_so_progress_moves(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sacrebleu_metrics, "CHUNK_TARGET_S", 0.002)
    hyps = [f"{_LONG} {i}" for i in range(30)]
    calls: list[tuple[int, int]] = []
    ter = [SacrebleuMetric("ter")]
    score_many(ter, hyps, [_LONG] * 30, lambda d, t: calls.append((d, t)), workers=1)
    assert len(calls) >= 15 and calls[-1] == (30, 30)  # one chunk of 30 before


def test_the_job_reports_its_time_against_the_estimate(sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    import time

    cid, _ = make_campaign(sqlite_engine, _rows(_SHORT, 10))
    job_id = start_scoring(sqlite_engine, cid, ["chrf"])
    deadline = time.monotonic() + 120
    while (job := store.get_job(sqlite_engine, job_id)) is not None and job.active:
        assert time.monotonic() < deadline, job
        time.sleep(0.2)
    assert job is not None and job.state == store.DONE, job
    # The page's one figure (issue 34.4); the job's message carries no time of its own.
    assert re.search(
        r"took \d+ s, estimated \d+ s \([\d.]+× the estimate\)",
        estimate_error(job.estimate_s, job.seconds),
    )
    assert "took" not in job.message and " s:" not in job.message, job.message


def test_cli_score_prints_the_estimate_and_its_error(sqlite_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import cli

    make_campaign(sqlite_engine, _rows(_LONG, 10, ref=_LONG), name="long")
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    try:
        args = ["score", "--campaign", "long", "--metrics", "bleu,ter"]
        result = CliRunner().invoke(cli.app, args)
    finally:
        get_engine.cache_clear()
    assert result.exit_code == 0, result.output
    assert "Estimated time: about" in result.output and "counts text length" in result.output
    assert re.search(r"Time: took \d+ s, estimated \d+ s \([\d.]+× the estimate\)", result.output)


def test_the_estimate_scales_with_the_machine_as_measured(engine) -> None:  # type: ignore[no-untyped-def]
    cid, _ = make_campaign(engine, _rows(_SHORT, 60))
    idle = Machine(cpu_ratio=0.22, share=1.0)
    busy = Machine(cpu_ratio=0.22, share=0.25)  # a quarter of a core: others' load
    slow = Machine(cpu_ratio=0.44, share=1.0)  # a CPU half as fast
    base = estimate_scoring(engine, cid, ["bleu", "chrf", "ter"], machine=idle)
    for machine, times in ((busy, 4.0), (slow, 2.0)):
        est = estimate_scoring(engine, cid, ["bleu", "chrf", "ter"], machine=machine)
        assert est.seconds == pytest.approx(times * base.seconds), (machine, est.seconds)
    assert "25% of a core" in estimate_scoring(engine, cid, ["bleu"], machine=busy).describe()


def test_measure_machine_reads_the_wall_and_cpu_clocks() -> None:
    ticks = {"cpu": 0.0}

    def cpu() -> float:  # each reading: 1 ms more CPU; the wall clock runs 4× as fast
        ticks["cpu"] += 0.001
        return ticks["cpu"]

    found = measure_machine(wall=lambda: 1000 + 4 * ticks["cpu"], cpu=cpu, reuse_s=0.0)
    assert found.share == pytest.approx(0.25, rel=0.06) and found.cpu_ratio > 0
    real = measure_machine(reuse_s=0.0)  # the real clocks: a share of one core at most
    assert 0.0 < real.share <= 1.0 and 0.01 <= real.cpu_ratio <= 10.0
    assert measure_machine() is measure_machine()  # reused for a while: estimates agree
