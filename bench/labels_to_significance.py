"""Human labels to significance on real pairs (docs/statistics-notes.md §22). Not a test.

For each real pair of systems (A, B) and R random label orders (each order is a random
permutation of the pool's items; a paired method labels both systems' outputs of the first n
items), n80 = the smallest n at which ≥ 80 % of orders give a 95 % interval that excludes 0
with the sign of the true (whole-pool) difference. Methods:

- human paired     — t interval on D = y_A − y_B (estimators.fixed_n.human.paired_difference)
- human unpaired   — Welch on n labels of A and n of B from independent orders
                     (estimators.fixed_n.human.welch_difference)
- von Däniken      — per-system double sampling on m = 1{metric ≥ pool median}
                     (estimators.fixed_n.double_sampling.per_system_difference)
- CV               — Chaganty's per-system control variates: λ_A, λ_B each fitted for its own
                     system (estimators.fixed_n.control_variates.optimal_lambda), paired variance
                     (ppi_paired_difference with controls (g_A, g_B) and λ = (λ_A, −λ_B))
- PPI++ 1          — PPI++ on D with the control g_A − g_B
- PPI++ 2          — PPI++ on D with the controls (g_A, g_B)
- live designs     — median first time t ≥ 30 at which each live design of the monitor
                     (estimators.sequences.designs: AsympCS, group-sequential O'Brien–Fleming
                     α-spending with 20 looks, betting CS) calls the pair significant with
                     the right sign, on the monitor's default increments: predictable CV with
                     the control g_A − g_B in the finite-pool (Des Raj) form — the estimand is
                     the campaign's own test set, the labels fixed recorded judgments taken
                     without replacement. A stream that never decides counts as ∞.
                     The planned size t* is what the planner forecasts for a user who names
                     the true whole-pool difference as the smallest one they care about and
                     knows the spread of D: n_plan = ((z_0.975 + z_0.8)·sd(D)/|Δ|)², clipped
                     to [30, N] (a user cannot know the true n80); the "×0.5" and "×4"
                     columns mis-plan it. "old default" is the earlier default monitor
                     (AsympCS, super-population increments, t* = N).
                     The labels lie in [0, 1], so the monitor's variance prior (D in
                     [−1, 1]) applies to all; the betting design runs without a control, as
                     in the monitor (a control would widen the increments' known bounds).

Label savings = 1 − n80(method)/n80(human paired). Oracle bound (Chaganty et al. 2018, §3;
docs/statistics-notes.md §17): with a metric whose population correlation with D is ρ, no unbiased
estimator has variance below (σ_D²/n)(1 − ρ²), so n80_oracle = n80(human paired)·(1 − R²)
with R² the whole-pool squared multiple correlation of D with the PPI++ 2 controls (g_A, g_B)
(the N_u → ∞ floor; ρ of the 1-control form is shown too). The labels are the recorded human
judgments of the pool (one fixed value per output), so sampling is without replacement and
the "truth" is the whole-pool mean difference.

Data (../shared/data): Chaganty et al. 2018 CNN/DM summaries (4 systems; labels 1 − HTER
clipped to [0, 1] with HTER the mean of the 2 raters' HTER, as the app analyses post-edits,
and the binary mean-overall > 0) and WMT21 TED
en-de (13 systems; binary no-Major-error label; 8 pairs spread over those with |Δ| ≥ 0.06,
so that n80 can exist within the 529 segments). Metric: sentence chrF (sacrebleu), and
BERTScore F1 with the offline all-MiniLM-L6-v2 (cached under /tmp by content hash) as a
second metric row.

    .venv/bin/python bench/labels_to_significance.py            # full run (R = 300)
    .venv/bin/python bench/labels_to_significance.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from estimators.fixed_n import control_variates as cv  # noqa: E402
from estimators.fixed_n import (  # noqa: E402
    double_sampling,
    human,
)
from estimators.sequences.designs import LiveDesign, design_paths  # noqa: E402
from estimators.sequences.sequential import paired_cv_increments  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from pools import DATA, Pool, load_chaganty, load_wmt, select_pairs, wide  # noqa: E402, F401

LEVEL = 0.95
POWER = 0.8
MIN_N = 30
METHODS = ["human paired", "human unpaired", "von Däniken", "CV", "PPI++ 1", "PPI++ 2"]
DESIGNS = [LiveDesign.ASYMPCS, LiveDesign.GSD_OBF, LiveDesign.BETTING]
MISPLANS = {"": 1.0, " ×0.5": 0.5, " ×4": 4.0}
LIVE = [f"{d}{tag}" for d in DESIGNS for tag in MISPLANS] + ["old default"]


# ----------------------------------------------------------------------------- data


# ----------------------------------------------------------------------------- methods


def _excludes(res, sign: float) -> bool:
    return (res.ci[0] > 0) if sign > 0 else (res.ci[1] < 0)


def _interval(method: str, n: int, ya, yb, ga, gb, o1, o2, m_a, m_b):
    """One method's interval with the first n items of order o1 (o2 for B when unpaired)."""
    lab, unl = o1[:n], o1[n:]
    if method == "human paired":
        return human.paired_difference(ya[lab], yb[lab], LEVEL)
    if method == "human unpaired":
        return human.welch_difference(ya[lab], yb[o2[:n]], LEVEL)
    if method == "von Däniken":
        return double_sampling.per_system_difference(
            ya[lab], yb[lab], m_a[lab], m_b[lab], m_a, m_b, LEVEL
        )
    if method == "CV":
        lam_a = cv.optimal_lambda(ya[lab], ga[lab], ga[unl])
        lam_b = cv.optimal_lambda(yb[lab], gb[lab], gb[unl])
        lam = np.concatenate([np.atleast_1d(lam_a), -np.atleast_1d(lam_b)])
        return cv.ppi_paired_difference(
            ya[lab], yb[lab], ga[lab], gb[lab], ga[unl], gb[unl], "both", lam, LEVEL
        )
    controls = "difference" if method == "PPI++ 1" else "both"
    return cv.ppi_paired_difference(
        ya[lab], yb[lab], ga[lab], gb[lab], ga[unl], gb[unl], controls, None, LEVEL
    )


