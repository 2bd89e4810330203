"""The ``betting_cv`` design (the betting capital with a metric control) on the monitor's
route: carried label by label it agrees with the full recomputation at EVERY read to 1e-12
(binary and continuous labels, test-set and superpopulation estimands, Holm and e-BH), and
without metric scores it is the betting design."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.caches.monitor import MonitorCache
from estimators.live.monitor import CampaignMonitor
from estimators.sequences import betting_control as bc
from estimators.sequences import sequential as seq
from estimators.sequences.betting_control_carry import CarriedControl
from tests.estimators.caches.test_monitor import _same
from tests.estimators.live.test_carry import _labels, _queue


def _campaign(k, n, seed, continuous):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    y = _labels(k, n, rng, continuous)
    metrics = [y[s] + 0.4 * rng.standard_normal(n) for s in range(k)]  # ρ ≈ 0.6
    metrics[0][3] = np.nan  # a missing score: imputed, weight 0
    items, sys_ = _queue(k, n, rng, paired=True)
    return y, metrics, items, sys_


@pytest.mark.parametrize(
    "case",
    [
        dict(finite_pool=True, error_rate="holm"),
        dict(finite_pool=False, error_rate="ebh", continuous=True),
        dict(k=2, n=90, finite_pool=True, error_rate="holm", t_star=50, continuous=True),
    ],
    ids=["wor-holm", "iid-cont-ebh", "long-wor-cont"],
)
@pytest.mark.slow
def test_every_read_agrees_with_the_full_recomputation(case):
    case = dict(case)
    k, n, continuous = case.pop("k", 3), case.pop("n", 16), case.pop("continuous", False)
    y, metrics, items, sys_ = _campaign(k, n, len(str(case)), continuous)
    common = dict(present=np.ones((k, n), dtype=bool), design="betting_cv", **case)
    cache = MonitorCache()
    for t in range(1, items.size + 1):
        idx = np.arange(t)
        args = (metrics, items[idx], sys_[idx], y[sys_[idx], items[idx]], idx.astype(float),
                np.ones(t))  # fmt: skip
        full_mon, carried_mon = (
            CampaignMonitor(*args, **common),
            CampaignMonitor(*args, cache=cache, **common),
        )
        fresh = full_mon.report()
        _same(carried_mon.report(), fresh)
        for a in range(k):
            for b in range(a + 1, k):
                _same(carried_mon.pair_sequence(a, b), full_mon.pair_sequence(a, b))
    assert fresh.pairs[0].result.method.startswith("betting_cv")
    assert cache.rebuilt == k + k * (k - 1) // 2  # built once, then only extended


def test_the_carried_state_matches_the_whole_path_label_by_label():
    rng = np.random.default_rng(7)
    z = rng.random(70) - (rng.random(70) < 0.5)
    g_pool = np.concatenate([z + 0.5 * rng.standard_normal(70), rng.standard_normal(30)])
    g_items = g_pool[:70]
    ctrl = bc.ControlPool.of(g_pool)
    for pool, running in ((None, True), (100, False)):
        state = CarriedControl.begin(
            alpha=0.004, tuning=(0.01, 50, pool, seq.BURN_IN), theta0_01=0.5, running=running,
            ctrl=ctrl,
        )  # fmt: skip
        x01 = (z + 1) / 2
        for t in range(1, 71):
            state = state.extended_with(x01[t - 1 : t], ctrl.scaled(g_items[t - 1 : t]))
            cs = bc.controlled_cs(
                z[:t], g_items[:t], g_pool, 0.004, bounds=(-1, 1), t_star=50,
                alpha_tuning=0.01, running=running, pool_size=pool, burn_in=seq.BURN_IN,
            )  # fmt: skip
            c, lo, hi = state.interval01()
            assert (c * 2 - 1, lo * 2 - 1, hi * 2 - 1) == pytest.approx(
                (cs.center[-1], cs.lower[-1], cs.upper[-1]), abs=1e-12
            )
            p = bc.pvalue_path(z[:t], g_items[:t], g_pool, 0.0, bounds=(-1, 1),
                               alpha_tuning=0.01, t_star=50, pool_size=pool,
                               burn_in=seq.BURN_IN)  # fmt: skip
            assert state.p_value() == pytest.approx(p[-1], abs=1e-12)


def test_without_metric_scores_it_is_the_betting_design():
    k, n = 3, 30
    y, _, items, sys_ = _campaign(k, n, 3, False)
    args = ([None] * k, items, sys_, y[sys_, items], np.arange(items.size, dtype=float),
            np.ones(items.size))  # fmt: skip
    kw = dict(finite_pool=True, present=np.ones((k, n), bool))
    reps = [CampaignMonitor(*args, design=d, **kw).report() for d in ("betting", "betting_cv")]
    for a, b in zip(reps[0].pairs, reps[1].pairs, strict=True):
        assert (a.p_value, a.result.ci, a.e_value) == (b.p_value, b.result.ci, b.e_value)


def test_the_report_names_the_control_the_live_verdicts_use():
    """The dashboard's and CLI's "controls used" of the live column: none under the default
    betting design, the first metric under betting_cv."""
    from dataclasses import replace

    from estimators.data.campaign import CampaignData
    from estimators.report.campaign_report import campaign_report
    from estimators.sequences.designs import LiveDesign
    from tests.estimators.report.test_campaign_report import SIG, fake_campaign

    data, _ = fake_campaign()
    rep = campaign_report(data, signatures=[SIG])
    assert rep.monitor.design == "betting"
    assert rep.method_metrics["anytime"] == "none (the betting design uses no metric control)"
    plan = replace(data.live_plan, design=LiveDesign.BETTING_CV, design_set=True)
    cv = CampaignData(**{**data.__dict__, "live_plan": plan})
    rep = campaign_report(cv, signatures=[SIG])
    assert rep.monitor.design == "betting_cv"
    assert rep.method_metrics["anytime"].endswith("(first metric; half the betting capital)")
    assert rep.monitor.pairs[0].result.method.startswith("betting_cv")
