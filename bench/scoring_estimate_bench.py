"""Scoring time against its estimate on the Chaganty CNN/DM summaries (2,480 long outputs),
and TER's speed against sacrebleu's in the same run.

1. Imports ../shared/data/chaganty2018-cnndm-summaries/items.csv (all rows) into a fresh
   SQLite database, estimates BLEU + chrF + TER as the Campaigns page does (a calibration
   run of the machine at estimate time, and default figures: a fresh database has learned
   nothing), runs the job in a real worker process and prints actual / estimate (goal:
   between 0.5 and 2, under load too: the load average and the calibration's CPU share are
   printed). Then the same on a second copy, with the factor learned from the first run,
   and on a third of its first 62 items (310 outputs, where start-up is most of the time).
   Each line also gives actual / the estimate the code made before the calibration (the
   cost model's seconds as they are plus a constant 3 s start and 1.5 s pool start), from
   the same counts in the same run.
2. Times sacrebleu's TER and metrics.ter_fast.FastTER on the same N summaries (default 120;
   ``--ter-sample N``) serially in this process, checks the scores are equal and prints
   the speed ratio.

Usage: ``python bench/scoring_estimate_bench.py [--ter-sample N]``.
"""

from __future__ import annotations

import csv
import itertools
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "chaganty2018-cnndm-summaries" / "items.csv"
METRICS = ["bleu", "chrf", "ter"]


def wait(engine, job_id: int, timeout: float = 3600.0):  # type: ignore[no-untyped-def]
    from db.admin import jobs

    deadline = time.monotonic() + timeout
    moves, last = [], -1
    while (job := jobs.get_job(engine, job_id)) is not None and job.active:
        if time.monotonic() > deadline:
            raise TimeoutError(job)
        if job.state == jobs.RUNNING and job.done != last:
            moves.append(time.monotonic())
            last = job.done
        time.sleep(0.25)
    gaps = [b - a for a, b in itertools.pairwise(moves)]
    if len(gaps) > 1:
        print(
            f"  progress moved {len(moves)} times: first after {gaps[0]:.1f} s (worker and "
            f"pool start), then at most {max(gaps[1:]):.1f} s apart"
        )
    return job


def _constant_estimate(work) -> float:  # type: ignore[no-untyped-def]
    """The estimate before the calibration, from the same counts: the cost model's seconds
    (the sacrebleu share over the free cores plus a 1.5 s pool start) and a 3 s start."""
    from metrics.sacrebleu_metrics import worth_parallel
    from metrics.scoring_estimate import parallel_speedup

    serial = sum(w.seconds for w in work)
    if worth_parallel(sum(w.n_todo for w in work)):
        serial = serial / parallel_speedup() + 1.5
    return serial + 3.0


def estimate_check() -> None:
    from annotation.imports.importer import import_campaign
    from db.engine import make_engine
    from db.migrate import upgrade
    from metrics.scoring_estimate import estimate_scoring, format_seconds
    from metrics.scoring_job import start_scoring

    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{tmp}/bench.db")
        upgrade(engine)
        mapping = {"human_label": "human_label_binary"}
        cids = [
            import_campaign(
                engine, DATA, name, column_map=mapping, settings={"target_lang": "en"}
            ).campaign_id
            for name in ("chaganty-1", "chaganty-2")
        ]
        small = Path(tmp) / "small.csv"
        with DATA.open(newline="", encoding="utf-8") as f:
            rows = f.readlines()
        ids = list(dict.fromkeys(r["item_id"] for r in csv.DictReader(rows)))[:62]
        keep = [r for r in csv.DictReader(rows) if r["item_id"] in set(ids)]
        with small.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(keep[0]))
            writer.writeheader()
            writer.writerows(keep)
        cids.append(import_campaign(engine, small, "chaganty-small", column_map=mapping,
                                    settings={"target_lang": "en"}).campaign_id)  # fmt: skip
        runs = (("default figures", cids[0]), ("learned", cids[1]), ("learned, small", cids[2]))
        for label, cid in runs:
            print(f"load average {os.getloadavg()[0]:.1f}")
            est = estimate_scoring(engine, cid, METRICS)
            constant = _constant_estimate(est.work)
            print(f"  {est.describe()}")
            started = time.perf_counter()
            job = wait(engine, start_scoring(engine, cid, METRICS, estimate=est))
            real = time.perf_counter() - started
            print(
                f"BLEU+chrF+TER on {est.work[0].n_todo:,} outputs, estimate ({label}) "
                f"{format_seconds(est.seconds)}, actual {format_seconds(real)}: "
                f"actual/estimate {real / est.seconds:.2f} (goal 0.5–2; without the "
                f"calibration {real / constant:.2f}), state {job.state}"
            )
        engine.dispose()


def ter_speed(n: int) -> None:
    from sacrebleu.metrics import TER

    from metrics.ter_fast import FastTER

    with DATA.open(newline="", encoding="utf-8") as f:
        pairs = [(r["output"], r["reference"]) for r in csv.DictReader(f)][:n]
    slow, fast = TER(), FastTER()
    fast.sentence_score("a b", ["b a"])  # compile or load the cache outside the timing
    timings, scores = [], []
    for metric in (slow, fast):
        started = time.perf_counter()
        scores.append([metric.sentence_score(h, [r]).score for h, r in pairs])
        timings.append(time.perf_counter() - started)
    worst = max(abs(a - b) for a, b in zip(*scores, strict=True))
    print(
        f"TER on {n} Chaganty summaries: sacrebleu {timings[0]:.2f} s "
        f"({timings[0] / n * 1e3:.1f} ms each), FastTER {timings[1]:.3f} s: "
        f"{timings[0] / timings[1]:.0f}× faster; largest score difference {worst:.1e}"
    )


def main() -> None:
    if not DATA.exists():
        sys.exit(f"needs {DATA}")
    n = 120
    if "--ter-sample" in sys.argv:
        n = int(sys.argv[sys.argv.index("--ter-sample") + 1])
    estimate_check()
    ter_speed(n)


if __name__ == "__main__":
    main()