def _power(method, n, pair, orders, orders2) -> float:
    ya, yb, ga, gb, m_a, m_b, sign = pair
    hits = 0
    for o1, o2 in zip(orders, orders2, strict=True):
        res = _interval(method, n, ya, yb, ga, gb, o1, o2, m_a, m_b)
        hits += _excludes(res, sign)
    return hits / len(orders)


def n80(method, pair, orders, orders2, n_max) -> float:
    """Smallest n in [30, n_max] with power ≥ 0.8, by bisection on the same orders (power
    rises with n; the same orders for every n keep the curve smooth). inf if never."""
    lo, hi = MIN_N, n_max
    if _power(method, hi, pair, orders, orders2) < POWER:
        return math.inf
    if _power(method, lo, pair, orders, orders2) >= POWER:
        return float(lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _power(method, mid, pair, orders, orders2) >= POWER:
            hi = mid
        else:
            lo = mid
    return float(hi)


def planned_size(d: np.ndarray) -> int:
    """The planner's fixed-n forecast for the true whole-pool difference (80 % power)."""
    z = 1.959963984540054 + 0.8416212335729143
    n = math.ceil((z * d.std(ddof=1) / abs(d.mean())) ** 2) if d.mean() != 0 else d.size
    return int(min(max(n, MIN_N), d.size))


def live_median(pair, orders, design: str, t_star: float, *, var_prior=0.0,
                finite_pool=True, bounds=None) -> float:  # fmt: skip
    """Median over orders of the first t ≥ 30 at which ``design`` calls the pair, right sign."""
    ya, yb, ga, gb, _, _, sign = pair
    o = np.asarray(orders)
    n = ya.size
    kw = {"pool_size": n if finite_pool else None}
    if LiveDesign(design).bounded:
        # bounded increments: human-only, as the monitor runs the betting design (a control
        # would widen the known bounds by |λ|·max|g − ḡ|)
        span = bounds[1] - bounds[0]
        inc = paired_cv_increments(ya[o], yb[o], None, None, label_range=(-span, span), **kw)
    else:
        inc = paired_cv_increments(ya[o], yb[o], ga[o], gb[o], ga.mean(), gb.mean(), **kw)
    _, p = design_paths(
        design, inc.z, level=1 - LEVEL, alpha=1 - LEVEL, theta0=0.0, t_star=t_star,
        bounds=inc.bounds, var_prior=var_prior,
    )  # fmt: skip
    centre = np.cumsum(inc.z, axis=1) / np.arange(1, n + 1)
    hit = (p <= 1 - LEVEL) & (np.sign(centre) == sign)
    first = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, np.inf)
    return float(np.median(first))


