"""ROC points, threshold choice and ρ/η credible intervals against brute force and scipy."""

from __future__ import annotations

import altair as alt
import numpy as np
import pytest
from scipy import stats

from metrics.calibration import agreement, calibrate, choose_threshold, metric_positive, roc_curve
from metrics.charts import roc_chart


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    n = 400
    y = rng.integers(0, 2, n)
    g = np.round(rng.normal(y * 0.8, 1.0), 1)  # rounded: many ties
    systems = rng.choice(np.array(["A", "B", "C"]), n)
    return g, y, systems


def brute(
    g: np.ndarray, y: np.ndarray, higher: bool
) -> tuple[float, list[tuple[float, float, float]]]:
    points = []
    for t in np.unique(g):
        m = g >= t if higher else g <= t
        tpr = np.mean(m[y == 1])
        fpr = np.mean(m[y == 0])
        points.append((float(t), float(tpr), float(fpr)))
    j = [tpr - fpr for _, tpr, fpr in points]
    best = max(j)
    # ties → the strictest threshold (fewest positives)
    cands = [t for (t, _, _), jj in zip(points, j, strict=True) if jj == best]
    return (max(cands) if higher else min(cands)), points


@pytest.mark.parametrize("higher", [True, False])
def test_roc_and_youden_threshold_match_brute_force(data, higher: bool) -> None:  # type: ignore[no-untyped-def]
    g, y, _ = data
    if not higher:
        g = -g  # a lower-is-better metric (like TER) with the same information
    roc = roc_curve(g, y, higher_is_better=higher)
    t_best, points = brute(g, y, higher)
    got = {
        float(t): (tpr, fpr)
        for t, tpr, fpr in zip(roc.thresholds[1:], roc.tpr[1:], roc.fpr[1:], strict=True)
    }
    assert len(got) == len(points)
    for t, tpr, fpr in points:
        assert got[t] == pytest.approx((tpr, fpr))
    assert (roc.tpr[0], roc.fpr[0]) == (0.0, 0.0) and np.all(np.diff(roc.tpr) >= 0)
    assert choose_threshold(roc, "youden") == t_best
    assert choose_threshold(roc, "balanced_accuracy") == t_best  # (J + 1)/2: same argmax
    # AUC equals the Mann–Whitney probability P(g_pos > g_neg) + ½ P(tie)
    pos, neg = (g[y == 1], g[y == 0]) if higher else (-g[y == 1], -g[y == 0])
    u = stats.mannwhitneyu(pos, neg).statistic / (len(pos) * len(neg))
    assert roc.auc == pytest.approx(u)


def test_rho_eta_counts_and_beta_intervals(data) -> None:  # type: ignore[no-untyped-def]
    g, y, systems = data
    cal = calibrate(g, y, systems=systems)
    m = metric_positive(g, cal.threshold)
    o = cal.overall
    assert o.tp == np.sum(m & (y == 1)) and o.fn == np.sum(~m & (y == 1))
    assert o.tn == np.sum(~m & (y == 0)) and o.fp == np.sum(m & (y == 0))
    assert o.rho.estimate == o.tp / (o.tp + o.fn)
    assert o.eta.estimate == o.tn / (o.tn + o.fp)
    lo, hi = stats.beta.interval(0.95, o.tp + 1, o.fn + 1)
    assert (o.rho.lower, o.rho.upper) == pytest.approx((lo, hi))
    lo, hi = stats.beta.interval(0.95, o.tn + 1, o.fp + 1)
    assert (o.eta.lower, o.eta.upper) == pytest.approx((lo, hi))
    assert o.rho.posterior_mean == pytest.approx((o.tp + 1) / (o.tp + o.fn + 2))
    assert set(cal.per_system) == {"A", "B", "C"}
    for field in ("tp", "fn", "tn", "fp"):
        assert sum(getattr(a, field) for a in cal.per_system.values()) == getattr(o, field)
    a = cal.per_system["B"]
    sel = systems == "B"
    assert a == agreement(g[sel], y[sel], cal.threshold)
    assert cal.chosen_point == (1 - o.eta.estimate, o.rho.estimate)
    # A given threshold is used as is.
    assert calibrate(g, y, threshold=0.3).threshold == 0.3


def test_bad_calibration_input_is_refused() -> None:
    with pytest.raises(ValueError, match="adequate and inadequate"):
        roc_curve([0.1, 0.2], [1, 1])
    with pytest.raises(ValueError, match=r"0 .* or 1"):
        roc_curve([0.1, 0.2], [1, 2])
    with pytest.raises(ValueError, match="unknown threshold method"):
        choose_threshold(roc_curve([0.1, 0.2], [0, 1]), "f1")


def test_roc_chart_marks_the_chosen_threshold(data) -> None:  # type: ignore[no-untyped-def]
    g, y, _ = data
    cal = calibrate(g, y)
    chart = roc_chart(cal, title="chrF")
    assert isinstance(chart, alt.TopLevelMixin)
    spec = chart.to_dict()
    assert len(spec["layer"]) == 4
    text = str(spec)
    assert f"t = {cal.threshold:.4g}" in text and "AUC" in text
