"""What a new WMT organiser and a crowd study's annotators see, in a real browser (Debian
chromium), one app start for all of it (each step names what it checks):

- an empty install's Campaigns page says "Next: import a campaign" and links there;
- the Statistics page, a campaign with labels: ε saved as 0.03 is marked "recorded, not
  applied" while the box shows the ε in force (0.05); the changes read in words from the
  default in force, on the page and in the dashboard's banner (never a code name or None);
- an ESA^AI item whose output the model called clean says "The AI marked no errors in this
  output" (no "Accept AI spans" and "Every AI span checked" for spans that never were);
- DA in document order: the document-score slider is at the top of its screen, above a
  document of 12 segments, in the first screenful;
- a Prolific study with its fixed codes: a participant whose task failed the attention
  checks is told so, with the fail code and its completion link; one who failed the
  tutorial, and one who finds the study full, are sent to the screen-out URL.

Screenshots (under /tmp/tandem-screenshots unless TANDEM_UPDATE_SCREENSHOTS=1):
walk-next-import.png, walk-statistics-late.png, walk-dashboard-late.png,
walk-esa-ai-clean.png, walk-document-score.png, walk-task-failed.png,
walk-tutorial-screen-out.png, walk-study-full-screen-out.png.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accounts.invites import create_annotator
from annotation.campaign.document_order import set_documents_in_order
from annotation.imports.ai_spans import import_ai_spans
from annotation.judging import save as judging
from annotation.judging.session import next_view
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path
from tests.db.reads.test_campaign import seed_campaign

pytestmark = pytest.mark.browser

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
SHOTS = PROJECT_ROOT / "docs" / "screenshots"
N_SEGMENTS = 12


def _shot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_timeout(300)
    page.screenshot(path=str(screenshot_path(SHOTS / name)), full_page=True)


def _sign_in(page, server: Server, path: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/{path}")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def _esa_ai_clean(server: Server, tmp_path: Path) -> str:
    """An ESA campaign of one output the model called clean (the AI-span file's empty row),
    prefill on; the annotator's invite token."""
    with session_scope(server.engine) as s:
        camp = Campaign(name="esa-ai clean", mode="spans", show_metrics=False,
                        meta={META_KEY: SpanConfig(ask_esa=True).to_meta()})  # fmt: skip
        s.add(camp)
        s.flush()
        sy = System(campaign_id=camp.id, name="sys-a")
        s.add(sy)
        item = Item(campaign_id=camp.id, external_id="i0", source="The cat sits on the mat.")
        s.add(item)
        s.flush()
        s.add(Output(item_id=item.id, system_id=sy.id, text="Die Katze sitzt auf der Matte."))
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=1)
    file = tmp_path / "clean.csv"
    file.write_text("item_id,system,start,end,severity,model\ni0,sys-a,,,,qe-demo\n")
    report = import_ai_spans(server.engine, file, "esa-ai clean", source="qe-demo")
    assert report.clean == 1 and report.spans == 0
    return create_annotator(server.engine, cid, "Esa").token


def _document_waiting(server: Server) -> str:
    """A DA campaign in document order, one document of :data:`N_SEGMENTS` segments, every
    segment scored: the document's score is what the annotator is asked next."""
    with session_scope(server.engine) as s:
        camp = Campaign(name="da long document", mode="da", show_metrics=False)
        s.add(camp)
        s.flush()
        sy = System(campaign_id=camp.id, name="sys-a")
        s.add(sy)
        for g in range(N_SEGMENTS):
            item = Item(campaign_id=camp.id, external_id=f"d.{g}", doc_id="doc0",
                        source=f"This is sentence {g} of a long talk about the sea.")  # fmt: skip
            s.add(item)
            s.flush()
            s.add(Output(item_id=item.id, system_id=sy.id,
                         text=f"Das ist Satz {g} eines langen Vortrags am Meer."))  # fmt: skip
        cid = camp.id
    set_documents_in_order(server.engine, cid, True)
    queue_build.build_queue(server.engine, cid, seed=2)
    invite = create_annotator(server.engine, cid, "Dana")
    view = next_view(server.engine, invite.annotator_id)
    for _ in range(N_SEGMENTS):
        assert view.slot is not None
        view = judging.submit(server.engine, invite.annotator_id, view.slot.assignment_id,
                              view.slot.claim_version, da_score=70.0)  # fmt: skip
    return invite.token


