"""A Prolific-style crowd study through one study link (issue 31), in chromium: tasks with
attention checks spread evenly, 11 participants with distinct PROLIFIC_PIDs (3 in the
browser through the real link — one finishing and handed off with its code, one leaving
mid-task and resuming in a fresh browser, one trying to enrol a second time — and 8 through
the same enrolment function the link calls), codes shown equal to the stored ones, hand-off
URLs carrying them, the tutorial's comprehension check failed once and passed at the second
attempt, a return after the hand-off not redirected again, and the export
carrying every participant id."""

from __future__ import annotations

import csv
import io
import re

import pytest
from sqlalchemy import select

from accounts import study
from annotation.judging import save as judging
from annotation.judging import session, tutorial
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from annotation.tasks import batches as tasks
from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System, Task
from tests.browser.conftest import Server
from tests.browser.test_annotate_browser import _output_text, _press_and_wait
from tests.browser.test_tasks_browser import platform  # noqa: F401  (the fixture)

SHOTS = "/tmp/shots-wt-crowd"


def _seed(server: Server, handoff: str) -> str:
    with session_scope(server.engine) as s:
        camp = Campaign(name="TED crowd (internal)", attention_rate=0.2, overlap=0.0,
                        show_metrics=False)  # fmt: skip
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in ("sys-a", "sys-b")]
        s.add_all(systems)
        for j in range(24):
            item = Item(campaign_id=camp.id, external_id=str(j),
                        source=f"Source sentence number {j} of the talk.")  # fmt: skip
            s.add(item)
            s.flush()
            s.add_all(
                Output(item_id=item.id, system_id=sy.id,
                       text=f"Ausgabe {k} für den Satz Nummer {j} aus dem Vortrag.")
                for k, sy in enumerate(systems)
            )  # fmt: skip
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=5)
    tasks.cut(server.engine, cid, 5)
    tasks.set_settings(server.engine, cid, per_annotator=1, handoff_url=handoff)
    tutorial.set_tutorial(
        server.engine,
        cid,
        [
            tutorial.TutorialItem(
                "The dog barks.",
                "Der Hund schläft.",
                0,
                "'barks' became 'sleeps': a meaning error.",
            )
        ],
    )
    return study.create_study_link(server.engine, cid, "prolific", cap=20).query


def _link(server: Server, query: str, pid: str, sess: str) -> str:
    return f"{server.url}/{query}&PROLIFIC_PID={pid}&STUDY_ID=ted-1&SESSION_ID={sess}"


def _left(page) -> int:  # type: ignore[no-untyped-def]
    text = page.get_by_text(re.compile(r"\d+ of \d+ left in this task")).inner_text()
    return int(re.search(r"(\d+) of \d+ left", text).group(1))  # type: ignore[union-attr]


def _judge(page, n: int | None = None) -> None:  # type: ignore[no-untyped-def]
    """Judge ``n`` screens with the keys (all: until the task's code shows)."""
    done = 0
    while n is None or done < n:
        page.locator(".tandem-output").first.wait_for()
        if _left(page) == 1:
            page.wait_for_function("window.__tandemKeysInstalled === true")
            page.keyboard.press("i")
            page.locator(".tandem-code").wait_for()
            return
        _press_and_wait(page, "i", _output_text(page))
        done += 1


def _stored_codes(server: Server) -> dict[str, str]:
    from db.schema.models import Annotator

    with session_scope(server.engine) as s:
        rows = s.execute(
            select(Annotator.name, Task.completion_code)
            .join(Task, Task.annotator_id == Annotator.id)
            .where(Task.state == "done")
        ).all()
    return {name: code for name, code in rows}


