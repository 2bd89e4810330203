"""Preference verdicts on real data: judgments to settle every pair ÷ a fixed-n design planned
at α/m, beside the oracle bet. A benchmark, not a test.

Data: WMT21 TED en-de, 13 systems × 529 segments with expert MQM penalties
(/work/shared/data, read as bench/pools.py reads it). A preference between two systems'
outputs of a segment is derived from MQM: the lower penalty wins, equal penalties tie. The
estimand of a pair is its win rate with ties counted half over the 529 segments.

Route: the app's pair verdicts (estimators.preference.pairs: betting capital on x − ½ tuned
at α/m, m = 78 pairs, Holm at α = 0.05 read after every judgment, 30-judgment floor); the
queue draws pairs uniformly, so every pair is judged at the same pace (lockstep: round t
holds t judgments of every pair), each judgment a segment drawn at random (with
replacement). Per order and pair: the judgments of that pair until Holm rejects it.

Figures, over the pairs a fixed-n design could settle within the horizon (n80 ≤ 2,000):
- per pair, (median over orders of its judgments to a verdict) ÷ its fixed-n n80 at α/m
  (two-sided z test, 80 % power, the true win and tie rates:
  estimators.preference.planner.fixed_n_needed), median and 80th percentile over pairs;
- per campaign, the judgments until every one of those pairs is settled ÷ the fixed-n
  design that settles them all (the largest n80: uniform pair sampling), median and p80 over
  orders;
- the same with the bets sized for the pair's planned n (t* = n80, the planner's figure;
  the app's default sizes them for t·log(1 + t));
- the same for the oracle bet: the growth-optimal constant bet λ* = 2(p₊ − p₋)/(p₊ + p₋)
  that knows each pair's pool (p₊, p₋ its shares of wins and losses), the same floor and
  Holm: no valid betting test grows its capital faster on average.

A metric judge as a control: chrF preferences (the higher chrF of the two outputs wins) for
every segment, human preferences for 100 random segments of the 529, the PPI++ win rate
(estimators.preference.judge); the saving 1 − se²_assisted/se²_human per pair (mean over
orders), beside its ceiling ρ²·N_u/N (ρ the correlation of judge and human outcomes): the
ratio of human judgments cannot go below the floor 1 − ρ².

    .venv/bin/python bench/preference_bench.py            # 40 orders
    .venv/bin/python bench/preference_bench.py --quick    # 8 orders
    .venv/bin/python bench/preference_bench.py --cost     # CPU-seconds of one report
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from pools import DATA, chrf  # noqa: E402

from estimators.base.multiple import holm, pairs  # noqa: E402
from estimators.preference.judge import judge_control  # noqa: E402
from estimators.preference.pairs import pvalue_paths  # noqa: E402
from estimators.preference.planner import fixed_n_needed  # noqa: E402
from estimators.sequences.sequential import BURN_IN  # noqa: E402

ALPHA = 0.05
MAX_N80 = 2000
HORIZON = 3 * MAX_N80
JUDGE_LABELS = 100


def load() -> tuple[np.ndarray, np.ndarray]:
    """(MQM penalties (N, k), chrF (N, k)), the systems in name order."""
    df = pd.read_csv(DATA / "wmt21-ted-mqm" / "wmt21_ted_ende.csv")
    df = df.sort_values(["item_id", "system"])
    systems = sorted(df["system"].unique())
    df = df.assign(chrf=chrf(df["output"].fillna("").tolist(), df["reference"].fillna("").tolist()))
    wide = df.pivot(index="item_id", columns="system")
    return wide["mqm_penalty"][systems].to_numpy(float), wide["chrf"][systems].to_numpy(float)


def outcomes(better_low: np.ndarray, a: int, b: int, lower_wins: bool) -> np.ndarray:
    x, y = better_low[:, a], better_low[:, b]
    win = x < y if lower_wins else x > y
    return np.where(win, 1.0, np.where(x == y, 0.5, 0.0))


def oracle_pvalues(z: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """p-value paths of the constant growth-optimal bet for the pool's z = x − ½."""
    up, down = np.mean(pool > 0), np.mean(pool < 0)
    lam = 2 * (up - down) / max(up + down, 1e-12)
    lam = float(np.clip(lam, -1.999, 1.999))
    log_k = np.cumsum(np.log1p(lam * z), axis=-1)
    log_k[..., : BURN_IN - 1] = -np.inf
    p = np.exp(-np.maximum(np.maximum.accumulate(log_k, axis=-1), 0.0))
    return np.minimum(p, 1.0)


def first_rejections(p: np.ndarray) -> np.ndarray:
    """(R, m) first round (1-based) at which Holm over the m pairs rejects each; inf never."""
    reject = holm(np.swapaxes(p, 1, 2), ALPHA).reject  # (R, T, m)
    hit = reject.any(axis=1)
    first = np.argmax(reject, axis=1) + 1.0
    return np.where(hit, first, np.inf)


