"""Where the gap between the app's bets and the oracle bet comes from. A benchmark, not a test.

The route is bench/ranking_route_bench.py's (every pair of a shipped pool, the paired queue,
test-set estimand = sampling without replacement, Holm at α = 0.05 read after every item,
the planner's t* for a smallest difference of 0.10, the 30-label floor, the known-part
rule); the figure is the median and 80th percentile over pairs of (median over orders of the
labels to a verdict) ÷ the fixed-n paired n80 at α/m. Each row turns off ONE handicap of the
app's capital (estimators.sequences.betting.wor_log_capital, tuned at α/m) and reports the figure
and
its share of the app–oracle gap, (app − row)/(app − oracle):

- ``σ² known``       the Kelly parts' plug-in variance σ̂²_{i−1} replaced by the pair's true
                     pool variance (the bet sized before the variance is known);
- ``μ σ² known``    the Kelly parts bet the true conditional mean of the next label
                     (N μ − S_{i−1})/(N − i + 1) with the true variance: the bet a plug-in
                     learns, known from the start (still hedged over the three parts);
- ``no hedge``       one part only, the bold Kelly (weight 1 instead of ⅜): the price of
                     the ¼ plan + ⅜ + ⅜ mixture (valid, but worse on pools where another
                     part wins);
- ``no floor``       verdicts from the first label (app and oracle both; the 30-label
                     floor of docs/statistics-notes.md §17 is a rule of the app, not a
                     handicap of the bet);
- ``Bonferroni``     every pair read at α/m instead of Holm's step-down (both);
- ``oracle``         the constant growth-optimal bet λ* that knows the pair's pool
                     (ranking_route_bench.oracle_pvalues).

Rows "shrink w" are candidates for the app (valid: any predictable bet): the Kelly bets
shrunk toward 0 by (i − 1)/(i − 1 + w), the Bayes factor of a running mean with w
pseudo-labels at the null (see docs/statistics-notes.md, "The oracle gap").

The mixture grid (CS_GRID) only draws the intervals: the verdict is read from K_t(0)
itself, so the grid's width does not enter the labels to a verdict. The finite-pool
correction is shared by the app and the oracle (both bet against the without-replacement
null); with-replacement bets are slower, not faster.

    .venv/bin/python bench/oracle_gap_bench.py --orders 100
    .venv/bin/python bench/oracle_gap_bench.py --quick
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
from labels_to_significance import load_chaganty, load_wmt  # noqa: E402
from pools import Pool, load_newstest  # noqa: E402
from ranking_route_bench import (  # noqa: E402
    ALPHA,
    SMALLEST_DIFFERENCE,
    TOL,
    growth_bet,
    n80_bonferroni,
    oracle_pvalues,
    pair_pvalues,
)

from annotation.campaign.live_plan import forecast_planned_labels  # noqa: E402
from estimators.base.multiple import holm, pairs  # noqa: E402
from estimators.sequences import (  # noqa: E402
    betting,
    betting_capital,
)

CHUNK = 40


def _wor_null(x01: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """m_i(½) (the conditional null mean of label i: pool mean ½ on [0, 1], i.e. Δ = 0),
    the 'ruled out' flag, and t."""
    t = np.arange(1, x01.shape[-1] + 1, dtype=float)
    s_prev = np.cumsum(x01, axis=-1) - x01
    m = (n * 0.5 - s_prev) / (n - t + 1.0)
    out = np.maximum.accumulate((m < -betting.WOR_TOL) | (m > 1 + betting.WOR_TOL), axis=-1)
    return np.clip(m, 1e-12, 1 - 1e-12), out, t


def _kelly(x01, m, cap, mu_prev, s2_prev, shrink=None):  # type: ignore[no-untyped-def]
    gap = mu_prev - m
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(gap / (s2_prev + gap * gap), -cap / (1.0 - m), cap / m)
    if shrink is not None:
        lam = lam * shrink
    return np.cumsum(np.log1p(lam * (x01 - m)), axis=-1)


def _plugins(x01: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The app's predictable μ̂_{i−1}, σ̂²_{i−1} (betting._kelly_log_capital)."""
    t = np.arange(1, x01.shape[-1] + 1, dtype=float)
    mu = (0.5 + np.cumsum(x01, axis=-1)) / (t + 1.0)
    s2 = (0.25 + np.cumsum((x01 - mu) ** 2, axis=-1)) / (t + 1.0)
    first = np.full((*x01.shape[:-1], 1), 0.5)
    mu_prev = np.concatenate([first, mu[..., :-1]], axis=-1)
    s2_prev = np.concatenate([np.full_like(first, 0.25), s2[..., :-1]], axis=-1)
    return mu_prev, s2_prev


