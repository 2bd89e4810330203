"""Labels to a verdict: the continuous human score vs the binary label, on shipped pools.

A benchmark, not a test. Pools with a continuous human score per output (MT systems only):

- WMT21 TED en-de (../shared/data/wmt21-ted-mqm): 13 systems × 529 segments, expert MQM
  score (−penalty, WMT's cap of 25) and the binary label "no major error";
- newstest2020 en-de (../shared/data/newstest2020-ende-mqm-scores): 7 MT systems × the
  1,418 segments every one has, MQM score averaged over raters (cap 25) and the binary label
  "mean penalty < 5".

MLQE-PE (DA 0–100) is not used: its 6 "systems" are 6 language pairs on their own 1,000
segments each, so no two systems share items and there is no paired verdict to reach.

The continuous score enters the monitor as the ESA score does, rescaled to its known range:
y = 1 + score / 25 ∈ [0, 1] (the ESA score is y = score / 100). For each random item order
(a seed), the queue is replayed uniformly (every system on every drawn item,
:func:`tests.support.racing_replay.replay`, the whole pool) with the app's route: the campaign
monitor, default betting design, test-set estimand, Holm over the pairs at α = 0.05, the
planner's t* for ε = 0.10 (the same plan for both signals), read every ``--every`` items.
Per pair: the items labelled (per system) at the first read with a "better" verdict.

Printed: per signal the pairs decided within the pool; for the pairs decided by both, the
median (and quartiles) of the per-pair ratio items(score) / items(label); and the items
until every pair decided by both signals is decided. Ratios < 1: the score reaches a
verdict with fewer labels.

    .venv/bin/python bench/score_vs_label_bench.py [--seeds 2] [--every 13] [--data wmt21 nt20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.campaign.live_plan import forecast_planned_labels
from estimators.live.status import is_decided
from tests.support.racing_replay import replay

SHARED = Path(__file__).resolve().parents[2] / "shared/data"
POOLS = {
    "wmt21": ("WMT21 TED en-de MQM", SHARED / "wmt21-ted-mqm/wmt21_ted_ende.csv"),
    "nt20": ("newstest2020 en-de MQM", SHARED / "newstest2020-ende-mqm-scores/"
             "newstest2020_ende_mqm_scores.csv"),
}  # fmt: skip
MQM_CAP = 25.0  # WMT's per-segment MQM cap: scores lie in [−25, 0]
EPSILON = 0.10


def load(path: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(score grid in [0, 1], binary label grid, system names): MT systems, items every
    system has."""
    df = pd.read_csv(path, usecols=["item_id", "system", "is_human", "human_score",
                                    "human_label_binary"])  # fmt: skip
    df = df[df["is_human"] == 0]
    systems = sorted(df["system"].unique())
    full = df.groupby("item_id")["system"].nunique()
    df = df[df["item_id"].isin(full[full == len(systems)].index)]

    def grid(col: str) -> np.ndarray:
        g = df.pivot_table(index="system", columns="item_id", values=col)
        return g.reindex(index=systems).to_numpy(dtype=float)

    score = np.clip(1.0 + grid("human_score") / MQM_CAP, 0.0, 1.0)
    return score, grid("human_label_binary"), systems


def first_verdicts(y: np.ndarray, names: list[str], order: np.ndarray, every: int,
                   monitor: dict) -> dict[tuple[str, str], int]:  # fmt: skip
    """Pair → items labelled per system at its first "better" verdict (absent: never)."""
    k = y.shape[0]
    first: dict[tuple[str, str], int] = {}

    def note(rep, total) -> None:  # type: ignore[no-untyped-def]
        for p in rep.pairs:
            if is_decided(p.verdict):
                first.setdefault((p.a, p.b), total // k)

    replay(y, order, racing=False, every=every, names=names, on_read=note,
           stop_when_settled=False, **monitor)  # fmt: skip
    return first


def bench(key: str, seeds: int, every: int) -> list[float]:
    label, path = POOLS[key]
    if not path.exists():
        print(f"{label}: {path} absent, skipped")
        return []
    score, binary, names = load(path)
    k, n = score.shape
    monitor = dict(design="betting", finite_pool=True, equivalence_margin=EPSILON,
                   t_star=forecast_planned_labels(k, EPSILON), alpha=0.05)  # fmt: skip
    print(f"{label}: {k} systems × {n} items, {k * (k - 1) // 2} pairs; score y = 1 + "
          f"MQM/{MQM_CAP:g}; reads every {every} items", flush=True)  # fmt: skip
    medians = []
    for seed in range(seeds):
        started = time.perf_counter()
        order = np.random.default_rng(seed).permutation(n)
        fs = first_verdicts(score, names, order, every, monitor)
        fb = first_verdicts(binary, names, order, every, monitor)
        both = sorted(set(fs) & set(fb))
        ratios = np.array([fs[p] / fb[p] for p in both])
        all_s = max((fs[p] for p in both), default=0)
        all_b = max((fb[p] for p in both), default=0)
        med = float(np.median(ratios)) if both else float("nan")
        medians.append(med)
        q1, q3 = np.percentile(ratios, [25, 75]) if both else (np.nan, np.nan)
        early_s = sum(v < n for v in fs.values())
        early_b = sum(v < n for v in fb.values())
        print(f"  seed {seed}: pairs decided — score {len(fs)}, label {len(fb)}, both "
              f"{len(both)}; before the census (the pool's known bounds settle every pair at "
              f"it): score {early_s}, label {early_b}; per-pair items(score)/items(label): "
              f"median {med:.3f} [IQR {q1:.3f}–{q3:.3f}]; items until all {len(both)} are "
              f"decided: score {all_s}, label {all_b} ({all_s / max(all_b, 1):.3f}) "
              f"[{time.perf_counter() - started:.0f} s]", flush=True)  # fmt: skip
    return medians


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--every", type=int, default=13, help="items between two reads")
    ap.add_argument("--data", nargs="+", choices=list(POOLS), default=list(POOLS))
    args = ap.parse_args()
    for key in args.data:
        medians = bench(key, args.seeds, args.every)
        if medians:
            print(f"{POOLS[key][0]}: median per-pair ratio score/label over {len(medians)} "
                  f"orders: {np.median(medians):.3f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
