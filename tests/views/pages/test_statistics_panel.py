"""The Statistics page (issue 29.4), run as a Streamlit app on a real migrated SQLite: one
form sets α, the family, ε, racing, the live design, the estimand and the plan; a bad value,
a viewer and an archived campaign are refused with nothing written; every change is logged
with the label count; a change of α after labels shows the hazard."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from accounts.invites import create_annotator
from annotation.campaign.live_plan import forecast_planned_labels
from annotation.campaign.statistics_settings import LEVEL_WARNING, read_statistics, setting_words
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import admin as queue_admin
from db.campaign.lifecycle import archive_campaign
from tests.views.conftest import admin_page
from tests.views.pages.test_annotate import make_campaign

PAGE = "views/pages/statistics_panel.py"
TEXTS = [[f"output {j} of system {k} has several words" for k in range(3)] for j in range(12)]


def save(at):  # type: ignore[no-untyped-def]
    next(b for b in at.button if b.label == "Save statistics settings").click().run()
    assert not at.exception, at.exception
    return at


def label(engine: Engine, cid: int, n: int) -> None:
    a = create_annotator(engine, cid, "ann").annotator_id
    view = session.next_view(engine, a)
    for _ in range(n):
        view = judging.submit(engine, a, view.slot.assignment_id, view.slot.claim_version,
                              label=1)  # fmt: skip


def test_sets_every_setting_and_logs_it(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS, paired=True)
    at = admin_page(PAGE, "demo")
    assert at.number_input(key="stat-alpha").value == 0.05
    at.number_input(key="stat-alpha").set_value(0.01)
    at.radio(key="stat-family").set_value("ebh")
    at.number_input(key="stat-margin").set_value(0.02)
    at.toggle(key="stat-racing").set_value(True)
    at.radio(key="stat-plan-by").set_value("difference")
    at.number_input(key="stat-difference").set_value(0.2)
    at.number_input(key="stat-power").set_value(0.9)
    save(at)
    assert not at.error, [e.value for e in at.error]
    now = read_statistics(app_engine, cid)
    planned = forecast_planned_labels(3, 0.2, 0.01, 0.9)
    assert (now.alpha, now.family, now.equivalence_margin, now.racing) == (0.01, "ebh", 0.02, True)
    assert (now.measurable_difference, now.power, now.planned_labels) == (0.2, 0.9, planned)
    assert "Saved. In force" in at.success[0].value
    assert at.number_input(key="stat-alpha").value == 0.01  # read back
    logged = {
        c.key: (c.new_value, c.labels_before) for c in queue_admin.setting_changes(app_engine, cid)
    }
    assert logged["alpha"] == (0.01, 0) and logged["error_rate"] == ("ebh", 0)
    assert logged["planned_labels"] == (planned, 0) and logged["racing"] == (True, 0)
    table = at.dataframe[0].value  # the page's "Changes": the log with the labels then
    words = sorted(setting_words(k) for k in logged)  # in words, as the form names them
    assert sorted(table["setting"]) == words and set(table["labels then"]) == {0}


@pytest.mark.slow
def test_design_and_estimand_set_here_and_late_changes_not_applied(app_engine: Engine) -> None:
    """The live design and the estimand are on this page too (the Annotators page only points
    here): set before the first label they apply; set after labels exist they are logged
    with the label count but not applied (a design chosen after seeing data could turn past
    verdicts significant)."""
    cid = make_campaign(app_engine, TEXTS, paired=True)
    at = admin_page(PAGE, "demo")
    assert at.selectbox(key="stat-design").value == "betting"
    assert at.selectbox(key="stat-estimand").value == "test_set"
    at.selectbox(key="stat-design").set_value("asympcs")
    at.selectbox(key="stat-estimand").set_value("superpopulation")
    save(at)
    now = read_statistics(app_engine, cid)
    assert (now.design, now.estimand, now.late) == ("asympcs", "superpopulation", ())
    assert "Live design: asympcs" in at.success[0].value
    assert now.export_columns()["design"] == "asympcs"
    label(app_engine, cid, 3)
    at = admin_page(PAGE, "demo")
    at.selectbox(key="stat-design").set_value("betting")
    save(at)
    now = read_statistics(app_engine, cid)
    assert now.design == "asympcs"  # recorded, not applied
    assert [(c.key, c.new_value, c.labels_before) for c in now.late] == [
        ("live_design", "betting", 3)
    ]
    logged = [(c.key, c.new_value, c.labels_before)
              for c in queue_admin.setting_changes(app_engine, cid)]  # fmt: skip
    assert ("live_design", "asympcs", 0) in logged and ("live_design", "betting", 3) in logged


def test_bad_value_refused_in_words_and_nothing_written(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS, paired=True)
    at = admin_page(PAGE, "demo")
    at.number_input(key="stat-alpha").set_value(0.7)
    at.toggle(key="stat-racing").set_value(True)
    save(at)
    assert [e.value for e in at.error] == [
        "Nothing saved: the error rate α must be a number in \\(0, 0\\.5\\], not 0\\.7."
    ]
    assert queue_admin.setting_changes(app_engine, cid) == []


def test_viewer_refused(app_engine: Engine) -> None:
    from accounts.grants import grant_campaign
    from accounts.registry import create_account
    from tests.views.pages.test_accounts import _as

    cid = make_campaign(app_engine, TEXTS)
    vic, _ = create_account(app_engine, "vic", "viewer", "vic's long password")
    grant_campaign(app_engine, "vic", "demo")
    at = _as(vic, PAGE)
    assert "Read-only" in at.info[0].value
    button = next(b for b in at.button if b.label == "Save statistics settings")
    assert button.disabled
    assert queue_admin.setting_changes(app_engine, cid) == []


def test_archived_in_another_tab_refused(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS)
    at = admin_page(PAGE, "demo")
    archive_campaign(app_engine, "demo", via="test")  # while the page is open
    at.number_input(key="stat-alpha").set_value(0.01)
    save(at)
    assert at.error and "archived, so it is read\\-only" in at.error[0].value
    assert queue_admin.setting_changes(app_engine, cid) == []
    assert "archived, so it is read-only" in at.info[0].value  # and says so on its own


def test_alpha_after_labels_logged_with_count_and_warned(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS)
    label(app_engine, cid, 5)
    at = admin_page(PAGE, "demo")
    assert not at.warning
    at.number_input(key="stat-alpha").set_value(0.1)
    at.number_input(key="stat-margin").set_value(0.2)
    save(at)
    logged = queue_admin.setting_changes(app_engine, cid)
    assert sorted((c.key, c.new_value, c.labels_before) for c in logged) == [
        ("alpha", 0.1, 5), ("equivalence_margin", 0.2, 5)]  # fmt: skip
    assert [w.value for w in at.warning] == [LEVEL_WARNING]
    assert "Recorded but not applied" in at.info[0].value  # ε stays as at the first label
    now = read_statistics(app_engine, cid)
    assert (now.alpha, now.equivalence_margin) == (0.1, 0.05)
    # the box shows the ε in force, and the saved one beside it as recorded, not applied
    assert at.number_input(key="stat-margin").value == 0.05
    assert at.number_input(key="stat-alpha").value == 0.1
    notes = [c.value for c in at.caption if "recorded, not applied" in c.value]
    assert notes == ["0.2 **recorded, not applied** (saved after 5 labels): the equivalence "
                     "margin ε in force stays 0.05 (the default)."]  # fmt: skip
    assert "equivalence margin ε from 0.05 (the default) to 0.2 after 5 labels" in at.info[0].value
    table = at.dataframe[0].value  # the Changes table: from the default in force, in words
    rows = sorted(zip(table["setting"], table["from"], table["to"], strict=True))
    assert rows == [("equivalence margin ε", "0.05 (the default)", "0.2"),
                    ("error rate α", "0.05 (the default)", "0.1")]  # fmt: skip


def test_dashboard_box_reads_the_campaigns_settings(app_engine: Engine) -> None:
    from annotation.campaign.statistics_settings import set_statistics

    cid = make_campaign(app_engine, TEXTS, paired=True)
    set_statistics(app_engine, cid, alpha=0.01, family="ebh", racing_on=True)
    at = admin_page("views/pages/dashboard.py", "demo")
    box = " ".join(c.value for c in at.sidebar.caption).replace("\\", "")  # markdown escapes
    assert "Error rate α: 0.01" in box and "Family: ebh" in box and "Racing: on" in box
    assert "**Statistics page**" in box
    assert not at.sidebar.slider and not at.sidebar.number_input  # no per-viewer α
