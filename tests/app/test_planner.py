"""Planner page (AppTest): inputs by hand or from a campaign; numbers only from estimators."""

from __future__ import annotations

import importlib.util

import pytest
from streamlit.testing.v1 import AppTest

from annotation.exports import calibration_export
from tests.app.conftest import APP
from tests.test_reads import SIG, seed_campaign

PAGE = "pages/planner.py"
HAVE_PLANNING = importlib.util.find_spec("estimators.planning") is not None


def _input(at: AppTest, label: str):  # type: ignore[no-untyped-def]
    return next(w for w in at.number_input if w.label == label).value


def _page(campaign: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["role"] = "admin"
    if campaign:
        at.session_state["current_campaign"] = campaign
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


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


@pytest.mark.skipif(HAVE_PLANNING, reason="estimators/planning.py exists: numbers are shown")
def test_without_planning_estimators_no_numbers_are_invented(app_engine) -> None:
    at = _page()
    assert "not in this build yet" in at.warning[0].value
    assert not at.dataframe and not at.get("vega_lite_chart")