def run_pair(task) -> list[dict]:
    """All methods for one pair; one row per metric (human-only columns shared)."""
    pool_name, a, b, ya, yb, metrics, r_orders, seed = task
    rng = np.random.default_rng(seed)
    n_items = ya.size
    orders = [rng.permutation(n_items) for _ in range(r_orders)]
    orders2 = [rng.permutation(n_items) for _ in range(r_orders)]
    delta = float(ya.mean() - yb.mean())
    sign = 1.0 if delta > 0 else -1.0
    n_max = n_items - 2  # PPI++ needs ≥ 2 unlabelled items
    d = ya - yb
    shared = {}
    rows = []
    for metric, (ga, gb) in metrics.items():
        thr = np.median(np.concatenate([ga, gb]))
        m_a, m_b = (ga >= thr).astype(float), (gb >= thr).astype(float)
        pair = (ya, yb, ga, gb, m_a, m_b, sign)
        row = {"pool": pool_name, "metric": metric, "A": a, "B": b, "delta": delta, "N": n_items}
        for method in METHODS:
            if method.startswith("human") and method in shared:
                row[method] = shared[method]
                continue
            row[method] = n80(method, pair, orders, orders2, n_max)
            if method.startswith("human"):
                shared[method] = row[method]
        x1 = np.column_stack([np.ones(n_items), ga - gb])
        x2 = np.column_stack([np.ones(n_items), ga, gb])
        tss = np.sum((d - d.mean()) ** 2)
        row["R2_1"] = 1 - np.sum((d - x1 @ np.linalg.lstsq(x1, d, rcond=None)[0]) ** 2) / tss
        row["R2_2"] = 1 - np.sum((d - x2 @ np.linalg.lstsq(x2, d, rcond=None)[0]) ** 2) / tss
        row["oracle"] = row["human paired"] * (1 - row["R2_2"])
        # the monitor's variance prior: labels in [0, 1] ⇒ D in [−1, 1], prior 1
        prior, bounds = 1.0, (0.0, 1.0)
        t_plan = planned_size(d)
        row["t_plan"] = t_plan
        for design in DESIGNS:
            for tag, factor in MISPLANS.items():
                t_star = max(MIN_N, round(factor * t_plan))
                row[f"{design}{tag}"] = live_median(
                    pair, orders, design, t_star, var_prior=prior, bounds=bounds
                )
        row["old default"] = live_median(
            pair, orders, LiveDesign.ASYMPCS, n_items, var_prior=prior, finite_pool=False
        )
        rows.append(row)
    _active_columns(rows, ya, yb, metrics, r_orders, seed)
    return rows


