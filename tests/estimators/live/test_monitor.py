"""The campaign monitor (statistics.md §4–§5): refusals, verdicts, forecasts, validity."""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import pytest

from estimators.base.multiple import holm
from estimators.base.result import MIN_LABELS_FOR_VERDICT
from estimators.live.forecast import forecast_labels_needed
from estimators.live.monitor import CampaignMonitor
from estimators.planning import labels_needed as planning
from estimators.sequences.confidence_sequences import asymptotic_cs, asymptotic_cs_pvalue
from estimators.sequences.sequential import asymptotic_half_width, paired_cv_increments
from tests.support.simulation import make_pool

ALPHA = 0.05


def exchangeable_pool(rng, n_base, deltas, r=0.6):
    """A pool whose systems are exactly equal in f and in metric mean: the base pool stacked
    under every permutation of its system columns (k! · n_base items)."""
    base = make_pool(rng, n_base, deltas, r=r)
    perms = list(permutations(range(len(deltas))))
    f = np.concatenate([base.f[list(p)] for p in perms], axis=1)
    g = np.concatenate([base.g[list(p)] for p in perms], axis=1)
    return f, g


def item_queue(rng, n_items, k, n_labels):
    """The queue: items in random order, each item's k outputs in random order."""
    items = np.repeat(rng.permutation(n_items), k)[:n_labels]
    systems = np.concatenate([rng.permutation(k) for _ in range(n_items)])[:n_labels]
    return items, systems, np.arange(n_labels, dtype=float)


def campaign(seed=0, deltas=(0.5, 0.0, 0.0), n_items=3000, n_labels=6000, r=0.6):
    rng = np.random.default_rng(seed)
    pool = make_pool(rng, n_items, list(deltas), r=r)
    items, systems, pos = item_queue(rng, n_items, len(deltas), n_labels)
    y = (rng.random(n_labels) < pool.f[systems, items]).astype(float)
    incl = np.full(n_labels, n_labels / (n_items * len(deltas)))
    return pool, items, systems, y, pos, incl


# ------------------------------------------------------------------ refusals


def test_refuses_labels_without_a_recorded_random_order():
    pool, items, systems, y, pos, incl = campaign(n_labels=300)
    metrics = list(pool.g)
    with pytest.raises(ValueError, match="without assignment position"):
        CampaignMonitor(metrics, items, systems, y, None, incl)
    with pytest.raises(ValueError, match="without inclusion probability"):
        CampaignMonitor(metrics, items, systems, y, pos, None)
    bad = pos.copy()
    bad[17] = np.nan
    with pytest.raises(ValueError, match="missing assignment position"):
        CampaignMonitor(metrics, items, systems, y, bad, incl)
    bad = incl.copy()
    bad[5] = np.nan
    with pytest.raises(ValueError, match="missing inclusion probability"):
        CampaignMonitor(metrics, items, systems, y, pos, bad)
    bad = pos.copy()
    bad[40] = bad[39]
    with pytest.raises(ValueError, match="strictly increasing"):
        CampaignMonitor(metrics, items, systems, y, bad, incl)
    with pytest.raises(ValueError, match="strictly increasing"):
        CampaignMonitor(metrics, items, systems, y, pos[::-1], incl)
    bad = incl.copy()
    bad[systems == 1] = np.linspace(0.01, 0.2, int(np.sum(systems == 1)))
    with pytest.raises(ValueError, match=r"system 'S1': unequal inclusion probabilities \(0\.01"):
        CampaignMonitor(metrics, items, systems, y, pos, bad)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        CampaignMonitor(metrics, items, systems, y, pos, incl * 0)
    with pytest.raises(ValueError, match="outside the declared range"):
        CampaignMonitor(metrics, items, systems, y * 3, pos, incl)
    with pytest.raises(ValueError, match="item index"):
        CampaignMonitor(metrics, items + 3000, systems, y, pos, incl)


# ------------------------------------------------------------------ verdicts


