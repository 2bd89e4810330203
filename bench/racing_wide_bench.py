"""Racing at WMT25 size: 60 systems (1,770 pairs) on a ~2,000-item pool. A benchmark, not
a test.

Reading ``CampaignMonitor.report()`` after every item at 60 systems is out of reach on this
machine (bench/monitor_read_bench.py: seconds per read), so this bench computes each pair's
settling time from the same quantities on arrays, for all 1,770 pairs at once:

- "better": Holm at α = 0.05 over all m pairs on the betting p-values of the app's default
  design (estimators.betting.betting_pvalue: tuned at α/m, the planner's t* for ε clipped
  to the pool, without-replacement null, the 30-label floor) and the known-part rule;
- "no difference larger than ε": the pair's α/m betting sequence excludes Δ = ±ε and ±2ε
  (running maximum of log K ≥ log(m/α); the capital is quasi-convex in θ, so the hull of
  the surviving θ then lies inside (−ε, ε)) or the known part of the pool does, and the
  estimate lies inside ±ε (verdicts.read_outcome);
- a pair settles at the first item count where either holds (both are monotone in t up to
  the estimate rule).

Racing's labels are then Σ_s T_s (T_s: items until system s's last pair settles) and
uniform's k·max_s T_s: a pair's stream under racing is its uniform stream stopped
(docs/statistics-notes.md §8, point 2), so this is racing's total up to the read
granularity (reads after every item here) — "oracle racing" of bench/racing_bench.py, equal
to the replayed racing in every order measured there. ``--check`` replays a small campaign
through annotation.racing_replay (the real monitor) and compares the settling reads.

Pools: k systems with adequacy rates p_s = 0.35 + 0.5·Beta(2, 2) quantiles at
(s + ½)/k (bench/monitor_read_bench.py's wmt_like_rates: a smooth spread, neighbours
≈ 0.006 apart) or ``--clusters C``: C clusters at those quantiles, systems inside a cluster
within ±0.01 (WMT25's published human rankings had several clusters). Labels: correlated
binary, y_{s,j} = 1{√0.5 u_j + √0.5 e_{s,j} < Φ⁻¹(p_s)} (u_j the item's difficulty, shared;
statistics.md §6's generator, probit form), so the pairs' differences are paired as in real
data. Nulls: every system's labels a permutation of one base column (Δ = 0 exactly).

    .venv/bin/python bench/racing_wide_bench.py --orders 5 --nulls 20
    .venv/bin/python bench/racing_wide_bench.py --check
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
from racing_bench import ideal_ratio  # noqa: E402
from scipy import stats  # noqa: E402

from annotation.live_plan import forecast_planned_labels  # noqa: E402
from estimators import betting  # noqa: E402
from estimators.multiple import holm, pairs  # noqa: E402
from estimators.sequential import BURN_IN  # noqa: E402

ALPHA = 0.05
EPS = 0.10
TOL = 1e-9
BLOCK = 200  # pairs per vectorised block


def rates(k: int, clusters: int = 0, seed: int = 0) -> np.ndarray:
    """Adequacy rates of k systems (module docstring)."""
    q = 0.35 + 0.5 * stats.beta(2, 2).ppf((np.arange(k) + 0.5) / k)
    if not clusters:
        return q
    centres = 0.35 + 0.5 * stats.beta(2, 2).ppf((np.arange(clusters) + 0.5) / clusters)
    jitter = np.random.default_rng(seed).uniform(-0.01, 0.01, k)
    return np.sort(centres[np.arange(k) * clusters // k] + jitter)


def labels(p: np.ndarray, n: int, seed: int) -> np.ndarray:
    """(n, k) correlated binary labels with P(y_s = 1) = p_s (module docstring)."""
    rng = np.random.default_rng(seed)
    latent = math.sqrt(0.5) * rng.standard_normal((n, 1)) + math.sqrt(0.5) * rng.standard_normal(
        (n, p.size)
    )
    return (latent < stats.norm.ppf(p)[None, :]).astype(float)


def settle_times(yo: np.ndarray, eps: float, t_star: float) -> tuple[np.ndarray, np.ndarray]:
    """(m,) first item count at which each pair settles (∞: never) and (m,) its kind
    (+1/−1 a side, 0 equivalence), for labels in arrival order ``yo`` (N, k)."""
    n, k = yo.shape
    plist = pairs(k)
    m = len(plist)
    tune, thr = ALPHA / m, math.log(m / ALPHA)
    t = np.arange(1, n + 1)
    p_all = np.empty((m, n))
    eq_all = np.zeros((m, n), dtype=bool)
    sgn_all = np.zeros((m, n))
    for c in range(0, m, BLOCK):
        idx = np.array(plist[c : c + BLOCK])
        d = yo[:, idx[:, 0]].T - yo[:, idx[:, 1]].T  # (B, N)
        s = np.cumsum(d, axis=1)
        p = betting.betting_pvalue(d, 0.0, bounds=(-1.0, 1.0), alpha_tuning=tune,
                                   t_star=t_star, pool_size=n)  # fmt: skip
        p_all[c : c + len(idx)] = np.where(np.abs(s) > n - t + TOL, 0.0, p)
        eq_all[c : c + len(idx)] = _equivalent(d, s, n, eps, tune, t_star, thr)
        sgn_all[c : c + len(idx)] = np.sign(s)
    p_all = np.minimum.accumulate(p_all, axis=1)
    rej = holm(p_all.T, ALPHA).reject.T  # (m, N)
    rej &= (t[None, :] >= BURN_IN) | (p_all == 0.0)
    rej &= sgn_all != 0
    done = rej | eq_all
    first = np.where(done.any(axis=1), done.argmax(axis=1) + 1.0, np.inf)
    at = np.clip(first, 1, n).astype(int) - 1
    kind = np.where(rej[np.arange(m), at], sgn_all[np.arange(m), at], 0.0)
    return first, kind


def _equivalent(d, s, n, eps, tune, t_star, thr):  # type: ignore[no-untyped-def]
    """(B, N): the α/m sequence (∩ the known part) lies inside (−ε, ε) and so does Δ̂."""
    t = np.arange(1, n + 1)
    x01 = (d + 1.0) / 2.0
    out = np.abs(s / t) < eps
    for theta in (eps, -eps, 2 * eps, -2 * eps):
        log_k = betting.wor_log_capital(x01, np.asarray((theta + 1.0) / 2.0), tune, t_star, n)
        log_k = np.where(t[None, :] < BURN_IN, -np.inf, log_k)
        gone = np.maximum.accumulate(log_k, axis=1) >= thr
        known = (s + (n - t)) / n < theta if theta > 0 else (s - (n - t)) / n > theta
        out &= gone | known
    return out


def race(y: np.ndarray, order: np.ndarray, eps: float, t_star: float) -> dict:
    """Racing vs uniform labels for one item order (module docstring)."""
    n, k = y.shape
    first, kind = settle_times(y[order], eps, t_star)
    ends = np.zeros(k)
    for (a, b), f in zip(pairs(k), first, strict=True):
        ends[[a, b]] = np.maximum(ends[[a, b]], min(f, n))
    left = int(np.sum(~np.isfinite(first)))
    return {"uniform": k * ends.max(), "racing": ends.sum(), "unsettled": left,
            "first": first, "kind": kind}  # fmt: skip


def false_claims(y: np.ndarray, res: dict, eps: float) -> int:
    """Pairs settled against the truth: a side against the pool's Δ (or at Δ = 0), or "no
    difference larger than ε" with |Δ| > ε."""
    k = y.shape[1]
    delta = np.array([y[:, a].mean() - y[:, b].mean() for a, b in pairs(k)])
    fin = np.isfinite(res["first"])
    side = fin & (res["kind"] != 0) & (res["kind"] != np.sign(delta))
    equiv = fin & (res["kind"] == 0) & (np.abs(delta) > eps)
    return int(np.sum(side | equiv))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--k", type=int, default=60)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--orders", type=int, default=5)
    ap.add_argument("--nulls", type=int, default=20)
    ap.add_argument("--null-n", type=int, default=0, help="items of the null pools (--n)")
    ap.add_argument("--clusters", type=int, default=0)
    ap.add_argument("--eps", type=float, default=EPS)
    ap.add_argument("--check", action="store_true", help="compare with report() (small)")
    ap.add_argument("--shipped", action="store_true", help="the shipped pools instead")
    args = ap.parse_args(argv)
    if args.check:
        return check()
    if args.shipped:
        return shipped(args.orders, args.eps)
    p = rates(args.k, args.clusters)
    t_star = min(forecast_planned_labels(args.k, args.eps, ALPHA), args.n)
    print(f"{args.k} systems, {args.n} items, rates {p.min():.3f}–{p.max():.3f} "
          f"({'clusters ' + str(args.clusters) if args.clusters else 'smooth spread'}), "
          f"ε = {args.eps}, t* = {t_star}")  # fmt: skip
    ratios, wrong = [], 0
    for r in range(args.orders):
        t0 = time.time()
        y = labels(p, args.n, seed=1000 + r)
        res = race(y, np.random.default_rng(r).permutation(args.n), args.eps, t_star)
        ratios.append(res["racing"] / res["uniform"])
        bad = false_claims(y, res, args.eps)
        wrong += bad > 0
        print(f"order {r}: uniform {res['uniform']:,.0f}, racing {res['racing']:,.0f}, ratio "
              f"{ratios[-1]:.3f}, unsettled {res['unsettled']}, ideal fixed-n "
              f"{ideal_ratio(y.T, args.eps):.3f}, false claims {bad} [{time.time() - t0:.0f} s]",
              flush=True)  # fmt: skip
    r_ = np.array(ratios) if ratios else np.array([math.nan])
    se = r_.std(ddof=1) / math.sqrt(r_.size) if r_.size > 1 else math.nan
    print(f"racing ÷ uniform: mean {r_.mean():.3f} (SE {se:.3f}), range {r_.min():.3f}–"
          f"{r_.max():.3f}; campaigns with a false claim {wrong}/{args.orders}")  # fmt: skip
    null_n = args.null_n or args.n
    nulls(args.k, null_n, args.nulls, args.eps, min(t_star, null_n))
    return 0


