"""Active vs uniform labelling on every real pair (docs/statistics-notes.md §22, §24). A benchmark.

For each real pair (A, B) of bench/labels_to_significance.py's data sets and R random item
orders, the queue's two designs are replayed on the recorded human labels
(:func:`tests.support.simulation.simulate_active`; the labels are the fixed judgments of the
pool, so the truth is the whole-pool difference):

- uniform — every visited item labelled (π = 1), increments mean_pool(ŷ) + (D − ŷ_D) with
  the predictable binned-chrF ŷ of estimators.sampling.active (the same ŷ as active, so the columns
  differ only by the design);
- active — items visited in the same kind of random order, each labelled with probability
  π = τ·b + (1 − τ)·b·u/ū from the binned uncertainty model refitted every 50 visits on the
  labels so far (b = 0.5, τ = 0.3), weighted by 1/π.

n80 = the smallest label count n at which ≥ 80 % of orders give a fixed-n interval
(:func:`estimators.sampling.active.fixed_n`, t quantile) excluding 0 with the true sign; live = the
median number of labels at which the anytime-valid confidence sequence (AsympCS, t* = N,
the monitor's variance prior for binary labels) first excludes 0 with the right sign
(inf when under half of the orders get there). Savings = 1 − active/uniform, per data set,
both ways: active loses where the metric's uncertainty carries no information.

    .venv/bin/python bench/active_significance.py            # R = 300
    .venv/bin/python bench/active_significance.py --orders 50
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from estimators.sequences import confidence_sequences as csq  # noqa: E402
from tests.support.simulation import simulate_active  # noqa: E402

RATE, TAU, LEVEL, POWER, MIN_N = 0.5, 0.3, 0.95, 0.8, 30


def _labels_at(labelled: np.ndarray) -> np.ndarray:
    """(reps, N+1): the visit count after which the n-th label arrived (inf: never)."""
    reps, t_len = labelled.shape
    out = np.full((reps, t_len + 1), np.inf)
    cum = np.cumsum(labelled, axis=1)
    for r in range(reps):
        idx = np.searchsorted(cum[r], np.arange(1, t_len + 1))  # first t with cum ≥ n
        ok = idx < t_len
        out[r, 1:][ok] = idx[ok] + 1
    return out


def design_columns(ya, yb, ga, gb, *, orders: int, seed: int, binary: bool) -> dict:
    """n80 and live stopping labels of the uniform and the active design for one pair."""
    y = np.stack([ya, yb])
    g = np.stack([ga, gb])
    n_items = ya.size
    sign = 1.0 if ya.mean() > yb.mean() else -1.0
    out = {}
    for name, rate in (("uniform", 1.0), ("active", RATE)):
        rng = np.random.default_rng(seed)
        run = simulate_active(rng, y, g, (0, 1), reps=orders, visits=n_items, rate=rate,
                              tau=TAU, model="binned", labels=y)  # fmt: skip
        z = run.z
        t = np.arange(1, n_items + 1)
        mean = np.cumsum(z, axis=1) / t
        var = np.maximum(np.cumsum(z * z, axis=1) / t - mean**2, 0) * t / np.maximum(t - 1, 1)
        at = _labels_at(run.labelled)
        power = []
        for n in range(MIN_N, n_items + 1):
            tn = at[:, n]
            ok = np.isfinite(tn)
            idx = np.where(ok, tn, 1).astype(int) - 1
            m, v = mean[np.arange(orders), idx], var[np.arange(orders), idx]
            half = stats.t.ppf(1 - (1 - LEVEL) / 2, n - 1) * np.sqrt(v / (idx + 1))
            hit = ok & ((m - half > 0) if sign > 0 else (m + half < 0))
            power.append(hit.mean())
        power = np.maximum.accumulate(np.array(power))
        reach = np.flatnonzero(power >= POWER)
        out[f"n80 {name}"] = float(MIN_N + reach[0]) if reach.size else math.inf
        # the monitor's variance prior (binary: D in [−1, 1]), per label: a visit carries
        # b labels on average, so its increments' variance is ≈ 1/b times larger
        prior = (1.0 if binary else 0.0) / rate
        # both sequences tuned to the same planned budget b·N labels: t* counts labels for
        # uniform and visits (N of them bring ≈ b·N labels) for active
        t_star = RATE * n_items if rate >= 1 else n_items
        cs = csq.asymptotic_cs(z, 1 - LEVEL, t_star=t_star, var_prior=prior)
        labels = np.cumsum(run.labelled, axis=1)
        # no verdict below 30 labels (the monitor's floor), whatever the visits
        hit = ((cs.lower > 0) if sign > 0 else (cs.upper < 0)) & (labels >= MIN_N)
        first = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
        stop = np.where(first >= 0, labels[np.arange(orders), np.maximum(first, 0)], np.inf)
        out[f"live {name}"] = float(np.median(stop))
        out[f"labels {name}"] = float(run.labels.mean())
    return out


def saving(active: float, uniform: float) -> float:
    if not (math.isfinite(active) and math.isfinite(uniform)):
        return math.nan
    return 1 - active / uniform


def main(argv: list[str] | None = None) -> int:
    import pools

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--orders", type=int, default=300)
    args = ap.parse_args(argv)
    t0 = time.time()
    pools = pools.load_chaganty(False) + pools.load_wmt(False)
    rows = []
    for p_i, pool in enumerate(pools):
        wmt = pool.name.startswith("wmt")
        binary = set(np.unique(pool.y)) <= {0.0, 1.0}
        g = pool.metrics["chrF"]
        y = pool.y if not pool.name.endswith("HTER") else -pool.y  # higher = better
        for a, b in pools.select_pairs(pool, 0.06 if wmt else 0.0, 8 if wmt else 99):
            cols = design_columns(y[:, a], y[:, b], g[:, a], g[:, b], orders=args.orders,
                                  seed=1000 * p_i + 10 * a + b, binary=binary)  # fmt: skip
            rows.append({"pool": pool.name, "A": pool.systems[a], "B": pool.systems[b],
                         "delta": float(y[:, a].mean() - y[:, b].mean()), **cols})  # fmt: skip
            r = rows[-1]
            print(f"{r['pool']:20s} {(r['A'] + ' vs ' + r['B'])[:30]:30s} {r['delta']:+.3f} "
                  f"n80 uniform {r['n80 uniform']:5.0f} active {r['n80 active']:5.0f}  "
                  f"live uniform {r['live uniform']:5.0f} active {r['live active']:5.0f}",
                  flush=True)  # fmt: skip
    print(f"\nper data set (R = {args.orders} orders; saving = 1 − active/uniform, labels;")
    print("pairs whose uniform n80 exceeds the active budget b·N are left out and counted):")
    for name in dict.fromkeys(r["pool"] for r in rows):
        mine = [r for r in rows if r["pool"] == name]
        for kind in ("n80", "live"):
            budget = [r for r in mine if r[f"{kind} uniform"] <= 0.9 * r["labels active"]]
            s = [saving(r[f"{kind} active"], r[f"{kind} uniform"]) for r in budget]
            lost = sum(not math.isfinite(x) for x in s)  # active never got there
            s = [x for x in s if math.isfinite(x)]
            if s:
                print(f"  {name:20s} {kind:4s}: median saving {100 * np.median(s):+5.1f}% "
                      f"(range {100 * min(s):+.0f}% … {100 * max(s):+.0f}%; active loses in "
                      f"{sum(x < 0 for x in s) + lost}/{len(s) + lost} pairs; "
                      f"{len(mine) - len(budget)} beyond the budget)")  # fmt: skip
    print(f"\ntotal {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
