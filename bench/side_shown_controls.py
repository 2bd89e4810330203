"""Labels until a side is shown with an imported metric control in the asymptotic mixture.

A benchmark (``bench/side_shown_bench.py --controls``; docs/statistics-notes.md §34). The
route is side_shown_bench's: every pair, the paired queue, the test-set estimand, Holm at
α = 0.05 read after every item, the 30-label floor and the known-part rule; the design is
``asympcs_mix`` (the graded scores' default). Arms, on the same orders:

- ``none``    no control (the design without imported metric scores);
- ``own``     each pair's own predictable OLS slope (λ = 0 for its first 10 labels): the
              control as the monitor used it before;
- ``pooled``  the slope pooled over all pairs with a ridge of 2 pseudo-items per pair, the
              item's slope from the items complete before it
              (:mod:`estimators.sequences.mixture_control`): the monitor now;
- ``oracle``  each pair's pool-optimal constant slope from the first label (knows the
              pool's labels: a bound on what learning λ can reach, not a design).

Controls (per output; a pair's is the difference): the REAL sentence chrF and sentence
BLEU of each output against its reference (sacrebleu) where the pool has text (WMT21 TED
MQM, Chaganty 1 − HTER); a COMET-like control, the human score plus Gaussian noise sized
so that the median paired correlation is ρ (bench/controls_default_bench.comet_like; the
newstest2020 pool has no text, so only this). Printed per pool and control: ρ (median over
pairs of corr(g_A − g_B, y_A − y_B)), the floor 1 − ρ² and the target 1 − ρ²/2 (medians
over pairs), and per arm the per-pair ratio (median over orders of the labels until a side
is shown) ÷ (the same without control): median / p80 over all pairs, the ratio of sums,
and the median over the pairs a control can move (shown without it after 40 labels and
before 90 % of the pool; the rest sit on the floor or wait for the census); and the
headline labels ÷ the fixed-n t-test n80 at α/m with the pooled control.

Validity (``--nulls``): true nulls from real labels and their real or synthetic controls —
each pseudo-system is an independent random permutation of (label, control) pairs of one
real system, so every Δ is exactly 0 while the control keeps its correlation with the label;
the share of campaigns with any side shown, read after every item to the census.
"""

from __future__ import annotations

import numpy as np
from controls_default_bench import comet_like, wmt21_continuous
from pools import _hash, load_chaganty, load_wmt
from ranking_route_bench import ALPHA, TOL, n80_bonferroni

from estimators.base.multiple import pairs
from estimators.sequences import mixture
from estimators.sequences import mixture_control as mc
from estimators.sequences.sequential import _pool_terms, cv_increments

CHUNK = 20
ARMS = ("none", "own", "pooled", "oracle")


def bleu(y_pool):  # type: ignore[no-untyped-def]
    """Sentence BLEU (sacrebleu, effective order) per output of a pool loaded with text."""
    import sacrebleu
    from pools import CACHE

    cands, refs = y_pool
    key = CACHE / f"bleu_{_hash(cands, refs)}.npy"
    if key.exists():
        return np.load(key)
    pairs_ = zip(cands, refs, strict=True)
    out = np.array([sacrebleu.sentence_bleu(c, [r]).score for c, r in pairs_])
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(key, out)
    return out


def _texts(path, cand, ref, systems):  # type: ignore[no-untyped-def]
    import pandas as pd
    from pools import wide

    df = pd.read_csv(path)
    df = df[df["system"].isin(systems)].sort_values(["item_id", "system"])
    df = df[df["item_id"].isin(df.groupby("item_id")["system"].nunique()
                               .loc[lambda s: s == len(systems)].index)]  # fmt: skip
    b = bleu((df[cand].fillna("").tolist(), df[ref].fillna("").tolist()))
    return wide(df.assign(bleu=b), systems, "bleu")


