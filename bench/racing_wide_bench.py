"""Racing at WMT25 size: 60 systems (1,770 pairs) on a ~2,000-item pool. A benchmark, not
a test.

Reading ``CampaignMonitor.report()`` after every item at 60 systems is out of reach on this
machine (bench/monitor_read_bench.py: seconds per read), so this bench computes each pair's
settling time from the same quantities on arrays, for all 1,770 pairs at once:

- "better": Holm at α = 0.05 over all m pairs on the betting p-values of the app's default
  design (estimators.sequences.betting.betting_pvalue: tuned at α/m, the planner's t* for ε clipped
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
through tests.support.racing_replay (the real monitor) and compares the settling reads.

Pools: k systems with adequacy rates p_s = 0.35 + 0.5·Beta(2, 2) quantiles at (s + ½)/k
(bench/monitor_read_bench.py's wmt_like_rates: a smooth spread, neighbours ≈ 0.006 apart) or
``--clusters C``: C clusters at those quantiles, systems inside a cluster within ±0.01 (WMT25's
published human rankings had several clusters). Labels: correlated binary, y_{s,j} = 1{√0.5 u_j +
√0.5 e_{s,j} < Φ⁻¹(p_s)} (u_j the item's difficulty, shared; docs/statistics-notes.md §21's
generator, probit form), so the pairs' differences are paired as in real data. Nulls: every system's
labels a permutation of one base column (Δ = 0 exactly).

``--shipped``: every shipped pool, the same orders for every row of ROWS — the bets of
both sides (:class:`Bets`): the app's; the oracle (the growth-optimal constant bet that
knows the pair's pool, ranking_route_bench.oracle_pvalues for the side, the same against
θ = ±ε, ±2ε for "no difference larger than ε", the same rule as the app's); the oracle that
also follows the without-replacement drift of the null's conditional mean ("oracle wor");
the semi-oracle mixture of oracle_gap_bench (knows the campaign's spread of effects, not
which pair has which); the oracle with the bets of the pool's actual range (not valid for
the app: the price of the range cap); the oracle on one side only; and the app with the
equivalence rule cut down (without the estimate, ±ε only) — what the rule's parts cost.
Same Holm over all m pairs, the floor and the known-part rule in every row.

The ideal. Two references, both knowing each pair's Δ and σ and settling it on its median
path (the z-statistic at n equal to |Δ|/se_n, finite-pool se, the 30-label floor):

- ``ideal`` (racing_bench.ideal_ratio, the target "≤ 1.05× the ideal racing"):
  two-sided z at α/m for both claims; compared as racing ÷ uniform;
- ``NP ideal`` (:func:`np_ideal_ends`): the Neyman–Pearson version — one-sided z at the
  level the claim is read at (Holm's step-down over the pairs for a side, α/m for "no
  difference larger than ε"); compared in racing labels (Σ_s T_s).

Why it bounds any valid test: a valid anytime test read at a fixed n is a level-a test at
n (Ville: P(K_t ≥ 1/a for some t ≤ n) ≤ a under the null), so by the Neyman–Pearson lemma
its probability of having settled the pair by n is at most the power of the most powerful
level-a test at n, the one-sided z-test that knows Δ and σ (normal limit). Its median
settling time is therefore ≥ the first n at which that test's power reaches ½, i.e. where
its half-width z_{1−a}·se_n falls below |Δ| (or below ε − |Δ|: the equivalence claim needs
the nearer boundary rejected). For a system, P(T_s ≤ n) ≤ min over its pairs of
P(T_pair ≤ n), so the median of T_s (a max) is ≥ the max of its pairs' medians: each
system's median labels are bounded below by the NP ideal's T_s. Not exact: the normal
approximation (and σ from the pool, not from a small sample) — at n = 30 on binary
differences the z-test is not exactly the NP test; Holm's levels on the median path (the
actual step depends on which pairs happen to settle first); a median bound per system, not
a bound on the mean over orders of Σ_s T_s; and racing ÷ uniform is NOT monotone in the
test's speed (a faster test shortens uniform's max_s T_s too), so only the labels column
is a bound — the two-sided ``ideal`` ratio is a yardstick, not a bound (its
Bonferroni two-sided z is stricter than Holm's one-sided levels: the app can beat it).

    .venv/bin/python bench/racing_wide_bench.py --orders 5 --nulls 20
    .venv/bin/python bench/racing_wide_bench.py --check
    .venv/bin/python bench/racing_wide_bench.py --shipped --orders 20 [--rows app,oracle]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from oracle_gap_bench import POOL_BETS, _mix_pool, _pool_bets  # noqa: E402
from oracle_gap_bench import pvalues as gap_pvalues  # noqa: E402
from racing_bench import ideal_ratio  # noqa: E402
from ranking_route_bench import growth_bet, oracle_pvalues  # noqa: E402
from scipy import stats  # noqa: E402

from annotation.campaign.live_plan import forecast_planned_labels  # noqa: E402
from estimators.base.multiple import holm, pairs  # noqa: E402
from estimators.sequences import (  # noqa: E402
    betting,
    betting_capital,
)
from estimators.sequences.sequential import BURN_IN  # noqa: E402

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


def settle_times(yo: np.ndarray, eps: float, t_star: float,
                 bets: Bets | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(m,) first item count at which each pair settles (∞: never) and (m,) its kind
    (+1/−1 a side, 0 equivalence), for labels in arrival order ``yo`` (N, k). ``bets``:
    the bets of each side (:class:`Bets`; None: the app's)."""
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
        if bets is None or bets.better == "app":
            p = betting.betting_pvalue(d, 0.0, bounds=(-1.0, 1.0), alpha_tuning=tune,
                                       t_star=t_star, pool_size=n)  # fmt: skip
        else:
            p = bets.better_pvalues(yo, idx, tune, t_star)
        p_all[c : c + len(idx)] = np.where(np.abs(s) > n - t + TOL, 0.0, p)
        eq_all[c : c + len(idx)] = _equivalent(d, s, n, eps, tune, t_star, thr, bets, c)
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


