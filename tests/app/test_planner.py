"""Planner page (AppTest): inputs by hand or from a campaign; numbers only from estimators."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from annotation.results.calibration import calibration_export
from estimators.planning.labels_needed import (
    PlannedMetric,
    human_labels_needed,
    measurable_difference,
)
from estimators.planning.tables import calibration_rates
from tests.app.conftest import admin_page
from tests.test_reads import SIG, seed_campaign

PAGE = "views/pages/planner.py"


def _input(at: AppTest, label: str):  # type: ignore[no-untyped-def]
    return next(w for w in at.number_input if w.label == label).value


def _metric(at: AppTest, label: str) -> str:
    return next(m for m in at.metric if m.label == label).value


def _set(at: AppTest, **values: float) -> AppTest:
    """Set number inputs by label (``n_human=…`` etc. map to the page's labels) and rerun."""
    labels = {"n_human": "Human labels per system", "n_metric": "Metric labels per system",
              "alpha": "Adequacy rate (share judged adequate)", "rho": "ρ (TPR)", "eta": "η (TNR)",
              "target": "Target difference"}  # fmt: skip
    for name, value in values.items():
        next(w for w in at.number_input if w.label == labels.get(name, name)).set_value(value)
    at.run()
    assert not at.exception, at.exception
    return at


def _text(at: AppTest) -> str:
    return "\n".join(e.value for kind in ("caption", "warning") for e in getattr(at, kind))


def _page(campaign: str | None = None) -> AppTest:
    return admin_page(PAGE, campaign)


def test_inputs_taken_from_a_labelled_campaign(app_engine) -> None:
    seed_campaign(app_engine, "demo", n_items=80, labelled=60, overlap=0)
    at = _page("demo")
    assert at.title[0].value == "Planner"
    assert _input(at, "Human labels per system") == 200  # hand-entered defaults
    at.radio(key="plan-source").set_value("Take them from a campaign").run()
    assert not at.exception, at.exception
    assert _input(at, "Human labels per system") == 60
    assert _input(at, "Metric labels per system") == 20
    o = calibration_export(app_engine, "demo", SIG, record=False).calibration.overall
    assert at.toggle[0].value is False  # uncertain ρ, η from the counts
    assert [_input(at, k) for k in ("TP", "FN", "TN", "FP")] == [o.tp, o.fn, o.tn, o.fp]
    assert "ρ, η from chrf at threshold 50" in "\n".join(c.value for c in at.caption)


def test_campaign_without_scores_says_what_to_enter(app_engine) -> None:
    seed_campaign(app_engine, "bare", n_items=10, labelled=10, overlap=0, scores=False)
    at = _page("bare")
    at.radio(key="plan-source").set_value("Take them from a campaign").run()
    assert "no metric scores yet" in "\n".join(c.value for c in at.caption)
    assert at.toggle[0].value is True


def test_figure_1_value_by_hand(app_engine) -> None:
    """von Däniken et al. (2022) Figure 1: α = 0.6, accuracy 0.85, 10,000 ratings → 0.0196."""
    at = _set(_page(), n_human=0, n_metric=10_000, rho=0.85, eta=0.85, alpha=0.6)
    assert _metric(at, "Measurable difference") == "0.0196"
    assert float(_metric(at, "80%-power difference")) == pytest.approx(1.43 * 0.0196, abs=3e-4)
    assert "told apart" in _text(at)


def test_grid_and_curves_render_with_downloads(app_engine) -> None:
    at = _page()
    assert not at.warning
    grid = at.dataframe[0].value
    assert grid.shape == (6, 5)  # humans 0…1000 × metric 0…50,000
    assert list(grid.columns)[-1] == "50,000 metric"
    assert grid.iloc[0, 0] == 1.0  # no labels at all
    assert grid.iloc[3, 1] == pytest.approx(float(_metric(at, "Measurable difference")),
                                            abs=1e-4)  # 200 humans, 1,000 metric  # fmt: skip
    charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    assert len(charts) == 2  # heatmap, curves
    assert [b.proto.label for b in at.get("download_button")] == ["Grid (CSV)", "Curves (CSV)"]


def test_solver_answers(app_engine) -> None:
    at = _set(_page(), n_human=0, n_metric=10_000, rho=0.85, eta=0.85, target=0.02)
    assert _metric(at, "Minimum metric accuracy (ρ = η)") == "0.843"  # statistics.md §1.5
    assert _metric(at, "Human labels per system needed") == "0"  # ε = 0.0196 ≤ 0.02 already
    assert "metric labels alone reach the target" in _text(at)
    at = _set(at, rho=0.8, eta=0.8)
    needed = int(_metric(at, "Human labels per system needed").replace(",", ""))
    assert needed == human_labels_needed(0.02, 10_000, PlannedMetric(0.8, 0.8), 0.6) > 0
    at.toggle(key="plan-target-power").set_value(True).run()
    assert not at.exception, at.exception
    more = int(_metric(at, "Human labels per system needed").replace(",", ""))
    assert more > needed
    assert float(_metric(at, "Minimum metric accuracy (ρ = η)")) > 0.843


def test_unreachable_target_says_so(app_engine) -> None:
    at = _set(_page(), n_human=0, n_metric=1_000, target=0.01)
    assert _metric(at, "Minimum metric accuracy (ρ = η)") == "unreachable"
    assert "even a perfect metric gives 0.04" in _text(at)
    at = _set(at, target=0.0001)
    assert _metric(at, "Human labels per system needed") == "unreachable"
    assert "Not reachable with up to 10,000,000 human labels" in _text(at)


def test_numbers_from_a_campaign_use_its_calibration(app_engine) -> None:
    seed_campaign(app_engine, "demo", n_items=80, labelled=60, overlap=0)
    at = _page("demo")
    at.radio(key="plan-source").set_value("Take them from a campaign").run()
    assert not at.exception, at.exception
    tp, fn, tn, fp = (_input(at, k) for k in ("TP", "FN", "TN", "FP"))
    rho, eta, n_cal = calibration_rates(tp, fn, tn, fp)
    metric = PlannedMetric(rho, eta, n_cal)
    adequacy = _input(at, "Adequacy rate (share judged adequate)")
    want = measurable_difference(60, 20, metric, adequacy)
    assert _metric(at, "Measurable difference") == f"{want:.4f}"
    assert f"from {n_cal:,} calibration items" in _text(at)
    assert len(at.dataframe) == 1


def test_empty_calibration_class_stops_with_a_reason(app_engine) -> None:
    at = _page()
    at.toggle[0].set_value(False).run()
    at = _set(at, TP=0, FN=0)
    assert "ρ is undefined" in at.warning[0].value
    assert not at.dataframe
