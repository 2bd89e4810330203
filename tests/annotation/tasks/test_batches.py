"""Crowd tasks' settings on real SQLite and PostgreSQL: the idle expiry a study link brings
when none was set (a participant who closes the tab frees their task), a warning when it
was set to never; pass and fail codes that must differ, Prolific's fixed completion codes
and URL, and the screen-out URL of a failed tutorial or a full study."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import Engine

from accounts import study
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.tasks import admin as task_admin
from annotation.tasks import batches as tasks
from db.clock import utcnow
from tests.annotation.queue.test_queue import make_campaign
from tests.annotation.tasks.test_tasks import _finish_task, _with_attention

PROLIFIC = "https://app.prolific.com/submissions/complete?cc={code}"


def _held_task(engine: Engine, *, link: bool, name: str = "c") -> int:
    """A campaign cut into tasks, one of them taken (and left) by a participant; its id."""
    cid = make_campaign(engine, 4, 1, name=name, paired=False)
    queue_build.build_queue(engine, cid, seed=3)
    tasks.cut(engine, cid, 2)
    if link:
        issued = study.create_study_link(engine, cid, "prolific")
        who = study.enrol(engine, issued.token, {"PROLIFIC_PID": "p1", "SESSION_ID": "s1"})
        annotator = who.identity.annotator_id
    else:
        from accounts.invites import create_annotator

        annotator = create_annotator(engine, cid, "ann").annotator_id
    view = session.next_view(engine, annotator)  # takes a task, then closes the tab
    assert view.task is not None and view.task.state == "active"
    return cid


def _states(engine: Engine, cid: int, minutes: int) -> Counter:
    later = utcnow() + timedelta(minutes=minutes)
    return Counter(r.state for r in task_admin.list_tasks(engine, cid, now=later))


def test_a_study_link_gives_idle_tasks_a_default_expiry(engine: Engine) -> None:
    cid = _held_task(engine, link=True)
    assert tasks.settings(engine, cid).timeout_min is None  # never set
    assert _states(engine, cid, tasks.DEFAULT_STUDY_IDLE_MIN - 1)["active"] == 1
    assert _states(engine, cid, tasks.DEFAULT_STUDY_IDLE_MIN + 1)["expired"] == 1
    warn, note = tasks.study_idle_note(engine, cid)
    assert not warn and f"A task idle for {tasks.DEFAULT_STUDY_IDLE_MIN} min expires" in note


def test_without_a_study_link_or_set_to_never_tasks_stay_held(engine: Engine) -> None:
    cid = _held_task(engine, link=False)
    assert _states(engine, cid, 10_000)["active"] == 1  # an invite's annotator: as before
    cid = _held_task(engine, link=True, name="study")
    tasks.set_settings(engine, cid, timeout_min=0)  # never, chosen
    assert _states(engine, cid, 10_000)["active"] == 1
    warn, note = tasks.study_idle_note(engine, cid)
    assert warn and note.startswith("Tasks never expire")
    tasks.set_settings(engine, cid, timeout_min=15)
    assert _states(engine, cid, 16)["expired"] == 1


def test_pass_and_fail_codes_must_differ(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1)
    with pytest.raises(tasks.TaskError, match="the pass and the fail code are the same"):
        tasks.set_settings(engine, cid, pass_code="C0DE1", fail_code="C0DE1")
    with pytest.raises(tasks.TaskError, match="prolific checks each submission"):
        tasks.set_settings(engine, cid, platform="prolific")  # generated codes: refused there
    with pytest.raises(tasks.TaskError, match="unknown platform 'mturk2'"):
        tasks.set_settings(engine, cid, platform="mturk2")
    with pytest.raises(tasks.TaskError, match="screen-out URL has no placeholder"):
        tasks.set_settings(engine, cid, screen_out_url="https://example.org/out?c={code}")
    assert tasks.settings(engine, cid) == tasks.TaskSettings()  # nothing written


@pytest.mark.parametrize("label, outcome, code", [(0, "pass", "CPASS1"), (1, "fail", "CFAIL1")])
def test_prolific_codes_and_screen_out(engine: Engine, label: int, outcome: str, code: str) -> None:
    cid = make_campaign(engine, 4, 1, paired=False)
    queue_build.build_queue(engine, cid, seed=7)
    _with_attention(engine, cid)
    tasks.cut(engine, cid, 4)
    conf = tasks.set_settings(engine, cid, platform="prolific", pass_code="CPASS1",
                              fail_code="CFAIL1", screen_out_code="CSCREEN")  # fmt: skip
    assert conf.handoff_url == PROLIFIC  # the platform's completion URL
    assert conf.screen_out == PROLIFIC.replace("{code}", "CSCREEN")
    from accounts.invites import create_annotator

    view = _finish_task(engine, create_annotator(engine, cid, "ann").annotator_id, label=label)
    assert view.task is not None and view.task.outcome == outcome and view.task.code == code
    assert view.task.handoff_url == PROLIFIC.replace("{code}", code)
    own = tasks.set_settings(engine, cid, screen_out_url="https://example.org/screened-out")
    assert own.screen_out == "https://example.org/screened-out"  # its own URL first


def test_a_full_study_names_its_campaign_for_the_screen_out(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1)
    link = study.create_study_link(engine, cid, "prolific", cap=1)
    study.enrol(engine, link.token, {"PROLIFIC_PID": "p1", "SESSION_ID": "s1"})
    with pytest.raises(study.StudyRefused, match="This study is full") as refused:
        study.enrol(engine, link.token, {"PROLIFIC_PID": "p2", "SESSION_ID": "s2"})
    assert refused.value.screen_out_of == cid