def _equivalent(d, s, n, eps, tune, t_star, thr, bets=None, c=0):  # type: ignore[no-untyped-def]
    """(B, N): the α/m sequence (∩ the known part) lies inside (−ε, ε) and so does Δ̂
    (``bets``: the bets against θ = ±ε, ±2ε and the rule's variant; pairs c, c + 1, …)."""
    t = np.arange(1, n + 1)
    x01 = (d + 1.0) / 2.0
    rule = "app" if bets is None else bets.rule
    out = np.abs(s / t) < eps if rule != "no estimate" else np.ones(d.shape, dtype=bool)
    thetas = (eps, -eps) if rule == "±ε only" else (eps, -eps, 2 * eps, -2 * eps)
    thr = math.log(1 / ALPHA) if rule == "at α" else thr  # not valid: a ceiling
    for theta in thetas:
        if bets is None or bets.equiv == "app" or bets.equiv.startswith("parts"):
            with _parts(None if bets is None else bets.equiv):
                log_k = betting.wor_log_capital(
                    x01, np.asarray((theta + 1.0) / 2.0), tune, t_star, n
                )
        else:
            log_k = bets.equiv_log_k(x01, theta, c)
        log_k = np.where(t[None, :] < BURN_IN, -np.inf, log_k)
        gone = np.maximum.accumulate(log_k, axis=1) >= thr
        known = (s + (n - t)) / n < theta if theta > 0 else (s - (n - t)) / n > theta
        out &= gone | known
    return out


