"""A Likert campaign with the comment box and a pre-task form, in a real browser: the form
comes before the first item (a required field left empty saves nothing), its answers are
stored; points are judged with their keys and with the mouse, a comment saved with one;
and an item's video is drawn by the browser's own player from the app's bytes."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.campaign import pretask
from annotation.campaign.guidelines import set_comment_box
from annotation.imports.importer import import_campaign
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Annotator
from formats.forms.likert import parse_scale
from formats.writers import to_csv
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path
from tests.support.images import bundle

pytestmark = pytest.mark.browser
SHOTS = PROJECT_ROOT / "docs" / "screenshots"
CSV = (
    "item_id,source,reference,system,output\n"
    "1,Good morning.,,A,Guten Morgen.\n2,See you.,,A,Bis bald.\n3,Thanks.,,A,Danke.\n"
)
FORM = {
    "intro": "Two questions before you start.",
    "fields": [
        {"name": "native_language", "label": "Your native language", "type": "text",
         "required": True},
        {"name": "level", "label": "Your German", "type": "choice",
         "choices": ["B2", "C1", "C2 / native"]},
    ],
}  # fmt: skip
#: An MP4's first box (ftyp): enough for the import's check and a <video> element.
MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"\x00" * 64


def _scores(server: Server) -> list[tuple[float | None, str | None]]:
    with session_scope(server.engine) as s:
        rows = s.execute(select(Annotation.da_score, Annotation.comment).order_by(Annotation.id))
        return [tuple(r) for r in rows]


def _wait(page, server: Server, n: int) -> list:  # type: ignore[no-untyped-def]
    for _ in range(120):
        got = _scores(server)
        if len(got) >= n:
            return got
        page.wait_for_timeout(500)
    return _scores(server)


def test_form_then_likert_with_keys_mouse_and_comment(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    scale = parse_scale("5:bad,poor,fair,good,excellent")
    cid = import_campaign(server.engine, CSV.encode(), "lik", filename="lik.csv",
                          settings={"mode": "da", "likert": scale}).campaign_id  # fmt: skip
    queue_build.build_queue(server.engine, cid, seed=3)
    set_comment_box(server.engine, cid, True)
    pretask.set_form(server.engine, cid, FORM)
    token = create_annotator(server.engine, cid, "Ana").token

    page.goto(f"{server.url}/?token={token}")
    expect(page.get_by_text("Before you start: a few questions")).to_be_visible(timeout=60_000)
    assert page.locator(".st-key-likert_0").count() == 0  # no item before the form
    page.get_by_role("button", name="Save and continue").click()  # required field empty
    expect(page.get_by_text("needs an answer", exact=False)).to_be_visible(timeout=60_000)
    with session_scope(server.engine) as s:
        assert s.scalar(select(Annotator.form_answers)) is None
    page.get_by_label("Your native language").fill("Czech")
    page.get_by_label("Your German").click()
    page.keyboard.type("C1")
    page.get_by_role("option", name="C1").click(timeout=60_000)
    page.screenshot(path=str(screenshot_path(SHOTS / "annotate-pretask-form.png")), full_page=True)
    page.get_by_role("button", name="Save and continue").click()

    expect(page.locator(".st-key-likert_4 button")).to_be_visible(timeout=60_000)
    with session_scope(server.engine) as s:
        assert s.scalar(select(Annotator.form_answers)) == {
            "native_language": "Czech", "level": "C1"}  # fmt: skip
    assert "excellent" in page.locator(".st-key-likert_4 button").inner_text()
    page.screenshot(path=str(screenshot_path(SHOTS / "annotate-likert.png")), full_page=True)
    page.wait_for_timeout(500)
    page.keyboard.press("4")  # point 4 of 5, by its key
    assert _wait(page, server, 1) == [(75.0, None)]

    box = page.get_by_label("Comment (optional)")
    expect(page.get_by_text("You: 1 judged", exact=False)).to_be_visible(timeout=60_000)
    # the run that draws the next item done: until then the last item's box is still shown
    page.wait_for_selector(IDLE)
    expect(box).to_have_count(1, timeout=60_000)
    expect(box).to_have_value("", timeout=60_000)
    box.fill("the greeting is too formal")
    box.press("Tab")  # the text input commits on blur
    page.wait_for_timeout(800)
    page.locator(".st-key-likert_1 button").click()  # point 2 of 5, by the mouse
    assert _wait(page, server, 2) == [(75.0, None), (25.0, "the greeting is too formal")]
    expect(page.get_by_text("You: 2 judged", exact=False)).to_be_visible(timeout=60_000)
    page.screenshot(path="/tmp/likert-after.png", full_page=True)


def test_an_items_video_is_drawn_from_the_app(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    header = ["item_id", "source", "reference", "system", "output", "image"]
    rows = [{"item_id": "1", "source": "Subtitle the clip.", "reference": "", "system": "A",
             "output": "Hallo zusammen.", "image": "clips/hello.mp4"}]  # fmt: skip
    data = bundle("c.csv", to_csv(header, rows), {"clips/hello.mp4": MP4})
    cid = import_campaign(server.engine, data, "vid", filename="vid.zip").campaign_id
    queue_build.build_queue(server.engine, cid, seed=1)
    token = create_annotator(server.engine, cid, "Ben").token
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url)
            if not r.url.removeprefix("blob:").startswith(server.url)
            and "materialsymbols" not in r.url else None)  # fmt: skip
    page.goto(f"{server.url}/?token={token}")
    video = page.locator(".st-key-tandem-item-instructions video")
    video.wait_for(timeout=60_000)
    src = video.get_attribute("src") or ""
    assert src.startswith(("/", server.url)), src  # the app's own media endpoint
    assert outside == [], outside
    page.screenshot(path="/tmp/item-video.png", full_page=True)
