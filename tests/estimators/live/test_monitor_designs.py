"""The monitor under each live design (issue 11 and 17.4): the plan tunes it, intervals stay
in the label range, the group-sequential verdict moves only at its looks and stops at the
planned maximum, the pool's end concludes, and the labels-needed figure says what it is."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.live.monitor import CampaignMonitor
from estimators.sequences import group_sequential as gsd
from estimators.sequences.designs import LiveDesign
from tests.estimators.live.test_monitor import campaign


def monitor(design, n_labels=600, deltas=(0.4, 0.0), **kw):  # type: ignore[no-untyped-def]
    pool, items, systems, y, pos, incl = campaign(
        seed=4, deltas=deltas, n_items=500, n_labels=n_labels
    )
    return CampaignMonitor(
        list(pool.g), items, systems, y, pos, incl, design=design, finite_pool=True, **kw
    )


@pytest.mark.parametrize("design", list(LiveDesign))
def test_every_design_reports_clipped_intervals_and_records_its_tuning(design):
    rep = monitor(design, t_star=200).report()
    assert rep.design == design and rep.planned_labels == 200 and rep.finite_pool
    for s in rep.systems:
        assert 0.0 <= s.result.low <= s.result.high <= 1.0
        assert s.result.diagnostics["design"] == design
    (pair,) = rep.pairs
    assert -1.0 <= pair.result.low <= pair.result.high <= 1.0
    assert pair.result.diagnostics["t_star"] == 200
    assert pair.result.diagnostics["estimand"] == "test set"
    assert pair.needed_basis in ("decided", "forecast")
    row = rep.rows()[0]
    assert (row["design"], row["t_star"], row["estimand"]) == (design, 200, "test set")


def test_bounded_designs_need_a_label_range():
    with pytest.raises(ValueError, match="needs the known label_range"):
        monitor(LiveDesign.BETTING, label_range=None)
    with pytest.raises(ValueError, match="design must be one of"):
        monitor("peeking")


def test_group_sequential_verdict_moves_only_at_its_looks_and_stops_at_the_plan():
    looks = set(gsd.look_times(100).tolist())
    p_prev, prev_look, unchanged, spent = None, -1, 0, 0
    for n_pairs in range(30, 140, 3):
        mon = monitor(LiveDesign.GSD_OBF, n_labels=2 * n_pairs, deltas=(0.1, 0.0), t_star=100)
        (pair,) = mon.report().pairs
        n = pair.result.n_human
        last_look = max([t for t in looks if t <= min(n, 100)], default=0)
        if last_look == prev_look:
            assert pair.p_value == p_prev  # no look in between: nothing may change
            unchanged += 1
        p_prev, prev_look = pair.p_value, last_look
        if n >= 100 and not pair.decided:
            assert "within the planned 100 labels" in pair.verdict
            assert pair.labels_needed is None and pair.needed_basis == "plan spent"
            spent += 1
    assert unchanged >= 10 and spent >= 5, (unchanged, spent)


def test_below_the_floor_the_figure_is_the_floor():
    rep = monitor(LiveDesign.ASYMPCS, n_labels=2 * 12).report()
    (pair,) = rep.pairs
    assert pair.verdict == "not yet"
    assert (pair.labels_needed, pair.needed_basis) == (18, "floor")


@pytest.mark.parametrize("design", [LiveDesign.ASYMPCS, LiveDesign.GSD_OBF, LiveDesign.BETTING])
def test_the_forecast_predicts_the_designs_own_decision(design):
    """At 60 labelled items the forecast is within a factor 3 of when the design decides."""
    pool, items, systems, y, pos, incl = campaign(seed=9, deltas=(0.35, 0.0), n_items=3000,
                                                   n_labels=6000)  # fmt: skip
    kw = {"design": design, "finite_pool": True, "t_star": 1500}
    early = CampaignMonitor(list(pool.g), items[:120], systems[:120], y[:120], pos[:120],
                            incl[:120], **kw).report().pairs[0]  # fmt: skip
    assert early.needed_basis == "forecast"
    decided_at = None
    for n in range(60, 3000, 20):
        rep = CampaignMonitor(list(pool.g), items[: 2 * n], systems[: 2 * n], y[: 2 * n],
                              pos[: 2 * n], incl[: 2 * n], **kw).report()  # fmt: skip
        if rep.pairs[0].decided:
            decided_at = n
            break
    assert decided_at is not None and early.labels_needed is not None
    ratio = decided_at / (60 + early.labels_needed)
    print(f"\n{design}: forecast {60 + early.labels_needed}, decided at {decided_at}")
    assert 1 / 3 <= ratio <= 3


def test_monitor_refuses_nothing_new_for_unbounded_labels_under_asymptotic_designs():
    pool, items, systems, y, pos, incl = campaign(seed=2, deltas=(0.4, 0.0), n_items=300,
                                                   n_labels=400)  # fmt: skip
    scores = y * 7.0 - 2.0  # an imported score with no known range
    for design in (LiveDesign.ASYMPCS, LiveDesign.GSD_OBF):
        rep = CampaignMonitor(list(pool.g), items, systems, scores, pos, incl, design=design,
                              label_range=None).report()  # fmt: skip
        assert np.isfinite(rep.pairs[0].result.estimate)


@pytest.mark.parametrize("probs", [(0.2, 0.5, 0.3), (0.1, 0.8, 0.1), (0.0, 0.5, 0.5)])
def test_betting_interval_is_never_narrower_than_the_exact_set(probs):
    """The reported betting interval contains the hull of the exact set (a 4,001-point
    grid) and is at most a fine grid step wider; its p-value at 0 agrees with it."""
    from estimators.sequences import betting

    z = np.random.default_rng(7).choice([-1.0, 0.0, 1.0], 529, p=probs)
    level = 0.05 / 78
    cs = betting.betting_cs(z, level, bounds=(-1, 1), t_star=529)
    exact = betting.betting_cs(z, level, bounds=(-1, 1), t_star=529, grid=4001, refine=2)
    # the reference is itself widened by one of its own steps (2/4000 on the D scale)
    ref_step = 2 / 4000
    assert cs.lower[-1] - ref_step <= exact.lower[-1] <= cs.lower[-1] + 0.01
    assert cs.upper[-1] - 0.01 <= exact.upper[-1] <= cs.upper[-1] + ref_step
    p = betting.betting_pvalue(z, 0.0, bounds=(-1, 1), alpha_tuning=level, t_star=529)
    assert (p[-1] <= level) == (not exact.lower[-1] <= 0.0 <= exact.upper[-1])


def test_judgments_without_a_range_fall_back_from_the_bounded_default():
    from dataclasses import replace

    from estimators.data.campaign import LabelKind
    from estimators.report.campaign_report import campaign_report
    from tests.estimators.report.test_campaign_report import SIG, fake_campaign

    data, _ = fake_campaign()
    j = data.judgments
    scored = replace(data, judgments=replace(j, score=j.label * 7.0 - 2.0))
    rep = campaign_report(scored, label_kind=LabelKind.SCORE, signatures=[SIG])
    assert rep.monitor is not None and rep.monitor.design == LiveDesign.ASYMPCS
    assert any("needs judgments with a known range" in n for n in rep.notes)
    assert campaign_report(data, signatures=[SIG]).monitor.design == LiveDesign.BETTING


def _score_reads(design, every=15):  # type: ignore[no-untyped-def]
    """Reads of a 4-system ESA-like campaign (300 items, scores crowding the top of [0, 1],
    two close pairs) every ``every`` items up to the census, with the dashboard's cache."""
    from estimators.caches.monitor import MonitorCache
    from tests.support.racing_replay import replay

    rng = np.random.default_rng(8)
    top = np.clip(1 - rng.exponential(0.08, 300), 0, 1)
    y = np.vstack([np.clip(top - s + 0.05 * rng.standard_normal(300), 0, 1)
                   for s in (0.0, 0.01, 0.04, 0.06)])  # fmt: skip
    order = rng.permutation(300)
    run = replay(y, order, racing=False, every=every, stop_when_settled=False, design=design,
                 finite_pool=True, t_star=100, alpha=0.05, equivalence_margin=0.05,
                 cache=MonitorCache())  # fmt: skip
    return y, run


