"""Scoring as a background job on WMT21 TED en-de (6,877 outputs): estimate vs real time,
the estimate after the server has learned from one run, and how fast Cancel stops a job.

Imports ../shared/data/wmt21-ted-mqm/wmt21_ted_ende.csv into a fresh SQLite database, then:

1. estimates BLEU + chrF + TER (default figures), runs the job in a real worker process
   (as the Campaigns page does) and polls it like the page (every second);
2. re-estimates the same work on a second copy of the campaign (learned factor) and runs it;
3. starts BERTScore, cancels it after 10 s and measures the time until the job is cancelled
   and how many scores it kept.

Usage: ``python bench/scoring_job_bench.py``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "wmt21-ted-mqm" / "wmt21_ted_ende.csv"


def wait(engine, job_id: int, timeout: float = 1800.0):  # type: ignore[no-untyped-def]
    from db.admin import jobs

    deadline = time.monotonic() + timeout
    while (job := jobs.get_job(engine, job_id)) is not None and job.active:
        if time.monotonic() > deadline:
            raise TimeoutError(job)
        time.sleep(1.0)
    return job


def main() -> None:
    from annotation.imports.importer import import_campaign
    from db.engine import make_engine
    from db.migrate import upgrade
    from metrics.scoring_estimate import estimate_scoring
    from metrics.scoring_job import cancel_job, start_scoring

    if not DATA.exists():
        sys.exit(f"needs {DATA}")
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{tmp}/bench.db")
        upgrade(engine)
        mapping = {"human_label": "human_label_binary"}
        cids = []
        for name in ("wmt-1", "wmt-2"):
            report = import_campaign(
                engine, DATA, name, column_map=mapping, settings={"target_lang": "de"}
            )
            cids.append(report.campaign_id)
        print(f"load average {os.getloadavg()[0]:.1f}")
        for label, cid in (("default figures", cids[0]), ("learned", cids[1])):
            est = estimate_scoring(engine, cid, ["bleu", "chrf", "ter"])
            started = time.perf_counter()
            job = wait(engine, start_scoring(engine, cid, ["bleu", "chrf", "ter"], estimate=est))
            real = time.perf_counter() - started
            print(
                f"BLEU+chrF+TER, estimate from {label}: {est.seconds:.1f} s, real {real:.1f} s "
                f"(ratio {real / est.seconds:.2f}), state {job.state}"
            )
        est = estimate_scoring(engine, cids[0], ["bertscore"])
        job_id = start_scoring(engine, cids[0], ["bertscore"], estimate=est)
        time.sleep(10.0)
        asked = time.perf_counter()
        cancel_job(engine, job_id)
        job = wait(engine, job_id)
        print(
            f"BERTScore estimate {est.seconds:.0f} s; cancelled after 10 s: stopped in "
            f"{time.perf_counter() - asked:.1f} s, state {job.state}, kept {job.done:,} of "
            f"{job.total:,} scores"
        )
        engine.dispose()


if __name__ == "__main__":
    main()