PROLIFIC = "https://app.prolific.com/submissions/complete?cc="


def _prolific_study(server: Server) -> str:
    """A study of one task of 4 items (2 attention checks), Prolific's codes, a one-item
    tutorial and a cap of 2; participant p1 passed the tutorial and failed the task, p2
    failed the tutorial twice. The study link's query."""
    from accounts import study
    from annotation.judging import tutorial
    from annotation.tasks import batches as tasks
    from tests.annotation.queue.test_queue import make_campaign
    from tests.annotation.tasks.test_tasks import _finish_task, _with_attention

    cid = make_campaign(server.engine, 4, 1, name="prolific study", paired=False)
    queue_build.build_queue(server.engine, cid, seed=7)
    _with_attention(server.engine, cid)
    tasks.cut(server.engine, cid, 4)
    tasks.set_settings(server.engine, cid, platform="prolific", pass_code="CPASS1",
                       fail_code="CFAIL1", screen_out_code="CSCREEN")  # fmt: skip
    item = tutorial.TutorialItem("The dog barks.", "Der Hund schläft.", 0, "A meaning error.")
    tutorial.set_tutorial(server.engine, cid, [item])
    link = study.create_study_link(server.engine, cid, "prolific", cap=2)
    p1 = study.enrol(server.engine, link.token, {"PROLIFIC_PID": "p1", "SESSION_ID": "s1"})
    tutorial.answer(server.engine, cid, p1.identity.annotator_id, 0, 0)
    view = _finish_task(server.engine, p1.identity.annotator_id, label=1)  # checks wrong
    assert view.task is not None and view.task.outcome == "fail"
    p2 = study.enrol(server.engine, link.token, {"PROLIFIC_PID": "p2", "SESSION_ID": "s2"})
    for _ in range(2):
        tutorial.answer(server.engine, cid, p2.identity.annotator_id, 0, 1)
    return link.query


def _participant(page, server: Server, query: str, pid: str):  # type: ignore[no-untyped-def]
    """A participant's own browser at the study link; the platform's pages answered by a
    stub (no network here), so a redirect to them can be seen."""
    context = page.context.browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("https://app.prolific.com/**", lambda route: route.fulfill(
        body="<h1>Prolific (stub)</h1>", content_type="text/html"))  # fmt: skip
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    tab.goto(f"{server.url}/{query}&PROLIFIC_PID={pid}&STUDY_ID=st1&SESSION_ID=s{pid[1:]}")
    return context, tab