def _active_columns(rows, ya, yb, metrics, r_orders, seed) -> None:  # type: ignore[no-untyped-def]
    """The queue's uniform vs active design on this pair (chrF rows; n80 and live
    stopping labels; bench/active_significance.py has the method and its own report)."""
    from active_significance import design_columns

    binary = set(np.unique(np.concatenate([ya, yb]))) <= {0.0, 1.0}
    for row in rows:
        if row["metric"] == "chrF":
            ga, gb = metrics["chrF"]
            row.update(design_columns(ya, yb, ga, gb, orders=r_orders, seed=seed, binary=binary))


# ----------------------------------------------------------------------------- driver


def fmt(x: float) -> str:
    return "  >N" if not math.isfinite(x) else f"{x:4.0f}"


def saving(x: float, ref: float) -> str:
    if not (math.isfinite(x) and math.isfinite(ref)):
        return "   –"
    return f"{100 * (1 - x / ref):+4.0f}%"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: R = 20, few pairs")
    ap.add_argument("--orders", type=int, default=300, help="random label orders per pair")
    ap.add_argument("--no-bertscore", action="store_true")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None, help="write the rows here")
    ap.add_argument(
        "--learned",
        action="store_true",
        help="only the learned-control table (docs/statistics-notes.md §23) and MLQE-PE",
    )
    args = ap.parse_args(argv)
    if args.learned:
        learned_main(args)
        return 0
    r_orders = 20 if args.quick else args.orders
    t0 = time.time()
    pools = load_chaganty(not args.no_bertscore) + load_wmt(not args.no_bertscore)
    print(f"data and metrics loaded in {time.time() - t0:.0f} s")
    tasks = []
    for p_i, pool in enumerate(pools):
        wmt = pool.name.startswith("wmt")
        pairs = select_pairs(pool, 0.06 if wmt else 0.0, (3 if args.quick else 8) if wmt else 99)
        if args.quick:
            pairs = pairs[:2]
        for a, b in pairs:
            metrics = {name: (g[:, a], g[:, b]) for name, g in pool.metrics.items()}
            seed = 1000 * p_i + 10 * a + b
            tasks.append(
                (pool.name, pool.systems[a], pool.systems[b], pool.y[:, a], pool.y[:, b],
                 metrics, r_orders, seed)
            )  # fmt: skip
    print(f"{len(tasks)} pairs × {len(pools[0].metrics)} metrics, R = {r_orders} orders each")
    with ProcessPoolExecutor(max_workers=args.workers) as ex:
        rows = [row for rows in ex.map(run_pair, tasks) for row in rows]
    report(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=float))
    print(f"\ntotal {time.time() - t0:.0f} s")
    return 0


