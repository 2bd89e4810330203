"""Migration 0011 (tasks) down to 0010 and up again on SQLite and PostgreSQL: the tasks table
and ``assignments.task_id`` go and come back; the queue's slots survive both ways."""

from __future__ import annotations

from alembic import command
from sqlalchemy import Engine, func, inspect, select

from annotation.queue import build as queue_build
from annotation.tasks import batches as tasks
from db.engine import session_scope
from db.migrate import _config, upgrade
from db.schema.models import Assignment
from tests.annotation.test_queue import make_campaign


def _to(engine: Engine, revision: str) -> None:
    cfg = _config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)


def test_tasks_migration_down_and_up(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 2)
    queue_build.build_queue(engine, cid, seed=1)
    tasks.cut(engine, cid, 2)
    _to(engine, "0010")
    insp = inspect(engine)
    assert "tasks" not in insp.get_table_names()
    assert "task_id" not in {c["name"] for c in insp.get_columns("assignments")}
    with engine.connect() as conn:  # the slots are all still there
        assert conn.exec_driver_sql("SELECT count(*) FROM assignments").scalar() == 6
    upgrade(engine)
    insp = inspect(engine)
    assert "tasks" in insp.get_table_names()
    assert "ix_assignments_task" in {i["name"] for i in insp.get_indexes("assignments")}
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(Assignment)) == 6
        assert s.scalar(select(func.count()).where(Assignment.task_id.is_not(None))) == 0
    assert tasks.cut(engine, cid, 2).sizes == [2, 2, 2]  # cut again after the round trip
