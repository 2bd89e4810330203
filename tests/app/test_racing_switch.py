"""The racing switch on the Statistics page (AppTest, real migrated SQLite; it moved there
from the Annotators page, issue 29.4) and in the CLI: both write campaigns.meta through
annotation.queue.racing and log the change."""

from __future__ import annotations

from sqlalchemy import Engine
from typer.testing import CliRunner

from annotation.queue import admin as queue_admin
from annotation.queue import racing
from db.engine import get_engine
from tests.app.conftest import admin_page
from tests.app.test_annotate import make_campaign

TEXTS = [[f"output {j} of system {k} has several words" for k in range(3)] for j in range(12)]


PAGE = "views/pages/statistics_panel.py"


def save(at):  # type: ignore[no-untyped-def]
    next(b for b in at.button if b.label == "Save statistics settings").click().run()
    assert not at.exception, at.exception
    return at


def test_switch_on_the_statistics_page(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS)
    annotators = admin_page("views/pages/annotators.py", "demo")  # no switch there any more
    assert not [t for t in annotators.toggle if t.label.startswith("Racing")]
    assert any("**Statistics** page" in c.value for c in annotators.caption)
    at = admin_page(PAGE, "demo")
    assert not at.exception and at.toggle(key="stat-racing").value is False
    at.toggle(key="stat-racing").set_value(True)
    save(at)
    assert not at.error, [e.value for e in at.error]
    assert racing.racing_status(app_engine, cid) == (True, [])
    assert at.toggle(key="stat-racing").value is True  # the page reads it back
    at.toggle(key="stat-racing").set_value(False)
    save(at)
    assert racing.racing_status(app_engine, cid)[0] is False
    logged = queue_admin.setting_changes(app_engine, cid)
    changes = [(c.key, c.old_value, c.new_value) for c in logged]
    assert changes == [("racing", False, True), ("racing", True, False)]


def test_switch_refused_in_words_with_active_sampling(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS)
    queue_admin.update_queue_settings(app_engine, cid, sampling="active")
    at = admin_page(PAGE, "demo")
    at.toggle(key="stat-racing").set_value(True)
    save(at)
    assert [e.value.replace("\\", "") for e in at.error] == [  # markdown escapes
        "Nothing saved: racing runs on the uniform design: switch sampling to uniform first "
        "(active sampling draws its own probabilities)."
    ]
    assert racing.racing_status(app_engine, cid)[0] is False


def test_cli_racing(app_engine: Engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import cli

    cid = make_campaign(app_engine, TEXTS)
    monkeypatch.setenv("DATABASE_URL", str(app_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()
    try:
        on = runner.invoke(cli.app, ["racing", "--campaign", "demo", "on"])
        again = runner.invoke(cli.app, ["racing", "--campaign", "demo", "on"])
        bad = runner.invoke(cli.app, ["racing", "--campaign", "demo", "maybe"])
        off = runner.invoke(cli.app, ["racing", "--campaign", "demo", "off"])
    finally:
        get_engine.cache_clear()
    assert (on.exit_code, again.exit_code, off.exit_code) == (0, 0, 0), on.output
    assert "demo: racing on" in on.output and "already on" in again.output
    assert bad.exit_code == 1 and "racing takes on or off, not 'maybe'" in bad.output
    assert "Traceback" not in bad.output
    assert [c.new_value for c in queue_admin.setting_changes(app_engine, cid)] == [True, False]


def test_page_lists_the_dropped_systems(app_engine: Engine) -> None:
    from db.engine import session_scope
    from db.schema.models import Campaign

    cid = make_campaign(app_engine, TEXTS)
    racing.set_racing(app_engine, cid, True)
    with session_scope(app_engine) as s:
        camp = s.get(Campaign, cid)
        record = {
            **camp.meta["racing"],
            "dropped": [{"system": "secret-system-0", "labels": 1234, "at": "2026-01-01T00:00:00"}],
        }
        camp.meta = {**camp.meta, "racing": record}  # fmt: skip
    at = admin_page(PAGE, "demo")
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert "Racing dropped (all pairs settled): secret-system-0 (after 1,234 labels)" in captions


def test_dashboard_says_racing_is_on_and_what_it_dropped(app_engine: Engine) -> None:
    from db.campaign import campaigns as dbc
    from db.queue.claim import queue_transaction
    from db.reads.campaign import campaign_id
    from tests.app.test_dashboard import _dashboard, _texts
    from tests.test_reads import seed_campaign

    seed_campaign(app_engine, "raced", n_items=80, labelled=60, overlap=0)
    at = _dashboard("raced")
    assert not at.exception and "Racing is on" not in _texts(at)  # off: nothing said
    cid = campaign_id(app_engine, "raced")
    record = {"on": True, "dropped": [{"system": "sys0", "labels": 120, "at": "2026-01-01"}]}
    with queue_transaction(app_engine) as s:
        dbc.set_campaign_meta_key(s, cid, "racing", record)
    at = _dashboard("raced")
    assert not at.exception
    [line] = [c.value for c in at.caption if "Racing is on" in c.value]
    assert "Dropped (all pairs settled): sys0 (after 120 labels)" in line


def test_planner_says_what_racing_and_epsilon_change(app_engine: Engine) -> None:
    at = admin_page("views/pages/planner.py")
    assert not at.exception
    [line] = [c.value for c in at.caption if c.value.startswith("Racing (Statistics page)")]
    assert "larger ε settles equal pairs sooner" in line and "WMT21 en-de" in line
