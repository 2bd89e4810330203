"""estimators.caches.report: a report built with the carried per-part results equals the
fresh one at every read, as labels arrive, are taken back and settings change."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from estimators.caches.report import ReportCache
from estimators.data.campaign import CampaignData, Judgments, MetricInfo
from estimators.report.campaign_report import campaign_report
from tests.estimators.report.test_campaign_report import SIG, fake_campaign

CAL = {"name": "wmt-chrf", "signature": SIG, "threshold": 0.0, "higher_is_better": True,
       "counts": (80, 20, 30, 10), "id": 1}  # fmt: skip


def same(a: Any, b: Any, where: str = "report") -> None:
    """Equal field by field; floats bit for bit (NaN equals NaN)."""
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b), where
    else:
        assert a == b, (where, a, b)


def first(data: CampaignData, m: int) -> CampaignData:
    """The campaign after its first ``m`` judgments."""
    j = data.judgments
    cut = Judgments(**{
        f.name: None if getattr(j, f.name) is None else getattr(j, f.name)[:m]
        for f in dataclasses.fields(j)
    })  # fmt: skip
    return dataclasses.replace(data, judgments=cut)


@pytest.mark.slow
def test_cached_report_equals_the_fresh_one_read_after_read() -> None:
    data, _ = fake_campaign(n_items=120, labelled=60, repeats=4, provided=[CAL])
    cache = ReportCache()
    n = len(data.judgments)
    reads = [5, 30, 31, 32, 80, 79, 120, n, n]  # labels arrive, one is taken back, same read
    for m in reads:
        step = first(data, m)
        for kw in ({"signatures": [SIG]}, {"signatures": []}, {"signatures": [SIG], "level": 0.9}):
            fresh = campaign_report(step, width_points=5, **kw)
            carried = campaign_report(step, width_points=5, report_cache=cache, **kw)
            same(carried, fresh, f"read {m} {kw}")
    assert cache.hits > cache.misses  # most systems and pairs are carried over


def test_a_changed_threshold_or_score_is_not_served_from_the_cache() -> None:
    data, _ = fake_campaign(n_items=120, labelled=60, provided=[CAL])
    cache = ReportCache()
    campaign_report(data, signatures=[SIG], report_cache=cache)
    info = data.metrics[0]
    moved = dataclasses.replace(data, metrics=[dataclasses.replace(info, threshold=0.5)])
    scores = data.scores[SIG].copy()
    scores[1, :10] += 0.3  # one system's scores rescored
    rescored = dataclasses.replace(data, scores={SIG: scores})
    other = dataclasses.replace(data, metrics=[MetricInfo(SIG, "chrf", 360, None, None, None)])
    for changed in (moved, rescored, other):
        same(campaign_report(changed, signatures=[SIG], report_cache=cache),
             campaign_report(changed, signatures=[SIG]))  # fmt: skip


def test_the_cache_forgets_its_oldest_entries_beyond_its_size() -> None:
    cache = ReportCache(max_entries=10)
    for i in range(25):
        assert cache.get("part", bytes([i]), lambda i=i: i * i) == i * i
    assert len(cache) <= 10
    assert cache.get("part", bytes([24]), lambda: -1) == 576  # the newest stay
    assert cache.get("part", bytes([0]), lambda: -1) == -1  # the oldest went


def test_cached_controls_panel_equals_the_fresh_one_read_after_read() -> None:
    from estimators.fixed_n.controls import LEARNED, control_efficiency, evaluate, learned_control

    data, _ = fake_campaign(n_items=120, labelled=60, repeats=4)
    cache = ReportCache()
    n = len(data.judgments)
    learned = None
    for m in (40, 41, 120, 119, n):
        step = first(data, m)
        learned = learned_control(step, "label", previous=learned)
        same(control_efficiency(step, "label", learned, cache=cache),
             control_efficiency(step, "label", learned), f"efficiency {m}")  # fmt: skip
        for controls in ([SIG], [LEARNED], []):
            fresh = evaluate(step, "label", controls, learned=learned)
            carried = evaluate(step, "label", controls, learned=learned, cache=cache)
            same(carried, fresh, f"evaluate {m} {controls}")
    assert cache.hits > 0
