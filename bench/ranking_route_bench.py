"""The app's route to a ranking: every pair of a campaign, Holm (or e-BH) over the pairs, a
plan a user could make, the dashboard read after every label. A benchmark, not a test.

For each shipped data set (WMT21 TED en-de, 13 systems, 78 pairs, binary labels; Chaganty
CNN/DM, 4 systems, 6 pairs, binary and 1 − HTER; newstest2020 en-de MQM, 10 systems,
45 pairs, binary and 1 + MQM/25) and R random item orders: the paired queue
labels every system's output of one item after another (the test-set estimand: the
recorded judgments, taken without replacement). After every item, each pair's anytime
p-value (the default betting design, Des Raj increments of D = y_A − y_B) is read and Holm
runs over all m pairs at α = 0.05; a pair's labels to a verdict = the first t at which Holm
settles it with the sign of the whole-pool Δ (wrong signs are counted). The plan is what a
user could set without knowing Δ: the planner's forecast for a smallest difference of 0.10
(``annotation.campaign.live_plan.forecast_planned_labels``), which the monitor tunes to
min(plan, pool).

Reference: the fixed-n paired t-test planned at the Bonferroni level α/m: n80 = the
smallest n ≥ 30 (the app's floor for any verdict, as in bench/labels_to_significance.py)
at which ≥ 80 % of the same orders give a (1 − α/m) t-interval excluding 0 with the right
sign (pairs whose n80 exceeds the pool are left out of the ratios and counted).
Reported per data set: the median over pairs of (median over orders of the labels to a
verdict) / n80, and its 80th percentile over pairs.

"before" is the monitor before this change (bets sized for the plan only, tuned at α but
read by Holm at α/m, on the Des Raj increments; no known-part bound); "after" the monitor
now (tuned at α/m; ¼ plan-sized + ⅜ cautious Kelly + ⅜ bold Kelly bets on the labels
themselves, without replacement (estimators.sequences.betting.PARTS); the labelled part alone
settles
a pair once it excludes 0, which makes the census exact). "oracle" (:func:`oracle_pvalues`)
knows each pair's pool of differences and bets the growth-optimal constant λ*: a bound on
what better bets could reach on this route (same floor, Holm, known-part rule).

Validity: true nulls built from real labels — each of the k pseudo-systems is an independent
random permutation over the items of one real system's labels, so every pool mean is the
same and every pair's Δ is exactly 0 (test-set estimand). Family-wise error = the share of
campaigns in which any pair is ever settled as better (dashboard read after every label,
up to the census); for e-BH (the betting e-values K_t(0), read after every label) the same
share, which under the global null equals the FDR.

    .venv/bin/python bench/ranking_route_bench.py            # R = 200 orders, 2,000 nulls
    .venv/bin/python bench/ranking_route_bench.py --quick    # smoke run
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
from scipy import optimize, stats  # noqa: E402

from annotation.campaign.live_plan import forecast_planned_labels  # noqa: E402
from estimators.base.multiple import holm, pairs  # noqa: E402
from estimators.sequences import betting  # noqa: E402
from estimators.sequences.sequential import BURN_IN, cv_increments  # noqa: E402

ALPHA = 0.05
POWER = 0.8
SMALLEST_DIFFERENCE = 0.10
TOL = 1e-9  # rounding slack of the known part (continuous labels)
CHUNK = 50  # orders per vectorised block (memory: CHUNK × m × N doubles)


def pair_pvalues(yo: np.ndarray, *, tuning: float, t_star: float, known: bool) -> np.ndarray:
    """(R, m, N) anytime p-value paths of every pair, as the monitor computes them, from the
    labels in arrival order ``yo`` (R, N, k)."""
    _, n, k = yo.shape
    out = []
    for a, b in pairs(k):
        d = yo[:, :, a] - yo[:, :, b]  # (R, N)
        inc = cv_increments(d, None, label_range=(-1.0, 1.0), pool_size=n)
        if known:  # the monitor now: bets on the labels, without replacement
            p = betting.betting_pvalue(d, 0.0, bounds=(-1.0, 1.0), alpha_tuning=tuning,
                                       t_star=t_star, pool_size=n)  # fmt: skip
            # the labelled part alone excludes 0: |Σ d| > N − t (labels in [0, 1])
            t = np.arange(1, n + 1)
            p = np.where(np.abs(np.cumsum(d, axis=1)) > n - t + TOL, 0.0, p)
            p = np.minimum.accumulate(p, axis=1)
        else:  # before: bets sized for the plan only
            p = _plan_only_pvalue(inc.z, tuning, t_star)
        out.append(p)
    return np.stack(out, axis=1)


def _plan_only_pvalue(z: np.ndarray, tuning: float, t_star: float) -> np.ndarray:
    """The betting p-value before this change: the plan-sized hedged capital alone."""
    x01 = np.clip((z + 1.0) / 2.0, 0.0, 1.0)
    log_k = betting._plan_log_capital(x01, np.asarray(0.5), tuning, t_star)
    log_k[:, : BURN_IN - 1] = -np.inf
    return np.minimum.accumulate(np.exp(-np.maximum(log_k, 0.0)), axis=1)


def growth_bet(x: np.ndarray, mu: float = 0.0, lo: float = -1.0, hi: float = 1.0) -> float:
    """The growth-optimal constant bet λ* = argmax mean log(1 + λ (x − μ)) over the pool
    ``x`` against the null mean μ, within the bets that keep 1 + λ (x − μ) > 0 for every
    x in [lo, hi] (×0.999). The defaults: a pool of differences on their full range
    [−1, 1] against 0 (valid without knowing the pool); a pool's own [min, max] is not."""
    a, b = -0.999 / max(hi - mu, 1e-3), 0.999 / max(mu - lo, 1e-3)
    return float(optimize.minimize_scalar(lambda v: -np.mean(np.log1p(v * (x - mu))),
                                          bounds=(a, b), method="bounded").x)  # fmt: skip