def test_verdicts_ranks_and_forecasts_on_a_simulated_campaign():
    pool, items, systems, y, pos, incl = campaign()
    mon = CampaignMonitor(list(pool.g), items, systems, y, pos, incl, names=["good", "b", "c"])
    rep = mon.report()
    by = {(p.a, p.b): p for p in rep.pairs}
    assert pool.mu[0] - pool.mu[1] > 0.1
    assert by["good", "b"].verdict == "A better" and by["good", "c"].verdict == "A better"
    assert by["good", "b"].verdict_text == "good better"
    assert by["good", "b"].labels_needed == 0
    for p in rep.pairs:
        if p.settled:  # a winner, or no difference larger than ε
            assert p.labels_needed == 0 and p.labels_needed_planner == 0
        else:
            assert p.labels_needed is None or p.labels_needed > 0
    bc = by["b", "c"]
    assert bc.verdict.startswith("no difference larger than") or bc.verdict == "not yet"
    assert bc.result.low <= pool.mu[1] - pool.mu[2] <= bc.result.high
    for p in rep.pairs:
        assert p.p_holm >= p.p_value
        assert p.result.n_human == 2000
        assert p.result.level == pytest.approx(1 - ALPHA / 3)  # Bonferroni over 3 pairs
    assert str(rep.systems[0].rank) == "1"
    for s, mu in zip(rep.systems, pool.mu, strict=True):
        assert s.result.low <= mu <= s.result.high
        assert s.result.n_metric == 3000
    assert rep.rows()[0]["verdict"] == "good better"


def test_no_difference_verdict_when_the_interval_is_narrow_around_zero():
    rng = np.random.default_rng(3)
    f, g = exchangeable_pool(rng, 2000, [0.0, 0.0])  # 4,000 items, μ_A = μ_B exactly
    items, systems, pos = item_queue(rng, 4000, 2, 8000)
    y = (rng.random(8000) < f[systems, items]).astype(float)
    incl = np.ones(8000)
    rep = CampaignMonitor(list(g), items, systems, y, pos, incl, equivalence_margin=0.05).report()
    (pair,) = rep.pairs
    assert pair.verdict.startswith("no difference larger than ")
    x = float(pair.verdict.rsplit(" ", 1)[1])
    assert x <= 0.05 and pair.result.low <= 0 <= pair.result.high
    tight = CampaignMonitor(list(g), items, systems, y, pos, incl, equivalence_margin=0.001)
    # every item of the pool is labelled: the monitor concludes instead of "not yet"
    (done,) = tight.report().pairs
    assert done.verdict == "no significant difference at α = 0.05 with all 4,000 items"
    assert done.labels_needed is None and done.needed_basis == "pool exhausted"
    half = CampaignMonitor(list(g), items[:4000], systems[:4000], y[:4000], pos[:4000],
                           incl[:4000], equivalence_margin=0.001)  # fmt: skip
    assert half.report().pairs[0].verdict == "not yet"


def test_no_verdict_below_the_minimum_number_of_labels():
    pool, items, systems, y, pos, incl = campaign(deltas=(3.0, -3.0, 0.0), n_labels=3 * 29)
    rep = CampaignMonitor(list(pool.g), items, systems, y, pos, incl).report()
    for p in rep.pairs:
        assert p.result.n_human == 29 < MIN_LABELS_FOR_VERDICT
        assert p.verdict == "not yet" and not p.result.valid_for_verdict
    rep = CampaignMonitor(
        list(pool.g), *campaign(deltas=(3.0, -3.0, 0.0), n_labels=3 * 60)[1:]
    ).report()
    assert rep.pairs[0].verdict == "A better"  # a huge gap is called once n ≥ 30


def test_monitor_matches_the_sequential_functions():
    pool, items, systems, y, pos, incl = campaign(seed=4, n_labels=1500)
    rep = CampaignMonitor(list(pool.g), items, systems, y, pos, incl).report()
    pvals = []
    for pair, (a, b) in zip(rep.pairs, [(0, 1), (0, 2), (1, 2)], strict=True):
        ia = items[systems == a]
        ib = items[systems == b]
        common = [i for i in ia if i in set(ib)]  # item queue: pair completes in item order
        ya = np.array([y[(systems == a) & (items == i)][0] for i in common])
        yb = np.array([y[(systems == b) & (items == i)][0] for i in common])
        inc = paired_cv_increments(
            ya, yb, pool.g[a, common], pool.g[b, common], pool.g[a].mean(), pool.g[b].mean()
        )
        # labels in [0, 1] ⇒ D in [−1, 1]: variance prior 1 (10 pseudo-observations)
        cs = asymptotic_cs(inc.z, ALPHA / 3, t_star=3000, running_intersection=True, var_prior=1.0)
        assert pair.result.ci == pytest.approx((cs.lower[-1], cs.upper[-1]))
        # the p-value dual to that sequence, tuned at the level Holm first reads it (α/m)
        pvals.append(
            asymptotic_cs_pvalue(inc.z, 0.0, t_star=3000, alpha_tuning=ALPHA / 3, var_prior=1.0)[-1]
        )
        assert pair.p_value == pytest.approx(pvals[-1])
    np.testing.assert_allclose([p.p_holm for p in rep.pairs], holm(pvals).adjusted)


