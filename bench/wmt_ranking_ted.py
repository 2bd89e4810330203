"""WMT's ranking procedures beside Tandem's clusters on the shipped WMT21 TED en-de data.

The 13 systems × 529 segments of expert MQM scores (../shared/data/wmt21-ted-mqm), every
output judged once (a census), are fed to the live monitor in a seeded random order as
Tandem's queue would have drawn them, then to the WMT25 and WMT24 procedures
(estimators/report/wmt.py). Prints both tables and the pairs where they disagree; the
figures are recorded in docs/statistics-notes.md §26.

    nice -n 15 .venv/bin/python bench/wmt_ranking_ted.py [--kind score|label] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pools import DATA
from estimators.data.campaign import CampaignData, Judgments
from estimators.report.campaign_report import campaign_report
from estimators.report.wmt import wmt_comparison
from estimators.sequences.designs import SUPERPOPULATION, TEST_SET, LivePlan

TED = DATA / "wmt21-ted-mqm" / "wmt21_ted_ende.csv"


def ted_campaign(seed: int = 0, estimand: str = TEST_SET) -> CampaignData:
    """The TED census as a campaign: one judgment per output (human_score = −MQM in
    ``score``, the no-Major label in ``label``), in a seeded random arrival order."""
    df = pd.read_csv(TED, usecols=["item_id", "system", "human_score", "human_label_binary",
                                   "doc"])  # fmt: skip
    systems = sorted(df["system"].unique())
    items = list(dict.fromkeys(df["item_id"]))
    si = df["system"].map({s: i for i, s in enumerate(systems)}).to_numpy()
    ii = df["item_id"].map({t: i for i, t in enumerate(items)}).to_numpy()
    n = len(df)
    pos = np.random.default_rng(seed).permutation(n).astype(float)
    order = np.argsort(pos)
    f = np.full(n, np.nan)
    j = Judgments(
        np.arange(n), ii[order], si[order], np.zeros(n, dtype=int),
        df["human_label_binary"].to_numpy(float)[order], df["human_score"].to_numpy(float)[order],
        f, f, pos[order], np.ones(n), np.zeros(n, dtype="datetime64[us]"),
    )  # fmt: skip
    k, m = len(systems), len(items)
    grid = np.full((k, m), -1)
    grid[si, ii] = np.arange(n)
    return CampaignData(
        campaign_id=1, name="wmt21-ted-ende", mode="binary", systems=systems,
        is_human=np.zeros(k, bool), item_ids=items, output_ids=grid, metrics=[], scores={},
        judgments=j, annotators=["rater"], live_plan=LivePlan(estimand=estimand),
    )  # fmt: skip


def run(kind: str = "score", seed: int = 0, estimand: str = TEST_SET, procedure: str = "wmt25"):  # type: ignore[no-untyped-def]
    data = ted_campaign(seed, estimand)
    report = campaign_report(data, label_kind=kind)
    return wmt_comparison(data, kind, report.monitor, higher_is_better=report.higher_is_better,
                          procedure=procedure)  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kind", default="score", choices=["score", "label"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--estimand", default=TEST_SET, choices=[TEST_SET, SUPERPOPULATION])
    args = ap.parse_args()
    if not TED.exists():
        sys.exit(f"needs the shared data at {TED}")
    for procedure in ("wmt25", "wmt24"):
        t0 = time.process_time()
        cmp = run(args.kind, args.seed, args.estimand, procedure)
        cpu = time.process_time() - t0
        n_cl = cmp.rows[-1]["cluster"] if cmp.rows else 0
        n_t = cmp.tandem_rows[-1]["cluster"] if cmp.tandem_rows else 0
        print(f"\n{procedure} on {args.kind} ({args.estimand}, seed {args.seed}): "
              f"{n_cl} WMT clusters, {n_t} Tandem clusters; {cpu:.1f} CPU-s")  # fmt: skip
        for r in cmp.rows:
            print(f"  {r['rank_range']:>6} {r['system']:<16} {r['mean']:8.3f}  "
                  f"WMT {r['cluster']:>2}  Tandem {r['tandem_cluster']:>2}")  # fmt: skip
        print(f"  {len(cmp.disagreements)} pairs disagree:")
        for d in cmp.disagreements:
            print(f"    {d['a']} vs {d['b']}: WMT test {d['wmt_test']} (p = {d['wmt_p']:.4f}), "
                  f"Tandem {d['tandem_verdict']}; clusters WMT {d['wmt_clusters']}, "
                  f"Tandem {d['tandem_clusters']} [{d['differs']}]")  # fmt: skip


if __name__ == "__main__":
    main()
