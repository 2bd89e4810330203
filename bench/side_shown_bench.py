"""Labels until the dashboard shows a side, per live design, on the shipped pools. A benchmark.

For every shipped pool with real human judgments of several systems on the same items —
graded scores (newstest2020 en-de MQM and WMT21 TED en-de MQM as ESA-like scores
1 + MQM/25 ∈ [0, 1]; Chaganty CNN/DM 1 − HTER) and binary labels (the same three data sets)
— and R random item orders, the paired queue labels every system's output of one item after
another (test-set estimand: the recorded judgments, taken without replacement). After every
item each pair's anytime p-value is computed as the campaign monitor computes it under the
design, Holm runs over the m pairs at α = 0.05, and a pair's figure is the first t ≥ 30 (the
app's floor for any verdict) at which Holm rejects it. Since the side is read from the
pair's interval at the level it is rejected at, and that interval and the p-value come from
one computation, that t is the read at which the dashboard shows the side; ``--check``
replays a few orders through :class:`estimators.live.monitor.CampaignMonitor` itself and
counts the pairs whose first shown side differs from it (by more than one read).

The ESA and DA kinds are one code path (both enter ÷ 100 on the range [0, 1], the same
design and bounds), so one ESA-like pool stands for both.

Designs:
- ``betting``    the hedged + Kelly betting capital on the labels without replacement
                 (:mod:`estimators.sequences.betting`), finite-sample exact;
- ``asympcs``    the asymptotic confidence sequence on the Des Raj increments with the variance
                 prior the monitor puts on it (w pseudo-labels of the largest variance);
                 ``asympcs w=1`` etc. vary w;
- ``asympcs_mix`` the asymptotic sequence averaged over planned sizes from 30 labels doubling
                 to the pool (:mod:`estimators.sequences.mixture`), the graded scores' default;
- ``oracle``     the growth-optimal constant bet for the pair's whole pool of differences: a
                 bound on what any bounded betting design reaches (not a bound on asympcs);
- ``gauss oracle`` the Gaussian likelihood ratio with the pair's true λ* = Δ/σ² on the Des Raj
                 increments: what an asymptotic design that knew each pair's effect would
                 reach (a reference, not a strict bound).

Candidates of the study (``--designs``): ``mix w=W f=F`` (the mixture with W pseudo-labels of
the largest variance, sizes growing by F), ``mix wor`` (the mixture on the labels centred
by the without-replacement null, every label at full weight).

Reference: the fixed-n paired t-test at the Bonferroni level α/m, n80 (bench/ranking_route_bench).
Reported per pool and design: median over pairs of (median over orders of t_shown) / n80, its
80th percentile over pairs ("floor": 30 / n80, what no design can beat with the app's 30-label
floor; ``--order-sets S`` repeats the pool with S independent sets of orders and prints the
medians' spread — a 6-pair pool's median moves with the orders), and the validity at true
nulls (``--nulls``: k random permutations of one real system's labels, every Δ exactly 0;
share of campaigns with any side shown).

    nice -n 15 .venv/bin/python bench/side_shown_bench.py --orders 40 --nulls 200

``--controls R``: the metric-control study of ``asympcs_mix`` instead (real chrF and BLEU,
COMET-like controls at ``--rhos``; R orders, ``--nulls`` null campaigns per pool and control;
bench/side_shown_controls.py):

    nice -n 15 .venv/bin/python bench/side_shown_bench.py --orders 0 --controls 100 --nulls 2000
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
from labels_to_significance import load_chaganty  # noqa: E402
from pools import Pool, load_newstest  # noqa: E402
from ranking_route_bench import (  # noqa: E402
    ALPHA,
    SMALLEST_DIFFERENCE,
    TOL,
    n80_bonferroni,
    oracle_pvalues,
)
from score_vs_label_bench import POOLS as MQM_POOLS  # noqa: E402
from score_vs_label_bench import load as load_mqm  # noqa: E402

from annotation.campaign.live_plan import forecast_planned_labels  # noqa: E402
from estimators.base.multiple import holm, pairs  # noqa: E402
from estimators.base.result import MIN_LABELS_FOR_VERDICT  # noqa: E402
from estimators.sequences import betting, mixture  # noqa: E402
from estimators.sequences import confidence_sequences as csq  # noqa: E402
from estimators.sequences.sequential import BURN_IN, cv_increments  # noqa: E402

CHUNK = 20


def load_pools() -> list[tuple[Pool, str]]:
    """(pool, kind): the score pools and their binary twins, labels (N, k) in [0, 1]."""
    out = []
    nt = {p.name: p for p in load_newstest()}
    out += [(nt["newstest20 MQM"], "esa"), (nt["newstest20 binary"], "binary")]
    path = MQM_POOLS["wmt21"][1]
    if path.exists():
        score, binary, names = load_mqm(path)
        out += [(Pool("wmt21 en-de MQM", names, score.T, {}), "esa"),
                (Pool("wmt21 en-de binary", names, binary.T, {}), "binary")]  # fmt: skip
    ch = {p.name: p for p in load_chaganty(False)}
    out += [(ch["chaganty 1-HTER"], "one_minus_hter"), (ch["chaganty binary"], "binary")]
    return out


def design_pvalues(design: str, yo: np.ndarray, tuning: float, t_star: float) -> np.ndarray:
    """(R, m, N) anytime p-value paths of every pair under ``design`` (the monitor's
    computation for that design, finite pool, labels in [0, 1], differences in [−1, 1])."""
    _, n, k = yo.shape
    t = np.arange(1, n + 1)
    out = []
    for a, b in pairs(k):
        d = yo[:, :, a] - yo[:, :, b]
        if design == "betting":
            p = betting.betting_pvalue(d, 0.0, bounds=(-1.0, 1.0), alpha_tuning=tuning,
                                       t_star=t_star, pool_size=n)  # fmt: skip
        elif design == "mix wor":
            # candidate: the mixture on the without-replacement centred labels
            # d_i − m_i(0), m_i(0) = −S_{i−1}/(N − i + 1) (every label at full weight)
            s_prev = np.cumsum(d, axis=1) - d
            x = d + s_prev / (n - t + 1.0)
            _, var, _ = csq._running_mean_var(d)
            big_s = np.cumsum(x, axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                u = np.where(var > 0, big_s**2 / (t * var), np.where(big_s != 0, np.inf, 0.0))
            c, bb = mixture._terms(t.astype(float), mixture.planned_sizes(n), tuning)
            log_m = mixture._log_m(u, c, bb)
            log_m[:, : BURN_IN - 1] = 0.0
            p = np.minimum.accumulate(np.exp(-np.maximum(log_m, 0.0)), axis=1)
        elif design == "asympcs_mix":
            z = cv_increments(d, None, pool_size=n).z
            p = mixture.mixture_pvalue(z, 0.0, t_max=n, alpha_tuning=tuning)
        elif design.startswith("mix"):
            opts = dict(o.split("=") for o in design.split()[1:])
            z = cv_increments(d, None, pool_size=n).z
            p = mixture_pvalue(z, tuning, n, float(opts.get("w", 0)), float(opts.get("f", 2)))
        elif design.startswith("asympcs"):
            w = float(design.split("w=")[1]) if "w=" in design else 10.0
            z = cv_increments(d, None, pool_size=n).z
            # the monitor's prior: the largest variance a difference in [−1, 1] can have
            p = csq.asymptotic_cs_pvalue(z, 0.0, t_star=t_star, alpha_tuning=tuning,
                                         var_prior=1.0 if w > 0 else 0.0,
                                         prior_weight=max(w, 1e-9))  # fmt: skip
        elif design == "gauss oracle":
            pool_d = yo[0, :, a] - yo[0, :, b]  # the pool (any order holds all of it)
            lam = pool_d.mean() / max(pool_d.var(), 1e-12)
            z = cv_increments(d, None, pool_size=n).z
            log_m = np.cumsum(lam * z - 0.5 * lam**2 * pool_d.var(), axis=1)
            log_m[:, : BURN_IN - 1] = 0.0
            p = np.minimum(1.0, np.exp(-np.maximum(log_m, 0.0)))
        else:
            raise ValueError(design)
        # the labelled part alone excludes 0 (the known part of the pool)
        p = np.where(np.abs(np.cumsum(d, axis=1)) > n - t + TOL, 0.0, p)
        out.append(np.minimum.accumulate(p, axis=1))
    return np.stack(out, axis=1)


def mixture_pvalue(z, tuning, n, w, f=2.0, lo=MIN_LABELS_FOR_VERDICT):  # type: ignore[no-untyped-def]
    """Candidate: the Robbins normal mixture averaged over planned sizes t*_j on a doubling
    grid from the verdict floor to the pool size (equal weights)."""
    from estimators.sequences.sequential import _log_term

    grid = [float(lo)]
    while grid[-1] * f < n:
        grid.append(grid[-1] * f)
    grid.append(float(n))
    mean, var, t = csq._running_mean_var(z, 1.0 if w > 0 else 0.0, max(w, 1e-9))
    with np.errstate(divide="ignore", invalid="ignore"):
        u = t * mean**2 / var
    u = np.where(var > 0, u, np.where(mean != 0, np.inf, 0.0))
    terms = []
    for ts in grid:
        q = ts / (_log_term(tuning) * t)
        terms.append(-math.log(len(grid)) + 0.5 * np.log(q / (1 + q)) + u / (2 * (1 + q)))
    log_m = np.logaddexp.reduce(np.stack(terms), axis=0)
    log_m = np.where(t < BURN_IN, 0.0, log_m)
    return np.minimum.accumulate(np.exp(-np.maximum(log_m, 0.0)), axis=-1)


def first_shown(p: np.ndarray) -> np.ndarray:
    """(R, m): first t ≥ the verdict floor at which Holm rejects each pair; ∞ if never."""
    p = p.copy()
    p[:, :, : MIN_LABELS_FOR_VERDICT - 1] = 1.0
    p[:, :, : BURN_IN - 1] = 1.0
    rej = np.swapaxes(holm(np.swapaxes(p, 1, 2), ALPHA).reject, 1, 2)  # (R, m, N)
    return np.where(rej.any(axis=2), rej.argmax(axis=2) + 1.0, np.inf)


def route(pool: Pool, designs: list[str], r_orders: int, seed: int) -> dict:
    y = pool.y
    n, k = y.shape
    plist = pairs(k)
    m = len(plist)
    t_star = min(forecast_planned_labels(k, SMALLEST_DIFFERENCE, ALPHA), n)
    rng = np.random.default_rng(seed)
    orders = np.stack([rng.permutation(n) for _ in range(r_orders)])
    n80 = np.array([n80_bonferroni(y[:, a] - y[:, b], orders, ALPHA / m) for a, b in plist])
    ok = np.isfinite(n80)
    res = {"pool": pool.name, "k": k, "m": m, "N": n, "t_star": t_star, "pairs": int(ok.sum())}
    # no design shows a side before the verdict floor: the ratio's physical floor
    floor = MIN_LABELS_FOR_VERDICT / n80[ok]
    res["floor"] = (float(np.median(floor)), float(np.percentile(floor, 80)))
    for design in [*designs, "oracle"]:
        times = []
        for c in range(0, r_orders, CHUNK):
            o = orders[c : c + CHUNK]
            p = (oracle_pvalues(y[o], y) if design == "oracle"
                 else design_pvalues(design, y[o], ALPHA / m, t_star))  # fmt: skip
            times.append(first_shown(p))
        med = np.median(np.concatenate(times), axis=0)
        ratio = med[ok] / n80[ok]
        res[design] = (float(np.median(ratio)), float(np.percentile(ratio, 80)))
    return res


def null_fwer(pool: Pool, design: str, runs: int, seed: int) -> float:
    """Share of null campaigns (every Δ = 0 exactly) with any side shown up to the census."""
    rng = np.random.default_rng(seed)
    mu = pool.y.mean(axis=0)
    base = pool.y[:, int(np.argmax(pool.y.var(axis=0) + 0 * mu))]
    n, k = base.size, pool.y.shape[1]
    m = len(pairs(k))
    t_star = min(forecast_planned_labels(k, SMALLEST_DIFFERENCE, ALPHA), n)
    hits = 0
    for c in range(0, runs, CHUNK):
        r = min(CHUNK, runs - c)
        yo = base[np.argsort(rng.random((r, k, n)), axis=2)].transpose(0, 2, 1)
        hits += int(np.isfinite(first_shown(design_pvalues(design, yo, ALPHA / m, t_star)))
                    .any(axis=1).sum())  # fmt: skip
    return hits / runs


def check(pool: Pool, design: str, orders: int, every: int, seed: int) -> dict:
    """Replays ``orders`` item orders through the campaign monitor itself (read every
    ``every`` items, the dashboard's cache carried): per pair, the first read showing a side
    against this bench's first t (rounded up to the read), and at every read the pairs
    rejected at their read level without a side, intervals wider than the last read's and
    estimates outside their interval."""
    from estimators.live.status import is_decided
    from tests.support.racing_replay import replay

    y = pool.y
    n, k = y.shape
    m = len(pairs(k))
    t_star = min(forecast_planned_labels(k, SMALLEST_DIFFERENCE, ALPHA), n)
    rng = np.random.default_rng(seed)
    out = {"pair_orders": 0, "differ": 0, "no_side": 0, "wider": 0, "outside": 0, "reads": 0}
    for _ in range(orders):
        order = rng.permutation(n)
        ref = first_shown(design_pvalues(design, y[order][None], ALPHA / m, t_star))[0]
        first: dict[int, int] = {}
        last: dict[int, tuple[float, float]] = {}

        def note(rep, total, first=first, last=last) -> None:  # type: ignore[no-untyped-def]
            t = total // k
            out["reads"] += 1
            for j, pr in enumerate(rep.pairs):
                if is_decided(pr.verdict):
                    first.setdefault(j, t)
                rejected = pr.p_value <= pr.read_level if not is_decided(pr.verdict) else False
                if pr.result.n_human >= MIN_LABELS_FOR_VERDICT and rejected:
                    out["no_side"] += 1
                lo, hi = pr.result.diagnostics.get("interval", (-math.inf, math.inf))
                if j in last and (lo < last[j][0] - 1e-15 or hi > last[j][1] + 1e-15):
                    out["wider"] += 1
                last[j] = (lo, hi)
                est = pr.result.estimate
                if math.isfinite(est) and not pr.result.ci[0] <= est <= pr.result.ci[1]:
                    out["outside"] += 1

        replay(y.T, order, racing=False, every=every, names=pool.systems, on_read=note,
               stop_when_settled=False, design=design, finite_pool=True,
               equivalence_margin=0.05, t_star=t_star, alpha=ALPHA,
               label_range=(0.0, 1.0))  # fmt: skip
        for j in range(m):
            out["pair_orders"] += 1
            want = math.inf if not np.isfinite(ref[j]) else math.ceil(ref[j] / every) * every
            got = first.get(j, math.inf)
            if not (got == want or (math.isfinite(got) and abs(got - min(want, n)) <= every)):
                out["differ"] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--orders", type=int, default=40)
    ap.add_argument("--nulls", type=int, default=0, help="null campaigns per pool (0: skip)")
    ap.add_argument("--designs", default="betting,asympcs")
    ap.add_argument("--pools", default="all", help="comma-separated name substrings")
    ap.add_argument(
        "--check",
        type=int,
        default=0,
        help="orders per pool and design replayed through the monitor itself",
    )
    ap.add_argument("--every", type=int, default=10, help="items between reads (--check)")
    ap.add_argument(
        "--order-sets", type=int, default=1,
        help="independent sets of --orders orders per pool (the median over pairs of a "
        "small pool moves with the orders: its spread over the sets)",
    )  # fmt: skip
    ap.add_argument(
        "--controls",
        type=int,
        default=0,
        help="orders per pool and metric control in asympcs_mix (0: skip; "
        "bench/side_shown_controls.py); --nulls sets its null campaigns",
    )
    ap.add_argument("--rhos", default="0.3,0.5", help="COMET-like controls' paired ρ")
    args = ap.parse_args(argv)
    designs = args.designs.split(",")
    t0 = time.time()
    pools = load_pools()
    if args.pools != "all":
        keys = args.pools.split(",")
        pools = [(p, kd) for p, kd in pools if any(s in p.name for s in keys)]
    print(f"α = {ALPHA}, Holm over all pairs, plan: smallest difference {SMALLEST_DIFFERENCE}; "
          f"labels until a side is shown / fixed-n n80 at α/m, median over {args.orders} "
          "orders; median and p80 over pairs")  # fmt: skip
    head = f"{'pool':20s} {'kind':>14s} {'k':>3s} {'N':>5s} {'t*':>5s} {'pairs':>5s}"
    cols = [*designs, "oracle", "floor"]
    print(head + "".join(f" {d[:14]:>14s}" for d in cols))
    for i, (pool, kind) in enumerate(pools if args.orders else []):
        medians = []
        for j in range(args.order_sets):  # set 0: the seeds of the figures in the docs
            r = route(pool, designs, args.orders, seed=100 + i + 1000 * j)
            row = (f"{pool.name:20s} {kind:>14s} {r['k']:>3d} {r['N']:>5d} {r['t_star']:>5d} "
                   f"{r['pairs']:>5d}")  # fmt: skip
            print(row + "".join(f" {r[d][0]:>6.2f} /{r[d][1]:>5.2f}" for d in cols), flush=True)
            medians.append([r[d][0] for d in cols])
        if args.order_sets > 1:
            lo, mid, hi = np.percentile(np.array(medians), [0, 50, 100], axis=0)
            print(f"{'  median over sets':{len(row)}s}" + "".join(
                f" {b:>6.2f} [{a:.2f}–{c:.2f}]" for a, b, c in zip(lo, mid, hi, strict=True)
            ), flush=True)  # fmt: skip
    if args.controls:
        import side_shown_controls

        scores = {p.name: p.y for p, kd in load_pools() if kd != "binary"}
        keys = None if args.pools == "all" else args.pools.split(",")
        side_shown_controls.run(scores, args.controls, args.nulls,
                                tuple(float(r) for r in args.rhos.split(",") if r),
                                first_shown, keys)  # fmt: skip
        print(f"\ntotal {time.time() - t0:.0f} s")
        return 0
    if args.nulls:
        print(
            f"\nTrue nulls ({args.nulls} campaigns per pool; every Δ = 0): share with any "
            "side shown"
        )
        for i, (pool, kind) in enumerate(pools):
            cells = [f"{d}: {null_fwer(pool, d, args.nulls, 900 + i):.4f}" for d in designs]
            print(f"{pool.name:20s} {kind:>14s} " + "  ".join(cells), flush=True)
    if args.check:
        print(f"\nThe monitor itself ({args.check} orders, read every {args.every} items): "
              "pair-orders whose first shown side differs from the bench's by more than a "
              "read; reads with a rejected pair shown without a side, an interval wider than "
              "the last read's, an estimate outside its interval")  # fmt: skip
        for i, (pool, kind) in enumerate(pools):
            for d in designs:
                if d not in ("betting", "asympcs_mix"):
                    continue
                c = check(pool, d, args.check, args.every, 700 + i)
                print(f"{pool.name:20s} {kind:>14s} {d:>12s}: {c}", flush=True)
    print(f"\ntotal {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