def report(rows: list[dict]) -> None:
    cols = [*METHODS, "oracle"]
    short = ["hum-p", "hum-u", "vD", "CV", "PPI1", "PPI2", "oracle"]
    print("\nn80 (labels per system for 80% of orders to exclude 0 with the right sign)")
    head = f"{'pool':20s} {'metric':9s} {'A vs B':32s} {'Δ':>7s} " + " ".join(
        f"{s:>5s}" for s in short
    )
    print(head + "   R²₁   R²₂")
    for r in rows:
        print(
            f"{r['pool']:20s} {r['metric']:9s} {(r['A'] + ' vs ' + r['B'])[:32]:32s} "
            f"{r['delta']:+7.3f} "
            + " ".join(f"{fmt(r[c]):>5s}" for c in cols)
            + f"  {r['R2_1']:.3f} {r['R2_2']:.3f}"
        )
    print("\nlabel savings vs human paired (1 − n80/n80_human paired)")
    print(head[: head.index("hum-p")] + " ".join(f"{s:>5s}" for s in short[1:]))
    for r in rows:
        ref = r["human paired"]
        print(
            f"{r['pool']:20s} {r['metric']:9s} {(r['A'] + ' vs ' + r['B'])[:32]:32s} "
            f"{r['delta']:+7.3f} " + " ".join(f"{saving(r[c], ref):>5s}" for c in cols[1:])
        )
    print(
        "\nlive designs: median stopping labels / n80(human paired); t_plan = planner "
        "forecast (×0.5, ×4 = mis-planned)"
    )
    print(f"{'pool':20s} {'metric':9s} {'A vs B':32s} {'n80':>5s} {'plan':>5s} "
          + " ".join(f"{c[:13]:>13s}" for c in LIVE))  # fmt: skip
    for r in rows:
        ref = r["human paired"]
        print(
            f"{r['pool']:20s} {r['metric']:9s} {(r['A'] + ' vs ' + r['B'])[:32]:32s} "
            f"{fmt(ref):>5s} {r['t_plan']:5d} " + " ".join(f"{ratio(r[c], ref):>13s}" for c in LIVE)
        )
    done = [r for r in rows if all(math.isfinite(r[c]) for c in ("human paired", "PPI++ 2"))]
    if not done:
        return
    print(f"\nsummary over {len(done)} pair×metric rows where n80 exists:")
    for c in cols[1:]:
        ok = [r for r in done if math.isfinite(r[c])]
        if ok:
            med = np.median([1 - r[c] / r["human paired"] for r in ok])
            print(f"  {c:16s} median saving {100 * med:+5.1f}%  ({len(ok)} rows)")
    best = [min(r["PPI++ 1"], r["PPI++ 2"]) for r in done]
    gap = [b / r["oracle"] - 1 for b, r in zip(best, done, strict=True)]
    worse = sum(b > r["human paired"] for b, r in zip(best, done, strict=True))
    print(
        f"  best PPI++ vs oracle: median {100 * np.median(gap):+.1f}%, "
        f"within 5% in {sum(g <= 0.05 for g in gap)}/{len(gap)} rows; "
        f"worse than human paired in {worse} rows"
    )
    for c in ("PPI++ 1", "PPI++ 2"):
        worse = sum(r[c] > r["human paired"] for r in done)
        print(f"  {c} worse than human paired in {worse}/{len(done)} rows")
    big = [r for r in done if r["human paired"] > MIN_N]
    print(f"  rows with n80(human paired) > {MIN_N} (not at the floor): {len(big)}")
    for label, subset in (("all rows", done), ("rows not at the floor", big)):
        print(f"\nlive / fixed-n n80 (human paired), {label} ({len(subset)}):")
        for c in LIVE:
            x = np.array([r[c] / r["human paired"] for r in subset])
            print(
                f"  {c:16s} median {np.median(x):5.2f}  ≤ 1.10 in {np.sum(x <= 1.1):2d}/"
                f"{x.size}  never decides (median ∞) in {np.sum(~np.isfinite(x))}"
            )
    _report_active(rows)


def ratio(x: float, ref: float) -> str:
    if not math.isfinite(ref):
        return "–"
    return "∞" if not math.isfinite(x) else f"{x / ref:.2f}"


def _report_active(rows: list[dict]) -> None:
    """Active vs uniform labelling per chrF row (n80, live stopping labels)."""
    rows = [r for r in rows if "n80 active" in r]
    if not rows:
        return
    print("\nactive vs uniform labelling (b = 0.5, τ = 0.3; chrF; labels):")
    for r in rows:
        print(
            f"  {r['pool']:20s} {(r['A'] + ' vs ' + r['B'])[:32]:32s} n80 "
            f"{fmt(r['n80 uniform'])} → {fmt(r['n80 active'])} "
            f"{saving(r['n80 active'], r['n80 uniform'])}, live {fmt(r['live uniform'])} → "
            f"{fmt(r['live active'])} {saving(r['live active'], r['live uniform'])}"
        )


# ----------------------------------------------------------------------------- learned control
# docs/statistics-notes.md §23 on real data (`--learned`): the cross-fitted ŷ
# (estimators.fixed_n.learned) from every automatic signal of the pool — the metrics above and the
# cheap text features of metrics.features — as ONE PPI++ control, against human-only and the best
# single metric. MLQE-PE has one system per language pair (no pairs): there the system mean is
# reported, with the translation model's own sentence score `nmt_model_score` as an imported metric.

