"""Planner page: a plan for many systems that exceeds the pool is said, with the smallest
difference the pool can settle (AppTest; numbers from estimators.planning.pool_fit.pool_fit)."""

from __future__ import annotations

from annotation.campaign.live_plan import forecast_planned_labels
from estimators.planning.pool_fit import pool_fit
from tests.app.conftest import admin_page


def test_planner_says_the_plan_exceeds_the_pool(app_engine) -> None:
    at = admin_page("views/pages/planner.py")
    for label, value in (("Systems", 14), ("Items in the pool", 529),
                         ("Measurable difference (and margin ε)", 0.10)):  # fmt: skip
        next(w for w in at.number_input if w.label == label).set_value(value)
    at.run()
    assert not at.exception
    need = forecast_planned_labels(14, 0.10)
    fit = pool_fit(14, 529, need)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Planned labels per system for it"] == f"{need:,}"
    smallest = metrics["Smallest measurable difference this pool settles"]
    assert smallest == f"{fit.smallest_difference:.3f}"
    warnings = " ".join(str(w.value) for w in at.warning)
    assert f"{need:,} labels per system, more than the 529 items" in warnings