@contextlib.contextmanager
def _parts(spec: str | None):  # type: ignore[no-untyped-def]
    """The capital's parts set by ``spec`` "parts w_plan w_1 c_1 w_2 c_2" for the block
    (estimators.sequences.betting_capital.PARTS, the global the capital reads; patching the
    re-export
    estimators.sequences.betting.PARTS changes nothing); None: the app's."""
    if spec is None or not spec.startswith("parts"):
        yield
        return
    v = [float(x) for x in spec.split()[1:]]
    new = ((v[0], "plan"), (v[1], v[2]), (v[3], v[4])) if v[0] else ((v[1], v[2]), (v[3], v[4]))
    old = betting_capital.PARTS
    betting_capital.PARTS = new
    try:
        yield
    finally:
        betting_capital.PARTS = old


def _null_mean(x01: np.ndarray, th01: float, n: int) -> np.ndarray:
    """m_i(θ) = (N θ − S_{i−1})/(N − i + 1), the without-replacement null mean of label i."""
    t = np.arange(1, x01.shape[-1] + 1)
    m = (n * th01 - (np.cumsum(x01, axis=-1) - x01)) / (n - t + 1.0)
    return np.clip(m, 1e-12, 1 - 1e-12)


#: null means at which ``Bets`` "cond" tabulates each pair's growth-optimal bet
GRID = np.linspace(0.005, 0.995, 199)


