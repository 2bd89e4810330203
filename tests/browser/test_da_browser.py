"""End to end in a real browser (Debian chromium): a DA campaign. Set the slider with keys,
reload mid-item (the unsaved score comes back), save with Enter; set the next one with the
mouse and the save button; the database holds both scores on the 0–100 scale."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.campaign.document_order import set_documents_in_order
from annotation.judging import comparative
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.document_models import DocumentScore
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path

SINGLE = PROJECT_ROOT / "docs" / "screenshots" / "da-single.png"
ITEMS = [
    ("The cat sits on the mat today.", "Die Katze sitzt heute auf der Matte."),
    ("Good morning, everyone.", "Guten Morgen, alle zusammen."),
    ("It rains.", "<b>Es regnet.</b>"),
]


def _seed(server: Server, mode: str = "da") -> str:
    with session_scope(server.engine) as s:
        camp = Campaign(name="da demo", mode=mode, show_metrics=False)
        s.add(camp)
        s.flush()
        sy = System(campaign_id=camp.id, name="secret-system")
        s.add(sy)
        for j, (src, out) in enumerate(ITEMS):
            item = Item(campaign_id=camp.id, external_id=str(j), source=src)
            s.add(item)
            s.flush()
            s.add(Output(item_id=item.id, system_id=sy.id, text=out))
        cid = camp.id
    queue_build.build_queue(server.engine, cid, seed=1)
    return create_annotator(server.engine, cid, "Ana").token


#: The page shows a slider whose score is not set yet (a new item or screen drawn).
UNSET = "document.querySelector('.tandem-da-value')?.textContent === 'not set'"


def shows(page, text: str, index: int = 0) -> None:  # type: ignore[no-untyped-def]
    """Wait until the index-th slider reads `text`; null-safe, since after a reload the slider
    is drawn a moment after the rest of the page (a bare querySelector would throw, not wait)."""
    page.wait_for_function(
        f"document.querySelectorAll('.tandem-da-value')[{index}]?.textContent === {text!r}"
    )


def scores(server: Server) -> list[float | None]:
    with session_scope(server.engine) as s:
        return list(s.scalars(select(Annotation.da_score).order_by(Annotation.id)))


def wait_rows(page, server: Server, n: int) -> list[float | None]:  # type: ignore[no-untyped-def]
    for _ in range(200):
        got = scores(server)
        if len(got) >= n:
            return got
        page.wait_for_timeout(50)
    raise AssertionError(f"{n} judgments expected, have {scores(server)}")


def output_text(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator(".tandem-output").first.inner_text()


@pytest.mark.browser
def test_da_slider_keys_reload_mouse(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = _seed(server)
    page.goto(f"{server.url}/?token={token}")
    value = page.locator(".tandem-da-value")
    value.wait_for()
    assert value.inner_text() == "not set"
    first = output_text(page)
    page.keyboard.press("Enter")  # nothing set: refused in the page, nothing sent
    page.get_by_text("Set the score first").wait_for()
    page.keyboard.press("7")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert value.inner_text() == "79"
    page.screenshot(path=screenshot_path(SINGLE), full_page=True)

    page.reload()
    value = page.locator(".tandem-da-value")
    value.wait_for()
    assert output_text(page) == first  # the same item, its unsaved score back
    shows(page, "79")
    page.keyboard.press("Enter")
    assert wait_rows(page, server, 1) == [79.0]

    page.wait_for_function(
        f"document.querySelector('.tandem-output') && "
        f"document.querySelector('.tandem-output').innerText !== {first!r}"
    )
    shows(page, "not set")
    box = page.locator(".tandem-da-input").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.25, box["y"] + box["height"] / 2)
    got = int(page.locator(".tandem-da-value").inner_text())
    assert 15 <= got <= 35
    page.locator(".tandem-da-save").click()
    assert wait_rows(page, server, 2)[1] == float(got)


COMPARE = PROJECT_ROOT / "docs" / "screenshots" / "da-compare.png"


def _seed_compare(server: Server) -> str:
    with session_scope(server.engine) as s:
        camp = Campaign(name="da compare", mode="da", show_metrics=False)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"secret-{k}") for k in range(3)]
        s.add_all(systems)
        for j in range(2):
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source sentence {j}.",
                        reference=f"Reference {j}.")  # fmt: skip
            s.add(item)
            s.flush()
            s.add_all(Output(item_id=item.id, system_id=sy.id, text=f"Ausgabe {j} von Modell {k}.")
                      for k, sy in enumerate(systems))  # fmt: skip
        cid = camp.id
    comparative.set_comparative(server.engine, cid, True)
    queue_build.build_queue(server.engine, cid, seed=5)
    return create_annotator(server.engine, cid, "Ana").token


def shown_values(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator(".tandem-da-value").all_inner_texts()


@pytest.mark.browser
def test_da_comparative_screen(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = _seed_compare(server)
    page.goto(f"{server.url}/?token={token}")
    page.locator(".tandem-da-value").nth(2).wait_for()
    assert shown_values(page) == ["not set"] * 3
    page.keyboard.press("8")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("6")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Enter")  # one output not set: nothing is sent
    page.get_by_text("Set every output's score first (1 not set)").wait_for()
    assert shown_values(page) == ["80", "70", "not set"]
    assert scores(server) == []

    page.reload()
    page.locator(".tandem-da-value").nth(2).wait_for()
    shows(page, "70", 1)
    assert shown_values(page) == ["80", "70", "not set"]  # the draft came back
    box = page.locator(".tandem-da-input").nth(2).bounding_box()  # the third with the mouse
    page.mouse.click(box["x"] + box["width"] * 0.1, box["y"] + box["height"] / 2)
    third = int(shown_values(page)[2])
    assert third <= 20
    page.screenshot(path=screenshot_path(COMPARE), full_page=True)
    page.keyboard.press("Enter")
    assert wait_rows(page, server, 3) == [80.0, 70.0, float(third)]
    with session_scope(server.engine) as s:
        places = s.execute(select(Annotation.screen_position, Annotation.screen_size)
                           .order_by(Annotation.id)).all()  # fmt: skip
    assert places == [(0, 3), (1, 3), (2, 3)]
    page.wait_for_function(UNSET)


DOCUMENT = PROJECT_ROOT / "docs" / "screenshots" / "da-document.png"


def _seed_documents(server: Server) -> str:
    with session_scope(server.engine) as s:
        camp = Campaign(name="da documents", mode="da", show_metrics=False)
        s.add(camp)
        s.flush()
        sy = System(campaign_id=camp.id, name="secret-system")
        s.add(sy)
        for d in range(3):
            for g in range(2):
                item = Item(campaign_id=camp.id, external_id=f"{d}.{g}", doc_id=f"doc{d}",
                            source=f"Document {d}, sentence {g}.")  # fmt: skip
                s.add(item)
                s.flush()
                s.add(Output(item_id=item.id, system_id=sy.id, text=f"Dokument {d}, Satz {g}."))
        cid = camp.id
    set_documents_in_order(server.engine, cid, True)
    queue_build.build_queue(server.engine, cid, seed=2)
    return create_annotator(server.engine, cid, "Ana").token


def doc_scores(server: Server) -> list[tuple[str, float]]:
    with session_scope(server.engine) as s:
        return s.execute(select(DocumentScore.doc_id, DocumentScore.score)
                         .order_by(DocumentScore.id)).all()  # fmt: skip


@pytest.mark.browser
def test_da_document_score_after_the_last_segment(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = _seed_documents(server)
    page.goto(f"{server.url}/?token={token}")
    for n, key in enumerate(("6", "8"), start=1):  # the document's two segments
        page.wait_for_function(UNSET)
        page.keyboard.press(key)
        page.keyboard.press("Enter")
        wait_rows(page, server, n)
    from playwright.sync_api import expect

    page.get_by_text("The whole document", exact=True).wait_for()
    # The heading is drawn before the outputs under it: wait for both, not count at once.
    expect(page.locator(".tandem-output")).to_have_count(2)  # the document shown whole
    page.wait_for_function(UNSET)
    page.keyboard.press("7")
    page.keyboard.press("Shift+ArrowRight")
    page.reload()
    page.get_by_text("The whole document", exact=True).wait_for()
    shows(page, "80")
    page.screenshot(path=screenshot_path(DOCUMENT), full_page=True)
    page.keyboard.press("Enter")
    for _ in range(200):
        if doc_scores(server):
            break
        page.wait_for_timeout(50)
    ((doc, score),) = doc_scores(server)
    assert score == 80.0 and doc.startswith("doc")
    page.get_by_text("The whole document", exact=True).wait_for(state="detached")
    page.wait_for_function(UNSET)
    assert scores(server) == [60.0, 80.0]


@pytest.mark.browser
def test_sqm_takes_the_seven_points(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/?token={_seed(server, 'sqm')}")
    page.wait_for_function(UNSET)
    page.get_by_text("4 Most meaning preserved and few grammar mistakes").wait_for()
    page.keyboard.press("9")  # not a point of the scale: nothing set
    assert page.locator(".tandem-da-value").inner_text() == "not set"
    page.keyboard.press("4")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    assert page.locator(".tandem-da-value").inner_text() == "5"
    page.keyboard.press("Enter")
    assert wait_rows(page, server, 1) == [pytest.approx(500 / 6)]
