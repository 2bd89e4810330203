"""The campaign report's live column on an ESA campaign with imported metric scores: the
graded scores' default design (asympcs_mix) takes the metric as its control with the slope
pooled over pairs, says so, and its pair verdicts are the monitor's on the same grids."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.data.campaign import CampaignData, Judgments, MetricInfo
from estimators.live.monitor import CampaignMonitor
from estimators.report.campaign_report import campaign_report

SIG = "comet|test"


def _esa_data(seed: int = 4, n_items: int = 240, labelled: int = 160) -> CampaignData:
    rng = np.random.default_rng(seed)
    mu = np.array([80.0, 77.0, 72.0])
    k = mu.size
    esa = np.clip(mu[:, None] + 12 * rng.standard_normal((k, n_items)), 0, 100).round()
    metric = esa / 100 + 0.08 * rng.standard_normal((k, n_items))
    items = rng.permutation(n_items)[:labelled]
    item = np.repeat(items, k)
    system = np.tile(np.arange(k), labelled)
    n = item.size
    nan = np.full(n, np.nan)
    j = Judgments(
        annotation_id=np.arange(1, n + 1), item=item, system=system, annotator=np.zeros(n, int),
        label=nan, score=nan, hter=nan, seconds=np.full(n, 5.0),
        position=np.arange(n, dtype=float), inclusion_prob=np.full(n, labelled / n_items),
        created_at=np.zeros(n, dtype="datetime64[us]"), esa_score=esa[system, item],
    )  # fmt: skip
    return CampaignData(
        campaign_id=1, name="esa", mode="spans", systems=[f"S{s}" for s in range(k)],
        is_human=np.zeros(k, bool), item_ids=[f"i{x}" for x in range(n_items)],
        output_ids=np.arange(k * n_items).reshape(k, n_items) + 1,
        metrics=[MetricInfo(SIG, "COMET-like", k * n_items, None, True, "youden")],
        scores={SIG: metric}, judgments=j, annotators=["a"],
    )  # fmt: skip


def test_esa_campaign_with_a_metric_uses_the_pooled_control() -> None:
    data = _esa_data()
    rep = campaign_report(data, label_kind="esa", signatures=[SIG])
    assert str(rep.monitor.design) == "asympcs_mix"
    assert rep.method_metrics["anytime"] == "COMET-like (pair slope pooled over all pairs)"
    j = data.judgments
    mon = CampaignMonitor(
        [data.scores[SIG][s] for s in range(3)], j.item, j.system, j.values("esa"), j.position,
        j.inclusion_prob, names=data.systems, design="asympcs_mix", label_range=(0.0, 1.0),
        finite_pool=True,
    ).report()  # fmt: skip
    without = campaign_report(data, label_kind="esa").monitor
    for got, want, bare in zip(rep.monitor.pairs, mon.pairs, without.pairs, strict=True):
        assert got.p_value == pytest.approx(want.p_value, rel=1e-12, abs=1e-300)
        assert got.verdict == want.verdict
        lam = got.result.diagnostics["lam"]
        assert lam > 0.2  # the metric predicts the ESA score: the slope is learned
        # the control narrows every pair's interval
        assert got.result.ci[1] - got.result.ci[0] < bare.result.ci[1] - bare.result.ci[0]