def test_lower_is_better_labels_flip_the_verdict():
    pool, items, systems, y, pos, incl = campaign(seed=5)
    hter_like = 1.0 - y  # system 0 now has the *lower* (better) HTER
    rep = CampaignMonitor(
        list(-pool.g), items, systems, hter_like, pos, incl, higher_is_better=False
    ).report()
    assert rep.pairs[0].result.estimate < 0
    assert rep.pairs[0].verdict == "A better"
    assert str(rep.systems[0].rank) == "1"


def test_strict_mode_is_valid_and_wider():
    pool, items, systems, y, pos, incl = campaign(seed=6)
    args = (list(pool.g), items, systems, y, pos, incl)
    asym = CampaignMonitor(*args).report()
    strict = CampaignMonitor(*args, mode="strict").report()
    for pa, ps in zip(asym.pairs, strict.pairs, strict=True):
        assert ps.result.width > pa.result.width
        assert ps.result.method.startswith("eb_strict")
    assert strict.pairs[0].verdict == "A better"
    for s, mu in zip(strict.systems, pool.mu, strict=True):
        assert s.result.low <= mu <= s.result.high
    with pytest.raises(ValueError, match="label_range"):
        CampaignMonitor(*args, mode="strict", label_range=None)


def test_pair_sequence_without_report_matches_the_reported_interval():
    """pair_sequence reuses report()'s sequences; on a fresh monitor it computes them alike."""
    pool, items, systems, y, pos, incl = campaign(seed=4, n_labels=1500)
    for mode in ("asymptotic", "strict"):
        fresh = CampaignMonitor(list(pool.g), items, systems, y, pos, incl, mode=mode)
        reported = CampaignMonitor(list(pool.g), items, systems, y, pos, incl, mode=mode)
        rep = reported.report()
        for pair, (a, b) in zip(rep.pairs, [(0, 1), (0, 2), (1, 2)], strict=True):
            cs = fresh.pair_sequence(a, b)
            assert (cs.lower[-1], cs.upper[-1]) == pair.result.ci
            np.testing.assert_array_equal(cs.lower, reported.pair_sequence(a, b).lower)
            np.testing.assert_array_equal(cs.upper, reported.pair_sequence(a, b).upper)


def test_repeat_labels_of_an_output_are_ignored_with_a_note():
    pool, items, systems, y, pos, incl = campaign(seed=7, n_labels=300)
    items2 = np.concatenate([items, items[:10]])
    systems2 = np.concatenate([systems, systems[:10]])
    y2 = np.concatenate([y, 1 - y[:10]])
    pos2 = np.arange(310, dtype=float)
    rep = CampaignMonitor(list(pool.g), items2, systems2, y2, pos2, np.full(310, 0.1)).report()
    base = CampaignMonitor(list(pool.g), items, systems, y, pos, incl).report()
    assert rep.pairs[0].result.ci == base.pairs[0].result.ci
    assert any("repeat" in n for n in rep.notes)


# ------------------------------------------------------------------ forecast


def test_forecast_is_the_first_t_where_the_half_width_beats_the_gap():
    sigma, delta, n_now = 0.6, 0.08, 120
    need = forecast_labels_needed(delta, sigma, n_now, alpha=0.05, t_star=1000, max_labels=10**5)
    t = n_now + need
    assert asymptotic_half_width(sigma, t, 0.05, 1000) < delta
    assert asymptotic_half_width(sigma, t - 1, 0.05, 1000) >= delta
    assert forecast_labels_needed(0.0, sigma, n_now) is None
    assert forecast_labels_needed(delta, sigma, n_now, t_star=1000, max_labels=200) is None
    assert forecast_labels_needed(0.5, 0.1, 500, t_star=1000) == 0


