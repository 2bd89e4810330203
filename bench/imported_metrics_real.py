"""Imported metrics on real data: how much a reference-free score the user brings saves.

MLQE-PE test20 (../shared/data/mlqe-pe-test20, the only shared data set whose README lists
a segment-level automatic score as a column: ``nmt_model_score``, the translation model's
own sentence score) is imported exactly as a user would (``cli.py import … --metric
nmt_model_score=nmt_model_score``, labels from ``human_label_binary``) into a fresh SQLite
database and read back through ``db.reads.campaign.read_campaign``. Per language pair (one system
each) and per judgment (DA mean; binary DA ≥ 70):

- Pearson r of the stored score with the human judgment (all 1,000 segments);
- the limiting data efficiency 1/(1 − r²) (docs/statistics-notes.md §17);
- the measured DE at n labelled of the 1,000: mean(se²_human) / mean(se²_PPI++) over R random label
  sets (docs/statistics-notes.md §21, check 3), and the label saving 1 − 1/DE for the same
  interval width;
- the coverage of the PPI++ 95 % interval of the pair's mean over the same R label sets.

There are no system pairs in MLQE-PE (one system per language pair), and none of the
paired data sets (WMT21 TED, Chaganty CNN/DM) carries a metric score column, so there is
no paired-difference R² or n80 to report for an imported metric.

    .venv/bin/python bench/imported_metrics_real.py [--n 100] [--reps 400]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from annotation.imports.importer import import_campaign
from db.engine import make_engine
from db.migrate import upgrade
from db.reads.campaign import read_campaign
from estimators.data.campaign import LabelKind
from estimators.fixed_n import control_variates as cv
from formats.scores_file import MetricSpec

DATA = Path(__file__).resolve().parents[2] / "shared/data/mlqe-pe-test20/mlqe_pe_test20.csv"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="labelled segments per pair")
    parser.add_argument("--reps", type=int, default=400, help="random label sets")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"needs {DATA} (the shared evaluation data)")

    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{tmp}/bench.db")
        upgrade(engine)
        started = time.perf_counter()
        report = import_campaign(
            engine,
            DATA,
            "mlqe",
            column_map={"human_label": "human_label_binary"},
            metrics=[MetricSpec("nmt_model_score", "nmt_model_score")],
            ignore=["post_edit"],  # HTER is not what this bench measures
        )
        seconds = time.perf_counter() - started
        data = read_campaign(engine, report.campaign_id)
        engine.dispose()
    (cov,) = report.metrics
    print(f"import of {DATA.name} with the metric: {seconds:.2f} s; {cov.line().strip()}")
    grid = data.scores[cov.signature]
    rng = np.random.default_rng(20261123)
    print(
        f"\n| language pair | judgment | Pearson r | DE limit 1/(1−r²) | measured DE at "
        f"n = {args.n} | label saving | PPI++ coverage |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for kind, label in ((LabelKind.SCORE, "DA mean"), (LabelKind.LABEL, "DA ≥ 70")):
        rows = data.first_judgments(kind)
        values = data.judgments.values(kind)[rows]
        systems, items = data.judgments.system[rows], data.judgments.item[rows]
        for s, system in enumerate(data.systems):
            sel = systems == s
            y, g = values[sel], grid[s, items[sel]]
            r = float(np.corrcoef(g, y)[0, 1])
            truth = float(y.mean())
            se_h, se_p, covered = [], [], 0
            for _ in range(args.reps):
                lab = np.zeros(y.size, dtype=bool)
                lab[rng.choice(y.size, args.n, replace=False)] = True
                res = cv.ppi_mean(y[lab], g[lab], g[~lab])
                se_h.append(np.var(y[lab], ddof=1) / args.n)
                se_p.append(res.se**2)
                covered += res.low <= truth <= res.high
            de = float(np.mean(se_h) / np.mean(se_p))
            print(
                f"| {system.removeprefix('mlqe-nmt-')} | {label} | {r:+.3f} | "
                f"{1 / (1 - r * r):.3f} | {de:.3f} | {1 - 1 / de:+.1%} | "
                f"{covered / args.reps:.3f} |"
            )


if __name__ == "__main__":
    main()
