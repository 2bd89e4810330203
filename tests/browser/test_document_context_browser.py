"""Document context in a real browser: the document's earlier segments (source and the same
system's output) show above the output, the ones beyond the window collapsed, system names
hidden, and the keys still label."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.campaign import context
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_annotate_browser import _output_text, _press_and_wait

SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "annotate-document-context.png"
TALK = [  # one talk, in order: (source, system A, system B)
    ("Thank you so much, Chris.", "Vielen Dank, Chris.", "Danke sehr viel, Chris."),
    ("It's truly a great honour to be here.", "Es ist mir eine große Ehre, hier zu sein.",
     "Es ist wirklich große Ehre hier."),
    ("I have been blown away by this conference.", "Diese Konferenz hat mich umgehauen.",
     "Ich wurde von dieser Konferenz weggeblasen."),
    ("I want to thank all of you.", "Ich möchte Ihnen allen danken.",
     "Ich will danken euch allen."),
    ("<b>Put yourself</b> in my position.", "Versetzen Sie sich in meine Lage.",
     "Stellen Sie sich in meine Position."),
    ("That is the point of the story.", "Das ist der Sinn der Geschichte.",
     "Das ist der Punkt der Geschichte."),
]  # fmt: skip
WINDOW = 2


def _seed(server: Server) -> tuple[str, dict[str, tuple[int, int]]]:
    """The talk for two systems; returns the token and output text → (segment, system)."""
    engine = server.engine
    where: dict[str, tuple[int, int]] = {}
    with session_scope(engine) as s:
        camp = Campaign(name="TED talk en-de", attention_rate=0.0, overlap=0.0)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in ("sys-alpha", "sys-beta")]
        s.add_all(systems)
        s.flush()
        for j, (src, *outs) in enumerate(TALK):
            item = Item(campaign_id=camp.id, external_id=f"seg{j}", source=src, doc_id="talk1")
            s.add(item)
            s.flush()
            for k, (sy, text) in enumerate(zip(systems, outs, strict=True)):
                s.add(Output(item_id=item.id, system_id=sy.id, text=text))
                where[text] = (j, k)
        cid = camp.id
    queue_build.build_queue(engine, cid, seed=4)
    context.set_document_context(engine, cid, True, window=WINDOW)
    return create_annotator(engine, cid, "Ana").token, where


def _context_outputs(page) -> list[str]:  # type: ignore[no-untyped-def]
    """The context outputs the annotator can see (a closed expander's are not)."""
    return [e.inner_text() for e in page.locator(".tandem-context-output").all() if e.is_visible()]


@pytest.mark.browser
def test_context_shows_and_keys_still_label(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token, where = _seed(server)
    page.goto(f"{server.url}/?token={token}")
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(".st-key-adequate button")
    shown, seen_collapsed = _output_text(page), False
    for _ in range(len(where) - 1):
        j, k = where[shown]
        page.wait_for_timeout(200)
        visible = _context_outputs(page)
        assert visible == [TALK[i][1 + k] for i in range(j)][-WINDOW:], (j, k, visible)
        expander = page.get_by_text("earlier segment(s) of this document")
        assert expander.count() == (1 if j > WINDOW else 0)
        body = page.locator("body").inner_text()
        assert "sys-alpha" not in body and "sys-beta" not in body
        assert page.locator(".tandem-context-source b").count() == 0  # literal, not HTML
        if j > WINDOW and not seen_collapsed:  # open the expander: the earlier ones, in order
            page.set_viewport_size({"width": 1280, "height": 1300})  # the item fits too
            page.wait_for_timeout(300)
            page.screenshot(path=str(screenshot_path(SCREENSHOT)))
            expander.first.click()
            page.wait_for_timeout(300)
            assert _context_outputs(page) == [TALK[i][1 + k] for i in range(j)]
            seen_collapsed = True
        shown = _press_and_wait(page, "a", shown)  # the key still labels
    assert seen_collapsed
    with session_scope(server.engine) as s:
        labels = s.scalars(select(Annotation.label).where(Annotation.kind == "label")).all()
    assert labels == [1] * (len(where) - 1)