def shipped(orders: int, eps: float) -> int:
    """Racing ÷ uniform on every shipped pool with this harness (reads after every item),
    beside the ideal fixed-n racing of bench/racing_bench.py (knows Δ and σ, no anytime
    cost): the issue's "racing ≤ 1.05× the ideal racing"."""
    from labels_to_significance import load_chaganty, load_wmt
    from pools import load_newstest

    for pool in [*load_wmt(False), *load_chaganty(False), *load_newstest()]:
        y = pool.y
        n, k = y.shape
        t_star = min(forecast_planned_labels(k, eps, ALPHA), n)
        ideal = ideal_ratio(y.T, eps)
        rs = [race(y, np.random.default_rng(r).permutation(n), eps, t_star) for r in range(orders)]
        ratio = np.array([r["racing"] / r["uniform"] for r in rs])
        se = ratio.std(ddof=1) / math.sqrt(ratio.size) if ratio.size > 1 else math.nan
        left = sum(r["unsettled"] for r in rs)
        bad = sum(false_claims(y, r, eps) > 0 for r in rs)
        print(f"{pool.name:20s} k={k:>2d} N={n:>4d}: racing ÷ uniform {ratio.mean():.3f} "
              f"(SE {se:.3f}, {ratio.min():.3f}–{ratio.max():.3f}), ideal {ideal:.3f}, "
              f"÷ ideal {ratio.mean() / ideal:.3f}; unsettled pairs {left}, orders with a "
              f"false claim {bad}/{orders}", flush=True)  # fmt: skip
    return 0