@pytest.mark.browser
def test_prolific_study_through_one_link(server: Server, page, platform: str) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    query = _seed(server, f"{platform}/complete?cc={{code}}")
    token = query.removeprefix("?study=")
    browser = page.context.browser

    # 8 participants through the enrolment the link calls, each finishing a task
    codes = {}
    for k in range(8):
        e = study.enrol(server.engine, token, {"PROLIFIC_PID": f"P{k:02d}", "STUDY_ID": "ted-1",
                                               "SESSION_ID": f"S{k}"})  # fmt: skip
        ann = e.identity.annotator_id
        # the tutorial first: every action of an unpassed annotator is refused
        tutorial.answer(server.engine, _campaign_id(server), ann, 0, 0)
        view = session.next_view(server.engine, ann)
        while view.slot is not None:
            view = judging.submit(server.engine, ann, view.slot.assignment_id,
                                  view.slot.claim_version, label=0)  # fmt: skip
        assert view.task is not None and view.task.code
        codes[f"P{k:02d}"] = view.task.code

    # A: the whole path in chromium: the tutorial failed once, passed at the second attempt,
    # the task, handed off with the code
    page.goto(_link(server, query, "PA", "SA"))
    page.get_by_role("button", name="Adequate", exact=True).click()
    page.get_by_text("Not quite").wait_for()
    page.get_by_role("button", name="Try again").click()
    page.get_by_text("second attempt").wait_for()
    page.get_by_role("button", name="Inadequate").click()
    page.get_by_text("You passed the tutorial").wait_for()
    page.screenshot(path=f"{SHOTS}/study-tutorial.png", full_page=True)
    page.get_by_role("button", name="Start the task").click()
    _judge(page)
    code = page.locator(".tandem-code").inner_text().strip()
    href = page.locator("a.tandem-handoff").get_attribute("href")
    assert href == f"{platform}/complete?cc={code}"
    page.screenshot(path=f"{SHOTS}/study-code.png", full_page=True)
    page.wait_for_url(f"{platform}/complete?cc={code}", timeout=15_000)
    codes["PA"] = code
    # A comes back by the same link: the code again, and no second redirect
    page.goto(_link(server, query, "PA", "SA"))
    page.get_by_text("You have completed task").wait_for()
    assert page.locator(".tandem-code").inner_text().strip() == code
    page.get_by_text("nothing more for you to do").wait_for()
    page.wait_for_timeout(3_500)  # past the hand-off's 3 s
    assert page.url.startswith(server.url)
    page.screenshot(path=f"{SHOTS}/study-returned.png", full_page=True)

    # B: leaves mid-task and resumes in a fresh browser
    b1 = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    b1.goto(_link(server, query, "PB", "SB"))
    b1.get_by_role("button", name="Inadequate").click()
    b1.get_by_role("button", name="Start the task").click()
    b1.locator(".tandem-output").first.wait_for()
    before = _left(b1)
    _judge(b1, 1)
    b1.context.close()
    b2 = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    b2.goto(_link(server, query, "PB", "SB"))
    b2.locator(".tandem-output").first.wait_for()
    assert _left(b2) == before - 1  # the same task, one screen further
    b2.screenshot(path=f"{SHOTS}/study-resumed.png", full_page=True)
    _judge(b2)
    codes["PB"] = b2.locator(".tandem-code").inner_text().strip()

    # C: a participant id already enrolled, with another session: refused
    c = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    c.goto(_link(server, query, "P03", "S-second"))
    c.get_by_text("already taken part in this study").wait_for()
    assert c.locator(".tandem-output").count() == 0
    c.screenshot(path=f"{SHOTS}/study-twice.png", full_page=True)

    assert _stored_codes(server) == codes  # every code shown is the stored one
    assert len(codes) == 10 and len(set(codes.values())) == 10
    status = study.study_link_status(server.engine, _campaign_id(server))
    assert status.participants == 10  # C was not enrolled a second time
    results = tutorial.results(server.engine, _campaign_id(server))
    assert results[aid_of(server, "PA")] == "passed (attempt 2, 1/1)"
    assert results[aid_of(server, "PB")] == "passed (attempt 1, 1/1)"
    rows = csv.DictReader(io.StringIO(
        export_annotations(server.engine, "TED crowd (internal)", "csv").decode()
    ))  # fmt: skip
    assert {r["participant_id"] for r in rows} == set(codes)


def aid_of(server: Server, name: str) -> int:
    from db.schema.models import Annotator

    with session_scope(server.engine) as s:
        return s.scalar(select(Annotator.id).where(Annotator.name == name))  # type: ignore[return-value]


def _campaign_id(server: Server) -> int:
    with session_scope(server.engine) as s:
        return s.scalar(select(Campaign.id))  # type: ignore[return-value]
