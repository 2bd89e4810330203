"""Dashboard (AppTest): an ESA campaign is analysed on its ESA score by default, on the 0–1
scale it says it shows, and per-annotator z-scores are one toggle away."""

from __future__ import annotations

from tests.annotation.judging.test_span_judgments_esa import _esa_campaign
from tests.views.conftest import admin_page


def _captions(at) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(str(c.value) for c in at.caption)


def test_esa_campaign_dashboard_defaults_to_the_esa_score_and_offers_zscores(app_engine) -> None:  # type: ignore[no-untyped-def]
    _esa_campaign(app_engine)
    at = admin_page("views/pages/dashboard.py", "c")
    picker = at.selectbox(key="dash-kind")
    assert picker.value == "esa"
    assert "ESA score is analysed and shown ÷ 100" in _captions(at)
    table = at.dataframe[0].value
    assert table["Human only"].iloc[0].startswith("0.705 [")  # sys0: mean ESA 70.5 ÷ 100
    # no design in the plan: the ESA score gets the graded scores' default, and its promise
    assert [m.value for m in at.metric if m.label == "Design"] == ["asympcs_mix"]
    assert "(the default for this judgment kind)" in _captions(at)
    assert "valid as the number of labels grows, like the t-test (asymptotic)" in _captions(at)
    at.toggle(key="dash-z").set_value(True).run()
    assert not at.exception, at.exception
    assert "the per-annotator z-scores of the ESA score" in _captions(at)
    # z has no known range: the design in force is asympcs, and the page says so, not
    # the plan's betting design nor "human score (as imported …)"
    assert "as imported" not in _captions(at)
    assert "(the plan's is betting; see the note above)" in _captions(at)
    assert [m.value for m in at.metric if m.label == "Design"] == ["asympcs"]
    assert not at.dataframe[0].value["Human only"].iloc[0].startswith("0.705")
    picker.set_value("label").run()
    assert not at.exception, at.exception
    assert "dash-z" not in [t.key for t in at.get("toggle")]  # no z-scores of a 0/1 label
