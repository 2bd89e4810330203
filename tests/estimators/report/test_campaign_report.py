"""estimators.report.campaign_report: every column equals the estimator it names; paths match
the monitor."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from estimators.base.result import Unavailable
from estimators.data.campaign import CampaignData, Judgments, MetricInfo, binarise
from estimators.fixed_n import control_variates as cv
from estimators.fixed_n import double_sampling as ds
from estimators.fixed_n import human
from estimators.fixed_n import vondaniken as vd
from estimators.judgments.agreement import agreement_note
from estimators.live.monitor import CampaignMonitor
from estimators.report.campaign_report import campaign_report, default_signatures
from estimators.report.live import width_paths
from tests.support.simulation import make_pool

SIG = "chrf|test"


def fake_campaign(
    n_items: int = 300,
    deltas=(0.9, 0.0, -0.9),
    labelled: int = 150,
    seed: int = 3,
    *,
    repeats: int = 0,
    threshold: float | None = 0.0,
    unequal_pi: bool = False,
    census: bool = False,
    provided: list | None = None,
) -> tuple[CampaignData, object]:
    rng = np.random.default_rng(seed)
    pool = make_pool(rng, n_items, list(deltas), r=0.8)
    k = len(deltas)
    labelled = n_items if census else labelled
    items = rng.permutation(n_items)[:labelled]
    rows = [(j, s) for j in items for s in rng.permutation(k)]
    rows += [(j, s) for j in items[:repeats] for s in range(k)]  # second judgments
    item = np.array([r[0] for r in rows])
    system = np.array([r[1] for r in rows])
    label = (rng.random(len(rows)) < pool.f[system, item]).astype(float)
    n = len(rows)
    pi = np.full(n, labelled / n_items)
    if unequal_pi:
        pi[0] = 0.9
    nan = np.full(n, np.nan)
    j = Judgments(
        annotation_id=np.arange(1, n + 1), item=item, system=system,
        annotator=np.arange(n) % 2 if not repeats else np.r_[np.zeros(n - repeats * k, int),
                                                             np.ones(repeats * k, int)],
        label=label, score=nan, hter=nan, seconds=np.full(n, 5.0),
        position=np.arange(n, dtype=float), inclusion_prob=pi,
        created_at=np.zeros(n, dtype="datetime64[us]"),
    )  # fmt: skip
    data = CampaignData(
        campaign_id=1, name="sim", mode="binary",
        systems=[f"S{s}" for s in range(k)], is_human=np.zeros(k, bool),
        item_ids=[f"i{x}" for x in range(n_items)],
        output_ids=np.arange(k * n_items).reshape(k, n_items) + 1,
        metrics=[MetricInfo(SIG, "chrf", k * n_items, threshold, True, "youden")],
        scores={SIG: pool.g.copy()}, judgments=j, annotators=["a", "b"],
        provided_calibration=provided or [],
    )  # fmt: skip
    return data, pool


def _system_arrays(data: CampaignData, s: int):
    j = data.judgments
    seen, y, items = set(), [], []
    for i in range(len(j)):
        if j.system[i] == s and j.item[i] not in seen:
            seen.add(int(j.item[i]))
            items.append(int(j.item[i]))
            y.append(j.label[i])
    lab = np.zeros(data.n_items, bool)
    lab[items] = True
    yy = np.full(data.n_items, np.nan)
    yy[items] = y
    return yy[lab], lab


def test_columns_equal_the_estimators_they_name() -> None:
    data, _ = fake_campaign()
    rep = campaign_report(data, signatures=[SIG])
    assert rep.methods == ["human", "vd_mixed", "vd_double", "ppi", "anytime"]
    g = data.scores[SIG]
    for s, name in enumerate(data.systems):
        y, lab = _system_arrays(data, s)
        m_all = binarise(g[s], 0.0, True)
        expect = {
            "human": human.binary_beta(y.sum(), y.size),
            "vd_mixed": vd.per_system_posterior(y, m_all[lab], m_all[~lab]),
            "vd_double": ds.per_system(y, m_all[lab].astype(float), m_all.astype(float)),
            "ppi": cv.ppi_mean(y, g[s, lab][:, None], g[s, ~lab][:, None]),
        }
        for method, res in expect.items():
            got = rep.estimates[(name, method)]
            assert got.estimate == pytest.approx(res.estimate, abs=1e-12), (name, method)
            assert got.ci == pytest.approx(res.ci, abs=1e-12)
            assert (got.n_human, got.n_metric) == (res.n_human, res.n_metric)
    assert rep.method_metrics["ppi"] == "chrf"
    assert rep.method_metrics["vd_mixed"] == "chrf ≥ 0"


def test_pairs_ranks_and_width_paths_match_the_monitor() -> None:
    data, _ = fake_campaign()
    rep = campaign_report(data, signatures=[SIG])
    j = data.judgments
    plan = data.live_plan  # the defaults: betting design, test-set estimand
    mon = CampaignMonitor([data.scores[SIG][s] for s in range(3)], j.item, j.system, j.label,
                          j.position, j.inclusion_prob, names=data.systems,
                          design=plan.design, finite_pool=plan.finite_pool)  # fmt: skip
    direct = mon.report()
    assert rep.pair_rows() == direct.rows()
    # strong gaps (δ = ±0.9) with 150 labels are decided; S0 is best
    assert rep.monitor.pairs[1].verdict == "A better"
    assert str(rep.monitor.systems[0].rank) == "1"
    last = {}
    for row in rep.widths:
        last[row["pair"]] = row
    for p in direct.pairs:
        row = last[f"{p.a} – {p.b}"]
        assert row["t"] == p.result.n_human
        assert row["low"] == pytest.approx(p.result.low, abs=1e-12)
        assert row["high"] == pytest.approx(p.result.high, abs=1e-12)
    widths = [r["width"] for r in rep.widths if r["pair"] == "S0 – S1"]
    assert widths[0] > widths[-1] and len(widths) <= 61
    assert width_paths(mon, points=5)[-1]["t"] == 150


def test_census_says_why_control_variates_cannot_help() -> None:
    data, _ = fake_campaign(n_items=120, census=True)
    rep = campaign_report(data, signatures=[SIG])
    assert "ppi" not in rep.methods
    assert "census" in rep.unavailable["ppi"]
    eff = rep.efficiency[0]
    assert eff.de_measured is None and eff.de_limit > 1 and eff.n_unlabelled == 0


def test_no_metrics_no_threshold_and_no_labels_are_explained() -> None:
    data, _ = fake_campaign(threshold=None)
    rep = campaign_report(data, signatures=[SIG])
    assert rep.unavailable["vd_mixed"] == Unavailable.NO_THRESHOLD  # worded by the dashboard
    assert "ppi" in rep.methods
    rep = campaign_report(data, signatures=[])
    assert rep.methods == ["human", "anytime"]
    assert rep.method_metrics["anytime"].startswith("none (")  # human only, or no control
    empty = CampaignData(**{**data.__dict__, "judgments": Judgments.empty()})
    rep = campaign_report(empty, signatures=[SIG])
    assert rep.n_judgments == 0 and rep.monitor is None and rep.notes == ["No human judgments yet."]


def test_unequal_inclusion_probabilities_refuse_verdicts_not_the_page() -> None:
    data, _ = fake_campaign(unequal_pi=True)
    rep = campaign_report(data, signatures=[SIG])
    assert rep.monitor is None
    assert rep.unavailable["anytime"] == Unavailable.MONITOR_REFUSED
    assert any("unequal inclusion probabilities" in note for note in rep.notes)
    assert "human" in rep.methods  # fixed-n estimates still shown


def test_provided_calibration_set_is_a_prior_not_a_verdict() -> None:
    cal = {"name": "wmt-chrf", "signature": SIG, "threshold": 0.0, "higher_is_better": True,
           "counts": (80, 20, 30, 10), "id": 1}  # fmt: skip
    data, _ = fake_campaign(provided=[cal])
    rep = campaign_report(data, signatures=[SIG])
    y, lab = _system_arrays(data, 0)
    m_u = binarise(data.scores[SIG][0][~lab], 0.0, True)
    ratings = vd.Ratings(y.sum(), y.size, m_u.sum(), m_u.size)
    res = vd.mixed(ratings, vd.MetricAccuracy(calibration=(80, 20, 30, 10)))
    got = rep.estimates[("S0", "vd_provided")]
    assert got.estimate == pytest.approx(res.estimate) and not got.valid_for_verdict
    assert rep.method_metrics["vd_provided"].startswith("wmt-chrf")


def test_krippendorff_alpha_on_repeated_outputs() -> None:
    data, _ = fake_campaign(repeats=40)
    rep = campaign_report(data, signatures=[SIG])
    j = data.judgments
    units = {}
    for i in range(len(j)):
        units.setdefault((int(j.system[i]), int(j.item[i])), {})[int(j.annotator[i])] = j.label[i]
    multi = [u for u in units.values() if len(u) >= 2]
    matrix = np.array([[u.get(a, np.nan) for u in multi] for a in (0, 1)])
    expect = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert rep.agreement.n_units == 120 == len(multi)
    assert rep.agreement.alpha == pytest.approx(expect)
    assert any("repeat label" in note for note in rep.notes)
    no_overlap = campaign_report(fake_campaign()[0], signatures=[SIG])
    assert no_overlap.agreement.alpha is None
    assert "set an overlap share" in agreement_note(no_overlap.agreement, 0.0)


def test_default_signature() -> None:
    data, _ = fake_campaign()
    assert default_signatures(data) == [SIG]
