"""α is a campaign setting (issue 29): stored in the plan, logged with the label count, used
by the report and carried in the pairs export; a change after labels exist is logged AND
applied (issue 29.4: read at the new level, with the hazard shown — docs/statistics-notes.md,
"Changing α mid-campaign")."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from annotation.campaign.live_plan import current_plan, set_plan
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from annotation.results.result_exports import pairs_csv
from db.reads.campaign import read_campaign
from estimators.report.campaign_report import campaign_report
from tests.annotation.test_queue import make_campaign
from tests.test_live_plan import label_everything


def test_alpha_is_planned_logged_and_used(engine: Engine) -> None:
    cid = make_campaign(engine, 40, 2, name="alpha")
    queue_build.build_queue(engine, cid, seed=2)
    assert current_plan(engine, cid).alpha == 0.05  # unset: the default
    with pytest.raises(ValueError, match=r"α must be a number in \(0, 0.5\], not 0.7"):
        set_plan(engine, cid, alpha=0.7)
    assert queue_admin.setting_changes(engine, cid) == []  # the refusal changed nothing
    assert set_plan(engine, cid, alpha=0.01).alpha == 0.01
    assert [(c.key, c.new_value, c.labels_before)
            for c in queue_admin.setting_changes(engine, cid)] == [("alpha", 0.01, 0)]  # fmt: skip
    label_everything(engine, cid, 2 * 35)
    report = campaign_report(read_campaign(engine, cid))
    assert report.monitor is not None and report.monitor.alpha == 0.01
    assert b",0.01," in pairs_csv(report).splitlines()[1]
    # a change after labels exist is logged and applied (not a "late" plan change)
    late = set_plan(engine, cid, alpha=0.10)
    assert late.alpha == 0.10 and late.late == ()
    assert [(c.key, c.labels_before) for c in queue_admin.setting_changes(engine, cid)][-1] == (
        "alpha", 70)  # fmt: skip
    assert campaign_report(read_campaign(engine, cid)).monitor.alpha == 0.10


def test_cli_plan_sets_and_shows_alpha(engine: Engine, monkeypatch) -> None:
    import cli
    import commands.base

    make_campaign(engine, 20, 2, name="alpha-cli")
    monkeypatch.setattr(commands.base, "open_engine", lambda: engine)
    out = CliRunner().invoke(cli.app, ["plan", "--campaign", "alpha-cli", "--alpha", "0.01"])
    assert out.exit_code == 0, out.output
    assert "Error rate α: 0.01" in out.output
    out = CliRunner().invoke(cli.app, ["plan", "--campaign", "alpha-cli", "--alpha", "2"])
    assert out.exit_code == 1 and "α must be a number in (0, 0.5]" in out.output