def nulls(k: int, n: int, runs: int, eps: float, t_star: float) -> None:
    """Campaigns with every Δ exactly 0: share with any pair settled as better, to the census."""
    if not runs:
        return
    rng = np.random.default_rng(7)
    base = (rng.random(n) < 0.6).astype(float)
    hits = 0
    for _ in range(runs):
        y = base[np.argsort(rng.random((k, n)), axis=1)].T  # (n, k), each a permutation
        res = race(y, np.arange(n), eps, t_star)
        hits += int(np.any(np.isfinite(res["first"]) & (res["kind"] != 0)))
    se = math.sqrt(max(hits / runs * (1 - hits / runs), ALPHA * (1 - ALPHA)) / runs)
    print(f"nulls ({k} systems, {n} items, to the census): {hits}/{runs} campaigns with a "
          f"false 'better' (FWER {hits / runs:.3f}, SE {se:.3f})", flush=True)  # fmt: skip


def check(k: int = 6, n: int = 240, every: int = 10, orders: int = 3) -> int:
    """Settling reads of this harness vs the monitor's report() (uniform replay)."""
    from annotation.racing import settled_pairs
    from annotation.racing_replay import replay

    p = rates(k)
    t_star = min(forecast_planned_labels(k, EPS, ALPHA), n)
    names = [f"S{s}" for s in range(k)]
    agree = exact = total = 0
    for r in range(orders):
        y = labels(p, n, seed=50 + r)
        order = np.random.default_rng(r).permutation(n)
        first_h, _ = settle_times(y[order], EPS, t_star)
        seen: dict[tuple[str, str], int] = {}

        def note(rep, tot, seen=seen) -> None:  # type: ignore[no-untyped-def]
            for pr in settled_pairs(rep):
                seen.setdefault(pr, tot // k)

        replay(y.T, order, racing=False, every=every, names=names, on_read=note,
               stop_when_settled=False, design="betting", finite_pool=True,
               equivalence_margin=EPS, t_star=t_star, alpha=ALPHA)  # fmt: skip
        for j, (a, b) in enumerate(pairs(k)):
            mon = seen.get((names[a], names[b]), math.inf)
            har = math.ceil(first_h[j] / every) * every if np.isfinite(first_h[j]) else math.inf
            total += 1
            exact += mon == har
            near = np.isfinite(mon) and np.isfinite(har) and abs(mon - har) <= every
            agree += mon == har or near
            print(f"order {r} pair {names[a]}-{names[b]}: monitor {mon}, harness read {har}")
    print(f"{exact}/{total} pairs settle at the same read, {agree}/{total} within one read")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