LEARNED_ORDERS = 100  # cross-fitting per order and n: fewer orders than the other methods


def _text_features(sources, references, outputs) -> np.ndarray:
    from metrics.features import FEATURE_KEYS, text_features

    rows = [text_features(s, r, o) for s, r, o in zip(sources, references, outputs, strict=True)]
    return np.array([[row[k] for k in FEATURE_KEYS] for row in rows], dtype=float)


def _feature_grid(df: pd.DataFrame, systems, cand_col, ref_col) -> np.ndarray:
    """(N, k, 6) cheap features, items and systems in the order of :func:`wide`."""
    df = df.sort_values(["item_id", "system"])
    src = df["source"].astype(object).fillna("").tolist()
    f = _text_features(src, df[ref_col].fillna("").tolist(), df[cand_col].fillna("").tolist())
    cols = [f"f{i}" for i in range(f.shape[1])]
    df = df.assign(**{c: f[:, i] for i, c in enumerate(cols)})
    return np.stack([wide(df, systems, c) for c in cols], axis=-1)


def _learned_power(n, ya, yb, xa, xb, orders, sign) -> float:
    from estimators.fixed_n.learned import learned_ppi_paired_difference

    hits = 0
    for o in orders:
        lab, unl = o[:n], o[n:]
        res = learned_ppi_paired_difference(
            ya[lab], yb[lab], xa[lab], xb[lab], xa[unl], xb[unl], level=LEVEL
        )
        hits += _excludes(res, sign)
    return hits / len(orders)


