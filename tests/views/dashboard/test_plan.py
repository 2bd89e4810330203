"""Dashboard and Annotators page (AppTest): the live plan and what the verdicts estimate
(issue 11; issue 17 item 4 and the dashboard part of 10)."""

from __future__ import annotations

from annotation.campaign.live_plan import current_plan, set_plan
from db.reads.campaign import campaign_id
from estimators.sequences.designs import DEFAULT_DESIGN, DESIGN_TEXT
from tests.db.reads.test_campaign import seed_campaign
from tests.views.conftest import admin_page
from tests.views.pages.test_dashboard import _dashboard, _texts


def _warnings(at) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(str(w.value) for w in at.warning)


def test_dashboard_says_what_it_estimates_and_the_plan(app_engine) -> None:
    cid = seed_campaign(app_engine, "demo", n_items=80, labelled=60, overlap=0)
    at = _dashboard("demo")
    texts = _texts(at)
    assert "share of a system's outputs judged adequate on this campaign's own 80 items" in texts
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Planned labels per system"] == "pool size"
    assert metrics["Labels so far per system"] == "60"
    assert metrics["Design"] == DEFAULT_DESIGN
    assert DESIGN_TEXT[DEFAULT_DESIGN] in texts
    assert not at.warning
    # a plan change after labels exist: recorded, shown, not applied
    set_plan(app_engine, cid, planned_labels=40, estimand="superpopulation")
    at = _dashboard("demo")
    warnings = _warnings(at)
    assert (
        "planned labels per system was changed from each pool's size to 40 after 180 "
        "labels existed" in warnings
    )  # in words, from the default in force (not None)
    assert "planned_labels" not in warnings and "None" not in warnings
    assert "not applied" in warnings
    assert "estimand was changed from this campaign's own items" in warnings
    assert {m.label: m.value for m in at.metric}["Planned labels per system"] == "pool size"
    assert "on this campaign's own 80 items" in _texts(at)  # still the test-set estimand


def test_exhausted_pool_concludes_and_floor_is_labelled(app_engine) -> None:
    seed_campaign(app_engine, "census", n_items=40, labelled=40, overlap=0, threshold=False,
                  deltas=(0.0, 0.05, 0.1))  # fmt: skip
    at = _dashboard("census")
    # every item labelled (test-set estimand): every Δ is known exactly, so every pair is
    # settled — a winner or exactly equal — and nothing is left to label
    frames = [d.value for d in at.dataframe if "more items to label (both systems)" in d.value]
    assert not frames
    assert "Every pair is settled." in [s.value for s in at.success]
    [words] = [d.value for d in at.dataframe if "labelled items" in d.value]
    assert words["verdict"].str.contains("better|exactly equal").all()

    seed_campaign(app_engine, "tiny", n_items=40, labelled=12, overlap=0)
    at = _dashboard("tiny")
    table = at.dataframe[0].value
    assert (table["Anytime-valid (live)"] == "12 label(s); interval from 30").all()
    [needed] = [d.value for d in at.dataframe if "more items to label (both systems)" in d.value]
    assert (needed["more items to label (both systems)"] == "18 to reach the 30-label floor").all()


def test_statistics_page_sets_the_plan_from_the_measurable_difference(app_engine) -> None:
    seed_campaign(app_engine, "fresh", n_items=30, labelled=0, overlap=0, scores=False)
    cid = campaign_id(app_engine, "fresh")
    at = admin_page("views/pages/annotators.py", "fresh")  # no plan form here: a pointer
    assert not [b for b in at.button if b.label == "Save plan"]
    assert any("**Statistics** page" in c.value for c in at.caption)
    at = admin_page("views/pages/statistics_panel.py", "fresh")
    at.radio(key="stat-plan-by").set_value("difference")
    at.number_input(key="stat-difference").set_value(0.2)
    next(b for b in at.button if b.label == "Save statistics settings").click().run()
    assert not at.exception
    plan = current_plan(app_engine, cid)
    assert plan.planned_labels is not None and plan.planned_labels > 100 and not plan.late
    assert any("Saved. In force" in str(s.value) for s in at.success)