def variant_log_k(x01, pool01, n, tuning, t_star, variant):  # type: ignore[no-untyped-def]
    """log K_t(Δ = 0) of the app's capital with one handicap turned off (module doc)."""
    m, out, t = _wor_null(x01, n)
    if variant.startswith(("w ", "caps ")):  # candidate weights / caps of the three parts
        w = [float(v) for v in variant.split()[1:]]
        old = betting_capital.PARTS  # the global the capital reads (betting.PARTS is a copy)
        betting_capital.PARTS = (
            tuple((a, p[1]) for a, p in zip(w, old, strict=True) if a > 0)
            if variant.startswith("w ") else ((0.25, "plan"), (0.375, w[0]), (0.375, w[1]))
        )  # fmt: skip
        try:
            log_k = betting.wor_log_capital(x01, np.asarray(0.5), tuning, t_star, n)
        finally:
            betting_capital.PARTS = old
        return np.where(out, np.inf, log_k)
    if variant in ("app", "no floor", "Bonferroni"):
        log_k = betting.wor_log_capital(x01, np.asarray(0.5), tuning, t_star, n)
        return np.where(out, np.inf, log_k)
    if variant == "mix pool":
        return np.where(out, np.inf, _mix_pool(x01, m))
    if variant.startswith("mix"):
        return np.where(out, np.inf, _mixture(x01, m, variant, tuning, t_star))
    mu_prev, s2_prev = _plugins(x01)
    shrink = None
    if variant == "σ² known":
        s2_prev = np.full_like(s2_prev, pool01.var())
    elif variant == "μ σ² known":
        s_prev = np.cumsum(x01, axis=-1) - x01
        mu_prev = np.clip((n * pool01.mean() - s_prev) / (n - t + 1.0), 0.0, 1.0)
        s2_prev = np.full_like(s2_prev, max(pool01.var(), 1e-6))
    elif variant.startswith("shrink"):
        w = float(variant.split()[1])
        shrink = (t - 1.0) / (t - 1.0 + w)
    if variant == "no hedge":
        log_k = _kelly(x01, m, 0.9, mu_prev, s2_prev)
    elif variant == "ramp":  # candidate: one Kelly part whose cap grows ½ → 0.9 with t
        cap = np.clip(0.5 + 0.4 * (t - 30.0) / 70.0, 0.5, 0.9)
        log_k = np.logaddexp(
            betting._plan_log_capital(x01, m, tuning, t_star) + math.log(0.25),
            _kelly(x01, m, cap, mu_prev, s2_prev) + math.log(0.75),
        )
    else:
        parts = []
        for weight, bet in betting.PARTS:
            if bet == "plan":
                part = betting._plan_log_capital(x01, m, tuning, t_star)
            else:
                part = _kelly(x01, m, float(bet), mu_prev, s2_prev, shrink)
            parts.append(part + math.log(weight))
        log_k = np.logaddexp.reduce(np.stack(parts), axis=0)
    return np.where(out, np.inf, log_k)


#: the pool's growth-optimal bets of every pair, both signs, on the [0, 1] scale ("mix
#: pool": a Bayes mixture whose prior is the campaign's own spread of effects)
POOL_BETS: list[float] = []


def _pool_bets(y: np.ndarray) -> list[float]:
    out = []
    for a, b in pairs(y.shape[1]):
        lam = growth_bet(y[:, a] - y[:, b])
        out += [2.0 * lam, -2.0 * lam]
    return out


def _mix_pool(x01, m):  # type: ignore[no-untyped-def]
    """Semi-oracle: a uniform mixture over the campaign's own λ* (both signs), each clipped
    to ±0.999/m_i — knows the spread of effects in the campaign, not which pair has which."""
    dev = x01 - m
    acc = None
    w = math.log(1.0 / len(POOL_BETS))
    for lam in POOL_BETS:
        lam_i = np.clip(lam, -0.999 / (1.0 - m), 0.999 / m)
        part = np.cumsum(np.log1p(lam_i * dev), axis=-1) + w
        acc = part if acc is None else np.logaddexp(acc, part)
    return acc


