"""Cost and widths of the betting sequence's exact ends against the 61-point grid search.

Times estimators.sequences.betting.betting_cs (exact ends: a bracket search on the capital)
against the grid search it replaced (a 61-mean grid, 17 points refined inside each end's
cell, the running mean ± one grid step when no grid mean survives; copied below from the
previous betting.py so both run in the same process), as a ratio measured in the same run,
and prints the last interval of each on the score case of
tests/estimators/sequences/test_betting_exact_ends.py (2 systems, N = 2,000, Δ = +0.0126;
pair differences on [−1, 1], t* = 2,000, test-set estimand, level 0.05).

    PYTHONPATH=. .venv/bin/python bench/betting_exact_bench.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from estimators.sequences import betting
from estimators.sequences import sequential as seq


def old_betting_cs(z, alpha, *, bounds, t_star, pool_size, grid=61, refine=17):  # type: ignore[no-untyped-def]
    """The grid search (last interval only): survivors of a 61-mean grid, refined with 17
    points inside each end's cell and widened by one fine step; running mean ± one grid
    step when no grid mean survives."""
    lo, hi = bounds
    span = hi - lo
    x01 = np.clip((np.asarray(z) - lo) / span, 0.0, 1.0)
    m = np.linspace(0.0, 1.0, grid)[1:-1]
    step = 1.0 / (grid - 1)
    thr = math.log(1.0 / alpha)
    args = (alpha, t_star, seq.BURN_IN, True, pool_size)
    run = betting._running_log_capital(x01, m, *args)
    alive = run[:, -1] < thr
    if alive.any():
        f, g = int(np.argmax(alive)), int(alive.size - 1 - np.argmax(alive[::-1]))
    else:
        f, g = 0, m.size - 1
    cell_lo = np.linspace(max(m[f] - step, 1e-9), m[f], refine)
    cell_hi = np.linspace(m[g], min(m[g] + step, 1 - 1e-9), refine)
    fine = step / (refine - 1)
    ok_lo = betting._running_log_capital(x01, cell_lo, *args)[:, -1] < thr
    ok_hi = betting._running_log_capital(x01, cell_hi, *args)[:, -1] < thr
    centre = x01.mean()
    low, high = max(centre - step, 0.0), min(centre + step, 1.0)
    if alive.any() or ok_lo.any():
        low = max(cell_lo[np.argmax(ok_lo)] - fine, 0.0) if ok_lo.any() else m[f] - fine
        high = (min(cell_hi[len(ok_hi) - 1 - np.argmax(ok_hi[::-1])] + fine, 1.0)
                if ok_hi.any() else m[g] + fine)  # fmt: skip
    return low * span + lo, high * span + lo


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    z1, z2 = rng.standard_normal(2000), rng.standard_normal(2000)
    ya = np.clip(0.85 + 0.10 * z1, 0, 1)
    d = ya - np.clip(ya - 0.012 + 0.03 * z2, 0, 1)
    kw = dict(bounds=(-1.0, 1.0), t_star=2000, pool_size=2000)
    print(f"true pool Δ = {d.mean():+.4f}")
    print(f"{'t':>6} {'grid [lo, hi]':>24} {'width':>8} {'exact [lo, hi]':>24} {'width':>8}"
          f" {'grid s':>8} {'exact s':>8} {'ratio':>6}")  # fmt: skip
    for t in (200, 400, 1000, 1900):
        old_t, new_t = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            o = old_betting_cs(d[:t], 0.05, **kw)
            t1 = time.perf_counter()
            cs = betting.betting_cs(d[:t], 0.05, **kw)
            t2 = time.perf_counter()
            old_t.append(t1 - t0)
            new_t.append(t2 - t1)
        n = (float(cs.lower[-1]), float(cs.upper[-1]))
        go, gn = float(np.median(old_t)), float(np.median(new_t))
        print(f"{t:>6} [{o[0]:+.4f}, {o[1]:+.4f}]{'':>6} {o[1] - o[0]:>8.4f} "
              f"[{n[0]:+.4f}, {n[1]:+.4f}]{'':>6} {n[1] - n[0]:>8.4f} {go:>8.4f} {gn:>8.4f}"
              f" {gn / go:>6.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
