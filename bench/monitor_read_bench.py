"""The live monitor's read after one new label: the full recomputation (every pair's whole
path, what the dashboard did before) against the monitor with its analyses carried between
reads (estimators.monitor_cache), measured in the same run. A benchmark, not a test.

Campaigns (synthetic, binary labels, paired queue, every system's output of an item in a
random order, the app's default live plan: betting design, test-set estimand, Holm):
- 15 systems × 1,875 items, all labelled (the size of the issue's 1,875-item pool);
  adequacy rates evenly spread over 0.55–0.80;
- 60 systems × 2,000 items (``--wmt60``), modelled on a WMT25-like spread of quality:
  adequacy rates 0.35 + 0.5·B_s, B_s the (s + ½)/60 quantiles of a Beta(2, 2) — dense in
  the middle (many systems within a point or two of each other, as in the WMT25 human
  rankings), thin at the ends — labelled up to 1,000 items.

Timings: "full" = ``CampaignMonitor(...).report()`` on all labels; "carried" = the same
report with the cache warmed by the read before the last label; "cold" = the first read
with an empty cache (what the dashboard pays once per server process and campaign). The
reports are checked equal (every pair's p-value and interval).

    .venv/bin/python bench/monitor_read_bench.py            # 15 × 1,875
    .venv/bin/python bench/monitor_read_bench.py --wmt60    # also 60 × 2,000 (slow: the
                                                            # full read takes minutes)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from estimators.monitor import CampaignMonitor  # noqa: E402
from estimators.monitor_cache import MonitorCache  # noqa: E402


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


def run(name: str, k: int, n: int, n_labelled: int, rates: np.ndarray) -> None:
    y, items, sys_ = campaign(k, n, n_labelled, rates, seed=k)
    t_all = items.size
    cache = MonitorCache()
    t0 = time.perf_counter()
    monitor(y, items, sys_, t_all - 1, cache).report()
    cold = time.perf_counter() - t0
    misses = cache.misses
    t0 = time.perf_counter()
    carried = monitor(y, items, sys_, t_all, cache).report()
    warm = time.perf_counter() - t0
    touched = cache.misses - misses  # recomputed on the second read
    t0 = time.perf_counter()
    full = monitor(y, items, sys_, t_all).report()
    whole = time.perf_counter() - t0
    same = all(
        a.p_value == b.p_value and a.result.ci == b.result.ci
        for a, b in zip(carried.pairs, full.pairs, strict=True)
    )
    print(f"{name:28s} pairs {len(full.pairs):>5d}  full {whole:8.2f} s  carried {warm:7.2f} s "
          f"(ratio {warm / whole:.3f}; {touched} streams recomputed)  cold {cold:8.2f} s  "
          f"equal {same}", flush=True)  # fmt: skip


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