def cases(score_pools: dict, rhos: tuple[float, ...], rng) -> list[tuple]:  # type: ignore[no-untyped-def]
    """(pool name, control name, labels (N, k), control (N, k))."""
    from pools import DATA

    out = []
    wmt = load_wmt(False)[0]
    y = wmt21_continuous()
    out += [("wmt21 en-de MQM", "chrF (real)", y, wmt.metrics["chrF"])]
    out += [("wmt21 en-de MQM", "BLEU (real)", y,
             _texts(DATA / "wmt21-ted-mqm" / "wmt21_ted_ende.csv", "output", "reference",
                    wmt.systems))]  # fmt: skip
    ch = load_chaganty(False)[0]
    out += [("chaganty 1-HTER", "chrF (real)", ch.y, ch.metrics["chrF"])]
    out += [("chaganty 1-HTER", "BLEU (real)", ch.y,
             _texts(DATA / "chaganty2018-cnndm-summaries" / "items.csv", "output_num0",
                    "reference_num0", ch.systems))]  # fmt: skip
    for name in ("newstest20 MQM", "wmt21 en-de MQM", "chaganty 1-HTER"):
        for r in rhos:
            out.append((name, f"COMET-like ρ {r:g}", score_pools[name],
                        comet_like(score_pools[name], rng, r)))  # fmt: skip
    return out


def arm_pvalues(arm: str, yo, go, y, g, tuning: float) -> np.ndarray:  # type: ignore[no-untyped-def]
    """(R, m, N) p-value paths of every pair under ``asympcs_mix`` with the arm's control
    (labels yo, controls go in arrival order (R, N, k); y, g the pool's)."""
    r, n, k = yo.shape
    plist = pairs(k)
    t = np.arange(1, n + 1)
    d = np.stack([yo[:, :, a] - yo[:, :, b] for a, b in plist], axis=2)  # (R, N, m)
    gd = np.stack([go[:, :, a] - go[:, :, b] for a, b in plist], axis=2)
    gbar = np.array([np.mean(g[:, a] - g[:, b]) for a, b in plist])
    if arm == "pooled":
        var = np.array([[np.var(g[:, a] - g[:, b])] for a, b in plist])
        ones = np.ones((n, len(plist)), dtype=bool)
        # paired queue: item i's first label follows the i − 1 complete items before it
        lam = np.stack([mc.pooled_slopes(d[i], gd[i][..., None], ones, var)[:n, 0]
                        for i in range(r)])  # fmt: skip
    out = []
    for j, (a, b) in enumerate(plist):
        dj, gj = d[:, :, j], gd[:, :, j]
        if arm == "none":
            z = cv_increments(dj, None, pool_size=n).z
        elif arm == "own":
            z = cv_increments(dj, gj, float(gbar[j]), pool_size=n).z
        elif arm == "pooled":
            z = mc.increments(dj, gj, gbar[j : j + 1], lam[..., None], n).z
        elif arm == "oracle":
            dp, gp = y[:, a] - y[:, b], g[:, a] - g[:, b]
            slope = float(np.mean((dp - dp.mean()) * (gp - gp.mean())) / max(gp.var(), 1e-300))
            aa, h = _pool_terms(dj, gj[..., None], gbar[j : j + 1], n)
            z = aa - slope * h[..., 0]
        else:
            raise ValueError(arm)
        p = mixture.mixture_pvalue(z, 0.0, t_max=n, alpha_tuning=tuning)
        p = np.where(np.abs(np.cumsum(dj, axis=1)) > n - t + TOL, 0.0, p)
        out.append(np.minimum.accumulate(p, axis=1))
    return np.stack(out, axis=1)


def study(y, g, r_orders: int, seed: int, first_shown) -> dict:  # type: ignore[no-untyped-def]
    """Per arm the (m,) median over orders of the labels until a side is shown, ρ per pair,
    and n80 per pair."""
    n, k = y.shape
    plist = pairs(k)
    m = len(plist)
    rng = np.random.default_rng(seed)
    orders = np.stack([rng.permutation(n) for _ in range(r_orders)])
    times: dict[str, list] = {a: [] for a in ARMS}
    for c in range(0, r_orders, CHUNK):
        o = orders[c : c + CHUNK]
        for arm in ARMS:
            times[arm].append(first_shown(arm_pvalues(arm, y[o], g[o], y, g, ALPHA / m)))
    med = {a: np.median(np.concatenate(v), axis=0) for a, v in times.items()}
    rho = np.array([np.corrcoef(y[:, a] - y[:, b], g[:, a] - g[:, b])[0, 1] for a, b in plist])
    n80 = np.array([n80_bonferroni(y[:, a] - y[:, b], orders, ALPHA / m) for a, b in plist])
    return {"t": med, "rho": np.nan_to_num(rho), "n80": n80, "N": n}


