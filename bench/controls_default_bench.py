"""Labels to a verdict with and without an imported metric control in the betting capital.

A benchmark, not a test (docs/statistics-notes.md §14). The route is bench/ranking_route_bench.py's:
every pair of a shipped pool, the paired queue (every system on every drawn item), the
test-set estimand (labels without replacement), Holm at α = 0.05 read after every item, the
planner's t* for a smallest difference of 0.10, the 30-label floor and the known-part rule.
"without": the app's capital (estimators.sequences.betting.wor_log_capital; ranking_route_bench's
pair_pvalues). "with": the capital with the pair's control g_A − g_B
(estimators.sequences.betting_control.log_capital_from: ½ the label capital + ½ the controlled
capital). Both read the same orders.

Pools and controls (the control is per output; a pair's is the difference):

- WMT21 TED en-de MQM (13 systems × 529 segments): the REAL sentence chrF of each output
  against its reference (sacrebleu, bench/pools.chrf); binary "no major error" and the
  continuous MQM score 1 + score/25 ∈ [0, 1];
- newstest2020 en-de MQM (10 systems × 1,418 segments; scores only, no text): a SYNTHETIC
  COMET-like control, the human MQM score plus Gaussian noise sized so that the median
  paired correlation with the continuous differences is 0.30 (the earlier measurement of
  COMET-22 on MQM); binary (mean penalty < 5) and continuous;
- Chaganty CNN/DM (4 systems × 485 articles): sentence chrF against the reference
  highlights; binary (overall > 0) and 1 − HTER.

Each pool is also run with a USELESS control (independent noise per output, paired ρ ≈ 0):
the price of the controlled part where it cannot help.

Printed per pool and control: the median paired correlation of the control with the label
differences, the pairs decided within the pool (median over orders) without / with, and
over the pairs decided by both the median and 80th percentile of the per-pair ratio
(median labels to a verdict with) ÷ (without), and the ratio of their sums.

    .venv/bin/python bench/controls_default_bench.py [--orders 100] [--weights 0.5]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from pools import DATA, load_chaganty, load_newstest, load_wmt, wide  # noqa: E402
from ranking_route_bench import (  # noqa: E402
    ALPHA,
    SMALLEST_DIFFERENCE,
    TOL,
    first_holm,
    pair_pvalues,
)

from annotation.campaign.live_plan import forecast_planned_labels  # noqa: E402
from estimators.base.multiple import pairs  # noqa: E402
from estimators.sequences import betting_control as bc  # noqa: E402
from estimators.sequences.sequential import BURN_IN  # noqa: E402

CHUNK = 50
#: The earlier measurement of COMET-22 against MQM: paired (segment-level) correlation.
COMET_LIKE_RHO = 0.30


def controlled_pvalues(yo, go, g, *, tuning, t_star, weight):  # type: ignore[no-untyped-def]
    """(R, m, N) p-value paths of every pair with the pair's control, as
    ranking_route_bench.pair_pvalues reads the label capital (floor, known-part rule)."""
    _, n, k = yo.shape
    t = np.arange(1, n + 1)
    out = []
    for a, b in pairs(k):
        d = yo[:, :, a] - yo[:, :, b]
        p = bc.pvalue_path(
            d, go[:, :, a] - go[:, :, b], g[:, a] - g[:, b], 0.0, bounds=(-1.0, 1.0),
            alpha_tuning=tuning, t_star=t_star, pool_size=n, burn_in=BURN_IN, weight=weight,
        )  # fmt: skip
        p = np.where(np.abs(np.cumsum(d, axis=1)) > n - t + TOL, 0.0, p)
        out.append(np.minimum.accumulate(p, axis=1))
    return np.stack(out, axis=1)


def paired_rho(y: np.ndarray, g: np.ndarray) -> float:
    """Median over pairs of corr(g_A − g_B, y_A − y_B) over the pool."""
    out = []
    for a, b in pairs(y.shape[1]):
        d, c = y[:, a] - y[:, b], g[:, a] - g[:, b]
        if d.std() > 0 and c.std() > 0:
            out.append(np.corrcoef(d, c)[0, 1])
    return float(np.median(out))


def study(y, g, orders, weights):  # type: ignore[no-untyped-def]
    """{arm: (R, m) first verdicts}: "without" and "with w" per weight."""
    n, k = y.shape
    m = len(pairs(k))
    t_star = min(forecast_planned_labels(k, SMALLEST_DIFFERENCE, ALPHA), n)
    res: dict[str, list] = {"without": [], **{f"with {w:g}": [] for w in weights}}
    for c in range(0, len(orders), CHUNK):
        o = orders[c : c + CHUNK]
        yo, go = y[o], g[o]
        res["without"].append(first_holm(pair_pvalues(yo, tuning=ALPHA / m, t_star=t_star,
                                                      known=True)))  # fmt: skip
        for w in weights:
            p = controlled_pvalues(yo, go, g, tuning=ALPHA / m, t_star=t_star, weight=w)
            res[f"with {w:g}"].append(first_holm(p))
    return {arm: np.concatenate(v) for arm, v in res.items()}


def summary(first: dict, base: str = "without") -> dict[str, tuple]:
    """Per arm: (pairs decided, median ratio, p80 ratio, sum ratio) over pairs decided by
    both (median over orders finite)."""
    b = np.median(first[base], axis=0)
    out = {}
    for arm, f in first.items():
        med = np.median(f, axis=0)
        ok = np.isfinite(med) & np.isfinite(b)
        r = med[ok] / b[ok]
        out[arm] = (int(np.isfinite(med).sum()), float(np.median(r)) if r.size else math.nan,
                    float(np.percentile(r, 80)) if r.size else math.nan,
                    float(med[ok].sum() / b[ok].sum()) if r.size else math.nan)  # fmt: skip
    return out


def wmt21_continuous() -> np.ndarray:
    df = pd.read_csv(DATA / "wmt21-ted-mqm" / "wmt21_ted_ende.csv",
                     usecols=["item_id", "system", "human_score"])  # fmt: skip
    systems = sorted(df["system"].unique())
    return np.clip(1.0 + wide(df, systems, "human_score") / 25.0, 0.0, 1.0)


def comet_like(score: np.ndarray, rng, rho: float = COMET_LIKE_RHO) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Human score + N(0, σ²) per output, σ² = median Var(Δh)(1/ρ² − 1)/2 over the pairs, so
    a pair's corr(Δf, Δh) ≈ ρ."""
    var = np.median([np.var(score[:, a] - score[:, b]) for a, b in pairs(score.shape[1])])
    sigma = math.sqrt(var * (1.0 / rho**2 - 1.0) / 2.0)
    return score + sigma * rng.standard_normal(score.shape)


