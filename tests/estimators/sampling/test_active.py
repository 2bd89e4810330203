"""Active labelling (statistics.md §9): the draw rule, the weighted increments, and their
validity by simulation with known truth (statistics.md §6 generator) under a useful (the
queue's binned-metric model) and a deliberately wrong uncertainty model (it draws the most
certain items most)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from estimators.sampling import active
from estimators.sampling import active_predictions as ap
from estimators.sequences import confidence_sequences as csq
from tests.support.simulation import make_pool, simulate_active

TAU = 0.3


def test_inclusion_probabilities_mix_with_uniform_and_keep_the_rate():
    u = np.array([0.0, 0.1, 0.2, 0.4, 0.5, np.nan])
    pi = active.inclusion_probabilities(u, rate=0.4, tau=TAU)
    assert np.all(pi >= TAU * 0.4 - 1e-12)  # the floor τ·b, also for u = 0 and NaN
    assert pi[0] == pytest.approx(TAU * 0.4) and pi[-1] == pytest.approx(TAU * 0.4)
    assert np.all(np.diff(pi[:5]) > 0)  # more uncertain → more likely
    assert pi.mean() == pytest.approx(0.4)  # no cap reached: the mean is the rate
    # a cap at 1 where b·u/ū is large
    assert active.inclusion_probabilities(np.array([0.0, 0.0, 0.0, 1.0]), 0.9).max() == 1.0
    # no information: uniform thinning
    assert np.allclose(active.inclusion_probabilities(np.zeros(4), 0.25), 0.25)
    assert np.allclose(active.inclusion_probabilities(np.full(3, 2.0), 0.5), 0.5)


@pytest.mark.parametrize(("rate", "tau"), [(0.0, 0.3), (1.5, 0.3), (0.5, 0.0), (0.5, 1.2)])
def test_inclusion_probabilities_refuse_bad_settings(rate, tau):
    with pytest.raises(ValueError, match=r"rate|tau"):
        active.inclusion_probabilities(np.ones(3), rate, tau)


def test_item_uncertainty_is_that_of_the_differences():
    v = np.array([[0.04, 0.25, np.nan], [0.09, 0.0, 0.16]])
    assert np.allclose(active.item_uncertainty(v), [math.sqrt(0.13), 0.5, 0.4])


def test_identities_uniform_labelling_is_the_human_mean():
    """π = 1 everywhere and ŷ constant: z_t = Y_t, the human-only mean and its t interval."""
    rng = np.random.default_rng(0)
    y = (rng.random(80) < 0.6).astype(float)
    c = np.full(80, 0.37)
    z = active.increments(y, np.ones(80, bool), np.ones(80), c, c)
    assert np.allclose(z, y)
    res = active.fixed_n(z, 80)
    assert res.estimate == pytest.approx(y.mean())
    assert res.se == pytest.approx(y.std(ddof=1) / math.sqrt(80))
    # an unlabelled visit contributes mean_pool(ŷ); a labelled one is weighted by 1/π
    z = active.increments(np.array([1.0, 0.0]), np.array([True, False]), np.array([0.25, 0.5]),
                          np.array([0.2, 0.4]), np.array([0.3, 0.3]))  # fmt: skip
    assert np.allclose(z, [0.3 + 0.8 / 0.25, 0.3])
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        active.increments(y[:2], np.ones(2, bool), np.array([0.0, 1.0]), c[:2], c[:2])


def test_predictions_use_only_earlier_visits():
    """Changing labels at or after a refit point never changes ŷ before it."""
    rng = np.random.default_rng(1)
    bins = rng.integers(0, 4, size=300)
    y = (rng.random(300) < 0.5).astype(float)
    lab = rng.random(300) < 0.6
    pool_bins = rng.integers(0, 4, size=1000)
    yhat, pm = ap.predictions(bins, y, lab, pool_bins, 4)
    for cut in (20, 40, 80, 160):
        y2 = y.copy()
        y2[cut:] = 1 - y2[cut:]
        yhat2, pm2 = ap.predictions(bins, y2, lab, pool_bins, 4)
        assert np.array_equal(yhat[:cut], yhat2[:cut]) and np.array_equal(pm[:cut], pm2[:cut])
    # and the refits that see the flipped labels do change it
    flipped = ap.predictions(bins, 1 - y, lab, pool_bins, 4)[0]
    assert not np.array_equal(yhat[160:], flipped[160:])
    # the binned fit of fit_binned: bin means shrunk to the overall mean
    model = ap.fit_binned(np.array([0.5]), np.array([0.1, 0.2, 0.9, 0.9]),
                              np.array([0.0, 0.0, 1.0, 1.0]), prior_weight=1.0)  # fmt: skip
    m0 = (2 + 0.5) / 5
    assert model.mean[0] == pytest.approx((0 + m0) / 3)
    assert model.predict(np.array([np.nan]))[0] == pytest.approx(m0)  # no score: last bin


def _coverage(run, level=0.95):
    hits = [active.fixed_n(z, n, level) for z, n in zip(run.z, run.labels, strict=True)]
    est = np.array([h.estimate for h in hits])
    cover = np.mean([h.low <= run.truth <= h.high for h in hits])
    return float(cover), est


@pytest.fixture(scope="module")
def pool():
    return make_pool(np.random.default_rng(20261123), 4000, [0.0, 0.3, 0.5], r=0.5)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["binned", "wrong"])
@pytest.mark.parametrize("systems", [(0,), (0, 1)], ids=["mean", "paired"])
@pytest.mark.parametrize("labels", [50, 200])
def test_fixed_n_coverage(pool, model, systems, labels):
    """2,000 replications, τ = 0.3, half the visited items labelled: the active interval
    covers μ (or Δ) 94–96 % of the time from n = 50 labels, even with a wrong model."""
    rng = np.random.default_rng([len(model), len(systems), labels])  # fixed, per case
    run = simulate_active(rng, pool.f, pool.g, systems, reps=2000, visits=2 * labels,
                          rate=0.5, tau=TAU, model=model)  # fmt: skip
    cover, est = _coverage(run)
    assert abs(run.labels.mean() - labels) < 0.05 * labels
    assert 0.94 <= cover <= 0.96, f"coverage {cover:.3f} ({model}, {systems}, n={labels})"
    se = est.std() / math.sqrt(est.size)
    assert abs(est.mean() - run.truth) < 4 * se, "biased"


def test_wrong_model_costs_at_most_one_over_tau(pool):
    """Same number of labels: the wrong model's variance is ≥ uniform's (it really is wrong)
    and ≤ 1/τ × uniform's (the mixing floor); the useful model is not worse than uniform
    beyond Monte-Carlo noise. Variances over 3,000 replications at n = 200 labels."""
    rng = np.random.default_rng(7)
    var = {}
    for name, rate, model in (("uniform", 1.0, "binned"), ("binned", 0.5, "binned"),
                              ("wrong", 0.5, "wrong")):  # fmt: skip
        visits = 200 if rate == 1.0 else 400
        run = simulate_active(rng, pool.f, pool.g, (0, 1), reps=3000, visits=visits,
                              rate=rate, tau=TAU, model=model)  # fmt: skip
        var[name] = run.z.mean(axis=1).var() * run.labels.mean() / 200
    ratio_wrong = var["wrong"] / var["uniform"]
    assert 1.0 < ratio_wrong <= 1 / TAU, ratio_wrong
    assert var["binned"] / var["uniform"] < 1.1, var


@pytest.mark.parametrize("model", ["binned", "wrong"])
@pytest.mark.parametrize("systems", [(0,), (0, 1)], ids=["mean", "paired"])
def test_anytime_ever_miss_500_streams_of_2000_labels(model, systems):
    """statistics.md §4/§9: the AsympCS on the active increments, monitored from t = 30 over
    4,000 visits (≈ 2,000 labels) of 500 streams, ever misses the truth ≤ 5 % of the time."""
    rng = np.random.default_rng(11 + len(systems))
    big = make_pool(rng, 8000, [0.0, 0.3], r=0.5)
    run = simulate_active(rng, big.f, big.g, systems, reps=500, visits=4000, rate=0.5,
                          tau=TAU, model=model, round_size=100)  # fmt: skip
    assert abs(run.labels.mean() - 2000) < 100
    prior = 0.25 if len(systems) == 1 else 1.0
    cs = csq.asymptotic_cs(run.z, 0.05, t_star=big.f.shape[1], running_intersection=True,
                           var_prior=prior)  # fmt: skip
    miss = float(cs.ever_misses(run.truth).mean())
    assert miss <= 0.05, f"P(ever miss) {miss:.3f}"


def test_design_summary_estimates_both_variances(pool):
    """The dashboard's saving: per stream, s_z²/T estimates the active variance, and the
    Horvitz–Thompson residual moments the variance of uniform sampling of the same number
    of labels with the same ŷ (each on average within 10 % of the Monte-Carlo variance of
    2,000 replications); the ESS equals n for equal π and is below n for unequal π."""
    rng = np.random.default_rng(5)
    run = simulate_active(rng, pool.f, pool.g, (0, 1), reps=2000, visits=600, rate=0.5,
                          tau=TAU, model="wrong")  # fmt: skip
    n = round(run.labels.mean())
    uni = simulate_active(rng, pool.f, pool.g, (0, 1), reps=2000, visits=n, rate=1.0)
    summaries = [
        active.design_summary(run.y[r], run.labelled[r], run.pi[r], run.yhat[r], run.pool_mean[r])
        for r in range(run.z.shape[0])
    ]
    var_active = np.mean([s.var_active for s in summaries])
    var_uniform = np.mean([s.var_uniform * s.labels / n for s in summaries])
    assert var_active == pytest.approx(run.z.mean(axis=1).var(), rel=0.1)
    assert var_uniform == pytest.approx(uni.z.mean(axis=1).var(), rel=0.1)
    saving = np.median([s.saving for s in summaries])
    assert saving < 0, "the wrong model must show as a loss"
    assert all(s.ess < s.labels for s in summaries)
    equal = active.design_summary(np.ones(50), np.ones(50, bool), np.full(50, 0.5),
                                  np.zeros(50), np.zeros(50))  # fmt: skip
    assert equal.ess == pytest.approx(50) and equal.labels == 50 and equal.visits == 50


def test_replay_of_a_real_pair_under_both_designs():
    """WMT21 TED en-de, Facebook-AI vs Nemo (binary no-Major label, sentence chrF): the
    recorded labels replayed 1,000 times under uniform (100 labels) and active labelling
    (200 visits, b = 0.5): both intervals cover the whole-pool difference ≥ 94 % of the time
    (the with-replacement variance is conservative for a 529-item pool) and are unbiased."""
    import pandas as pd
    import sacrebleu

    from tests.conftest import shared_file

    df = pd.read_csv(shared_file("wmt21-ted-mqm/wmt21_ted_ende.csv"))
    wide = {}
    for name in ("Facebook-AI", "Nemo"):
        rows = df[df["system"] == name].sort_values("item_id")
        pairs = zip(rows["output"].fillna(""), rows["reference"], strict=True)
        chrf = [sacrebleu.sentence_chrf(o, [r]).score for o, r in pairs]
        wide[name] = (rows["human_label_binary"].to_numpy(float), np.array(chrf))
    y = np.stack([wide["Facebook-AI"][0], wide["Nemo"][0]])
    g = np.stack([wide["Facebook-AI"][1], wide["Nemo"][1]])
    for rate, visits in ((1.0, 100), (0.5, 200)):
        run = simulate_active(np.random.default_rng(4), y, g, (0, 1), reps=1000, visits=visits,
                              rate=rate, tau=TAU, labels=y)  # fmt: skip
        assert run.truth == pytest.approx(y[0].mean() - y[1].mean())
        cover, est = _coverage(run)
        assert cover >= 0.94, (rate, cover)
        assert abs(est.mean() - run.truth) < 4 * est.std() / math.sqrt(est.size), rate


def test_visit_stream_drops_skips_and_items_outside_the_pool():
    """A drawn visit whose label is missing (skipped) is dropped, as the uniform queue drops
    a skipped item; items outside the stream's pool (no output) are not visits of it; an
    undrawn visit adds mean_pool(ŷ) only; the frontier cut keeps earlier positions."""
    visits = active.Visits(
        item=np.array([3, 0, 2, 1, 4]),
        pi=np.array([1.0, 0.5, 0.5, 0.25, 0.5]),
        drawn=np.array([True, True, False, True, True]),
        position=np.array([0.0, 2.0, 4.0, 6.0, 8.0]),
    )
    y = np.array([1.0, np.nan, 0.0, 0.0, 1.0])  # item 1 was drawn but skipped
    pool = np.array([True, True, True, True, False])  # no output for item 4
    stream = active.visit_stream(visits, [y], [None], pool, prior_mean=0.5)
    # visits kept: item 3 (Y 0, π 1), item 0 (Y 1, π .5), item 2 (not drawn); ŷ = 0.5
    assert np.allclose(stream.z, [0.5 + (0 - 0.5) / 1.0, 0.5 + (1 - 0.5) / 0.5, 0.5])
    assert stream.n_labels == 2 and stream.summary.visits == 3
    # a pair needs both labels of a drawn item
    y_b = np.array([np.nan, 1.0, 1.0, 1.0, 1.0])
    pair = active.visit_stream(visits, [y, y_b], [None, None], pool)
    # item 3 (D = 0 − 1) and the undrawn item 2 stay; items 0 and 1 lack a label
    assert pair.n_labels == 1 and np.allclose(pair.z, [-1.0, 0.0])
    cut = visits.before(4.0)
    assert list(cut.item) == [3, 0] and not visits.before(0.0).item.size