class Bets:
    """The bets of one campaign's pairs, for the "better" side (θ = 0) and the "no
    difference larger than ε" side (θ = ±ε, ±2ε), on the [0, 1] scale of D = y_A − y_B:

    - ``app``     the app's capital (estimators.sequences.betting.wor_log_capital, tuned at α/m);
    - ``oracle``  the growth-optimal constant bet knowing the pair's pool (better side:
                  ranking_route_bench.oracle_pvalues; each θ: the same against (θ + 1)/2);
    - ``semi``    the semi-oracle of oracle_gap_bench (``_mix_pool``): a uniform mixture
                  over the campaign's own growth-optimal bets against θ of every pair and
                  its mirror — knows the spread of effects, not which pair has which;
    - ``cond``    the oracle that also follows the without-replacement drift
                  (:meth:`_cond_log_k`): at each label the growth-optimal bet of the pool
                  against the null's conditional mean m_i(θ) (a constant bet ignores the
                  drift, so it loses to the app's plug-in on pairs that settle late);
    - ``range``   the oracle allowed the bets of the pool's actual range [min D, max D]
                  instead of the full [−1, 1] (not valid for the app: a diagnostic of the
                  range cap).

    ``rule``: "app" (±ε, ±2ε and the estimate inside ±ε), "no estimate" (without the
    estimate), "±ε only" (diagnostics of the equivalence rule), "at α" (every pair's
    equivalence read at α instead of α/m: NOT valid, the ceiling of any gain from reading
    the equivalence side at a less strict level, e.g. a step-down)."""

    def __init__(self, y: np.ndarray, eps: float, better: str = "app", equiv: str = "app",
                 rule: str = "app") -> None:  # fmt: skip
        self.y, self.better, self.equiv, self.rule = y, better, equiv, rule
        self.n = y.shape[0]
        x = [(y[:, a] - y[:, b] + 1.0) / 2.0 for a, b in pairs(y.shape[1])]
        self.range = [(float(v.min()), float(v.max())) for v in x]
        if "cond" in (better, equiv):  # λ*(m) of every pair's pool on GRID
            self.table = np.array([[growth_bet(v, g, 0.0, 1.0) for g in GRID] for v in x])
        self.lam: dict[float, np.ndarray] = {}
        self.mix: dict[float, list[float]] = {}
        if "semi" in (better, equiv):
            self.mix[0.0] = _pool_bets(y)
        known = "range" in (better, equiv)
        for th in (0.0, eps, -eps, 2 * eps, -2 * eps):
            mu = (th + 1.0) / 2.0
            if {"oracle", "range"} & {better, equiv}:
                rs = self.range if known else [(0.0, 1.0)] * len(x)
                self.lam[th] = np.array([growth_bet(v, mu, *r) for v, r in zip(x, rs, strict=True)])
            if "semi" in (better, equiv) and th:
                self.mix[th] = [
                    b
                    for v in x
                    for b in (growth_bet(v, mu, 0.0, 1.0), growth_bet(1 - v, mu, 0.0, 1.0))
                ]

    def name(self) -> str:
        same = self.better == self.equiv
        tag = self.better if same else f"better {self.better}, equiv {self.equiv}"
        return tag if self.rule == "app" else f"{tag}, rule {self.rule}"

    def _const_log_k(self, x01: np.ndarray, th: float, c: int) -> np.ndarray:
        """log K_t of the constant bets self.lam[θ] of pairs c, c + 1, … (clipped each step
        to the range, as the app clips its bets), without replacement."""
        b = x01.shape[0]
        m = _null_mean(x01, (th + 1.0) / 2.0, self.n)
        lo, hi = (np.array(self.range[c : c + b]).T[:, :, None] if self.better == "range"
                  or self.equiv == "range" else (0.0, 1.0))  # fmt: skip
        lam = np.clip(self.lam[th][c : c + b, None], -0.999 / np.maximum(hi - m, 1e-3),
                      0.999 / np.maximum(m - lo, 1e-3))  # fmt: skip
        return np.cumsum(np.log(np.maximum(1.0 + lam * (x01 - m), 1e-300)), axis=1)

    def _cond_log_k(self, x01: np.ndarray, th: float, c: int) -> np.ndarray:
        """log K_t of the oracle that knows the pool and bets, at label i, the growth-
        optimal bet of the pool's distribution against the null's conditional mean m_i(θ)
        (:func:`ranking_route_bench.growth_bet` on a grid of m, interpolated): without
        replacement m_i drifts away from the pool's mean as the census nears (the gap grows
        as N(μ − θ)/(N − i + 1)), which a constant bet ignores and the app's plug-in
        follows."""
        b = x01.shape[0]
        m = _null_mean(x01, (th + 1.0) / 2.0, self.n)
        lam = np.stack([np.interp(m[j], GRID, self.table[c + j]) for j in range(b)])
        lam = np.clip(lam, -0.999 / (1.0 - m), 0.999 / m)
        return np.cumsum(np.log(np.maximum(1.0 + lam * (x01 - m), 1e-300)), axis=1)

    def equiv_log_k(self, x01: np.ndarray, th: float, c: int) -> np.ndarray:
        if self.equiv == "cond":
            return self._cond_log_k(x01, th, c)
        if self.equiv == "semi":
            POOL_BETS[:] = self.mix[th]
            return _mix_pool(x01, _null_mean(x01, (th + 1.0) / 2.0, self.n))
        return self._const_log_k(x01, th, c)

    def better_pvalues(self, yo: np.ndarray, idx: np.ndarray, tune: float,
                       t_star: float) -> np.ndarray:  # fmt: skip
        """(B, N) p-value paths of pairs ``idx`` (floor and running minimum included)."""
        if self.better == "oracle":
            return oracle_pvalues(yo[None], self.y)[0][_rows(idx, self.y.shape[1])]
        if self.better == "semi":
            POOL_BETS[:] = self.mix[0.0]
            return gap_pvalues(yo[None], self.y, "mix pool", tune, t_star, BURN_IN)[0][
                _rows(idx, self.y.shape[1])]  # fmt: skip
        d = yo[:, idx[:, 0]].T - yo[:, idx[:, 1]].T
        log_k = (self._cond_log_k if self.better == "cond" else self._const_log_k)(
            (d + 1.0) / 2.0, 0.0, _rows(idx, self.y.shape[1])[0]
        )
        t = np.arange(1, d.shape[1] + 1)
        log_k = np.where(t[None, :] < BURN_IN, -np.inf, log_k)
        return np.minimum.accumulate(np.minimum(1.0, np.exp(-np.maximum(log_k, 0.0))), axis=1)


