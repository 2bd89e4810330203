"""`cli.py statistics show|set` (issue 29.4) on SQLite and PostgreSQL: one command sets α,
the family, the equivalence margin, racing and the plan, logged; a bad value exits 1 in
words and changes nothing; the old commands (`plan --alpha`, `racing`) still work."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from annotation.campaign.live_plan import forecast_planned_labels
from annotation.campaign.statistics_settings import read_statistics
from annotation.queue import admin as queue_admin
from tests.annotation.test_queue import make_campaign


@pytest.fixture
def cli_app(engine: Engine, monkeypatch):  # type: ignore[no-untyped-def]
    import cli
    import commands.base

    monkeypatch.setattr(commands.base, "open_engine", lambda: engine)
    return cli.app


def run(app, *args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args))


def test_set_and_show(engine: Engine, cli_app) -> None:  # type: ignore[no-untyped-def]
    cid = make_campaign(engine, 20, 3, name="st", paired=True)
    out = run(cli_app, "statistics", "set", "--campaign", "st", "--alpha", "0.01", "--family",
              "ebh", "--margin", "0.02", "--racing", "on", "--plan-difference", "0.2",
              "--power", "0.9")  # fmt: skip
    assert out.exit_code == 0, out.output
    planned = forecast_planned_labels(3, 0.2, 0.01, 0.9)
    assert "Error rate α: 0.01" in out.output and "Family: ebh" in out.output
    assert "Equivalence margin ε: 0.02" in out.output and "Racing: on" in out.output
    assert "Measurable difference: 0.2 with power 0.9" in out.output
    assert f"Planned labels per system: {planned:,}" in out.output
    now = read_statistics(engine, cid)
    assert (now.alpha, now.family, now.equivalence_margin, now.racing) == (0.01, "ebh", 0.02, True)
    keys = {c.key for c in queue_admin.setting_changes(engine, cid)}
    assert keys == {"alpha", "error_rate", "equivalence_margin", "racing", "planned_labels",
                    "measurable_difference", "power"}  # fmt: skip
    shown = run(cli_app, "statistics", "show", "--campaign", "st")
    assert shown.exit_code == 0 and "Error rate α: 0.01" in shown.output
    # the old commands still set the same settings
    assert run(cli_app, "plan", "--campaign", "st", "--alpha", "0.02").exit_code == 0
    assert run(cli_app, "racing", "--campaign", "st", "off").exit_code == 0
    now = read_statistics(engine, cid)
    assert (now.alpha, now.racing) == (0.02, False)
    # the old flag names still work, hidden from the help (they named two things alike)
    old = run(cli_app, "plan", "--campaign", "st", "--epsilon", "0.03", "--error-rate", "holm")
    assert old.exit_code == 0, old.output
    assert read_statistics(engine, cid).equivalence_margin == 0.03
    shown_help = run(cli_app, "plan", "--help").output
    assert "--epsilon" not in shown_help and "--smallest-difference" not in shown_help
    assert "--measurable-difference" in shown_help and "--family" in shown_help


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--alpha", "0.9"), "the error rate α must be a number in (0, 0.5], not 0.9"),
        (("--family", "bonferroni"), "error_rate must be one of holm, ebh"),
        (("--racing", "maybe"), "--racing takes on or off, not 'maybe'"),
        (("--margin", "0"), "the equivalence margin (ε) must be a number in (0, 1]"),
        (("--plan-difference", "0.1", "--plan-labels", "100"), "not both"),
        (("--power", "0.9"), "--power needs a measurable difference"),
    ],
)
def test_bad_value_exits_in_words(engine: Engine, cli_app, args, message) -> None:  # type: ignore[no-untyped-def]
    cid = make_campaign(engine, 10, 2, name="bad")
    out = run(cli_app, "statistics", "set", "--campaign", "bad", "--alpha", "0.01", *args)
    assert out.exit_code == 1 and message in out.output, out.output
    assert "Traceback" not in out.output
    assert queue_admin.setting_changes(engine, cid) == []


def test_evaluate_reads_the_campaigns_alpha(engine: Engine, cli_app) -> None:  # type: ignore[no-untyped-def]
    from annotation.campaign.statistics_settings import set_statistics
    from annotation.queue import build as queue_build
    from tests.test_live_plan import label_everything

    cid = make_campaign(engine, 30, 2, name="ev")
    queue_build.build_queue(engine, cid, seed=1)
    label_everything(engine, cid, 40)
    set_statistics(engine, cid, alpha=0.01, equivalence_margin=0.2)
    out = run(cli_app, "evaluate", "--campaign", "ev", "--controls", "")
    assert out.exit_code == 0, out.output
    # set after labels: α applies, ε stays as at the first label (recorded, not applied)
    assert "error rate α = 0.01, equivalence margin ε = 0.05" in out.output
    own = run(cli_app, "evaluate", "--campaign", "ev", "--controls", "", "--alpha", "0.1")
    assert own.exit_code == 0 and "error rate α = 0.1," in own.output


def test_archived_campaign_refused(engine: Engine, cli_app) -> None:  # type: ignore[no-untyped-def]
    from db.campaign.lifecycle import archive_campaign

    cid = make_campaign(engine, 10, 2, name="old")
    archive_campaign(engine, "old", via="test")
    out = run(cli_app, "statistics", "set", "--campaign", "old", "--alpha", "0.01")
    assert out.exit_code == 1 and "archived, so it is read-only" in out.output, out.output
    assert queue_admin.setting_changes(engine, cid) == []
    shown = run(cli_app, "statistics", "show", "--campaign", "old")  # reading is fine
    assert shown.exit_code == 0 and "Error rate α: 0.05" in shown.output


def test_design_and_estimand(engine: Engine, cli_app) -> None:  # type: ignore[no-untyped-def]
    cid = make_campaign(engine, 20, 3, name="de", paired=True)
    out = run(cli_app, "statistics", "set", "--campaign", "de", "--design", "asympcs",
              "--estimand", "superpopulation")  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "Live design: asympcs" in out.output and "the average annotator" in out.output
    now = read_statistics(engine, cid)
    assert (now.design, now.estimand) == ("asympcs", "superpopulation")
    bad = run(cli_app, "statistics", "set", "--campaign", "de", "--design", "coin-flip")
    assert bad.exit_code == 1 and "nothing changed" in bad.output
    assert read_statistics(engine, cid).design == "asympcs"
