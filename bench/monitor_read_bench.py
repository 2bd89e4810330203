"""The live monitor's read after one new label: the full recomputation (every pair's whole
path, what the dashboard did before) against the monitor with its analyses carried between
reads (estimators.caches.monitor), measured in the same run. A benchmark, not a test.

Campaigns (synthetic, binary labels, paired queue, every system's output of an item in a
random order, the app's default live plan: betting design, test-set estimand, Holm):
- 15 systems × 1,875 items, all labelled (the size of a 1,875-item WMT22 pool);
  adequacy rates evenly spread over 0.55–0.80;
- 60 systems × 2,000 items (``--wmt60``), modelled on a WMT25-like spread of quality:
  adequacy rates 0.35 + 0.5·B_s, B_s the (s + ½)/60 quantiles of a Beta(2, 2) — dense in
  the middle (many systems within a point or two of each other, as in the WMT25 human
  rankings), thin at the ends — labelled up to 1,000 items.

Timings: "full" = ``CampaignMonitor(...).report()`` on all labels without a cache (the
reference, every pair's whole path); "after one label" = the same report with the cache
warmed by the read before the last label (the carried states extended by one label,
estimators.live.carry); "undo" = the read after that label is withdrawn again (the
states roll back one read), "redo" = given again; "cold" = the first read with an empty
cache (what the dashboard pays once per server process and campaign; its pairs spread over
the cores when some are idle, MonitorCache.warm: the thread count it chose is printed), and
the same on one thread and on every core whatever the load. Each is printed with its ratio
to "full" measured in the same run, and the load average at the end (threads only help on
idle cores). The reports are checked equal (every pair's p-value and interval: after the
label, after the undo, and the three cold reads), and "carried" says no stream had to be
analysed from its first label again.

    .venv/bin/python bench/monitor_read_bench.py            # 15 × 1,875
    .venv/bin/python bench/monitor_read_bench.py --wmt60    # also 60 × 2,000 (slow: the
                                                            # full read takes minutes)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from estimators.caches.monitor import MAX_THREADS, MonitorCache, default_threads  # noqa: E402
from estimators.live.monitor import CampaignMonitor  # noqa: E402


def campaign(k: int, n: int, n_labelled: int, rates: np.ndarray, seed: int):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    y = (rng.random((k, n)) < rates[:, None]).astype(float)
    order = rng.permutation(n)[:n_labelled]
    items = np.repeat(order, k)
    sys_ = np.concatenate([rng.permutation(k) for _ in range(n_labelled)])
    return y, items, sys_


def wmt_like_rates(k: int) -> np.ndarray:
    return 0.35 + 0.5 * stats.beta(2, 2).ppf((np.arange(k) + 0.5) / k)


def monitor(y, items, sys_, t: int, cache=None) -> CampaignMonitor:  # type: ignore[no-untyped-def]
    k, n = y.shape
    return CampaignMonitor(
        [None] * k, items[:t], sys_[:t], y[sys_[:t], items[:t]], np.arange(t, dtype=float),
        np.ones(t), present=np.ones((k, n), dtype=bool), design="betting", finite_pool=True,
        cache=cache,
    )  # fmt: skip


def timed(fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run(name: str, k: int, n: int, n_labelled: int, rates: np.ndarray) -> None:
    y, items, sys_ = campaign(k, n, n_labelled, rates, seed=k)
    t_all = items.size
    one, every = MonitorCache(threads=1), MonitorCache(threads=min(MAX_THREADS, os.cpu_count()))
    alone, cold1 = timed(lambda: monitor(y, items, sys_, t_all - 1, one).report())
    spread, cold_all = timed(lambda: monitor(y, items, sys_, t_all - 1, every).report())
    policy = default_threads()
    cache = MonitorCache()
    first, cold = timed(lambda: monitor(y, items, sys_, t_all - 1, cache).report())
    built = cache.rebuilt
    carried, warm = timed(lambda: monitor(y, items, sys_, t_all, cache).report())
    extended = cache.rebuilt == built  # the new label extended the carried states
    undone, undo = timed(lambda: monitor(y, items, sys_, t_all - 1, cache).report())
    _, redo = timed(lambda: monitor(y, items, sys_, t_all, cache).report())
    rolled = cache.rebuilt == built  # the undo rolled back, the redo extended again
    full, whole = timed(lambda: monitor(y, items, sys_, t_all).report())
    before = monitor(y, items, sys_, t_all - 1).report()
    same = all(
        a.p_value == b.p_value and a.result.ci == b.result.ci
        for x, z in ((carried, full), (undone, before), (first, before), (alone, before),
                     (spread, before))
        for a, b in zip(x.pairs, z.pairs, strict=True)
    )
    print(f"{name:28s} pairs {len(full.pairs):>5d}  full {whole:7.2f} s | after one label "
          f"{warm:6.3f} s (ratio {warm / whole:.4f})  undo {undo:6.3f} s (ratio "
          f"{undo / whole:.4f})  redo {redo:6.3f} s | cold {cold:7.2f} s (ratio "
          f"{cold / whole:.2f}, {policy} thread(s); one thread {cold1:.2f} s, "
          f"{every.threads} threads {cold_all:.2f} s) | equal {same}, carried "
          f"{extended and rolled} | load {' '.join(f'{x:.1f}' for x in os.getloadavg())}",
          flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wmt60", action="store_true", help="also 60 systems × 2,000 items")
    ap.add_argument("--items60", type=int, default=1000, help="items labelled at 60 systems")
    args = ap.parse_args(argv)
    run("15 × 1,875, all labelled", 15, 1875, 1875, np.linspace(0.55, 0.80, 15))
    if args.wmt60:
        run(f"60 × 2,000, {args.items60:,} labelled", 60, 2000, args.items60, wmt_like_rates(60))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