def _rows(idx: np.ndarray, k: int) -> np.ndarray:
    """Positions of the pairs ``idx`` in pairs(k)."""
    pos = {pr: j for j, pr in enumerate(pairs(k))}
    return np.array([pos[(int(a), int(b))] for a, b in idx])


def race(y: np.ndarray, order: np.ndarray, eps: float, t_star: float,
         bets: Bets | None = None) -> dict:  # fmt: skip
    """Racing vs uniform labels for one item order (module docstring)."""
    n, k = y.shape
    first, kind = settle_times(y[order], eps, t_star, bets)
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
    ap.add_argument("--rows", default="", help="--shipped: rows of ROWS, comma-separated")
    args = ap.parse_args(argv)
    if args.check:
        return check()
    if args.shipped:
        return shipped(args.orders, args.eps, args.rows.split(",") if args.rows else None)
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


#: (better side, equivalence side, equivalence rule) of each row of ``--shipped``
ROWS = {
    "app": ("app", "app", "app"),
    "semi": ("semi", "semi", "app"),
    "oracle": ("oracle", "oracle", "app"),
    "oracle wor": ("cond", "cond", "app"),
    "oracle better": ("oracle", "app", "app"),
    "oracle equiv": ("app", "oracle", "app"),
    "oracle wor better": ("cond", "app", "app"),
    "oracle wor equiv": ("app", "cond", "app"),
    "range": ("range", "range", "app"),
    "eq no plan": ("app", "parts 0 0.5 0.5 0.5 0.9", "app"),
    "eq bold": ("app", "parts 0.25 0.375 0.5 0.375 0.97", "app"),
    "eq w .1 .3 .6": ("app", "parts 0.1 0.3 0.5 0.6 0.9", "app"),
    "no estimate": ("app", "app", "no estimate"),
    "±ε only": ("app", "app", "±ε only"),
    "eq at α": ("app", "app", "at α"),
}


def shipped(orders: int, eps: float, rows: list[str] | None = None) -> int:
    """Racing ÷ uniform on every shipped pool with this harness (reads after every item),
    for each row of ROWS (the bets of :class:`Bets`) on the same orders, beside the ideal
    fixed-n racing of bench/racing_bench.py (module docstring, "The ideal"): the target
    "racing ≤ 1.05× the ideal racing" and how close bets that know more get to it."""
    from labels_to_significance import load_chaganty, load_wmt
    from pools import load_newstest

    rows = rows or list(ROWS)
    table = []
    for pool in [*load_wmt(False), *load_chaganty(False), *load_newstest()]:
        y = pool.y
        n, k = y.shape
        t_star = min(forecast_planned_labels(k, eps, ALPHA), n)
        ideal = ideal_ratio(y.T, eps)
        ends = np_ideal_ends(y, eps)
        np_labels = ends.sum()
        print(f"{pool.name} k={k} N={n} t*={t_star}: ideal fixed-n racing {ideal:.3f}; "
              f"Neyman–Pearson ideal: racing {np_labels:,.0f} labels, uniform "
              f"{k * ends.max():,.0f}, ratio {np_labels / (k * ends.max()):.3f}",
              flush=True)  # fmt: skip
        line = {"pool": pool.name, "ideal": ideal, "np": np_labels / (k * ends.max())}
        for row in rows:
            t0 = time.time()
            bets = Bets(y, eps, *ROWS[row])
            rs = [race(y, np.random.default_rng(r).permutation(n), eps, t_star, bets)
                  for r in range(orders)]  # fmt: skip
            ratio = np.array([r["racing"] / r["uniform"] for r in rs])
            labels_np = np.mean([r["racing"] for r in rs]) / np_labels
            se = ratio.std(ddof=1) / math.sqrt(ratio.size) if ratio.size > 1 else math.nan
            left = sum(r["unsettled"] for r in rs)
            bad = sum(false_claims(y, r, eps) > 0 for r in rs)
            eq = np.mean([_last_by_equivalence(r, k) for r in rs])
            line[row] = (ratio.mean() / ideal, labels_np)
            print(f"  {bets.name():34s} racing ÷ uniform {ratio.mean():.3f} (SE {se:.3f}, "
                  f"{ratio.min():.3f}–{ratio.max():.3f}), ÷ ideal {ratio.mean() / ideal:.3f}; "
                  f"racing labels ÷ Neyman–Pearson ideal's {labels_np:.3f}; "
                  f"systems whose last pair is 'no difference > ε' {eq:.2f}; unsettled pairs "
                  f"{left}, orders with a false claim {bad}/{orders} [{time.time() - t0:.0f} s]",
                  flush=True)  # fmt: skip
        table.append(line)
    print("\nracing ÷ uniform over the ideal's (the issue's criterion) / racing labels over "
          "the Neyman–Pearson ideal's racing labels")  # fmt: skip
    print(f"| pool | ideal | NP ideal | {' | '.join(rows)} |")
    print(f"| --- | --- | --- |{' --- |' * len(rows)}")
    for line in table:
        cells = " | ".join(f"{line[r][0]:.3f} / {line[r][1]:.3f}" for r in rows)
        print(f"| {line['pool']} | {line['ideal']:.3f} | {line['np']:.3f} | {cells} |")
    return 0