def _mixture(x01, m, variant, tuning, t_star):  # type: ignore[no-untyped-def]
    """Candidate: a mixture over constant bets λ_g (clipped to ±0.9/m_i), prior weights
    from ``variant``: "mix uniform G" (G bets evenly over [−1.8, 1.8]) or "mix normal s"
    (a grid of 41 with weights ∝ N(0, s²)); ¼ of the capital stays on the plan part."""
    kind, par = variant.split()[1], float(variant.split()[2])
    grid = np.linspace(-1.8, 1.8, int(par) if kind == "uniform" else 41)
    w = np.ones_like(grid) if kind == "uniform" else np.exp(-0.5 * (grid / par) ** 2)
    w = w / w.sum()
    acc = betting._plan_log_capital(x01, m, tuning, t_star) + math.log(0.25)
    dev = x01 - m
    for lam, wg in zip(grid, w, strict=True):
        lam_i = np.clip(lam, -0.9 / (1.0 - m), 0.9 / m)
        acc = np.logaddexp(acc, np.cumsum(np.log1p(lam_i * dev), axis=-1) + math.log(0.75 * wg))
    return acc


def pvalues(yo, y, variant, tuning, t_star, floor):  # type: ignore[no-untyped-def]
    """(R, m, N) p-value paths of one variant."""
    if variant.startswith("oracle"):
        p = oracle_pvalues(yo, y)
        if floor == 1:  # recompute without the floor
            p = _oracle_nofloor(yo, y)
        return p
    _, n, k = yo.shape
    t = np.arange(1, n + 1)
    out = []
    for a, b in pairs(k):
        d = yo[:, :, a] - yo[:, :, b]
        x01 = (d + 1.0) / 2.0
        pool01 = (y[:, a] - y[:, b] + 1.0) / 2.0
        log_k = variant_log_k(x01, pool01, n, tuning, t_star, variant)
        log_k = np.where(t[None, :] < floor, -np.inf, log_k)
        p = np.minimum(1.0, np.exp(-np.maximum(log_k, 0.0)))
        p = np.where(np.abs(np.cumsum(d, axis=1)) > n - t + TOL, 0.0, p)
        out.append(np.minimum.accumulate(p, axis=1))
    return np.stack(out, axis=1)


def _oracle_nofloor(yo, y):  # type: ignore[no-untyped-def]
    import ranking_route_bench as rrb

    old = rrb.BURN_IN
    rrb.BURN_IN = 1
    try:
        return rrb.oracle_pvalues(yo, y)
    finally:
        rrb.BURN_IN = old


def first_verdict(p: np.ndarray, bonferroni: bool) -> np.ndarray:
    """(R, m) first t at which the pair is rejected (Holm, or every pair at α/m)."""
    m = p.shape[1]
    if bonferroni:
        hit = p <= ALPHA / m
    else:
        hit = np.swapaxes(holm(np.swapaxes(p, 1, 2), ALPHA).reject, 1, 2)
    return np.where(hit.any(axis=2), hit.argmax(axis=2) + 1.0, np.inf)


VARIANTS = ("app", "σ² known", "μ σ² known", "no hedge", "shrink 10", "shrink 30",
            "oracle")  # fmt: skip
COMMON = (("no floor", "oracle no floor", 1, False), ("Bonferroni", "oracle Bonferroni", 30,
          True))  # fmt: skip


def study(pool: Pool, r_orders: int, seed: int, variants: tuple[str, ...]) -> dict:
    y = pool.y
    n, k = y.shape
    plist = pairs(k)
    m = len(plist)
    t_star = min(forecast_planned_labels(k, SMALLEST_DIFFERENCE, ALPHA), n)
    rng = np.random.default_rng(seed)
    orders = np.stack([rng.permutation(n) for _ in range(r_orders)])
    n80 = np.array([n80_bonferroni(y[:, a] - y[:, b], orders, ALPHA / m) for a, b in plist])
    n80_free = np.array([_n80_free(y[:, a] - y[:, b], orders, ALPHA / m) for a, b in plist])
    POOL_BETS[:] = _pool_bets(y)
    runs = [(v, v, 30, False) for v in variants]
    for c in COMMON:
        runs += [(c[0], c[0], c[2], c[3]), (c[1], "oracle", c[2], c[3])]
    res = {}
    for label, variant, floor, bonf in runs:
        firsts = []
        for c in range(0, r_orders, CHUNK):
            o = orders[c : c + CHUNK]
            p = pvalues(y[o], y, variant, ALPHA / m, t_star, floor)
            if label == "app" and c == 0:  # the app row is the route bench's app
                ref = pair_pvalues(y[o], tuning=ALPHA / m, t_star=t_star, known=True)
                assert np.allclose(p, ref, rtol=1e-9, atol=1e-12), "app row ≠ route bench"
            firsts.append(first_verdict(p, bonf))
        med = np.median(np.concatenate(firsts), axis=0)
        ref = n80_free if floor == 1 else n80
        ok = np.isfinite(ref)
        ratio = med[ok] / ref[ok]
        res[label] = (float(np.median(ratio)), float(np.percentile(ratio, 80)), int(ok.sum()))
    return {"pool": pool.name, "k": k, "m": m, "N": n, "t_star": t_star, "res": res}


