"""Human preference judgments to settle every pair on real data, without and with a judge as
the live verdicts' control. A benchmark, not a test.

Data: WMT21 TED en-de, 13 systems × 529 segments with expert MQM penalties
(/work/shared/data/wmt21-ted-mqm). A human preference between two systems' outputs of a
segment is derived from MQM: the lower penalty wins, equal penalties tie. The estimand of a
pair is its win rate with ties counted half over the 529 segments. Skipped, with the
reason, when ../shared is absent.

Route: the app's pair verdicts (estimators.preference.pairs: betting capital on x − ½ tuned
at α/m, m = 78, Holm at α = 0.05 read after every judgment, 30-judgment floor); pairs drawn
uniformly (lockstep: round t holds t judgments of every pair), each judgment a segment
drawn at random with replacement (the premise of both capitals). Per order and pair: its
judgments until Holm rejects it.

Figures, over the pairs a fixed-n design could settle within the horizon (n80 ≤ 2,000;
n80 = the two-sided z test at α/m with 80 % power at the pair's true win and tie rates,
estimators.preference.planner.fixed_n_needed):

1. humans only: every one of those pairs settled ÷ the fixed-n design that settles them
   all (the largest n80), median and p80 over orders; per pair, its median judgments to a
   verdict ÷ its n80, median and p80 over pairs; beside the oracle bound (the growth-
   optimal constant bet that knows each pair's pool: no valid betting test grows faster
   on average).
2. a judge as the control (estimators.preference.judge_live: ½ label capital + ½ the
   capital on x − c(g − ḡ), c learned from past judgments only, ḡ the judge's mean over the
   pair's 529 segments): judgments to a verdict with ÷ without the judge, per pair (median
   over orders) — median and p80 over pairs and the ratio of the campaign's totals —
   beside the floor 1 − ρ² (ρ the pair's correlation of judge and human outcomes over the
   pool, median over pairs). Judges: chrF (sacrebleu; the higher chrF of the two outputs
   wins, equal ties) — real — and, for scale, synthetic judges that copy the MQM
   preference on a share of the segments and answer at random on the rest (ρ ≈ 0.5, 0.8).

    .venv/bin/python bench/preference_cost_bench.py            # 20 orders
    .venv/bin/python bench/preference_cost_bench.py --orders 6 # quick
    .venv/bin/python bench/preference_cost_bench.py --cost     # CPU-s of one report
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
from pools import DATA  # noqa: E402
from preference_bench import first_rejections, load, oracle_pvalues, outcomes  # noqa: E402

from estimators.base.multiple import pairs  # noqa: E402
from estimators.preference import judge_live  # noqa: E402
from estimators.preference.pairs import pvalue_paths  # noqa: E402
from estimators.preference.planner import fixed_n_needed  # noqa: E402

ALPHA = 0.05
MAX_N80 = 2000
HORIZON = 3 * MAX_N80
#: Synthetic judges: the share of segments on which they copy the MQM preference.
COPY_SHARES = (0.5, 0.8)


def judges(mqm: np.ndarray, chrf_scores: np.ndarray, rng) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    """Per judge, (N, m) its preference for each segment and pair, seen from the pair's
    first system."""
    k = mqm.shape[1]
    plist = pairs(k)
    human = np.stack([outcomes(mqm, a, b, lower_wins=True) for a, b in plist], axis=1)
    out = {"chrF": np.stack([outcomes(chrf_scores, a, b, lower_wins=False) for a, b in plist],
                            axis=1)}  # fmt: skip
    for share in COPY_SHARES:
        copy = rng.random(human.shape) < share
        noise = rng.choice([0.0, 0.5, 1.0], human.shape)
        out[f"synthetic, copies {share:.0%}"] = np.where(copy, human, noise)
    return {"human": human, **out}


def run(orders: int, seed: int) -> None:
    started = time.perf_counter()
    mqm, chrf_scores = load()
    n, k = mqm.shape
    plist = pairs(k)
    m = len(plist)
    rng = np.random.default_rng(seed)
    prefs = judges(mqm, chrf_scores, rng)
    x = prefs.pop("human")
    draws = rng.integers(0, n, size=(orders, m, HORIZON))
    win, tie, n80 = x.mean(axis=0), np.mean(x == 0.5, axis=0), np.zeros(m)
    for j in range(m):
        n80[j] = fixed_n_needed(win[j], tie_rate=tie[j], pairs=m) if win[j] != 0.5 else np.inf
    keep = n80 <= MAX_N80
    p_human = np.ones((orders, m, HORIZON), dtype=np.float32)
    p_oracle = np.ones_like(p_human)
    for j in range(m):
        stream = x[draws[:, j], j]
        p_human[:, j] = pvalue_paths(stream, ALPHA / m)
        p_oracle[:, j] = oracle_pvalues(stream - 0.5, x[:, j] - 0.5)
    first_h = first_rejections(p_human)
    first_o = first_rejections(p_oracle)
    big = n80[keep].max()
    print(f"WMT21 TED en-de MQM preferences: {k} systems, {n} segments, {m} pairs; tie rate "
          f"median {np.median(tie):.2f}; {keep.sum()} pairs with n80 ≤ {MAX_N80} "
          f"(n80 {n80[keep].min():.0f}–{big:.0f}); {orders} orders, horizon {HORIZON} "
          "a pair")  # fmt: skip
    print(f"{'humans only':34s} {'all settled ÷ fixed-n: median':>30s} {'p80':>6s} "
          f"{'per pair ÷ n80: median':>23s} {'p80':>6s}")  # fmt: skip
    for name, first in (("app (betting, Holm)", first_h), ("oracle bet (bound)", first_o)):
        campaign = np.max(first[:, keep], axis=1) / big
        per_pair = np.median(first[:, keep], axis=0) / n80[keep]
        print(f"{name:34s} {np.median(campaign):30.2f} {np.quantile(campaign, 0.8):6.2f} "
              f"{np.median(per_pair):23.2f} {np.quantile(per_pair, 0.8):6.2f}")  # fmt: skip
    print(f"{'judge as the control':34s} {'ρ² median':>10s} {'floor 1 − ρ²':>13s} "
          f"{'with ÷ without: median':>23s} {'p80':>6s} {'sums':>6s} "
          f"{'all settled':>12s}")  # fmt: skip
    for name, g in prefs.items():
        p_judge = np.ones_like(p_human)
        rho2 = np.zeros(m)
        for j in range(m):
            rho2[j] = judge_live.rho(x[:, j], g[:, j]) ** 2
            idx = draws[:, j]
            p_judge[:, j] = judge_live.pvalue_paths(x[idx, j], g[idx, j], g[:, j], ALPHA / m)
        first_j = first_rejections(p_judge)
        both = keep & np.all(np.isfinite(first_h) & np.isfinite(first_j), axis=0)
        ratio = np.median(first_j[:, both], axis=0) / np.median(first_h[:, both], axis=0)
        sums = first_j[:, both].sum() / first_h[:, both].sum()
        campaign = np.median(np.max(first_j[:, keep], axis=1) / np.max(first_h[:, keep], axis=1))
        print(f"{name:34s} {np.median(rho2[keep]):10.3f} {1 - np.median(rho2[keep]):13.3f} "
              f"{np.median(ratio):23.3f} {np.quantile(ratio, 0.8):6.3f} {sums:6.3f} "
              f"{campaign:12.3f}")  # fmt: skip
    print(f"({time.perf_counter() - started:.0f} s)")


def cost() -> None:
    """CPU-seconds of one preference_report (the dashboard's read) without and with a judge
    as the control, in the same run, on a synthetic Davidson world (uniform pairs, a pool
    of 400 sources; the judge copies the outcome on 70 % of the instances)."""
    from estimators.preference import preference_report
    from estimators.preference.judge_live import judge_streams
    from tests.support.preference_worlds import world

    rng = np.random.default_rng(7)
    for k, n in ((13, 5_000), (30, 20_000)):
        prefs = world(rng.normal(0, 0.3, k), 0.5, n, rng)
        sources = rng.integers(0, 400, n)
        judged = {}
        for s_, a, b, x in zip(sources, prefs.a, prefs.b, prefs.outcome, strict=True):
            judged[(int(s_), int(a), int(b))] = float(x) if rng.random() < 0.7 else 0.5
        for src in range(400):  # the rest of every pair's pool
            for a, b in pairs(k):
                judged.setdefault((src, a, b), float(rng.choice([0.0, 0.5, 1.0])))
        streams = judge_streams(prefs, sources, judged, name="judge")
        times = []
        for judge in (None, streams):
            started = time.process_time()
            preference_report(prefs, judge=judge)
            times.append(time.process_time() - started)
        ratio = times[1] / times[0]
        print(f"preference_report, {k} systems, {n:,} judgments: {times[0]:.2f} CPU-s humans "
              f"only, {times[1]:.2f} with a judge as the control ({ratio:.2f}×)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2021)
    parser.add_argument("--cost", action="store_true", help="time preference_report only")
    args = parser.parse_args()
    if args.cost:
        cost()
        return
    if not (DATA / "wmt21-ted-mqm" / "wmt21_ted_ende.csv").exists():
        print(
            f"skipped: the shipped data are not at {DATA} (../shared/data beside the "
            "repository); nothing measured"
        )
        return
    run(args.orders, args.seed)


if __name__ == "__main__":
    main()
