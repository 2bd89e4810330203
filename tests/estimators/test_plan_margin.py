"""ε (the equivalence margin) and the family as part of the plan, on real
SQLite and PostgreSQL: stored in campaigns.meta, logged, late changes not applied; the CLI
sets and shows them and says when the plan does not fit the pool."""

from __future__ import annotations

from sqlalchemy import Engine
from typer.testing import CliRunner

from annotation.campaign.live_plan import current_plan, forecast_planned_labels, set_plan
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.reads.campaign import read_campaign
from tests.annotation.test_queue import make_campaign
from tests.test_live_plan import label_everything


def test_margin_and_error_rate_are_plan_settings(engine: Engine) -> None:
    cid = make_campaign(engine, 40, 3, name="eps")
    queue_build.build_queue(engine, cid, seed=1)
    assert (current_plan(engine, cid).margin, current_plan(engine, cid).error_rate) == (
        0.05,
        "holm",
    )
    plan = set_plan(engine, cid, equivalence_margin=0.1, error_rate="ebh")
    assert (plan.margin, plan.error_rate) == (0.1, "ebh")
    data = read_campaign(engine, cid)
    assert (data.live_plan.margin, data.live_plan.error_rate) == (0.1, "ebh")
    changes = queue_admin.setting_changes(engine, cid)
    assert {(c.key, c.new_value, c.labels_before) for c in changes} >= {
        ("equivalence_margin", 0.1, 0),
        ("error_rate", "ebh", 0),
    }
    label_everything(engine, cid, 3)
    late = set_plan(engine, cid, equivalence_margin=0.3)
    assert late.margin == 0.1  # chosen after seeing labels: recorded, not applied
    assert [(c.key, c.new_value) for c in late.late] == [("equivalence_margin", 0.3)]
    assert read_campaign(engine, cid).live_plan.margin == 0.1


def test_bad_margin_is_refused_and_changes_nothing(engine: Engine) -> None:
    cid = make_campaign(engine, 10, 2, name="eps-bad")
    for bad in (0, -0.1, 1.5, "wide"):
        try:
            set_plan(engine, cid, equivalence_margin=bad)
        except ValueError as exc:
            assert "the equivalence margin (ε) must be a number in (0, 1]" in str(exc)
        else:
            raise AssertionError(f"{bad!r} accepted")
    assert current_plan(engine, cid).margin == 0.05
    assert not queue_admin.setting_changes(engine, cid)


def test_cli_plan_sets_margin_and_says_the_plan_exceeds_the_pool(engine: Engine, monkeypatch):
    import cli
    import commands.base

    make_campaign(engine, 40, 3, name="eps-cli")
    monkeypatch.setattr(commands.base, "open_engine", lambda: engine)
    runner = CliRunner()
    out = runner.invoke(
        cli.app,
        ["plan", "--campaign", "eps-cli", "--smallest-difference", "0.1", "--margin", "0.1",
         "--error-rate", "ebh"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    need = forecast_planned_labels(3, 0.1)
    assert need > 40
    assert "Equivalence margin (ε): 0.1" in out.output
    assert "Family: ebh" in out.output
    assert f"{need:,} labels per system, more than the 40 items" in out.output
    out = runner.invoke(cli.app, ["plan", "--campaign", "eps-cli", "--error-rate", "bonf"])
    assert out.exit_code == 1 and "error_rate must be one of" in out.output


def test_cli_evaluate_words_pairs_with_the_plans_margin(sqlite_engine, monkeypatch) -> None:
    import cli
    from db.engine import get_engine
    from db.reads.campaign import campaign_id
    from tests.test_reads import seed_campaign

    seed_campaign(sqlite_engine, "eval-eps", n_items=80, labelled=60, overlap=0)
    # set after labels existed: recorded, not applied — the pairs are read with ε = 0.05
    set_plan(sqlite_engine, campaign_id(sqlite_engine, "eval-eps"), equivalence_margin=1.0)
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    try:
        res = CliRunner().invoke(cli.app, ["evaluate", "--campaign", "eval-eps"])
    finally:
        get_engine.cache_clear()
    assert res.exit_code == 0, res.output
    pairs = res.output.split("verdict (equivalence margin ε = 0.05)")[1]
    lines = [ln for ln in pairs.splitlines() if " – " in ln]
    assert lines and any(ln.endswith("better") for ln in lines)
    assert all(ln.endswith(("better", "not significant")) for ln in lines)


def test_fixed_n_words_three_outcomes() -> None:
    from estimators.base.verdicts import fixed_n_words

    kw = {"alpha": 0.05, "m": 3, "min_labels": 30}
    # Δ̂ 0.01, se 0.01: the α/3 interval ±0.024 lies inside ±0.05
    assert fixed_n_words("A", "B", 0.01, 0.01, 0.6, margin=0.05, n=400, **kw) == (
        "no difference larger than 0.05"
    )
    assert fixed_n_words("A", "B", 0.01, 0.01, 0.6, margin=0.02, n=400, **kw) == "not significant"
    assert fixed_n_words("A", "B", -0.2, 0.01, 0.001, margin=0.05, n=400, **kw) == "B better"
    assert fixed_n_words("A", "B", -0.2, 0.01, 0.001, margin=0.05, n=20, **kw) == (
        "not significant"
    )