def test_forecast_predicts_the_realised_decision_time():
    """Stop undecided streams at 100 labels, forecast, then watch when they really decide."""
    rng = np.random.default_rng(8)
    pool = make_pool(rng, 20_000, [0.15, 0.0], r=0.6)
    idx = rng.integers(0, 20_000, (400, 4000))
    ya, yb = pool.draw_labels(rng, idx, 0), pool.draw_labels(rng, idx, 1)
    inc = paired_cv_increments(
        ya, yb, pool.g[0, idx], pool.g[1, idx], pool.g[0].mean(), pool.g[1].mean()
    )
    cs = asymptotic_cs(inc.z, ALPHA, t_star=4000)
    decided = ~cs.covers(0.0)
    first = np.where(decided.any(axis=1), decided.argmax(axis=1) + 1, 10**6)
    open_at_100 = first > 100
    forecasts = [
        forecast_labels_needed(
            inc.z[i, :100].mean(), inc.z[i, :100].std(), 100, t_star=4000, max_labels=10**6
        )
        for i in np.flatnonzero(open_at_100)
    ]
    forecasts = np.array([np.inf if f is None else 100 + f for f in forecasts])
    ratio = np.median(first[open_at_100]) / np.median(forecasts)
    # the planner's 80 %-power fixed-n forecast from the current σ̂/√n
    zo = inc.z[open_at_100, :100]
    planner = 100 + planning.labels_still_needed(
        zo.mean(axis=1), zo.std(axis=1) / 10.0, 100, 0.95, 0.8
    )
    p80 = np.quantile(first[open_at_100], 0.8)
    ratio80 = p80 / np.median(planner)
    print(
        f"\nforecast at t=100: median CS-width forecast {np.median(forecasts):.0f}, "
        f"median realised {np.median(first[open_at_100]):.0f} (ratio {ratio:.2f}); "
        f"median planner (fixed-n, 80 %) forecast {np.median(planner):.0f}, realised 80th "
        f"percentile {p80:.0f} (ratio {ratio80:.2f})"
    )
    assert 0.5 < ratio < 2.0  # the CS-width forecast is the monitor's primary forecast
    assert ratio80 > 1.0  # the fixed-n planner under-forecasts the anytime-valid decision


# ------------------------------------------------------------------ validity of the live view


@pytest.mark.slow
def test_reading_the_dashboard_at_every_checkpoint_keeps_the_error_rate():
    """3 exactly equal systems; the dashboard is read every 300 labels up to 3,000: the chance
    that it ever shows a "better" verdict stays ≤ α (+2 MC-SE); the naive z-test does not."""
    rng = np.random.default_rng(9)
    f, g = exchangeable_pool(rng, 1000, [0.0, 0.0, 0.0])  # 6,000 items
    n_campaigns, n_labels = 200, 3000
    false_alarm = np.zeros(n_campaigns, dtype=bool)
    naive_alarm = np.zeros(n_campaigns, dtype=bool)
    for c in range(n_campaigns):
        items, systems, pos = item_queue(rng, 6000, 3, n_labels)
        y = (rng.random(n_labels) < f[systems, items]).astype(float)
        incl = np.full(n_labels, n_labels / 18_000)
        for stop in range(300, n_labels + 1, 300):
            rep = CampaignMonitor(
                list(g), items[:stop], systems[:stop], y[:stop], pos[:stop], incl[:stop]
            ).report()
            if any(p.verdict.endswith("better") for p in rep.pairs):
                false_alarm[c] = True
                break
        # the same pair, read naively after every label (fixed-n z-test each time)
        assert np.array_equal(items[systems == 0], items[systems == 1])
        d = y[systems == 0] - y[systems == 1]
        t = np.arange(1, d.size + 1)
        m = np.cumsum(d) / t
        var = np.maximum(np.cumsum(d * d) / t - m * m, 1e-12) * t / np.maximum(t - 1, 1)
        naive_alarm[c] = np.any((np.abs(m) / np.sqrt(var / t))[29:] > 1.96)
    rate = false_alarm.mean()
    print(
        f"\nlive dashboard, 3 equal systems, 200 campaigns read every 300 labels: "
        f"P(any false 'better') {rate:.3f}; naive z on one pair read after every label "
        f"{naive_alarm.mean():.3f}"
    )
    assert rate <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / n_campaigns)
    assert naive_alarm.mean() >= 0.2


def test_finite_pool_mode_closes_on_the_pool_mean_of_the_labels():
    """Each output labelled once, the whole pool in random order: the finite-pool interval
    ends at the exact pool difference; the default (μ over annotators) stays open."""
    rng = np.random.default_rng(10)
    pool = make_pool(rng, 600, [0.1, 0.0], r=0.6)
    items, systems, pos = item_queue(rng, 600, 2, 1200)
    y = (rng.random(1200) < pool.f[systems, items]).astype(float)
    labels = np.zeros((2, 600))
    labels[systems, items] = y
    args = (list(pool.g), items, systems, y, pos, np.ones(1200))
    fin = CampaignMonitor(*args, finite_pool=True).report().pairs[0].result
    sup = CampaignMonitor(*args).report().pairs[0].result
    exact = labels[0].mean() - labels[1].mean()
    assert fin.estimate == pytest.approx(exact, abs=0.02)
    assert fin.low <= exact <= fin.high
    assert fin.width < 0.8 * sup.width
    strict = CampaignMonitor(*args, finite_pool=True, mode="strict").report().pairs[0].result
    assert strict.low <= exact <= strict.high
