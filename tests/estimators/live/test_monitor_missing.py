"""The live monitor with gaps (statistics.md §4–§5): missing outputs and missing metric scores
degrade only the items they touch, and the reported anytime p-values never increase as labels
arrive — read through the dashboard's own path
(estimators.report.campaign_report.campaign_report)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from estimators.live.monitor import CampaignMonitor
from estimators.report.campaign_report import campaign_report
from estimators.sequences.confidence_sequences import asymptotic_cs, asymptotic_cs_pvalue
from estimators.sequences.sequential import BURN_IN, cv_increments, pool_controls
from tests.support.simulation import make_pool

try:  # the campaign types move from db.reads.campaign to estimators.data.campaign
    from estimators.data.campaign import CampaignData, Judgments, MetricInfo
except ImportError:  # pragma: no cover - before that move
    from db.reads.campaign import CampaignData, Judgments, MetricInfo

SIG = "chrf|test"
ALPHA = 0.05


def _take(values, index):  # type: ignore[no-untyped-def]
    """A judgment field cut to ``index``; optional fields (None, e.g. esa_score) stay None."""
    return None if values is None else values[index]


def gappy_campaign(
    seed: int = 0, n_items: int = 200, deltas=(0.6, 0.0, -0.3), *, score_gaps: bool = True
):
    """A campaign as the dashboard reads it: system 2 lacks 5 % of its outputs, each system
    lacks 5 % of its metric scores (unless not ``score_gaps``); judgments in the queue's
    random item order."""
    rng = np.random.default_rng(seed)
    k = len(deltas)
    pool = make_pool(rng, n_items, list(deltas), r=0.7)
    output_ids = np.arange(k * n_items).reshape(k, n_items) + 1
    output_ids[2, rng.choice(n_items, n_items // 20, replace=False)] = -1
    present = output_ids >= 0
    scores = pool.g.copy()
    scores[~present] = np.nan
    for s in range(k):
        have = np.flatnonzero(present[s])
        gaps = rng.choice(have, have.size // 20, replace=False)
        if score_gaps:
            scores[s, gaps] = np.nan
    rows = [(j, s) for j in rng.permutation(n_items) for s in rng.permutation(k) if present[s, j]]
    item = np.array([r[0] for r in rows])
    system = np.array([r[1] for r in rows])
    n = len(rows)
    label = (rng.random(n) < pool.f[system, item]).astype(float)
    nan = np.full(n, np.nan)
    j = Judgments(
        annotation_id=np.arange(1, n + 1), item=item, system=system, annotator=np.arange(n) % 2,
        label=label, score=nan, hter=nan, seconds=np.full(n, 5.0),
        position=np.arange(n, dtype=float), inclusion_prob=np.ones(n),
        created_at=np.zeros(n, dtype="datetime64[us]"),
    )  # fmt: skip
    data = CampaignData(
        campaign_id=1, name="gaps", mode="binary", systems=[f"S{s}" for s in range(k)],
        is_human=np.zeros(k, bool), item_ids=[f"i{x}" for x in range(n_items)],
        output_ids=output_ids,
        metrics=[MetricInfo(SIG, "chrf", int(np.isfinite(scores).sum()), None, True, None)],
        scores={SIG: scores}, judgments=j, annotators=["a", "b"],
    )  # fmt: skip
    return data, pool


def _prefix(data, n: int):
    """The campaign as the dashboard saw it after its first n judgments."""
    j = data.judgments
    cut = {f: _take(getattr(j, f), slice(n)) for f in j.__dataclass_fields__}
    return type(data)(**{**data.__dict__, "judgments": type(j)(**cut)})


@pytest.mark.parametrize(
    ("signatures", "score_gaps"),
    [([], True), ([SIG], True), ([SIG], False)],
    ids=["no metric", "metric, scores missing", "metric, only outputs missing"],
)
@pytest.mark.slow
def test_reported_pvalues_never_increase_as_labels_arrive(signatures, score_gaps):
    """Read the dashboard after every label, in queue order (then every 25 labels): for
    every pair the reported
    anytime p-value and its Holm adjustment never go up. Failed with the pool sized from the
    highest labelled item, and with one missing output and a metric chosen (no verdicts:
    "pool metric scores must be finite")."""
    data, _ = gappy_campaign(score_gaps=score_gaps)
    n = len(data.judgments)
    reads = list(range(90, 240)) + list(range(240, n, 25)) + [n]
    last_p = last_holm = None
    for t in reads:
        rep = campaign_report(_prefix(data, t), signatures=signatures)
        assert rep.monitor is not None, rep.notes
        p = np.array([pr.p_value for pr in rep.monitor.pairs])
        holm = np.array([pr.p_holm for pr in rep.monitor.pairs])
        if last_p is not None:
            assert np.all(p <= last_p), (t, p, last_p)
            assert np.all(holm <= last_holm), (t, holm, last_holm)
        last_p, last_holm = p, holm
    assert rep.monitor.pairs[0].decided  # S0 vs S1 (Δ ≈ 0.2) is called on the 200 items
    cov = {(pr.a, pr.b): pr.coverage for pr in rep.monitor.pairs}
    assert cov["S0", "S1"].pool == 200 and cov["S0", "S2"].pool == 190
    assert cov["S0", "S2"].no_output == 10
    if signatures and score_gaps:
        assert rep.monitor.items_without_metric == {"S0": 10, "S1": 10, "S2": 9}
        assert 10 <= cov["S0", "S1"].no_metric <= 20
        assert any("lack a chosen metric score" in note for note in rep.notes)
        assert rep.monitor.systems[0].result.n_metric == 190
    elif signatures:
        assert rep.monitor.items_without_metric == {}
        assert rep.monitor.systems[2].result.n_metric == 190
        assert rep.monitor.pairs[0].result.method.endswith("+cv paired")
    assert any("S2 has no output for 10 of 200 items" in note for note in rep.notes)


def test_missing_scores_degrade_only_their_items():
    """A missing score drops the control for that item only: the increments of the other
    items are the ones a complete pool with the same pool mean gives."""
    data, _ = gappy_campaign(seed=1)
    j = data.judgments
    grids = [data.scores[SIG][s] for s in range(3)]
    mon = CampaignMonitor(
        grids, j.item, j.system, j.label, j.position, j.inclusion_prob,
        present=data.output_ids >= 0,
    )  # fmt: skip
    rep = mon.report()
    assert rep.pairs[0].verdict == "A better"
    ctrl = pool_controls(grids[0], data.output_ids[0] >= 0)
    missing = ~np.isfinite(grids[0])
    assert ctrl.imputed.sum() == missing.sum() == 10
    assert np.allclose(ctrl.values[missing, 0], ctrl.mean[0])
    assert ctrl.mean[0] == pytest.approx(np.nanmean(grids[0]))
    # E[z_i] over a uniform draw from the pool is the label mean for ANY λ (exact identity)
    y = np.random.default_rng(0).random(200)
    for lam in (-2.0, 0.7, 5.0):
        z = y - lam * (ctrl.values[:, 0] - ctrl.mean[0])
        assert z.mean() == pytest.approx(y.mean(), abs=1e-12)
    # the pool size is never read off the labels
    with pytest.raises(ValueError, match="pool size is unknown"):
        CampaignMonitor([None] * 3, j.item, j.system, j.label, j.position, j.inclusion_prob)


def test_pool_controls_impute_each_column_over_the_pool_only():
    g = np.array([[1.0, np.nan, 5.0], [3.0, 2.0, np.nan], [np.nan, 4.0, np.nan], [9.0, 9.0, 9.0]])
    in_pool = np.array([True, True, True, False])  # item 3 is outside the pool
    ctrl = pool_controls(g, in_pool)
    np.testing.assert_allclose(ctrl.mean, [2.0, 3.0, 5.0])  # item 3's 9s are not in the pool
    np.testing.assert_allclose(ctrl.values[:3], [[1, 3, 5], [3, 2, 5], [2, 4, 5]])
    assert np.isnan(ctrl.values[3]).all()
    np.testing.assert_array_equal(ctrl.imputed, [True, True, True, False])
    assert ctrl.size == 3
    only_outside = pool_controls(np.array([np.nan, np.nan, 1.0]), np.array([True, True, False]))
    assert only_outside is None  # no score in the pool: human-only increments
    one_col = pool_controls(np.array([[np.nan, 1.0], [np.nan, 2.0]]), np.ones(2, bool))
    assert one_col.values.shape == (2, 1)  # a column with no score in the pool is dropped


# ------------------------------------------------------------------ simulation, 5 % missing

R, T, N = 500, 2000, 4000


def _gappy_pool(rng, deltas, r=0.7):
    """Pool with 5 % of each system's outputs missing and 5 % of the remaining metric scores
    missing — chosen among the better outputs (informative gaps: a bias would show)."""
    pool = make_pool(rng, N, list(deltas), r=r)
    k = len(deltas)
    present = rng.random((k, N)) >= 0.05
    g = pool.g.copy()
    g[~present] = np.nan
    for s in range(k):
        have = np.flatnonzero(present[s])
        w = pool.f[s, have] ** 4
        g[s, rng.choice(have, have.size // 20, replace=False, p=w / w.sum())] = np.nan
    return pool, present, g


def test_confidence_sequences_with_5_percent_missing_outputs_and_scores():
    """500 streams × 2,000 labels of one pair and one system, 5 % outputs and 5 % scores
    missing: P(ever miss) ≤ 0.07 (AsympCS, §6.4); the naive running z misses ≥ 0.3."""
    rng = np.random.default_rng(20)
    pool, present, g = _gappy_pool(rng, [0.2, 0.0])
    both = present[0] & present[1]
    p_items = np.flatnonzero(both)
    # the queue's random item order restricted to the pair's pool; labels for both systems
    order = p_items[np.argsort(rng.random((R, p_items.size)), axis=1)[:, :T]]
    ya, yb = pool.draw_labels(rng, order, 0), pool.draw_labels(rng, order, 1)
    ctrl = pool_controls(g[0] - g[1], both)  # the monitor's pair controls ("difference")
    assert 0.08 < ctrl.imputed[both].mean() < 0.12
    inc = cv_increments(ya - yb, ctrl.values[order], ctrl.mean)
    truth = (pool.f[0, both] - pool.f[1, both]).mean()
    cs = asymptotic_cs(inc.z, ALPHA, t_star=both.sum(), var_prior=1.0)
    miss_pair = cs.ever_misses(truth).mean()
    cover_fixed = cs.covers(truth)[:, -1].mean()
    # the monitor computes exactly these increments (stream 0, read through its own path)
    items, systems = np.repeat(order[0], 2), np.tile([0, 1], T)
    y01 = np.column_stack([ya[0], yb[0]]).ravel()
    mon = CampaignMonitor(
        [g[0], g[1]], items, systems, y01, np.arange(2.0 * T), np.ones(2 * T), present=present
    )
    path = mon.pair_sequence(0, 1)
    ref = asymptotic_cs(
        inc.z[0], ALPHA, t_star=both.sum(), var_prior=1.0, running_intersection=True
    )
    # … clipped to the range a difference of [0, 1] labels can have
    np.testing.assert_allclose(path.lower, np.clip(ref.lower, -1.0, 1.0))
    # one system over its own pool (its outputs), 5 % of its scores missing
    s_items = np.flatnonzero(present[0])
    s_order = s_items[np.argsort(rng.random((R, s_items.size)), axis=1)[:, :T]]
    ys = pool.draw_labels(rng, s_order, 0)
    cs0 = pool_controls(g[0], present[0])
    inc0 = cv_increments(ys, cs0.values[s_order], cs0.mean)
    mu0 = pool.f[0, present[0]].mean()
    sys_cs = asymptotic_cs(inc0.z, ALPHA, t_star=present[0].sum(), var_prior=0.25)
    miss_sys = sys_cs.ever_misses(mu0).mean()
    # negative control: the naive running z-interval on the same pair streams
    d = ya - yb
    t = np.arange(1, T + 1)
    m = np.cumsum(d, axis=1) / t
    sd = np.sqrt(np.maximum(np.cumsum(d * d, axis=1) / t - m * m, 1e-12))
    naive = (np.abs(m - truth) > 1.96 * sd / np.sqrt(t))[:, BURN_IN - 1 :].any(axis=1).mean()
    print(
        f"\n5 % outputs + 5 % scores missing, {R} streams × {T} labels: P(ever miss) pair "
        f"{miss_pair:.3f}, system {miss_sys:.3f}; coverage at t={T} {cover_fixed:.3f}; "
        f"naive running z {naive:.3f}"
    )
    assert miss_pair <= 0.07 and miss_sys <= 0.07
    assert cover_fixed >= 0.95
    assert naive >= 0.3


def test_live_dashboard_false_alarms_with_5_percent_missing():
    """3 systems with identical f on every item, 5 % outputs and 5 % scores missing, 200
    campaigns of 3,000 labels. The reported p-values are running minima that never increase
    (test above), so a campaign ever shows a false "better" at some read only if the last read
    has a Holm p ≤ α: P(last read has one) bounds the live error rate — ≤ α + 2 MC-SE."""
    rng = np.random.default_rng(21)
    n_campaigns, n_labels = 200, 3000
    pool, present, g = _gappy_pool(rng, [0.0, 0.0, 0.0], r=0.6)
    f = np.broadcast_to(pool.f[0], (3, N))  # Δ = 0 on any sub-pool
    rows = np.array([(j, s) for j in range(N) for s in range(3) if present[s, j]])
    alarms, p_min = np.zeros(n_campaigns, bool), np.ones(n_campaigns)
    for c in range(n_campaigns):
        item_order = rng.permutation(N)
        rank = np.empty(N, int)
        rank[item_order] = np.arange(N)
        key = rank[rows[:, 0]] * 3 + rng.permutation(3)[rows[:, 1]]
        take = rows[np.argsort(key)][:n_labels]
        y = (rng.random(n_labels) < f[take[:, 1], take[:, 0]]).astype(float)
        rep = CampaignMonitor(
            [g[s] for s in range(3)], take[:, 0], take[:, 1], y,
            np.arange(n_labels, dtype=float), np.ones(n_labels), present=present,
        ).report()  # fmt: skip
        alarms[c] = any(p.decided for p in rep.pairs)
        p_min[c] = min(p.p_holm for p in rep.pairs)
        assert all(p.result.n_human > 900 for p in rep.pairs)
    rate = alarms.mean()
    print(
        f"\nlive dashboard, 3 equal systems, 5 % outputs + 5 % scores missing, "
        f"{n_campaigns} campaigns: P(ever a false 'better') ≤ {rate:.3f}; "
        f"P(Holm p ≤ α) {np.mean(p_min <= ALPHA):.3f}"
    )
    assert rate <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / n_campaigns)


def test_anytime_pvalue_path_is_a_prefix_of_the_longer_path():
    """Recomputed from scratch at a later read, the p-value path up to t is unchanged (fixed
    t*), so the running minimum reported at t can only fall."""
    rng = np.random.default_rng(22)
    z = rng.standard_normal(800) * 0.6 + 0.05
    full = asymptotic_cs_pvalue(z, 0.0, t_star=4000, var_prior=1.0)
    for t in (100, 333, 799):
        np.testing.assert_array_equal(
            asymptotic_cs_pvalue(z[:t], 0.0, t_star=4000, var_prior=1.0), full[:t]
        )
    assert np.all(np.diff(full) <= 0)


def test_the_report_says_which_systems_lose_their_fixed_n_ppi():
    """Fixed-n PPI++ needs every score of a system: where one is missing the report says so
    (and the system's live verdicts stay)."""
    data, _ = gappy_campaign(seed=1, score_gaps=True)
    rep = campaign_report(data, signatures=[SIG])
    note = next(n for n in rep.notes if n.startswith("Metric scores are incomplete for"))
    assert all(name in note for name in data.systems)
    assert rep.monitor is not None and rep.monitor.pairs


def test_systems_with_no_shared_item_are_named_not_left_at_not_yet() -> None:
    """Three systems, the third on its own items: its two pairs can never be decided (pairs
    are compared on shared items), so the report says so once; the shared pair is decided."""
    rng = np.random.default_rng(3)
    n = 120
    present = np.zeros((3, 2 * n), dtype=bool)
    present[:2, :n] = True
    present[2, n:] = True
    rows = [(j, s) for j in rng.permutation(2 * n) for s in range(3) if present[s, j]]
    item = np.array([r[0] for r in rows])
    system = np.array([r[1] for r in rows])
    label = np.where(system == 0, 1.0, (rng.random(item.size) < 0.3).astype(float))
    rep = CampaignMonitor(
        [None] * 3, item, system, label, np.arange(item.size, dtype=float),
        np.ones(item.size), present=present, design="betting", finite_pool=True,
    ).report()  # fmt: skip
    disjoint = [note for note in rep.notes if "share no item" in note]
    assert disjoint == [
        "2 pair(s) of systems share no item (e.g. S0 and S2): pairs are compared on the items "
        "both systems have outputs for, so these cannot be decided."
    ]
    verdicts = {(p.a, p.b): p.verdict for p in rep.pairs}
    assert verdicts[("S0", "S1")] == "A better"
    shared = CampaignMonitor(
        [None] * 2, item[system < 2], system[system < 2], label[system < 2],
        np.arange(int((system < 2).sum()), dtype=float), np.ones(int((system < 2).sum())),
        present=present[:2], design="betting", finite_pool=True,
    ).report()  # fmt: skip
    assert not [note for note in shared.notes if "share no item" in note]