def _bisect(power, n_max: int) -> float:
    lo, hi = MIN_N, n_max
    if power(hi) < POWER:
        return math.inf
    if power(lo) >= POWER:
        return float(lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if power(mid) >= POWER else (mid, hi)
    return float(hi)


def _pair_stats(d: np.ndarray, controls: np.ndarray) -> tuple[float, float]:
    """(Pearson of D with the control, whole-pool R² of D on it)."""
    r = float(np.corrcoef(d, controls)[0, 1]) if np.std(controls) > 0 else 0.0
    return r, r * r


def learned_pair_row(task) -> dict:
    """n80 of human paired, PPI++ with each single metric, and PPI++ with the learned ŷ."""
    pool_name, a, b, ya, yb, metrics, feats_a, feats_b, r_orders, seed = task
    rng = np.random.default_rng(seed)
    n_items = ya.size
    orders = [rng.permutation(n_items) for _ in range(r_orders)]
    delta = float(ya.mean() - yb.mean())
    sign = 1.0 if delta > 0 else -1.0
    n_max = n_items - 3  # PPI++ with ŷ needs ≥ 3 unlabelled items (residual ddof 2)
    row = {"pool": pool_name, "A": a, "B": b, "delta": delta, "N": n_items}
    pair = (ya, yb, None, None, None, None, sign)
    row["human paired"] = n80("human paired", pair, orders, orders, n_max)
    d = ya - yb
    for metric, (ga, gb) in metrics.items():
        pair = (ya, yb, ga, gb, None, None, sign)
        row[f"n80 {metric}"] = n80("PPI++ 1", pair, orders, orders, n_max)
        row[f"r {metric}"], row[f"R2 {metric}"] = _pair_stats(d, ga - gb)
    xa = np.column_stack([*(g[0] for g in metrics.values()), feats_a])
    xb = np.column_stack([*(g[1] for g in metrics.values()), feats_b])
    row["n80 learned"] = _bisect(lambda n: _learned_power(n, ya, yb, xa, xb, orders, sign), n_max)
    # ŷ's pool-level quality: cross-fitted on a random half, read on the other half
    from estimators.fixed_n.learned import cross_fit

    half = orders[0][: n_items // 2]
    rest = orders[0][n_items // 2 :]
    items = np.arange(half.size)
    fit = cross_fit(
        np.vstack([xa[half], xb[half]]),
        np.concatenate([ya[half], yb[half]]),
        np.vstack([xa[rest], xb[rest]]),
        groups=np.concatenate([items, items]),
    )
    ha, hb = fit.unlabelled[: rest.size], fit.unlabelled[rest.size :]
    row["r learned"], row["R2 learned"] = _pair_stats(d[rest], ha - hb)
    return row


def mlqe_rows(r_orders: int, seed: int = 7) -> list[dict]:
    """Per language pair: Pearson of each signal with the judgment, measured DE of PPI++ with
    it (labels = a random 20 %), and n80 for a ±target interval on the system mean."""
    from estimators.fixed_n.learned import learned_ppi_mean

    df = pd.read_csv(DATA / "mlqe-pe-test20" / "mlqe_pe_test20.csv")
    rows = []
    for lp, part in df.groupby("lang_pair", sort=True):
        feats = _text_features(part["source"].fillna("").tolist(), [""] * len(part),
                               part["output"].fillna("").tolist())  # fmt: skip
        nmt = part["nmt_model_score"].to_numpy(float)
        x = np.column_stack([nmt, feats])
        for label, target in (("human_label_binary", 0.05), ("human_score", 2.5)):
            y = part[label].to_numpy(float)
            rng = np.random.default_rng(seed)
            orders = [rng.permutation(y.size) for _ in range(r_orders)]
            row = {"lp": lp, "label": label, "N": y.size, "target": target,
                   "r nmt_model_score": float(np.corrcoef(y, nmt)[0, 1])}  # fmt: skip

            def width_power(n, method, _y=y, _x=x, _orders=orders, _t=target):
                ok = 0
                for o in _orders:
                    lab, unl = o[:n], o[n:]
                    if method == "human":
                        res = human.mean_t(_y[lab], LEVEL)
                    elif method == "nmt":
                        res = cv.ppi_mean(_y[lab], _x[lab, 0], _x[unl, 0], level=LEVEL)
                    else:
                        res = learned_ppi_mean(_y[lab], _x[lab], _x[unl], level=LEVEL)
                    ok += (res.high - res.low) / 2 <= _t
                return ok / len(_orders)

            for method in ("human", "nmt", "learned"):
                row[f"n80 {method}"] = _bisect(lambda n, m=method: width_power(n, m), y.size - 3)
            lab, unl = orders[0][:200], orders[0][200:]
            row["DE nmt_model_score"] = cv.ppi_mean(y[lab], nmt[lab], nmt[unl]).diagnostics["de"]
            res = learned_ppi_mean(y[lab], x[lab], x[unl])
            row["DE learned"], row["r learned"] = res.diagnostics["de"], res.diagnostics["rho"]
            rows.append(row)
    return rows


def learned_main(args) -> None:
    """`--learned`: the learned-control table on every real pair, then MLQE-PE."""
    r_orders = 10 if args.quick else min(args.orders, LEARNED_ORDERS)
    t0 = time.time()
    tasks = []
    specs = [("chaganty", "output_num0", "reference_num0"), ("wmt", "output", "reference")]
    pools = load_chaganty(not args.no_bertscore) + load_wmt(not args.no_bertscore)
    for p_i, pool in enumerate(pools):
        wmt = pool.name.startswith("wmt")
        _, cand, ref = specs[1 if wmt else 0]
        df = (pd.read_csv(DATA / "wmt21-ted-mqm" / "wmt21_ted_ende.csv") if wmt else
              pd.read_csv(DATA / "chaganty2018-cnndm-summaries" / "items.csv"))  # fmt: skip
        df = df[df["system"].isin(pool.systems)]
        full = df.groupby("item_id")["system"].nunique()
        df = df[df["item_id"].isin(full[full == len(pool.systems)].index)]
        feats = _feature_grid(df, pool.systems, cand, ref)
        pairs = select_pairs(pool, 0.06 if wmt else 0.0, (3 if args.quick else 8) if wmt else 99)
        for a, b in pairs[:2] if args.quick else pairs:
            metrics = {name: (g[:, a], g[:, b]) for name, g in pool.metrics.items()}
            tasks.append((pool.name, pool.systems[a], pool.systems[b], pool.y[:, a],
                          pool.y[:, b], metrics, feats[:, a], feats[:, b], r_orders,
                          1000 * p_i + 10 * a + b))  # fmt: skip
    with ProcessPoolExecutor(max_workers=args.workers) as ex:
        rows = list(ex.map(learned_pair_row, tasks))
    names = [k[4:] for k in rows[0] if k.startswith("n80 ") and k != "n80 learned"]
    print(
        f"\nlearned control on {len(rows)} real pairs (R = {r_orders} orders): n80 and "
        "saving vs human paired; r / R² = Pearson / R² of D with the control's difference"
    )
    print(
        f"{'pool':20s} {'A vs B':30s} {'Δ':>7s} {'hum':>5s} "
        + " ".join(f"{m[:9]:>9s} {'sav':>5s}" for m in [*names, "learned"])
        + "  best-imported  "
        + " ".join(f"r/R² {m[:9]}" for m in [*names, "learned"])
    )
    for r in rows:
        ref = r["human paired"]
        cells = " ".join(f"{fmt(r['n80 ' + m]):>9s} {saving(r['n80 ' + m], ref):>5s}"
                         for m in [*names, "learned"])  # fmt: skip
        stats_ = " ".join(f"{r['r ' + m]:+.3f}/{r['R2 ' + m]:.3f}" for m in [*names, "learned"])
        print(
            f"{r['pool']:20s} {(r['A'] + ' vs ' + r['B'])[:30]:30s} {r['delta']:+7.3f} "
            f"{fmt(ref):>5s} {cells}  {'–':>13s}  {stats_}"
        )
    done = [r for r in rows if math.isfinite(r["human paired"]) and r["human paired"] > MIN_N]
    for m in [*names, "learned"]:
        sav = [1 - r["n80 " + m] / r["human paired"] for r in done if math.isfinite(r["n80 " + m])]
        if sav:
            print(
                f"  {m:10s} median saving {100 * np.median(sav):+5.1f}% "
                f"(range {100 * min(sav):+.1f}% … {100 * max(sav):+.1f}%, {len(sav)} rows "
                f"not at the floor)"
            )
    print(
        "\nMLQE-PE test20 (one system per language pair): n80 = labels for a 95% interval of "
        "half-width ≤ target on the system mean in 80% of orders"
    )
    mrows = mlqe_rows(r_orders)
    print(
        f"{'lp':6s} {'label':18s} {'target':>6s} {'r nmt':>6s} {'r ŷ':>6s} {'DE nmt':>6s} "
        f"{'DE ŷ':>6s} {'hum':>5s} {'nmt':>5s} {'sav':>5s} {'ŷ':>5s} {'sav':>5s}"
    )
    for r in mrows:
        h = r["n80 human"]
        print(
            f"{r['lp']:6s} {r['label']:18s} {r['target']:6.2f} {r['r nmt_model_score']:+6.3f} "
            f"{r['r learned']:+6.3f} {r['DE nmt_model_score']:6.3f} {r['DE learned']:6.3f} "
            f"{fmt(h):>5s} {fmt(r['n80 nmt']):>5s} {saving(r['n80 nmt'], h):>5s} "
            f"{fmt(r['n80 learned']):>5s} {saving(r['n80 learned'], h):>5s}"
        )
    if args.json:
        args.json.with_suffix(".learned.json").write_text(
            json.dumps({"pairs": rows, "mlqe": mrows}, indent=1, default=float)
        )
    print(f"\nlearned-control bench {time.time() - t0:.0f} s")


if __name__ == "__main__":
    raise SystemExit(main())