def test_an_organisers_walk(server: Server, page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    # An empty install: the Campaigns page points at the next step.
    _sign_in(page, server, "campaigns")
    link = page.get_by_role("link", name="Next: import a campaign")
    link.wait_for()
    expect(page.get_by_text("Next: import a campaign.", exact=False).first).to_be_visible()
    _shot(page, "walk-next-import.png")
    link.click()
    page.get_by_role("heading", name="Import").first.wait_for()

    # The Statistics page of a campaign with labels: ε 0.03 saved after labels existed.
    seed_campaign(server.engine, "wmt demo", n_items=40, labelled=30, overlap=0)
    page.goto(f"{server.url}/statistics")
    box = page.get_by_role("spinbutton", name="Equivalence margin ε")
    box.wait_for()
    box.fill("0.03")
    page.get_by_role("button", name="Save statistics settings").click()
    page.get_by_text("Saved. In force").wait_for()
    page.wait_for_selector(IDLE)
    expect(box).to_have_value("0.050")  # the ε in force, not the one typed
    expect(page.get_by_text("recorded, not applied", exact=False).first).to_be_visible()
    body = page.locator("[data-testid='stMain']").inner_text()
    assert "0.03 recorded, not applied (saved after 90 labels)" in body
    assert "equivalence margin ε in force stays 0.05 (the default)" in body
    assert "equivalence margin ε from 0.05 (the default) to 0.03 after 90 labels" in body
    assert "equivalence_margin" not in body and "None" not in body
    box.scroll_into_view_if_needed()  # the box and its note, not only the page's top
    page.wait_for_timeout(300)
    page.screenshot(path=str(screenshot_path(SHOTS / "walk-statistics-late.png")))

    # The dashboard's banner says the same, in words.
    page.goto(f"{server.url}/dashboard")
    banner = "The plan's equivalence margin ε was changed from 0.05 (the default) to 0.03"
    page.get_by_text(banner, exact=False).wait_for(timeout=90_000)
    assert "equivalence_margin" not in page.locator("[data-testid='stMain']").inner_text()
    _shot(page, "walk-dashboard-late.png")

    # ESA^AI: an output the model called clean.
    annotator = page.context.browser.new_context(viewport={"width": 1280, "height": 900})
    tab = annotator.new_page()
    tab.set_default_timeout(30_000)
    tab.goto(f"{server.url}/?token={_esa_ai_clean(server, tmp_path)}")
    tab.get_by_text("The AI marked no errors in this output", exact=False).wait_for()
    main = tab.locator("[data-testid='stMain']").inner_text()
    assert "Every AI span checked" not in main and "Accept AI spans" not in main
    _shot(tab, "walk-esa-ai-clean.png")
    annotator.close()

    # DA in document order: the document's score at the top of its screen.
    annotator = page.context.browser.new_context(viewport={"width": 1280, "height": 900})
    tab = annotator.new_page()
    tab.set_default_timeout(30_000)
    tab.goto(f"{server.url}/?token={_document_waiting(server)}")
    tab.get_by_text("The whole document", exact=True).wait_for()
    slider = tab.locator(".tandem-da-value").first
    slider.wait_for()
    first_segment = tab.get_by_text("Segment 1", exact=True)
    tab.wait_for_selector(IDLE)  # the segments are drawn after the slider above them
    assert tab.locator(".tandem-output").count() == N_SEGMENTS
    top = slider.bounding_box()
    assert top is not None and top["y"] < 900, top  # in the first screenful
    assert top["y"] < first_segment.bounding_box()["y"]  # above the document
    _shot(tab, "walk-document-score.png")
    annotator.close()

    # A Prolific study: a failed task says so and carries the fail code.
    query = _prolific_study(server)
    context, tab = _participant(page, server, query, "p1")
    tab.get_by_text("did not pass the attention checks", exact=False).wait_for()
    assert tab.locator(".tandem-code").inner_text() == "CFAIL1"
    assert tab.locator("a.tandem-handoff").get_attribute("href") == PROLIFIC + "CFAIL1"
    assert "Thank you!" not in tab.locator("[data-testid='stMain']").inner_text()
    _shot(tab, "walk-task-failed.png")
    context.close()
    # A failed tutorial, then a full study: the screen-out URL (its code), then the redirect.
    for pid, said, shot in (("p2", "You did not pass the comprehension check", "tutorial"),
                            ("p3", "This study is full", "study-full")):  # fmt: skip
        context, tab = _participant(page, server, query, pid)
        tab.get_by_text(said, exact=False).wait_for()
        # the page redirects 3 s after drawing: the shot first, then where it went (the
        # link's target; on a busy machine the link may be gone before it could be read)
        tab.screenshot(path=str(screenshot_path(SHOTS / f"walk-{shot}-screen-out.png")))
        tab.wait_for_url(PROLIFIC + "CSCREEN")
        assert tab.get_by_text("Prolific (stub)").is_visible()
        context.close()