def _n80_free(d, orders, level):  # type: ignore[no-untyped-def]
    """n80 without the 30-label floor (a t-test needs n ≥ 2)."""
    import ranking_route_bench as rrb

    old = rrb.MIN_N
    rrb.MIN_N = 2
    try:
        return rrb.n80_bonferroni(d, orders, level)
    finally:
        rrb.MIN_N = old


def _print(s: dict) -> None:
    res = s["res"]
    app, ora = res["app"], res["oracle"]
    print(f"\n{s['pool']} ({s['k']} systems, {s['m']} pairs, N = {s['N']}, t* = {s['t_star']}, "
          f"{app[2]} pairs with n80 in the pool)")  # fmt: skip
    print(f"  {'row':22s} {'median':>7s} {'p80':>6s} {'÷oracle':>8s} {'÷oracle':>8s} "
          f"{'gap share med':>13s} {'p80':>6s}")  # fmt: skip
    for label, (med, p80, _) in res.items():
        base = res["oracle no floor"] if label == "no floor" else (
            res["oracle Bonferroni"] if label == "Bonferroni" else ora)  # fmt: skip
        gm = (app[0] - med) / (app[0] - ora[0]) if app[0] != ora[0] else math.nan
        gp = (app[1] - p80) / (app[1] - ora[1]) if app[1] != ora[1] else math.nan
        print(f"  {label:22s} {med:>7.3f} {p80:>6.3f} {med / base[0]:>8.3f} "
              f"{p80 / base[1]:>8.3f} {gm:>13.2f} {gp:>6.2f}")  # fmt: skip


def nulls(pool: Pool, runs: int, seed: int) -> None:
    """The app's family-wise error at true nulls on ``pool`` (ranking_route_bench's
    construction: k independent permutations of the labels of the pool's system with the
    largest label variance, every Δ exactly 0; Holm and e-BH read after every label up to
    the census)."""
    from ranking_route_bench import CHUNK as RCHUNK
    from ranking_route_bench import ever_ebh, first_holm, pair_evalues, pair_pvalues

    rng = np.random.default_rng(seed)
    y = pool.y
    base = y[:, int(np.argmax(y.var(axis=0)))]
    n, k = y.shape
    m = len(pairs(k))
    t_star = min(forecast_planned_labels(k, SMALLEST_DIFFERENCE, ALPHA), n)
    holm_hits = ebh_hits = 0
    for c in range(0, runs, RCHUNK):
        r = min(RCHUNK, runs - c)
        yo = base[np.argsort(rng.random((r, k, n)), axis=2)].transpose(0, 2, 1)
        p = pair_pvalues(yo, tuning=ALPHA / m, t_star=t_star, known=True)
        holm_hits += int(np.isfinite(first_holm(p)).any(axis=1).sum())
        ebh_hits += int(ever_ebh(pair_evalues(yo, tuning=ALPHA / m, t_star=t_star)).sum())
    se = math.sqrt(ALPHA * (1 - ALPHA) / runs)
    print(f"nulls {pool.name}: {runs} campaigns, {k} systems: Holm FWER {holm_hits / runs:.4f}, "
          f"e-BH {ebh_hits / runs:.4f} (MC-SE at α {se:.4f})", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="20 orders")
    ap.add_argument("--orders", type=int, default=100)
    ap.add_argument("--pools", default="all")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--nulls", type=int, default=0, help="only the null campaigns (count)")
    args = ap.parse_args(argv)
    r = 20 if args.quick else args.orders
    t0 = time.time()
    pools = [*load_wmt(False), *load_chaganty(False), *load_newstest()]
    if args.pools != "all":
        pools = [p for p in pools if p.name in args.pools.split(",")]
    if args.nulls:
        for pool in pools:
            nulls(pool, args.nulls, 900 + sum(map(ord, pool.name)))
        return 0
    variants = tuple(args.variants.split(","))
    print(f"α = {ALPHA}, Holm, plan d = {SMALLEST_DIFFERENCE}; {r} orders per pool; ratios = "
          "labels to a verdict ÷ fixed-n n80 at α/m (median / 80th pct over pairs); ÷oracle "
          "against the oracle with the same floor and reading")  # fmt: skip
    for pool in pools:
        _print(study(pool, r, 100 + sum(map(ord, pool.name)), variants))
        sys.stdout.flush()
    print(f"\ntotal {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
