"""Documents judged in order in a real browser: the admin switches it on on the Annotators
page (the queue is re-drawn in document blocks); an annotator then judges one system's
document segment by segment with the keys, sees "Document d — segment i of n" and the
earlier segments of the same system above each one, and after the first label the switch
is locked with its reason."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.campaign import document_order
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_annotate_browser import _output_text, _press_and_wait

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "annotate-document-order.png"
SWITCH = "Judge documents in order (the document is the sampling unit)"
TALK = [  # one talk, in order: (source, system A, system B)
    ("Thank you so much, Chris.", "Vielen Dank, Chris.", "Danke sehr viel, Chris."),
    ("It's truly a great honour to be here.", "Es ist mir eine große Ehre, hier zu sein.",
     "Es ist wirklich große Ehre hier."),
    ("I have been blown away by this conference.", "Diese Konferenz hat mich umgehauen.",
     "Ich wurde von dieser Konferenz weggeblasen."),
    ("I want to thank all of you.", "Ich möchte Ihnen allen danken.",
     "Ich will danken euch allen."),
]  # fmt: skip


def _seed(server: Server) -> tuple[int, dict[str, tuple[int, int]]]:
    """The talk for two systems, unpaired (a block is one system's talk), queue built in
    segment order; returns the campaign id and output text → (segment, system)."""
    where: dict[str, tuple[int, int]] = {}
    with session_scope(server.engine) as s:
        camp = Campaign(name="TED talk in order", attention_rate=0.0, overlap=0.0, paired=False)
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
    queue_build.build_queue(server.engine, cid, seed=4)
    return cid, where


def _switch_on(server: Server, page, cid: int) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/annotators")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text(SWITCH).wait_for()
    page.get_by_text(SWITCH).click()
    page.get_by_role("button", name="Save document order").click()
    for _ in range(100):  # the save reruns the page
        if document_order.document_order_status(server.engine, cid).on:
            break
        page.wait_for_timeout(200)
    assert document_order.document_order_status(server.engine, cid).on


def _visible_context(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.inner_text() for e in page.locator(".tandem-context-output").all() if e.is_visible()]


def _settled_output(page, where: dict[str, tuple[int, int]]) -> str:  # type: ignore[no-untyped-def]
    """The output text once the item and its counter agree. While a redraw is under way the
    page can show the new output beside the old counter (or the other way round); reading
    the two apart would pair them wrongly."""
    segment = {text: j + 1 for text, (j, _) in where.items()}
    page.wait_for_function(
        "([segment, n]) => { const o = document.querySelector('.tandem-output');"
        " const c = document.querySelector('.tandem-doc-counter');"
        " const j = o && segment[o.innerText];"
        " return Boolean(j && c && c.innerText.includes(`segment ${j} of ${n}`)); }",
        arg=[segment, len(TALK)],
    )
    return _output_text(page)


@pytest.mark.browser
def test_a_document_judged_in_order_with_keys(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    cid, where = _seed(server)
    _switch_on(server, page, cid)
    token = create_annotator(server.engine, cid, "Ana").token
    page.goto(f"{server.url}/?token={token}")
    page.locator(".tandem-output").first.wait_for()
    seen: list[tuple[int, int]] = []
    for n in range(len(where)):
        shown = _settled_output(page, where)
        j, k = where[shown]
        seen.append((j, k))
        counter = page.locator(".tandem-doc-counter").inner_text()
        assert counter == f"Document talk1 — segment {j + 1} of {len(TALK)}", counter
        assert _visible_context(page) == [TALK[i][1 + k] for i in range(j)][-3:]
        body = page.locator("body").inner_text()
        assert "sys-alpha" not in body and "sys-beta" not in body
        if n == 2:  # the third segment: counter, two earlier segments, the item
            page.set_viewport_size({"width": 1280, "height": 1200})
            page.wait_for_timeout(300)
            page.screenshot(path=str(screenshot_path(SCREENSHOT)))
        if n < len(where) - 1:
            _press_and_wait(page, "a" if n % 2 else "i", shown)
        else:
            page.keyboard.press("a")
            page.get_by_text("Nothing left for you").wait_for()
    # one system's talk in order, then the other's: segments 1..n twice, one system each
    assert [j for j, _ in seen] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert len({k for _, k in seen[:4]}) == 1 and len({k for _, k in seen[4:]}) == 1
    with session_scope(server.engine) as s:
        labels = s.scalars(select(Annotation.label).where(Annotation.kind == "label")).all()
    assert labels == [0, 1, 0, 1, 0, 1, 0, 1]
    status = document_order.document_order_status(server.engine, cid)
    assert status.on and status.locked and "before the first label" in status.locked
    # the Annotators page now shows the switch locked, with the reason (a fresh browser
    # context: this one is the annotator's session)
    admin = page.context.browser.new_context().new_page()
    admin.goto(f"{server.url}/annotators")
    admin.get_by_label("Admin password").fill(PASSWORD)
    admin.get_by_role("button", name="Sign in").click()
    admin.get_by_text(SWITCH).wait_for()
    admin.wait_for_selector(IDLE)  # the caption under the switch is drawn after it
    assert admin.get_by_role("switch", name=SWITCH).is_disabled()
    locked = re.compile(r"Cannot be switched now: the campaign has 8 labels already")
    assert admin.get_by_text(locked).count() == 1
    admin.context.close()
