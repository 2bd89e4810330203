"""The app's route in document mode, the way a user meets it: k = 4 systems (6 pairs),
documents judged in order (paired: one document with every system's outputs at a time),
the dashboard read after every completed document until the pool is exhausted. A benchmark,
not a test.

The route is the app's own: the labels in queue order go to
:class:`estimators.live.monitor.CampaignMonitor` with the arguments
:func:`estimators.report.live.live_monitor` passes (no metric grids, ``present`` all True,
label range (0, 1), inclusion probability 1, positions = queue order, the plan in force:
t* = planned labels, test-set estimand, ε = 0.05, Holm), whose ``report()`` hands over to
:func:`estimators.live.document_report.document_report`. Reading ``report()`` after each of 300
documents of ≈ 95 segments × 4 systems is ≈ 300 × 0.1 s per run, so every read is computed
by :func:`route_reads`, which calls the same functions ``document_report`` calls
(``clustered.document_sums`` / ``document_increments`` / ``document_paths`` /
``document_var_prior``, ``verdicts.intersect`` / ``shown`` / ``compatible_interval`` /
``read_outcome``, Holm) once per pair on the whole path (the increments are predictable, so
entry j of the path is what a read after document j computes); :func:`check_against_report`
compares it with ``CampaignMonitor.report()`` at sampled reads (including every read at
which some pair first settles) and the bench prints the mismatches (must be 0).

Synthetic campaigns with known truth (latent-threshold model as
:mod:`tests.support.doc_simulation`, generalised to k systems):
y_{s,i} = 1{0.3 + δ_s + a_j + b_{j,s} + c_i + e_{i,s} > 0}, document effect a_j ~ N(0, 0.2²),
system × document effect b_{j,s} ~ N(0, σ_b²) (sets the ICC of the paired differences),
segment effect c_i ~ N(0, 0.7²) shared by the systems (paired design), e ~ N(0, 1).
σ_b = 0.21 gives ICC(Δ) ≈ 0.02 and ICC(labels) ≈ 0.035 (what the shipped WMT21 TED en-de file
measures, printed first); σ_b = 0.555 gives ICC(Δ) ≈ 0.125. Document sizes uniform on
31..159 segments (the WMT21 TED talks' range). Pool: 300 documents per system.

Test-set estimand (the app's default): the truth is each pair's pool difference. A null
pair must have pool Δ = 0 exactly, so systems with equal δ are made exchangeable in the
pool: the pool is a base set of documents repeated under the cyclic shifts of every group
of equal-δ systems (δ = (0, 0, 0.1, 0.2): 150 base documents, twice, the second copy with
systems 0 and 1 swapped; all-null δ = 0: 75 base documents under the 4 cyclic shifts).
Non-null pairs: truth = the sign of the pool Δ.

Figures (per ICC; fixed seeds):
1. family-wise false claims: the share of campaigns in which some read shows a null pair
   settled with a sign, a non-null pair with the wrong sign, or a pair with |Δ| > ε as "no
   difference larger than ε" — with a Clopper–Pearson 95 % interval; for the all-null and
   the mixed campaign.
2. documents (labels per system) to a signed verdict per non-null pair class (latent gap
   0.1: 3 pairs, 0.2: 2 pairs), median over runs × pairs, as ratios against
   (a) the fixed-n oracle: the smallest J ≥ 30 at which the document ratio interval
       (``clustered.ratio_interval``, finite-population correction) at the Bonferroni level
       α/6 excludes 0 with the right sign in ≥ 80 % of the same runs;
   (b) the planner: ``document_plan`` of the campaign after its first 10 documents (ICC
       measured on those labels, as the Planner page reads it) →
       ``documents_for(forecast_planned_labels(4, d))`` with d = the class's expected
       adequacy difference (a user whose smallest difference of interest is exactly this
       pair's); and the same with the ICC assumed before any label (0.05).
3. power of the plan: the share of runs × pairs settled (signed) by the planned documents
   (a plan beyond the pool counts as met when the pair settles within the pool).
The plan in force is fixed before the first label the way ``cli.py plan --smallest-difference
d`` and the Annotators page's form store it (``labels_in(documents_for(...))`` at the assumed
ICC), with d = the latent-0.1 pairs' difference; the cells marked † rerun the same campaigns
with a small plan (``forecast_planned_labels`` alone, ≈ 70–80 documents: what the form stored
before it applied the design effect). The document sequence is tuned at the pool whatever
the plan (document_report._planned_docs), so the † rows must equal the others.

Measured before the fix (default run, 2,000 campaigns per cell, ≈ 4–5 min), when the
sequence was tuned at the plan: family-wise false claims 0.017 / 0.016 (all-null / mixed)
at ICC(Δ) 0.02 and 0.040 [0.031, 0.049] / 0.034 at 0.125 with the CLI's plan (≥ the pool);
with the small plan 0.035 / 0.025 and 0.067 [0.056, 0.078] / 0.053 — above α at ICC 0.125,
most first false claims at 30–40 documents (the end of the burn-in). The figures after the
fix are in docs/statistics-notes.md §9.
Documents to a signed verdict / fixed-n oracle n80: 0.87 (gap 0.1) and 1.07 (0.2) at ICC
0.02, 1.07 and 0.91 at 0.125; / the Planner's documents after 10 documents: 0.25–0.55
(the plan is conservative: power of the plan 0.88–1.00).

    .venv/bin/python bench/document_route_bench.py            # 2,000 runs per cell
    .venv/bin/python bench/document_route_bench.py --quick    # smoke run (< 1 min)
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from annotation.campaign.live_plan import forecast_planned_labels  # noqa: E402
from estimators.base import verdicts  # noqa: E402
from estimators.base.multiple import bonferroni_alpha, holm, pairs  # noqa: E402
from estimators.base.verdicts import Outcome  # noqa: E402
from estimators.data.campaign import CampaignData, Judgments  # noqa: E402
from estimators.documents import clustered as cl  # noqa: E402
from estimators.live.monitor import CampaignMonitor  # noqa: E402
from estimators.planning.documents import DocumentPlan, document_plan  # noqa: E402
from estimators.sequences.designs import DEFAULT_MARGIN  # noqa: E402

ALPHA = 0.05
POWER = 0.8
K = 4
POOL_DOCS = 300
SIZES = (31, 159)  # WMT21 TED talks: 31–159 segments
SD_DOC, SD_SEG, BASE = 0.2, 0.7, 0.3
#: σ_b → ICC of the paired differences ≈ 0.02 (WMT21 TED) and ≈ 0.125
ICC_SCENARIOS = {"0.02 (WMT)": 0.21, "0.125": 0.555}
MIXED = (0.0, 0.0, 0.1, 0.2)
NULL = (0.0, 0.0, 0.0, 0.0)
PILOT_DOCS = 10  # documents judged before the Planner is read
MARGIN = DEFAULT_MARGIN
TOL = 1e-12


# ------------------------------------------------------------------ synthetic campaigns
@dataclass(frozen=True)
class Campaign:
    """One pool in queue order: items are numbered in document order of the queue's draw
    (the queue's random document order is applied, so document d is the d-th drawn)."""

    item_doc: np.ndarray  # (N,) document of each item, documents 0..M−1 in queue order
    y: np.ndarray  # (K, N) binary labels
    sys_order: np.ndarray  # (N, K) the shuffled system order within each item

    @property
    def n_docs(self) -> int:
        return int(self.item_doc.max()) + 1


def _shifts(delta: tuple[float, ...]) -> list[np.ndarray]:
    """System permutations that make systems of equal δ exchangeable in the pool: the
    product of the cyclic shifts within each group of equal δ."""
    groups: dict[float, list[int]] = {}
    for s, d in enumerate(delta):
        groups.setdefault(d, []).append(s)
    perms = [np.arange(len(delta))]
    for members in groups.values():
        if len(members) < 2:
            continue
        new = []
        for p in perms:
            for r in range(len(members)):
                q = p.copy()
                q[members] = p[np.roll(members, r)]
                new.append(q)
        perms = new
    return perms


def campaign(rng: np.random.Generator, delta: tuple[float, ...], sd_b: float) -> Campaign:
    """A pool of :data:`POOL_DOCS` documents with pool Δ = 0 exactly between equal-δ
    systems, drawn by a document-ordered paired queue (module docstring)."""
    perms = _shifts(delta)
    base = POOL_DOCS // len(perms)
    size = rng.integers(SIZES[0], SIZES[1] + 1, size=base)
    doc = np.repeat(np.arange(base), size)
    n = doc.size
    k = len(delta)
    lat = (
        BASE + np.asarray(delta)[:, None] + rng.normal(0, SD_DOC, base)[doc]
        + rng.normal(0, sd_b, (k, base))[:, doc] + rng.normal(0, SD_SEG, n)
        + rng.normal(0, 1, (k, n))
    )  # fmt: skip
    y0 = (lat > 0).astype(float)
    ys = [y0[p] for p in perms]  # copy c: system s gets base system p[s]'s labels
    docs = np.concatenate([doc + c * base for c in range(len(perms))])
    sizes = np.tile(size, len(perms))
    y = np.concatenate(ys, axis=1)
    # the queue: documents in uniformly random order, segments in document order
    order = rng.permutation(docs.max() + 1)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    idx = np.concatenate([np.arange(starts[d], starts[d] + sizes[d]) for d in order])
    new_doc = np.repeat(np.arange(order.size), sizes[order])
    sys_order = np.argsort(rng.random((idx.size, k)), axis=1)
    return Campaign(item_doc=new_doc, y=y[:, idx], sys_order=sys_order)


def label_stream(c: Campaign, n_items: int) -> tuple[np.ndarray, ...]:
    """(item, system, label, position, inclusion_prob) of the first ``n_items`` items'
    labels in queue order (every system's output of an item consecutively)."""
    item = np.repeat(np.arange(n_items), K)
    system = c.sys_order[:n_items].reshape(-1)
    label = c.y[system, item]
    pos = np.arange(item.size, dtype=float)
    return item, system, label, pos, np.ones(item.size)


def doc_ends(c: Campaign) -> np.ndarray:
    """Items labelled when document j (1-based) is complete, j = 1..M."""
    return np.cumsum(np.bincount(c.item_doc))


# ------------------------------------------------------------------ the app's route
def monitor(c: Campaign, n_items: int, t_star: int | None) -> CampaignMonitor:
    """What estimators.report.live.live_monitor builds for this campaign after ``n_items`` items."""
    item, system, label, pos, pi = label_stream(c, n_items)
    return CampaignMonitor(
        [None] * K, item, system, label, pos, pi, names=[f"S{s}" for s in range(K)],
        alpha=ALPHA, equivalence_margin=MARGIN, error_rate="holm", higher_is_better=True,
        label_range=(0.0, 1.0), present=np.ones((K, c.item_doc.size), bool), design=None,
        t_star=t_star, finite_pool=True, documents=c.item_doc,
    )  # fmt: skip


@dataclass
class Reads:
    """Every read (after document j = 1..M) of every pair: outcome code (+1 A better,
    −1 B better, 2 equivalent, 0 undecided), the p-value, documents."""

    outcome: np.ndarray  # (M, m)
    p: np.ndarray  # (M, m)


def _cut(cs, k_lo, k_hi):  # type: ignore[no-untyped-def]
    """A pair's interval path clipped to [−1, 1] and cut by the known set (the known set
    alone where they do not meet: verdicts.intersect)."""
    lo, hi = np.clip(cs.lower, -1.0, 1.0), np.clip(cs.upper, -1.0, 1.0)
    low, high = np.maximum(lo, k_lo), np.minimum(hi, k_hi)
    empty = low > high
    return np.where(empty, k_lo, low), np.where(empty, k_hi, high)


def route_reads(c: Campaign, t_star: int | None) -> Reads:
    """All reads of the dashboard's pair verdicts, with document_report's functions (module
    docstring; the steps follow document_report._result / _pair_statuses / _verdict)."""
    plist = pairs(K)
    m = len(plist)
    a_pair = bonferroni_alpha(ALPHA, m)
    n = c.item_doc.size
    ends = doc_ends(c)
    n_docs = ends.size
    pos = np.arange(n, dtype=float)  # the pair completes an item at its last label
    p_all = np.ones((n_docs, m))
    est_all = np.full((n_docs, m), np.nan)
    lo_all, hi_all = np.full((n_docs, m), -np.inf), np.full((n_docs, m), np.inf)
    census = np.zeros((n_docs, m), bool)
    # side[h, r, i]: the side of pair i's interval after document r + 1 at Holm's level
    # α/(m − h) (h = 0 is the Bonferroni level), cut by the known set (document_report._sign)
    side_at = np.zeros((m, n_docs, m), dtype=int)
    for i, (a, b) in enumerate(plist):
        d = c.y[a] - c.y[b]
        sums = cl.document_sums(c.item_doc, np.ones(n, bool), np.arange(n), d, pos)
        t_docs = max(sums.pool_docs, 1)  # document_report._planned_docs: the pool, not the plan
        inc = cl.document_increments(sums, finite_pool=True)
        prior = cl.document_var_prior(sums, 2.0)
        cs, p = cl.document_paths(
            inc, level=a_pair, alpha_tuning=a_pair, t_star=t_docs, theta0=0.0, var_prior=prior,
        )  # fmt: skip
        s_d = np.cumsum(sums.total)
        s_n = np.cumsum(sums.size)
        rest = n - s_n
        k_lo, k_hi = (s_d - rest) / n, (s_d + rest) / n  # verdicts.pair_known_bounds
        low, high = _cut(cs, k_lo, k_hi)
        for h in range(m):
            lh, hh = (low, high) if h == 0 else _cut(cl.document_paths(
                inc, level=ALPHA / (m - h), alpha_tuning=a_pair, t_star=t_docs, theta0=None,
                var_prior=prior,
            )[0], k_lo, k_hi)  # fmt: skip
            side_at[h, :, i] = np.where(lh > 0, 1, np.where(hh < 0, -1, 0))
        out_known = (k_lo > 0) | (k_hi < 0)
        p = np.where(out_known, 0.0, p)  # the labelled part rules 0 out
        p = np.where(~out_known & (k_lo == k_hi), 1.0, p)  # census: Δ is 0 exactly
        est = s_d / s_n
        p_all[:, i], est_all[:, i], lo_all[:, i], hi_all[:, i] = p, est, low, high
        census[:, i] = low == high
    j = np.arange(1, n_docs + 1)[:, None]
    reject = holm(p_all, ALPHA).reject & ((j >= cl.MIN_DOCUMENTS) | (p_all == 0.0))
    n_rej = holm(p_all, ALPHA).reject.sum(axis=1)  # the read level: α/(m − r + 1)
    out = np.zeros((n_docs, m), dtype=int)
    for r in range(n_docs):
        for i in range(m):
            est, ci = verdicts.shown((lo_all[r, i], hi_all[r, i]), est_all[r, i])
            sign = 0
            if reject[r, i]:
                sign = side_at[0, r, i]
                if not sign and p_all[r, i] != 0.0 and n_rej[r] > 1:
                    sign = side_at[n_rej[r] - 1, r, i]
            ci = verdicts.compatible_interval(ci, sign, est)
            if r + 1 < cl.MIN_DOCUMENTS and not (p_all[r, i] == 0.0 or census[r, i]):
                continue
            o = verdicts.read_outcome(sign, est, ci, MARGIN, True)
            out[r, i] = {Outcome.A_BETTER: 1, Outcome.B_BETTER: -1, Outcome.EQUIVALENT: 2}.get(o, 0)
    return Reads(outcome=out, p=p_all)


_CODE = {Outcome.A_BETTER: 1, Outcome.B_BETTER: -1, Outcome.EQUIVALENT: 2, Outcome.UNDECIDED: 0}


def check_against_report(c: Campaign, t_star: int | None, reads: Reads, at: list[int]) -> int:
    """Mismatches between :func:`route_reads` and ``CampaignMonitor.report()`` at the reads
    after documents ``at`` (1-based): outcomes must be equal, p-values within 1e-9."""
    ends = doc_ends(c)
    bad = 0
    for j in sorted(set(at)):
        rep = monitor(c, int(ends[j - 1]), t_star).report()
        assert rep.documents is not None and rep.documents.completed == j
        for i, st in enumerate(rep.pairs):
            same = _CODE[st.outcome] == reads.outcome[j - 1, i] and math.isclose(
                st.p_value, reads.p[j - 1, i], rel_tol=1e-9, abs_tol=1e-12
            )
            bad += not same
    return bad


# ------------------------------------------------------------------ planner
def campaign_data(c: Campaign, n_docs: int) -> CampaignData:
    """The campaign as ``db.reads.campaign.read_campaign`` returns it after ``n_docs`` documents
    (binary labels, documents judged in order), for the app's planner functions."""
    n_items = int(doc_ends(c)[n_docs - 1]) if n_docs else 0
    item, system, label, pos, pi = label_stream(c, n_items)
    z_i, z_f = np.zeros(item.size, int), np.full(item.size, np.nan)
    judg = Judgments(
        np.arange(item.size), item, system, z_i, label, z_f, z_f, z_f, pos, pi,
        np.zeros(item.size, dtype="datetime64[us]"),
    )  # fmt: skip
    n = c.item_doc.size
    return CampaignData(
        campaign_id=1, name="bench", mode="binary", systems=[f"S{s}" for s in range(K)],
        is_human=np.zeros(K, bool), item_ids=[str(i) for i in range(n)],
        output_ids=np.arange(K * n).reshape(K, n), metrics=[], scores={}, judgments=judg,
        annotators=["a"], documents=c.item_doc,
    )  # fmt: skip


def planned(c: Campaign, n_docs: int) -> DocumentPlan:
    """``document_plan`` (the Planner page's and ``cli.py plan``'s call) after ``n_docs``
    documents: ICC measured on their labels, or assumed (0.05) with none."""
    plan = document_plan(campaign_data(c, n_docs))
    assert plan is not None
    return plan


def t_star_in_force(c: Campaign, smallest: float, rule: str = "cli") -> int:
    """The plan fixed before the first label. ``"cli"``: as ``cli.py plan
    --smallest-difference`` stores it, the labels of
    ``documents_for(forecast_planned_labels(k, d))`` documents at the assumed ICC
    (commands/plan.py ``_forecast``; the Annotators page's form since it applies the design
    effect, annotation.campaign.live_plan.campaign_planned_labels); ``"form"``: a small plan,
    ``forecast_planned_labels(k, d)`` labels with no design effect (what the form stored
    before)."""
    if rule == "form":
        return forecast_planned_labels(K, smallest, ALPHA)
    pre = planned(c, 0)
    return pre.labels_in(pre.documents_for(forecast_planned_labels(K, smallest, ALPHA)))


def adequacy_gap(gap: float, sd_b: float) -> float:
    """The model's expected adequacy difference for a latent gap (probit, exact)."""
    sd = math.sqrt(SD_DOC**2 + sd_b**2 + SD_SEG**2 + 1.0)
    return float(stats.norm.cdf((BASE + gap) / sd) - stats.norm.cdf(BASE / sd))


# ------------------------------------------------------------------ fixed-n oracle
def fixed_n_hits(c: Campaign, a: int, b: int, sign: float, level: float) -> np.ndarray:
    """(M,) bool: the ratio interval (clustered.ratio_interval's formula, finite-population
    correction over the M documents) on the first J documents excludes 0 with ``sign``."""
    d = c.y[a] - c.y[b]
    n_docs = c.n_docs
    tot = np.bincount(c.item_doc, weights=d, minlength=n_docs)
    size = np.bincount(c.item_doc, minlength=n_docs).astype(float)
    s1, sn = np.cumsum(tot), np.cumsum(size)
    s11, s1n, snn = np.cumsum(tot * tot), np.cumsum(tot * size), np.cumsum(size * size)
    j = np.arange(1, n_docs + 1, dtype=float)
    est = s1 / sn
    sse = np.maximum(s11 - 2 * est * s1n + est * est * snn, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.maximum(1 - j / n_docs, 0) * sse / (j - 1) / (j * (sn / j) ** 2)
        q = stats.t.ppf(1 - level / 2, np.maximum(j - 1, 1))
    hit = sign * est - q * np.sqrt(var) > 0
    hit[: cl.MIN_DOCUMENTS - 1] = False
    return hit


def _check_fixed_n(c: Campaign) -> None:
    d = c.y[0] - c.y[2]
    tot = np.bincount(c.item_doc, weights=d)
    size = np.bincount(c.item_doc).astype(float)
    for jj in (30, 100):
        r = cl.ratio_interval(tot[:jj], size[:jj], level=1 - ALPHA / 6, pool_docs=c.n_docs)
        for s in (1.0, -1.0):
            want = s * r.estimate - (r.high - r.estimate) > 0
            assert fixed_n_hits(c, 0, 2, s, ALPHA / 6)[jj - 1] == want


# ------------------------------------------------------------------ one cell
def cp_interval(x: int, n: int) -> tuple[float, float]:
    lo = stats.beta.ppf(0.025, x, n - x + 1) if x > 0 else 0.0
    hi = stats.beta.ppf(0.975, x + 1, n - x) if x < n else 1.0
    return float(lo), float(hi)


def run_cell(delta: tuple[float, ...], sd_b: float, runs: int, seed: int, smallest: float,
             checks: int = 0, plan_d: dict[float, float] | None = None,
             rule: str = "cli") -> dict:  # fmt: skip
    """``runs`` campaigns: false claims, documents to settle, the oracle, the planner."""
    plist = pairs(K)
    m = len(plist)
    rng = np.random.default_rng(seed)
    false_any = 0
    mismatches = compared = 0
    gaps = {i: abs(delta[a] - delta[b]) for i, (a, b) in enumerate(plist)}
    classes = sorted({g for g in gaps.values() if g > 0})
    settle: dict[float, list[float]] = {g: [] for g in classes}
    labels: dict[float, list[float]] = {g: [] for g in classes}
    oracle_hits: dict[float, list[np.ndarray]] = {g: [] for g in classes}
    plan_docs: dict[float, list[int]] = {g: [] for g in classes}
    plan_ok: dict[float, list[bool]] = {g: [] for g in classes}
    plan_assumed: dict[float, int] = {}
    iccs, t_stars = [], []
    flips = census_signed = 0
    equiv = {g: 0 for g in [0.0, *classes]}
    for r in range(runs):
        c = campaign(rng, delta, sd_b)
        if r == 0:
            _check_fixed_n(c)
        t_star = t_star_in_force(c, smallest, rule)
        t_stars.append(t_star)
        reads = route_reads(c, t_star)
        ends = doc_ends(c)
        pool_delta = np.array([np.mean(c.y[a] - c.y[b]) for a, b in plist])
        wrong = False
        for i in range(m):
            o = reads.outcome[:, i]
            signed = np.abs(o) == 1
            if gaps[i] == 0:
                assert abs(pool_delta[i]) < TOL  # exact null by construction
                wrong |= bool(signed.any())
            else:
                wrong |= bool(np.any(signed & (o != np.sign(pool_delta[i]))))
            wrong |= bool(np.any(o == 2) and abs(pool_delta[i]) > MARGIN)
            equiv[gaps[i]] += bool(np.any(o == 2))
            flips += bool(np.any(o == 1) and np.any(o == -1))
            census_signed += bool(abs(pool_delta[i]) < TOL and abs(o[-1]) == 1)
        false_any += wrong
        plan = planned(c, PILOT_DOCS) if plan_d else None
        if plan is not None:
            iccs.append(plan.icc)
        first_reads = []
        for i, (a, b) in enumerate(plist):
            g = gaps[i]
            if g == 0:
                continue
            sign = float(np.sign(pool_delta[i]))
            hit = np.flatnonzero(reads.outcome[:, i] == sign)
            j = float(hit[0] + 1) if hit.size else math.inf
            settle[g].append(j)
            labels[g].append(float(ends[int(j) - 1]) if hit.size else math.inf)
            if hit.size:
                first_reads.append(int(j))
            oracle_hits[g].append(fixed_n_hits(c, a, b, sign, ALPHA / m))
            if plan is not None and plan_d is not None:
                need = forecast_planned_labels(K, plan_d[g], ALPHA)
                pd_ = plan.documents_for(need)
                plan_docs[g].append(pd_)
                plan_ok[g].append(j <= pd_)
                plan_assumed[g] = DocumentPlan(
                    plan.pool_docs, plan.mean_size, plan.weighted_size, None, None
                ).documents_for(need)
        if r < checks:
            at = [cl.MIN_DOCUMENTS - 1, cl.MIN_DOCUMENTS, c.n_docs]
            at += [x for j in first_reads for x in (j - 1, j) if x >= 1]
            at += [int(x) for x in rng.integers(1, c.n_docs + 1, size=3)]
            mismatches += check_against_report(c, t_star, reads, at)
            compared += len(set(at)) * m
    out = {"runs": runs, "false": false_any, "mismatches": mismatches, "compared": compared,
           "equiv": equiv, "classes": {}, "icc_pilot": iccs, "flips": flips,
           "census_signed": census_signed,
           "t_star": (min(t_stars), max(t_stars))}  # fmt: skip
    for g in classes:
        s = np.array(settle[g])
        lab = np.array(labels[g])
        power = np.mean(np.stack(oracle_hits[g]), axis=0)
        ok = np.flatnonzero(power >= POWER)
        n80 = float(ok[0] + 1) if ok.size else math.inf
        out["classes"][g] = {
            "pairs": s.size, "med_docs": float(np.median(s)), "never": int(np.sum(~np.isfinite(s))),
            "med_labels": float(np.median(lab)), "n80": n80,
            "p_pool": float(power[-2]) if power.size > 1 else math.nan,
            "plan_med": float(np.median(plan_docs[g])) if plan_docs[g] else math.nan,
            "plan_range": (min(plan_docs[g]), max(plan_docs[g])) if plan_docs[g] else None,
            "plan_power": float(np.mean(plan_ok[g])) if plan_ok[g] else math.nan,
            "plan_assumed": plan_assumed.get(g),
            "assumed_power": (
                float(np.mean(s <= plan_assumed[g])) if g in plan_assumed else math.nan
            ),
        }  # fmt: skip
    return out


def _fmt(x: float) -> str:
    return "never" if not math.isfinite(x) else f"{x:.0f}"


def _ratio(a: float, b: float) -> str:
    if not (math.isfinite(a) and math.isfinite(b)) or b == 0:
        return "  n/a"
    return f"{a / b:5.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run (< 1 min)")
    ap.add_argument("--runs", type=int, default=2000, help="campaigns per cell")
    ap.add_argument("--checks", type=int, default=3, help="runs per cell checked against report()")
    ap.add_argument("--seed", type=int, default=20261125)
    args = ap.parse_args(argv)
    runs = 60 if args.quick else args.runs
    checks = 1 if args.quick else args.checks
    t0 = time.time()
    try:
        from document_unit_bench import wmt_icc

        print("\n".join(wmt_icc()))
    except (OSError, KeyError, ValueError) as exc:
        print(f"WMT ICC not measured: {exc}")
    print(
        f"\nk = {K} systems, {len(pairs(K))} pairs, latent δ = {MIXED} (all-null: {NULL}); "
        f"{POOL_DOCS} documents of {SIZES[0]}–{SIZES[1]} segments per system; α = {ALPHA} "
        f"(Holm); ε = {MARGIN}; test-set estimand; {runs} campaigns per cell; dashboard read "
        "after every completed document up to the census"
    )
    for name, sd_b in ICC_SCENARIOS.items():
        rng = np.random.default_rng(1)
        c = campaign(rng, (0.0,) * 2, sd_b)  # 2 systems, big pool: the model's ICCs
        icc_lab = cl.icc_anova(c.y[0], c.item_doc).icc
        icc_d = cl.icc_anova(c.y[0] - c.y[1], c.item_doc).icc
        d_ad = {g: adequacy_gap(g, sd_b) for g in (0.1, 0.2)}
        print(
            f"\n=== ICC(Δ) {name}: σ_b = {sd_b}; measured on one pool: ICC(labels) "
            f"{icc_lab:.3f}, ICC(Δ) {icc_d:.3f}; adequacy gap of latent 0.1 = {d_ad[0.1]:.4f}, "
            f"0.2 = {d_ad[0.2]:.4f}"
        )
        res = {}
        cells = (("all-null", NULL, 0, "cli"), ("mixed", MIXED, 1, "cli"),
                 ("all-null†", NULL, 0, "form"), ("mixed†", MIXED, 1, "form"))  # fmt: skip
        for tag, delta, off, rule in cells:  # † = the same campaigns, the form's t*
            res[tag] = run_cell(delta, sd_b, runs, args.seed + off, d_ad[0.1], checks=checks,
                                plan_d=d_ad if delta == MIXED else None, rule=rule)  # fmt: skip
        print("\n1. Family-wise false claims (any read, up to the census)")
        print(
            f"{'campaign':10s} {'runs':>5s} {'false':>6s} {'rate':>7s} {'95 % CP':>17s} "
            f"{'null≈ε':>7s} {'census±':>7s} {'flips':>5s} {'checks vs report()':>20s}"
        )
        for tag, r in res.items():
            lo, hi = cp_interval(r["false"], r["runs"])
            print(f"{tag:10s} {r['runs']:5d} {r['false']:6d} {r['false'] / r['runs']:7.4f} "
                  f"[{lo:.4f}, {hi:.4f}] {r['equiv'].get(0.0, 0):>7d} {r['census_signed']:>7d} "
                  f"{r['flips']:>5d} "
                  f"{r['mismatches']:>5d} of {r['compared']:<6d}")  # fmt: skip
        mixed = res["mixed"]
        lo_t, hi_t = mixed["t_star"]
        labels = forecast_planned_labels(K, d_ad[0.1], ALPHA)
        print(
            f"Plan in force, fixed before any label for d = {d_ad[0.1]:.4f}: cli.py plan "
            f"--smallest-difference (ICC assumed 0.05): {labels:,} independent labels → t* = "
            f"{lo_t:,}–{hi_t:,} labels per system (pool ≈ {POOL_DOCS * sum(SIZES) // 2:,}: "
            f"t* = min(plan, pool)); † a small plan: {labels:,} labels (no design effect) = "
            f"≈ {labels / (sum(SIZES) / 2):.0f} documents (the sequence is tuned at the pool "
            "either way)"
        )
        iccs = np.array(mixed["icc_pilot"], dtype=float)
        print(f"(null≈ε: null pair × runs shown 'no difference larger than {MARGIN}' at some "
              "read; census±: null pair × runs still shown with a sign at the census, where the "
              "pool Δ = 0 is known exactly; flips: pair × runs shown 'A better' at one read and "
              "'B better' at another)")  # fmt: skip
        print(f"\nPlanner's ICC from the first {PILOT_DOCS} documents (labels, median over "
              f"systems): median {np.nanmedian(iccs):.3f}, 10–90 % "
              f"{np.nanpercentile(iccs, 10):.3f}–{np.nanpercentile(iccs, 90):.3f}")  # fmt: skip
        print("\n2./3. Documents to a signed verdict per non-null pair (median over runs × pairs)")
        print(f"{'t*':>4s} {'latent':>6s} {'pairs':>5s} {'never':>5s} {'docs':>5s} "
              f"{'labels/sys':>10s} "
              f"{'oracle n80':>10s} {'÷oracle':>7s} {'plan(pilot)':>11s} {'÷plan':>6s} "
              f"{'plan power':>10s} {'plan(0.05)':>10s} {'power':>6s}")  # fmt: skip
        rows = [("cli", g, r) for g, r in mixed["classes"].items()]
        rows += [("form", g, r) for g, r in res["mixed†"]["classes"].items()]
        for rule, g, r in rows:
            print(
                f"{rule:>4s} {g:6.1f} {r['pairs']:5d} {r['never']:5d} {_fmt(r['med_docs']):>5s} "
                f"{_fmt(r['med_labels']):>10s} {_fmt(r['n80']):>10s} "
                f"{_ratio(r['med_docs'], r['n80']):>7s} {_fmt(r['plan_med']):>11s} "
                f"{_ratio(r['med_docs'], r['plan_med']):>6s} {r['plan_power']:10.3f} "
                f"{_fmt(r['plan_assumed'] or math.nan):>10s} {r['assumed_power']:6.3f}"
            )
        for g, r in mixed["classes"].items():
            if not math.isfinite(r["n80"]):
                print(f"  latent {g}: fixed-n power with {POOL_DOCS - 1} documents is only "
                      f"{r['p_pool']:.2f} (no n80 within the pool)")  # fmt: skip
    print(f"\ntotal {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
