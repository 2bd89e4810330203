"""The live plan (issue 11) on real SQLite and PostgreSQL: a plan fixed before the first label
tunes the verdicts; a change made after labels exist is recorded, shown and NOT applied, so
it cannot turn a past verdict significant; the CLI sets and shows the plan."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from accounts.invites import create_annotator
from annotation.campaign.live_plan import current_plan, forecast_planned_labels, set_plan
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.reads.campaign import fingerprint, read_campaign
from estimators.report.campaign_report import campaign_report
from estimators.sequences.designs import DEFAULT_DESIGN, LiveDesign, LivePlan, plan_in_force
from tests.annotation.queue.test_queue import make_campaign

TEXT = re.compile(r"output of system (\d+) for item (\d+)")


def label_everything(engine: Engine, cid: int, n_labels: int, seed: int = 5) -> None:
    """One annotator labels the queue in order; system 0 is adequate 80 % of the time,
    the others 55 % (a fixed coin per output)."""
    coins = np.random.default_rng(seed).random((5, 1000))
    rate = (0.8, 0.55, 0.55, 0.55, 0.55)
    a = create_annotator(engine, cid, "ann").annotator_id
    view = session.next_view(engine, a)
    for _ in range(n_labels):
        k, j = map(int, TEXT.search(view.slot.text).groups())
        view = judging.submit(
            engine, a, view.slot.assignment_id, view.slot.claim_version,
            label=int(coins[k, j] < rate[k]),
        )  # fmt: skip


def test_plan_in_force_takes_back_changes_made_after_labels() -> None:
    class Change:
        def __init__(self, key, old, new, before):  # type: ignore[no-untyped-def]
            self.key, self.old_value, self.new_value, self.labels_before = key, old, new, before

    changes = [
        Change("planned_labels", None, 300, 0),
        Change("live_design", None, "asympcs", 0),
        Change("planned_labels", 300, 60, 41),  # after 41 labels
        Change("show_metrics", True, False, 50),  # not a plan setting
        Change("estimand", None, "superpopulation", 52),
    ]
    current = {"planned_labels": 60, "live_design": "asympcs", "estimand": "superpopulation"}
    plan = plan_in_force(current, changes)
    assert (plan.planned_labels, plan.design, plan.estimand) == (300, "asympcs", "test_set")
    assert [(c.key, c.new_value, c.labels_before) for c in plan.late] == [
        ("planned_labels", 60, 41),
        ("estimand", "superpopulation", 52),
    ]
    # NULLs: the defaults, the design the judgment kind's (LivePlan.design_for)
    assert plan_in_force({}, []) == LivePlan(design_set=False)
    assert LivePlan().design == DEFAULT_DESIGN and LivePlan().finite_pool


def test_forecast_is_the_planners_formula() -> None:
    # 2 systems, δ = 0.1: ((1.96 + 0.84)·√0.5/0.1)² ≈ 392 labels per system
    assert 385 <= forecast_planned_labels(2, 0.1) <= 395
    # more systems ⇒ Holm's first level α/m ⇒ more labels; a smaller δ ⇒ more labels
    assert forecast_planned_labels(5, 0.1) > forecast_planned_labels(2, 0.1)
    assert forecast_planned_labels(2, 0.05) > 3.9 * forecast_planned_labels(2, 0.1)
    with pytest.raises(ValueError, match="between 0 and 1"):
        forecast_planned_labels(2, 1.5)


def test_a_late_plan_change_cannot_change_a_verdict(engine: Engine) -> None:
    cid = make_campaign(engine, 60, 2)
    queue_build.build_queue(engine, cid, seed=3)
    before = set_plan(engine, cid, planned_labels=60, live_design="asympcs")
    assert before.planned_labels == 60 and not before.late
    label_everything(engine, cid, 2 * 45)  # 45 items labelled for both systems
    data = read_campaign(engine, cid)
    assert data.live_plan.planned_labels == 60 and data.live_plan.design == "asympcs"
    report = campaign_report(data)
    pair = report.monitor.pairs[0]
    assert pair.result.n_human == 45 and pair.result.diagnostics["t_star"] == 60
    assert pair.result.diagnostics["design"] == "asympcs"

    fp = fingerprint(engine, cid)
    after = set_plan(engine, cid, planned_labels=30, live_design="gsd_obf")
    assert fingerprint(engine, cid) != fp  # the dashboard re-reads
    assert [(c.key, c.labels_before) for c in after.late] == [
        ("planned_labels", 90), ("live_design", 90)
    ]  # fmt: skip
    assert (after.planned_labels, after.design) == (60, "asympcs")  # still the old plan
    late = campaign_report(read_campaign(engine, cid))
    got = late.monitor.pairs[0]
    assert (got.verdict, got.p_value, got.result.ci) == (pair.verdict, pair.p_value, pair.result.ci)
    # … whereas applying the change would have re-tuned the verdicts after seeing the data
    applied = campaign_report(
        replace(data, live_plan=LivePlan(planned_labels=30, design=LiveDesign.GSD_OBF))
    )
    assert applied.monitor.pairs[0].p_value != pair.p_value
    assert current_plan(engine, cid) == after
    # re-saving the defaults over NULL (the Annotators form does) is not a change
    other = make_campaign(engine, 10, 2, name="other")
    queue_build.build_queue(engine, other, seed=1)
    label_everything(engine, other, 2)
    set_plan(engine, other, planned_labels=None, live_design=DEFAULT_DESIGN, estimand="test_set")
    assert queue_admin.setting_changes(engine, other) == [] and not current_plan(engine, other).late


def test_cli_plan_sets_forecasts_and_warns(engine: Engine, monkeypatch) -> None:
    import cli
    import commands.base

    cid = make_campaign(engine, 40, 3, name="plan-cli")
    queue_build.build_queue(engine, cid, seed=1)
    monkeypatch.setattr(commands.base, "open_engine", lambda: engine)
    runner = CliRunner()
    out = runner.invoke(cli.app, ["plan", "--campaign", "plan-cli", "--smallest-difference", "0.2"])
    assert out.exit_code == 0, out.output
    expected = forecast_planned_labels(3, 0.2)
    assert f"Planned labels per system: {expected:,}" in out.output
    # no design set: the judgment kind decides, and the command says so
    assert "Design: not set — asympcs_mix for ESA, DA and 1 − HTER scores" in out.output
    assert f"{DEFAULT_DESIGN} for binary labels (finite-sample)" in out.output
    out = runner.invoke(cli.app, ["plan", "--campaign", "plan-cli", "--design", "eb_strict"])
    assert "Design: eb_strict — " in out.output
    out = runner.invoke(cli.app, ["plan", "--campaign", "plan-cli", "--design", "magic"])
    assert out.exit_code == 1 and "live_design must be one of" in out.output
    label_everything(engine, cid, 3)
    out = runner.invoke(
        cli.app, ["plan", "--campaign", "plan-cli", "--labels", "500", "--estimand",
                  "superpopulation"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    assert f"Planned labels per system: {expected:,}" in out.output  # not applied
    assert "recorded but NOT applied" in out.output and "after 3 labels" in out.output