def test_the_score_design_shows_a_side_exactly_when_holm_rejects_and_is_exact_at_census():
    """asympcs_mix through the monitor: at every read a pair is shown better exactly when
    Holm rejects it (with the 30-label floor), its interval is never wider than the last
    read's, the estimate lies in the interval shown, and the census reads the exact Δ."""
    from estimators.base.multiple import holm

    y, run = _score_reads(LiveDesign.ASYMPCS_MIX)
    last: dict[tuple[str, str], tuple[float, float]] = {}
    shown = 0
    for rep in run.reports:
        assert rep.design == LiveDesign.ASYMPCS_MIX
        p = np.array([pr.p_value for pr in rep.pairs])
        rejected = holm(p, 0.05).reject
        for pr, rej in zip(rep.pairs, rejected, strict=True):
            floor = pr.result.n_human >= 30
            assert pr.decided == bool(rej and floor), (pr.result.n_human, pr.p_value, pr.verdict)
            shown += pr.decided
            lo, hi = pr.result.ci
            assert lo <= pr.result.estimate <= hi
            if (pr.a, pr.b) in last:
                assert last[(pr.a, pr.b)][0] <= lo and hi <= last[(pr.a, pr.b)][1]
            last[(pr.a, pr.b)] = (lo, hi)
    assert shown > 0
    final = {(pr.a, pr.b): pr for pr in run.reports[-1].pairs}
    delta = y[0].mean() - y[1].mean()
    lo, hi = final[("S0", "S1")].result.ci
    assert lo == pytest.approx(delta, abs=1e-12) and hi == pytest.approx(delta, abs=1e-12)
