"""Wrong-signed reads of the live dashboard: how often a pair is shown "A better" (or "B
better") against the sign of its whole-pool difference, read after every item. A benchmark,
not a test.

The route is ranking_route_bench's (the paired queue labels every system's output of one
item after another, test-set estimand, default betting design, Holm at α = 0.05, the plan
for a smallest difference of 0.10, tuned to min(plan, pool)), over R random item orders per
pool. Reading ``CampaignMonitor.report()`` after every item of every order is out of reach
(≈ 7 s per read at 13 systems), so the bench screens the reads with the p-value paths of
ranking_route_bench.pair_pvalues (Holm over the pairs, the 30-label floor) and reads
``report()`` only where a wrong side can show: a pair Holm rejects while its label mean Δ̂_t
is 0 or has the other sign than the pool's Δ (or while Δ = 0). A side claimed elsewhere —
with Δ̂_t on the true side — is wrong only if the shown interval excludes both Δ̂_t and Δ;
the verdict rule in force (estimators.base.verdicts.read_outcome) never claims a side against
Δ̂_t, and the rule before it took the side from Δ̂_t clipped into the interval, so the
screen misses only reads of the old rule whose Bonferroni interval missed Δ.

Pools: every shipped binary pool (WMT21 TED en-de, 13 systems; Chaganty CNN/DM, 4
systems), Chaganty 1 − HTER, and a minimal case (2 binary systems, N = 200,
Δ = −0.005: independent coin flips adjusted to that difference, a fixed seed).

Before/after: run this file on the commit before the fix and on the fix (the monitor is
imported from the tree the file sits in).

    .venv/bin/python bench/wrong_sign_bench.py            # R = 200 orders per pool
    .venv/bin/python bench/wrong_sign_bench.py --quick    # smoke run (20 orders)
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from labels_to_significance import MIN_N, Pool, load_chaganty, load_wmt  # noqa: E402
from pools import load_newstest  # noqa: E402
from ranking_route_bench import ALPHA, SMALLEST_DIFFERENCE, pair_pvalues  # noqa: E402

from annotation.campaign.live_plan import forecast_planned_labels  # noqa: E402
from estimators.base.multiple import holm, pairs  # noqa: E402
from estimators.live.monitor import CampaignMonitor  # noqa: E402

CHUNK = 50


def minimal_pool(seed: int = 37, n: int = 200) -> Pool:
    """The minimal case: two binary systems, pool Δ = −1/N."""
    rng = np.random.default_rng(seed)
    a = (rng.random(n) < 0.5).astype(float)
    b = (rng.random(n) < 0.5).astype(float)
    need = round((a.mean() + 1 / n) * n - b.sum())
    idx = np.where(b == (0 if need > 0 else 1))[0][: abs(need)]
    b[idx] = 1 if need > 0 else 0
    return Pool(name="minimal 2×200", systems=["A", "B"], y=np.stack([a, b], axis=1), metrics={})


def report_at(y: np.ndarray, order: np.ndarray, n_read: int, t_star: int, binary: bool):  # type: ignore[no-untyped-def]
    """The dashboard's report after the first ``n_read`` items of ``order``."""
    n, k = y.shape
    items = np.repeat(order[:n_read], k)
    sys_ = np.tile(np.arange(k), n_read)
    return CampaignMonitor(
        [None] * k, items, sys_, y[items, sys_], np.arange(items.size, dtype=float),
        np.ones(items.size), present=np.ones((k, n), dtype=bool), design="betting",
        finite_pool=True, t_star=t_star, label_range=(0.0, 1.0), alpha=ALPHA,
    ).report()  # fmt: skip


def screen(pool: Pool, r_orders: int, seed: int) -> dict:
    y = pool.y
    n, k = y.shape
    plist = pairs(k)
    m = len(plist)
    t_star = int(min(forecast_planned_labels(k, SMALLEST_DIFFERENCE, ALPHA), n))
    delta = np.array([y[:, a].mean() - y[:, b].mean() for a, b in plist])
    truth = np.where(np.abs(delta) < 1e-12, 0.0, np.sign(delta))
    rng = np.random.default_rng(seed)
    orders = np.stack([rng.permutation(n) for _ in range(r_orders)])
    t = np.arange(1, n + 1)
    reads: dict[tuple[int, int], list[int]] = {}
    for c in range(0, r_orders, CHUNK):
        o = orders[c : c + CHUNK]
        p = pair_pvalues(y[o], tuning=ALPHA / m, t_star=t_star, known=True)  # (R, m, N)
        rej = np.swapaxes(holm(np.swapaxes(p, 1, 2), ALPHA).reject, 1, 2)  # (R, m, N)
        rej &= (t[None, None, :] >= MIN_N) | (p == 0.0)
        for j, (a, b) in enumerate(plist):
            est = np.cumsum((y[:, a] - y[:, b])[o], axis=1)  # sign of Δ̂_t
            sign = np.where(np.abs(est) < 1e-9, 0.0, np.sign(est))
            cand = rej[:, j] & ((sign != truth[j]) | (truth[j] == 0))
            for r, tt in zip(*np.nonzero(cand), strict=True):
                reads.setdefault((c + int(r), int(tt) + 1), []).append(j)
    wrong, orders_wrong, covered = 0, set(), 0
    for (r, n_read), js in sorted(reads.items()):
        rep = report_at(y, orders[r], n_read, t_star, True)
        for j in js:
            st = rep.pairs[j]
            if st.decided:
                shown = 1.0 if st.outcome == "A better" else -1.0
                if shown != truth[j]:
                    wrong += 1
                    orders_wrong.add(r)
                    lo, hi = st.result.ci
                    covered += int(lo - 1e-12 <= delta[j] <= hi + 1e-12)
    share = len(orders_wrong) / r_orders
    return {"pool": pool.name, "k": k, "N": n, "orders": r_orders, "screened": len(reads),
            "wrong_reads": wrong, "orders_with_wrong": len(orders_wrong), "share": share,
            "se": math.sqrt(max(share * (1 - share), 1e-12) / r_orders),
            "covered": covered, "wrong_orders": sorted(orders_wrong)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 20 orders")
    ap.add_argument("--orders", type=int, default=200)
    ap.add_argument("--pools", default="all", help="comma list of pool names (default all)")
    args = ap.parse_args(argv)
    r_orders = 20 if args.quick else args.orders
    t0 = time.time()
    pools = [minimal_pool(), *load_chaganty(False), *load_wmt(False), *load_newstest()]
    if args.pools != "all":
        pools = [p for p in pools if p.name in args.pools.split(",")]
    print(f"{'pool':20s} {'k':>3s} {'N':>4s} {'orders':>6s} {'screened reads':>14s} "
          f"{'wrong-signed reads':>18s} {'orders with one':>15s} {'share (SE)':>14s} "
          f"{'shown interval holds Δ':>22s}")  # fmt: skip
    for i, pool in enumerate(pools):
        r = screen(pool, r_orders, seed=300 + i)
        print(f"{r['pool']:20s} {r['k']:>3d} {r['N']:>4d} {r['orders']:>6d} "
              f"{r['screened']:>14d} {r['wrong_reads']:>18d} {r['orders_with_wrong']:>15d} "
              f"{r['share']:>7.3f} ({r['se']:.3f}) {r['covered']:>22d}  orders {r['wrong_orders']}",
              flush=True)  # fmt: skip
    print(f"\ntotal {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