def np_ideal_ends(y: np.ndarray, eps: float, floor: int = BURN_IN) -> np.ndarray:
    """(k,) items to each system's last pair settling for the Neyman–Pearson ideal
    (module docstring, "The ideal"): the known-σ z-test read the way the app reads —
    one-sided at the level the claim is read at (a test that knows Δ knows its sign),
    Holm over the m pairs for a side (on the median path: each pair's z at n is
    |Δ|/se_n), α/m for "no difference larger than ε" (z_{1−α/m}·se_n < ε − |Δ|); finite-
    pool se, the floor, every pair settled at the census. ``y`` (N, k)."""
    n, k = y.shape
    plist = pairs(k)
    m = len(plist)
    t = np.arange(1, n + 1)
    fpc = np.sqrt((n - t) / (n * t))
    d = np.stack([y[:, a] - y[:, b] for a, b in plist])  # (m, N)
    delta, sd = d.mean(axis=1), d.std(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(delta)[:, None] / (sd[:, None] * fpc[None, :])  # (m, N)
    z = np.where(np.isnan(z), 0.0, z)
    p = stats.norm.sf(z)
    side = holm(p.T, ALPHA).reject.T & (np.abs(delta)[:, None] > 0)
    eq = stats.norm.isf(ALPHA / m) * sd[:, None] * fpc[None, :] < eps - np.abs(delta)[:, None]
    done = (side | eq) & (t[None, :] >= floor)
    done[:, -1] = True
    first = done.argmax(axis=1) + 1.0
    ends = np.zeros(k)
    for (a, b), f in zip(plist, first, strict=True):
        ends[[a, b]] = np.maximum(ends[[a, b]], f)
    return ends


def _last_by_equivalence(res: dict, k: int) -> float:
    """Share of the systems whose last-settling pair (the one that sets T_s) settled as "no
    difference larger than ε" (ties: any of them)."""
    first = np.where(np.isfinite(res["first"]), res["first"], np.inf)
    hits = 0
    for s in range(k):
        js = [j for j, (a, b) in enumerate(pairs(k)) if s in (a, b)]
        last = max(first[j] for j in js)
        hits += any(first[j] == last and res["kind"][j] == 0 and np.isfinite(last) for j in js)
    return hits / k


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
    from annotation.queue.racing import settled_pairs
    from tests.support.racing_replay import replay

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