def summary(res: dict) -> dict:
    """Ratios with ÷ without (module docstring)."""
    base, n = res["t"]["none"], res["N"]
    out = {"rho": float(np.median(res["rho"])), "floor": float(np.median(1 - res["rho"] ** 2)),
           "target": float(np.median(1 - res["rho"] ** 2 / 2))}  # fmt: skip
    movable = np.isfinite(base) & (base > 40) & (base < 0.9 * n)
    out["movable"] = int(movable.sum())
    for arm in ARMS[1:]:
        t = res["t"][arm]
        ok = np.isfinite(base) & np.isfinite(t)
        r = t[ok] / base[ok]
        mv = t[movable] / base[movable]
        out[arm] = (float(np.median(r)), float(np.percentile(r, 80)),
                    float(t[ok].sum() / base[ok].sum()),
                    float(np.median(mv)) if mv.size else float("nan"))  # fmt: skip
    ok = np.isfinite(res["n80"])
    for arm in ("none", "pooled"):
        q = res["t"][arm][ok] / res["n80"][ok]
        out[f"n80 {arm}"] = (float(np.median(q)), float(np.percentile(q, 80)))
    return out


def null_fwer(y, g, arm: str, runs: int, seed: int, first_shown) -> float:  # type: ignore[no-untyped-def]
    """Share of null campaigns with any side shown (module docstring)."""
    rng = np.random.default_rng(seed)
    s = int(np.argmax(y.var(axis=0)))
    base_y, base_g = y[:, s], g[:, s]
    n, k = y.shape
    m = len(pairs(k))
    hits = 0
    for c in range(0, runs, CHUNK):
        r = min(CHUNK, runs - c)
        perm = np.argsort(rng.random((r, k, n)), axis=2)
        yo, go = base_y[perm].transpose(0, 2, 1), base_g[perm].transpose(0, 2, 1)
        # every pseudo-system's pool is the same multiset of (label, control): the pair's
        # pool means of D and of g_A − g_B are 0 in every campaign; the first campaign's
        # pool variances stand for all (a ridge weight fixed before any label)
        p = arm_pvalues(arm, yo, go, yo[0], go[0], ALPHA / m)
        hits += int(np.isfinite(first_shown(p)).any(axis=1).sum())
    return hits / runs


def run(score_pools: dict, orders: int, nulls: int, rhos, first_shown, pools_filter) -> None:  # type: ignore[no-untyped-def]
    """Print the study (module docstring)."""
    rng = np.random.default_rng(31)
    print(f"\nMetric controls in asympcs_mix ({orders} orders; ratio = labels until a side is "
          "shown with ÷ without the control, per pair; median / p80 / sum over pairs | "
          "median over the pairs a control can move)")  # fmt: skip
    print(f"{'pool':16s} {'control':18s} {'ρ':>5s} {'1−ρ²':>6s} {'1−ρ²/2':>6s} {'mov':>4s} "
          + "".join(f" {a:>27s}" for a in ARMS[1:]) + "   n80: none / pooled")  # fmt: skip
    for i, (name, cname, y, g) in enumerate(cases(score_pools, rhos, rng)):
        if pools_filter and not any(s in name for s in pools_filter):
            continue
        s = summary(study(y, g, orders, 300 + i, first_shown))
        cells = "".join(f"  {s[a][0]:.3f}/{s[a][1]:.3f}/{s[a][2]:.3f} | {s[a][3]:.3f}"
                        for a in ARMS[1:])  # fmt: skip
        print(f"{name:16s} {cname:18s} {s['rho']:5.2f} {s['floor']:6.3f} {s['target']:6.3f} "
              f"{s['movable']:4d}{cells}   {s['n80 none'][0]:.2f}/{s['n80 none'][1]:.2f} "
              f"{s['n80 pooled'][0]:.2f}/{s['n80 pooled'][1]:.2f}", flush=True)  # fmt: skip
        if nulls:
            cells = [f"{a}: {null_fwer(y, g, a, nulls, 900 + i, first_shown):.4f}"
                     for a in ("pooled",)]  # fmt: skip
            print(f"{'':16s} true nulls ({nulls} campaigns): " + "  ".join(cells), flush=True)