def oracle_pvalues(yo: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(R, m, N) p-values of an oracle that knows each pair's whole pool of differences D:
    the growth-rate-optimal constant bet λ* = argmax mean(log(1 + λ D)) against the
    without-replacement null "the pool mean is 0" (a valid test: under that null the
    capital is a nonnegative martingale whatever λ), with the same 30-label floor and the
    same known-part rule. No valid betting test grows its capital faster on average, so
    its labels to a verdict bound what any choice of bets can reach on this route."""
    _, n, k = yo.shape
    t = np.arange(1, n + 1)
    out = []
    for a, b in pairs(k):
        pool = y[:, a] - y[:, b]
        lam = growth_bet(pool)
        d = yo[:, :, a] - yo[:, :, b]
        s_prev = np.cumsum(d, axis=1) - d
        fac = 1.0 + lam * (d + s_prev / (n - t + 1))  # x_i − m_i(0), m_i(0) = −S_{i−1}/(N−i+1)
        log_k = np.cumsum(np.log(np.maximum(fac, 1e-300)), axis=1)
        log_k[:, : BURN_IN - 1] = -np.inf
        p = np.minimum(1.0, np.exp(-np.maximum(log_k, 0.0)))
        p = np.where(np.abs(np.cumsum(d, axis=1)) > n - t + TOL, 0.0, p)
        out.append(np.minimum.accumulate(p, axis=1))
    return np.stack(out, axis=1)


def pair_evalues(yo: np.ndarray, *, tuning: float, t_star: float) -> np.ndarray:
    """(R, m, N) betting e-values K_t(0) (∞ once the labelled part excludes 0)."""
    _, n, k = yo.shape
    out = []
    for a, b in pairs(k):
        d = yo[:, :, a] - yo[:, :, b]
        e = betting.betting_evalue(d, 0.0, bounds=(-1.0, 1.0), alpha_tuning=tuning,
                                   t_star=t_star, pool_size=n)  # fmt: skip
        e[:, : BURN_IN - 1] = 1.0
        t = np.arange(1, n + 1)
        out.append(np.where(np.abs(np.cumsum(d, axis=1)) > n - t + TOL, np.inf, e))
    return np.stack(out, axis=1)


def first_holm(p: np.ndarray) -> np.ndarray:
    """(R, m): first t (1-based) at which Holm rejects each pair; ∞ if never."""
    adj = holm(np.swapaxes(p, 1, 2), ALPHA).reject  # (R, N, m)
    hit = np.swapaxes(adj, 1, 2)
    return np.where(hit.any(axis=2), hit.argmax(axis=2) + 1.0, np.inf)


def ever_ebh(e: np.ndarray) -> np.ndarray:
    """(R,): e-BH (on the current e-values) rejects some pair at some read."""
    m = e.shape[1]
    srt = -np.sort(-np.swapaxes(e, 1, 2), axis=2)  # (R, N, m), largest first
    # e-BH rejects something iff some e_(k) ≥ m/(α k) (estimators.base.verdicts.e_bh)
    rej = (srt >= m / (ALPHA * np.arange(1, m + 1))).any(axis=2)
    return rej.any(axis=1)


def n80_bonferroni(d: np.ndarray, orders: np.ndarray, level: float) -> float:
    """Fixed-n paired t-test at level ``level`` (two-sided): smallest n with ≥ 80 % of the
    orders excluding 0 with the sign of the pool mean; ∞ when not within the pool."""
    x = d[orders]
    n = np.arange(1, d.size + 1)
    s1, s2 = np.cumsum(x, axis=1), np.cumsum(x * x, axis=1)
    mean = s1 / n
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(np.maximum(s2 - n * mean**2, 0) / (n - 1))
        crit = stats.t.ppf(1 - level / 2, np.maximum(n - 1, 1))
        hit = np.sign(d.mean()) * mean - crit * sd / np.sqrt(n) > 0
    hit[:, : MIN_N - 1] = False  # the app's 30-label floor for any verdict (as in n80 there)
    power = hit.mean(axis=0)
    ok = np.nonzero(power >= POWER)[0]
    return float(ok[0] + 1) if ok.size else math.inf


def route(pool: Pool, r_orders: int, seed: int) -> dict:
    """Labels to a verdict over the fixed-n n80 at α/m, before and after, for one pool."""
    y = pool.y
    n, k = y.shape
    plist = pairs(k)
    m = len(plist)
    t_star = min(forecast_planned_labels(k, SMALLEST_DIFFERENCE, ALPHA), n)
    rng = np.random.default_rng(seed)
    orders = np.stack([rng.permutation(n) for _ in range(r_orders)])
    delta = np.array([y[:, a].mean() - y[:, b].mean() for a, b in plist])
    n80 = np.array([n80_bonferroni(y[:, a] - y[:, b], orders, ALPHA / m) for a, b in plist])
    out = {"pool": pool.name, "k": k, "m": m, "N": n, "t_star": t_star}
    for tag, tuning, known in (
        ("before", ALPHA, False), ("after", ALPHA / m, True), ("oracle", ALPHA / m, True)
    ):  # fmt: skip
        times, wrong = [], 0
        for c in range(0, r_orders, CHUNK):
            o = orders[c : c + CHUNK]
            p = (
                oracle_pvalues(y[o], y) if tag == "oracle"
                else pair_pvalues(y[o], tuning=tuning, t_star=t_star, known=known)
            )  # fmt: skip
            first = first_holm(p)
            for j, (a, b) in enumerate(plist):
                d = (y[:, a] - y[:, b])[o]
                fin = np.isfinite(first[:, j])
                idx = np.clip(first[:, j], 1, n).astype(int) - 1
                est = np.cumsum(d, axis=1)[np.arange(len(o)), idx]
                wrong += int(np.sum(fin & (np.sign(est) != np.sign(delta[j]))))
            times.append(first)
        t = np.concatenate(times)  # (R, m)
        med = np.median(t, axis=0)
        ok = np.isfinite(n80)
        ratio = med[ok] / n80[ok]
        out[tag] = {
            "median": float(np.median(ratio)) if ratio.size else math.nan,
            "p80": float(np.percentile(ratio, 80)) if ratio.size else math.nan,
            "pairs_in_ratio": int(ok.sum()),
            "never_decided_median": int(np.sum(~np.isfinite(med))),
            "wrong_sign": wrong,
            "median_labels_all_pairs": float(np.median(np.where(np.isfinite(med), med, n))),
        }
    return out


def null_error(pool: Pool, runs: int, seed: int, k: int | None = None) -> dict:
    """Share of null campaigns with any false 'better' (Holm) / any e-BH discovery."""
    rng = np.random.default_rng(seed)
    base = pool.y[:, int(np.argmax(pool.y.mean(axis=0) * (1 - pool.y.mean(axis=0))))]
    n = base.size
    k = k or pool.y.shape[1]
    m = len(pairs(k))
    t_star = min(forecast_planned_labels(k, SMALLEST_DIFFERENCE, ALPHA), n)
    any_holm = any_holm_old = any_ebh = 0
    for c in range(0, runs, CHUNK):
        r = min(CHUNK, runs - c)
        # one null pool per run, k permutations of the same labels (every Δ exactly 0), in a
        # random item order: system s's labels in arrival order are base[an independent
        # uniform permutation]
        yo = base[np.argsort(rng.random((r, k, n)), axis=2)].transpose(0, 2, 1)  # (r, N, k)
        p_new = pair_pvalues(yo, tuning=ALPHA / m, t_star=t_star, known=True)
        p_old = pair_pvalues(yo, tuning=ALPHA, t_star=t_star, known=False)
        any_holm += int(np.isfinite(first_holm(p_new)).any(axis=1).sum())
        any_holm_old += int(np.isfinite(first_holm(p_old)).any(axis=1).sum())
        any_ebh += int(ever_ebh(pair_evalues(yo, tuning=ALPHA / m, t_star=t_star)).sum())
    se = math.sqrt(ALPHA * (1 - ALPHA) / runs)
    return {"pool": pool.name, "k": k, "runs": runs, "fwer_after": any_holm / runs,
            "fwer_before": any_holm_old / runs, "fdr_ebh": any_ebh / runs, "mc_se": se}  # fmt: skip


def _print_route(res: dict) -> None:
    b, a, o = res["before"], res["after"], res["oracle"]
    head = f"{res['pool']:20s} {res['k']:>3d} {res['m']:>3d} {res['N']:>4d} {res['t_star']:>5d}"
    print(f"{head} {a['pairs_in_ratio']:>5d} {b['median']:>10.2f} {b['p80']:>6.2f} "
          f"{a['median']:>10.2f} {a['p80']:>6.2f} {o['median']:>10.2f} {o['p80']:>6.2f} "
          f"{b['wrong_sign']:>3d}/{a['wrong_sign']:<3d}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 20 orders, 100 nulls")
    ap.add_argument("--orders", type=int, default=200)
    ap.add_argument("--nulls", type=int, default=2000, help="null campaigns (0: skip)")
    args = ap.parse_args(argv)
    r_orders, runs = (20, 100) if args.quick else (args.orders, args.nulls)
    t0 = time.time()
    pools = [*load_wmt(False), *load_chaganty(False), *load_newstest()]
    print(f"data loaded in {time.time() - t0:.0f} s; α = {ALPHA}, plan: smallest difference "
          f"{SMALLEST_DIFFERENCE} (the planner's t*, tuned to min(t*, pool))")  # fmt: skip
    print(f"\nLabels to a verdict per pair / fixed-n n80 at α/m (median over {r_orders} orders; "
          "distribution over pairs)")  # fmt: skip
    print(f"{'pool':20s} {'k':>3s} {'m':>3s} {'N':>4s} {'t*':>5s} {'pairs':>5s} "
          f"{'before med':>10s} {'p80':>6s} {'after med':>10s} {'p80':>6s} "
          f"{'oracle med':>10s} {'p80':>6s} "
          f"{'wrong':>6s}")  # fmt: skip
    for i, pool in enumerate(pools):
        _print_route(route(pool, r_orders, seed=100 + i))
    print(f"\nTrue nulls ({runs} campaigns each; every pair Δ = 0 exactly): share of campaigns "
          "with any false claim, read after every label up to the census")  # fmt: skip
    print(f"{'pool':20s} {'k':>3s} {'FWER before':>12s} {'FWER after':>11s} {'e-BH FDR':>9s} "
          f"{'MC-SE':>6s}")  # fmt: skip
    for i, pool in enumerate(pools[:2] if runs else []):
        k = 6 if args.quick else None
        r = null_error(pool, runs, seed=900 + i, k=k)
        print(f"{pool.name:20s} {r['k']:>3d} {r['fwer_before']:>12.4f} {r['fwer_after']:>11.4f} "
              f"{r['fdr_ebh']:>9.4f} {r['mc_se']:>6.4f}")  # fmt: skip
    print(f"\ntotal {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
