"""One place for a campaign's statistics settings (issue 29.4), on SQLite and PostgreSQL:
every setting written, logged with the label count, refused with nothing written on a bad
value or an archived campaign; α and the family applied after labels (the monitor reads at
the new level), the plan and ε recorded but not applied."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from annotation.campaign.live_plan import forecast_planned_labels
from annotation.campaign.statistics_settings import read_statistics, set_statistics
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.campaign.lifecycle import CampaignLifeError, archive_campaign
from db.reads.campaign import read_campaign
from estimators.report.campaign_report import campaign_report
from tests.annotation.test_queue import make_campaign
from tests.test_live_plan import label_everything


def _log(engine: Engine, cid: int) -> list[tuple]:
    return [(c.key, c.new_value, c.labels_before) for c in queue_admin.setting_changes(engine, cid)]


def test_every_setting_written_and_logged(engine: Engine) -> None:
    cid = make_campaign(engine, 40, 3, name="stats", paired=True)
    now = read_statistics(engine, cid)
    assert (now.alpha, now.family, now.equivalence_margin, now.racing) == (
        0.05,
        "holm",
        0.05,
        False,
    )
    after = set_statistics(
        engine, cid, alpha=0.01, family="ebh", equivalence_margin=0.02, racing_on=True,
        measurable_difference=0.1, power=0.9,
    )  # fmt: skip
    planned = forecast_planned_labels(3, 0.1, 0.01, 0.9)  # the planner at the new α, power
    assert planned > forecast_planned_labels(3, 0.1)  # stricter α, more power: more labels
    assert (after.alpha, after.family, after.equivalence_margin, after.racing) == (
        0.01, "ebh", 0.02, True)  # fmt: skip
    assert (after.measurable_difference, after.power, after.planned_labels) == (0.1, 0.9, planned)
    assert sorted(_log(engine, cid)) == sorted([
        ("racing", True, 0), ("equivalence_margin", 0.02, 0), ("error_rate", "ebh", 0),
        ("alpha", 0.01, 0), ("measurable_difference", 0.1, 0), ("power", 0.9, 0),
        ("planned_labels", planned, 0),
    ])  # fmt: skip
    cols = after.export_columns()
    assert cols == {"alpha": 0.01, "error_rate": "ebh", "equivalence_margin": 0.02,
                    "racing": "on", "planned_labels": planned, "measurable_difference": 0.1,
                    "power": 0.9, "design": "betting", "estimand": "test_set"}  # fmt: skip
    # a label budget replaces the planner's difference
    budget = set_statistics(engine, cid, planned_labels=200)
    assert (budget.planned_labels, budget.measurable_difference) == (200, None)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"alpha": 0.7}, r"the error rate α must be a number in \(0, 0.5\], not 0.7"),
        ({"alpha": float("nan")}, r"the error rate α must be a number"),
        ({"family": "bonferroni"}, r"error_rate must be one of holm, ebh, not 'bonferroni'"),
        ({"equivalence_margin": 0.0}, r"the equivalence margin \(ε\) must be a number in \(0, 1\]"),
        ({"measurable_difference": 1.2}, r"the measurable difference must be a number in \(0, 1\)"),
        ({"power": 0.3, "alpha": 0.01}, r"the power must be a number in \[0.5, 1\)"),
        ({"planned_labels": -5}, r"the planned labels must be 0 or more"),
        ({"planned_labels": 10, "measurable_difference": 0.1}, r"not both"),
    ],
)
def test_a_bad_value_changes_nothing(engine: Engine, bad: dict, message: str) -> None:
    cid = make_campaign(engine, 10, 2, name="bad")
    before = read_statistics(engine, cid)
    with pytest.raises(ValueError, match=message):
        set_statistics(engine, cid, racing_on=True, **bad)
    assert read_statistics(engine, cid) == before and _log(engine, cid) == []


def test_racing_refused_writes_nothing_else(engine: Engine) -> None:
    cid = make_campaign(engine, 10, 2, name="unpaired", paired=False)
    with pytest.raises(ValueError, match="needs the paired design"):
        set_statistics(engine, cid, alpha=0.01, racing_on=True)
    assert _log(engine, cid) == [] and read_statistics(engine, cid).alpha == 0.05


def test_archived_campaign_refused(engine: Engine) -> None:
    cid = make_campaign(engine, 10, 2, name="old")
    archive_campaign(engine, "old", via="test")
    with pytest.raises(CampaignLifeError, match="archived, so it is read-only"):
        set_statistics(engine, cid, alpha=0.01)
    assert _log(engine, cid) == []


def test_level_change_after_labels_is_applied_and_flagged(engine: Engine) -> None:
    cid = make_campaign(engine, 40, 2, name="late")
    queue_build.build_queue(engine, cid, seed=2)
    set_statistics(engine, cid, alpha=0.05, equivalence_margin=0.1, planned_labels=40)
    label_everything(engine, cid, 2 * 35)
    after = set_statistics(engine, cid, alpha=0.01, family="ebh", equivalence_margin=0.3,
                           planned_labels=80)  # fmt: skip
    # α and the family apply (with the hazard shown); ε and the plan stay as at label 1
    assert (after.alpha, after.family) == (0.01, "ebh")
    assert sorted((c.key, c.new_value, c.labels_before) for c in after.level_changes) == [
        ("alpha", 0.01, 70), ("error_rate", "ebh", 70)]  # fmt: skip
    assert (after.equivalence_margin, after.planned_labels) == (0.1, 40)
    assert sorted(c.key for c in after.late) == ["equivalence_margin", "planned_labels"]
    monitor = campaign_report(read_campaign(engine, cid)).monitor
    assert monitor is not None and monitor.alpha == 0.01 and monitor.margin == 0.1
    # the planner's inputs follow the planned labels: a late change is recorded, not applied
    again = set_statistics(engine, cid, measurable_difference=0.2, power=0.9)
    assert (again.measurable_difference, again.power, again.planned_labels) == (None, 0.8, 40)
    assert {"measurable_difference", "power"} <= {c.key for c in again.late}
