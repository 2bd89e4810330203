"""`cli.py tasks cut | list | pause | resume | reassign | expire | codes` on SQLite and
PostgreSQL: each action lands and is logged, or is refused with a clear message and changes
nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from accounts.invites import create_annotator
from annotation.judging import session
from annotation.queue import build as queue_build
from db.engine import get_engine, session_scope
from db.queue.settings import setting_changes
from db.queue.tasks import list_tasks
from tests.annotation.test_queue import make_campaign


@pytest.fixture
def run(engine: Engine, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    import cli

    monkeypatch.setenv("DATABASE_URL", engine.url.render_as_string(hide_password=False))
    get_engine.cache_clear()
    from typer.testing import CliRunner

    runner = CliRunner()
    yield lambda *args: runner.invoke(cli.app, list(args))
    get_engine.cache_clear()


def _states(engine: Engine, cid: int) -> dict[int, str]:
    with session_scope(engine) as s:
        return {t.id: t.state for t in list_tasks(s, cid)}


def test_cli_tasks_round_trip(engine: Engine, run) -> None:  # type: ignore[no-untyped-def]
    cid = make_campaign(engine, 4, 2, name="crowd")
    queue_build.build_queue(engine, cid, seed=1)
    ann = create_annotator(engine, cid, "ann").annotator_id
    create_annotator(engine, cid, "bob")
    bad = run("tasks", "cut", "--campaign", "crowd", "--size", "0")
    assert bad.exit_code == 1 and "whole number" in bad.output and "Traceback" not in bad.output
    assert _states(engine, cid) == {}
    out = run("tasks", "cut", "--campaign", "crowd", "--size", "4", "--per-annotator", "2")
    assert out.exit_code == 0 and "Cut 2 task(s) of 4–4 items" in out.output, out.output
    first, second = sorted(_states(engine, cid))
    view = session.next_view(engine, ann)
    assert view.task is not None and view.task.task_id == first
    listed = run("tasks", "list", "--campaign", "crowd")
    assert "active" in listed.output and "ann" in listed.output
    assert run("tasks", "pause", "--campaign", "crowd", str(first)).exit_code == 0
    again = run("tasks", "pause", "--campaign", "crowd", str(first))
    assert again.exit_code == 1 and "only an open or active task pauses" in again.output
    assert run("tasks", "resume", "--campaign", "crowd", str(first)).exit_code == 0
    nobody = run("tasks", "reassign", "--campaign", "crowd", str(first), "nobody")
    assert nobody.exit_code == 1 and "no active annotator named 'nobody'" in nobody.output
    moved = run("tasks", "reassign", "--campaign", "crowd", str(first), "bob")
    assert moved.exit_code == 0 and "(bob)" in moved.output
    gone = run("tasks", "expire", "--campaign", "crowd", str(first))
    assert gone.exit_code == 0 and "unfinished items are task" in gone.output
    missing = run("tasks", "expire", "--campaign", "crowd", "999")
    assert missing.exit_code == 1 and "no task 999" in missing.output
    half = run("tasks", "codes", "--campaign", "crowd", "--pass-code", "P1")
    assert half.exit_code == 1 and "both" in half.output
    codes = run("tasks", "codes", "--campaign", "crowd", "--pass-code", "P1", "--fail-code", "F1",
                "--handoff-url", "https://example.org/done?cc={code}")  # fmt: skip
    assert codes.exit_code == 0 and "pass / fail codes" in codes.output
    with session_scope(engine) as s:
        keys = [c.key for c in setting_changes(s, cid)]
    assert keys.count(f"task {first}") == 4  # paused, resumed, reassigned, expired
    assert {"tasks.cut", "tasks.per_annotator", "tasks.pass_code", "tasks.handoff_url"} <= set(keys)
    assert second in _states(engine, cid)