def run(orders: int, seed: int) -> None:
    started = time.perf_counter()
    mqm, chrf_scores = load()
    n, k = mqm.shape
    plist = pairs(k)
    m = len(plist)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(orders, m, HORIZON))  # each pair's segments, per order
    p_app = np.ones((orders, m, HORIZON), dtype=np.float32)
    p_planned = np.ones_like(p_app)
    p_oracle = np.ones_like(p_app)
    n80, rho2, win, tie = np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m)
    for j, (a, b) in enumerate(plist):
        x = outcomes(mqm, a, b, lower_wins=True)
        g = outcomes(chrf_scores, a, b, lower_wins=False)
        win[j], tie[j] = x.mean(), np.mean(x == 0.5)
        n80[j] = fixed_n_needed(win[j], tie_rate=tie[j], pairs=m) if win[j] != 0.5 else np.inf
        rho2[j] = np.corrcoef(x, g)[0, 1] ** 2 if x.std() > 0 and g.std() > 0 else 0.0
        stream = x[draws[:, j]]
        p_app[:, j] = pvalue_paths(stream, ALPHA / m)
        if np.isfinite(n80[j]):
            p_planned[:, j] = pvalue_paths(stream, ALPHA / m, t_star=min(n80[j], 1e6))
        p_oracle[:, j] = oracle_pvalues(stream - 0.5, x - 0.5)
    keep = n80 <= MAX_N80
    rows = {}
    runs = (("app", p_app), ("app, t* = n80", p_planned), ("oracle bet", p_oracle))
    for name, p in runs:
        first = first_rejections(p)  # (R, m)
        per_pair = np.median(first[:, keep], axis=0) / n80[keep]
        campaign = np.max(first[:, keep], axis=1) / n80[keep].max()
        rows[name] = (np.median(per_pair), np.quantile(per_pair, 0.8),
                      np.median(campaign), np.quantile(campaign, 0.8),
                      np.mean(np.isinf(first[:, keep])))  # fmt: skip
    print(f"WMT21 TED en-de MQM preferences: {k} systems, {n} segments, {m} pairs; "
          f"tie rate median {np.median(tie):.2f}; {keep.sum()} pairs with n80 ≤ {MAX_N80} "
          f"(n80 {n80[keep].min():.0f}–{n80[keep].max():.0f}); {orders} orders, horizon "
          f"{HORIZON} judgments per pair")  # fmt: skip
    head = f"{'per pair ÷ n80: median':>22s} {'p80':>6s} {'campaign ÷ fixed-n: median':>27s}"
    print(f"{'':14s} {head} {'p80':>6s} {'unsettled':>9s}")
    for name, (med, p80, cmed, cp80, miss) in rows.items():
        print(f"{name:14s} {med:22.2f} {p80:6.2f} {cmed:27.2f} {cp80:6.2f} {miss:9.3f}")
    print(f"app ÷ oracle bet (per pair, median): {rows['app'][0] / rows['oracle bet'][0]:.2f}")
    saving = np.zeros(m)
    for j, (a, b) in enumerate(plist):
        x = outcomes(mqm, a, b, lower_wins=True)
        g = outcomes(chrf_scores, a, b, lower_wins=False)
        got = []
        for _ in range(orders):
            order = rng.permutation(n)
            lab, unl = order[:JUDGE_LABELS], order[JUDGE_LABELS:]
            got.append(judge_control(x[lab], g[lab], g[unl]).saving)
        saving[j] = np.mean(got)
    ceiling = rho2 * (n - JUDGE_LABELS) / n
    print(
        f"chrF judge as a control ({JUDGE_LABELS} human judgments of {n} per pair, all {m} "
        f"pairs): ρ² median {np.median(rho2):.3f} (max {rho2.max():.3f}); saving median "
        f"{np.median(saving):+.3f} (max {saving.max():+.3f}) beside its ceiling ρ²·N_u/N "
        f"median {np.median(ceiling):.3f}; human judgments ÷ human-only median "
        f"{1 - np.median(saving):.3f}, floor 1 − ρ² median {1 - np.median(rho2):.3f}"
    )
    print(f"({time.perf_counter() - started:.0f} s)")


def cost() -> None:
    """CPU-seconds of one preference_report (the dashboard's read) on synthetic Davidson
    worlds (tests/support/preference_worlds.py), uniform pairs."""
    from estimators.preference import preference_report
    from tests.support.preference_worlds import world

    rng = np.random.default_rng(7)
    for k, n in ((13, 5_000), (30, 20_000)):
        prefs = world(rng.normal(0, 0.3, k), 0.5, n, rng)
        started = time.process_time()
        preference_report(prefs)
        print(f"preference_report, {k} systems, {n:,} judgments: "
              f"{time.process_time() - started:.2f} CPU-s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=40)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=2021)
    parser.add_argument("--cost", action="store_true", help="time preference_report only")
    args = parser.parse_args()
    if args.cost:
        cost()
        return
    run(8 if args.quick else args.orders, args.seed)


if __name__ == "__main__":
    main()