def pools(rng) -> list[tuple[str, str, np.ndarray, np.ndarray]]:  # type: ignore[no-untyped-def]
    """(pool, control name, labels (N, k), control (N, k))."""
    out = []
    wmt = load_wmt(False)[0]
    chrf = wmt.metrics["chrF"]
    out += [("WMT21 TED binary", "chrF (real)", wmt.y, chrf),
            ("WMT21 TED MQM", "chrF (real)", wmt21_continuous(), chrf)]  # fmt: skip
    nt_bin, nt_mqm = load_newstest()
    comet = comet_like(nt_mqm.y, rng)
    out += [("newstest20 binary", "COMET-like (synthetic)", nt_bin.y, comet),
            ("newstest20 MQM", "COMET-like (synthetic)", nt_mqm.y, comet)]  # fmt: skip
    for p in load_chaganty(False):
        out.append((p.name, "chrF (real)", p.y, p.metrics["chrF"]))
    return out


def monitor_route(y, g, orders, every: int) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    """The app's own route, for a check of the harness: CampaignMonitor (design betting vs
    betting_cv, test-set estimand, Holm, the planner's t*), the pool's metric scores per
    system, the paired queue read every ``every`` items with one MonitorCache per replay.
    {design: (orders, pairs) items labelled at each pair's first verdict (∞: never)}."""
    from estimators.caches.monitor import MonitorCache
    from estimators.live.monitor import CampaignMonitor

    n, k = y.shape
    t_star = min(forecast_planned_labels(k, SMALLEST_DIFFERENCE, ALPHA), n)
    out = {}
    for design in ("betting", "betting_cv"):
        firsts = np.full((len(orders), len(pairs(k))), np.inf)
        for r, order in enumerate(orders):
            cache = MonitorCache()
            for t in range(every, n + every, every):
                it = np.repeat(order[:t], k)
                sy = np.tile(np.arange(k), it.size // k)
                rep = CampaignMonitor(
                    [g[:, s] for s in range(k)], it, sy, y[it, sy],
                    np.arange(it.size, dtype=float), np.ones(it.size), design=design,
                    finite_pool=True, t_star=t_star, alpha=ALPHA, cache=cache,
                ).report()  # fmt: skip
                for j, pr in enumerate(rep.pairs):
                    if pr.decided and not np.isfinite(firsts[r, j]):
                        firsts[r, j] = min(t, n)
                if np.isfinite(firsts[r]).all():
                    break
        out[design] = firsts
    return out


def _monitor_check(rng, r_orders: int) -> None:  # type: ignore[no-untyped-def]
    """Chaganty binary through CampaignMonitor: chrF, and the labels + noise at ρ 0.7."""
    pool = load_chaganty(False)[1]
    n = pool.y.shape[0]
    orders = np.stack([rng.permutation(n) for _ in range(r_orders)])
    print(f"\nCampaignMonitor route, {pool.name}, {r_orders} orders, read every 5 items: "
          "items per system at the first verdict, betting_cv ÷ betting (median over orders; "
          "median / p80 over pairs)")  # fmt: skip
    for label, g in (("chrF (real)", pool.metrics["chrF"]),
                     ("labels + noise, ρ 0.7", comet_like(pool.y, rng, 0.7))):  # fmt: skip
        f = monitor_route(pool.y, g, orders, 5)
        b, c = np.median(f["betting"], axis=0), np.median(f["betting_cv"], axis=0)
        ok = np.isfinite(b) & np.isfinite(c)
        r = c[ok] / b[ok]
        print(
            f"  {label:24s} median {np.median(r):.3f} p80 {np.percentile(r, 80):.3f} "
            f"sum {c[ok].sum() / b[ok].sum():.3f} ({ok.sum()} pairs)",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--orders", type=int, default=100)
    ap.add_argument("--weights", default=str(bc.WEIGHT))
    ap.add_argument("--pools", default="all", help="comma-separated name prefixes")
    ap.add_argument(
        "--monitor-orders",
        type=int,
        default=0,
        help="also replay this many orders through CampaignMonitor (Chaganty)",
    )
    ap.add_argument(
        "--rhos",
        default="0.5,0.7",
        help="also: the pool's own labels + noise to these paired correlations "
        "(what a better metric would give)",
    )
    args = ap.parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    rng = np.random.default_rng(30)
    t0 = time.time()
    print(f"α = {ALPHA}, Holm, plan d = {SMALLEST_DIFFERENCE}, {args.orders} orders per pool, "
          f"test-set estimand; ratio = median labels to a verdict with ÷ without the control "
          f"(per pair; median / p80 over the pairs both decide); load {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs")  # fmt: skip
    head = f"  {'control':24s} {'ρ paired':>8s} {'arm':>10s} {'decided':>7s} " \
           f"{'median':>7s} {'p80':>6s} {'sum':>6s}"  # fmt: skip
    for name, cname, y, g in pools(rng):
        if args.pools != "all" and not any(name.startswith(p) for p in args.pools.split(",")):
            continue
        n, k = y.shape
        orders = np.stack([rng.permutation(n) for _ in range(args.orders)])
        useless = rng.standard_normal(g.shape)
        print(f"\n{name} ({k} systems, {len(pairs(k))} pairs, N = {n})\n{head}")
        extra = [(f"labels + noise, ρ {r:g}", comet_like(y, rng, r))
                 for r in (float(v) for v in args.rhos.split(",") if v)]  # fmt: skip
        for label, ctrl in ((cname, g), *extra, ("useless (noise)", useless)):
            s = summary(study(y, ctrl, orders, weights))
            rho = paired_rho(y, ctrl)
            for arm, (dec, med, p80, tot) in s.items():
                print(f"  {label:24s} {rho:>8.2f} {arm:>10s} {dec:>7d} {med:>7.3f} "
                      f"{p80:>6.3f} {tot:>6.3f}")  # fmt: skip
            sys.stdout.flush()
    if args.monitor_orders:
        _monitor_check(rng, args.monitor_orders)
    print(f"\ntotal {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
