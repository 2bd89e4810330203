"""The Annotators page's Tasks section: cut, act on a task (logged, shown in the task log),
and a refused action said in words with nothing changed."""

from __future__ import annotations

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.judging import session
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.queue.tasks import list_tasks
from db.reads.campaign import campaign_id
from tests.app.conftest import admin_page


def _states(engine, cid: int) -> list[str]:  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        return [t.state for t in list_tasks(s, cid)]


def test_cut_pause_and_refusal_on_the_page(app_engine) -> None:  # type: ignore[no-untyped-def]
    rows = "".join(f"{j},s{j},r{j},{sy},o{j}{sy}\n" for j in range(4) for sy in "AB")
    import_campaign(app_engine, ("item_id,source,reference,system,output\n" + rows).encode(),
                    "crowd", filename="t.csv")  # fmt: skip
    cid = campaign_id(app_engine, "crowd")
    queue_build.build_queue(app_engine, cid, seed=1)
    ann = create_annotator(app_engine, cid, "Ana").annotator_id
    at = admin_page("views/pages/annotators.py", campaign="crowd")
    at.number_input(key="task_size").set_value(4)
    next(b for b in at.button if b.label == "Cut tasks").click().run()
    assert not at.exception, at.exception
    assert any(s.value.startswith("Cut 2 task") for s in at.success), at.success
    n = len(_states(app_engine, cid))
    assert n >= 2 and set(_states(app_engine, cid)) == {"open"}
    view = session.next_view(app_engine, ann)
    assert view.task is not None
    at.selectbox(key="task_action_task").set_value(view.task.task_id)
    at.selectbox(key="task_action").set_value("expire")  # an active task: expires
    next(b for b in at.button if b.label == "Apply").click().run()
    assert not at.exception, at.exception
    assert "expired" in _states(app_engine, cid)
    # resuming a task that is not paused is refused in words, and no task changes
    before = _states(app_engine, cid)
    at.selectbox(key="task_action").set_value("resume")
    next(b for b in at.button if b.label == "Apply").click().run()
    assert any("not paused" in e.value for e in at.error), [e.value for e in at.error]
    assert "paused" not in _states(app_engine, cid)
    assert _states(app_engine, cid) == before
    assert any(e.label.startswith("Task log") for e in at.expander)
