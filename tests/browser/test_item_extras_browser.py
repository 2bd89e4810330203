"""An item's own instructions and image in a real browser: the markdown is drawn (bold, a
list) with its HTML-looking text literal, the image comes from the app itself (no request
leaves the server but Streamlit's own page icon), on the label screen and on the span screen."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Campaign, CampaignImage
from formats.writers import to_csv
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.support.images import bundle, png

pytestmark = pytest.mark.browser
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "annotate-item-instructions.png"
HEADER = ["item_id", "source", "reference", "system", "output", "instructions", "image"]
INSTRUCTIONS = "Keep the **formal** register.\n\n- the sign reads a < b\n- names stay as they are"


def _seed(server: Server, mode: str) -> str:
    rows = [
        ["1", "Describe the sign.", "", "A", "Ein rotes Schild.", INSTRUCTIONS, "img/sign.png"],
        ["1", "Describe the sign.", "", "B", "Ein Schild, rot.", "", ""],
    ]
    data = to_csv(HEADER, [dict(zip(HEADER, r, strict=True)) for r in rows])
    images = {"img/sign.png": png(120, 60, (200, 40, 40))}
    import_campaign(
        server.engine,
        bundle("camp.csv", data, images),
        f"signs-{mode}",
        filename="signs.zip",
        settings={"mode": mode},
    )
    with session_scope(server.engine) as s:
        cid = s.scalar(select(Campaign.id).where(Campaign.name == f"signs-{mode}"))
    queue_build.build_queue(server.engine, cid, seed=2)
    return create_annotator(server.engine, cid, "Ana").token


@pytest.mark.parametrize("mode", ["binary", "esa"])
def test_instructions_and_image_show_above_the_item(server: Server, page, mode: str) -> None:  # type: ignore[no-untyped-def]
    token = _seed(server, mode)
    outside: list[str] = []  # requests that leave the app, but Streamlit's page icon

    def watch(request) -> None:  # type: ignore[no-untyped-def]
        # the app's own blob: URLs (a component's frame) are the page's, not a fetch out
        url = request.url.removeprefix("blob:")
        if not url.startswith(server.url) and "materialsymbols" not in url:
            outside.append(request.url)

    page.on("request", watch)
    page.goto(f"{server.url}/?token={token}")
    box = page.locator(".st-key-tandem-item-instructions")
    box.wait_for()
    assert box.locator("strong", has_text="formal").count() == 1  # markdown drawn
    assert box.locator("li").count() == 2
    assert "the sign reads a < b" in box.inner_text()
    image = box.locator("img")
    image.wait_for()
    page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=image.element_handle())
    assert image.evaluate("el => el.naturalWidth") == 120
    assert image.get_attribute("src").startswith(("/", server.url))  # served by the app
    assert outside == [], outside
    if mode == "binary":
        page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)
    else:  # the span screen offers the comment box too, once the campaign does
        from playwright.sync_api import expect

        from annotation.campaign.guidelines import set_comment_box

        with session_scope(server.engine) as s:
            cid = s.scalar(select(Campaign.id).where(Campaign.name == "signs-esa"))
        set_comment_box(server.engine, cid, True)
        page.reload()
        expect(page.get_by_label("Comment (optional)")).to_be_visible(timeout=60_000)
        page.screenshot(path="/tmp/items-esa-comment.png", full_page=True)


def test_a_zip_bundle_imports_on_the_import_page(server: Server, page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    from tests.browser.test_import_mapping_browser import _open_import, _upload

    rows = [["1", "Describe the sign.", "", "A", "Ein rotes Schild.", INSTRUCTIONS, "s.png"],
            ["2", "Another.", "", "A", "Noch eins.", "", ""]]  # fmt: skip
    data = to_csv(HEADER, [dict(zip(HEADER, r, strict=True)) for r in rows])
    path = tmp_path / "signs.zip"
    path.write_bytes(bundle("signs.csv", data, {"s.png": png()}))
    _open_import(page, server.url)
    _upload(page, path)
    expect(page.get_by_text("Bundle: signs.csv and 1 other file(s).")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("2 rows are valid.")).to_be_visible(timeout=60_000)
    page.get_by_text("Hidden from annotators (blind)").click()
    page.get_by_role("button", name="Import", exact=True).click()
    stored = None
    for _ in range(120):
        with session_scope(server.engine) as s:
            stored = s.scalar(select(CampaignImage.name))
        if stored is not None:
            break
        page.wait_for_timeout(500)
    page.screenshot(path="/tmp/items-import-bundle.png", full_page=True)
    assert stored == "s.png"


def test_a_comment_is_saved_with_the_label(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    from annotation.campaign.guidelines import set_comment_box
    from db.schema.models import Annotation

    token = _seed(server, "binary")
    with session_scope(server.engine) as s:
        cid = s.scalar(select(Campaign.id).where(Campaign.name == "signs-binary"))
    set_comment_box(server.engine, cid, True)
    page.goto(f"{server.url}/?token={token}")
    box = page.get_by_label("Comment (optional)")
    expect(box).to_be_visible(timeout=60_000)
    box.fill("the sign is cut off at the right")
    box.press("Tab")  # the text input commits on blur
    page.wait_for_timeout(800)
    page.locator(".st-key-adequate button").click()
    expect(page.get_by_text("You: 1 judged", exact=False)).to_be_visible(timeout=60_000)
    with session_scope(server.engine) as s:
        assert s.scalars(select(Annotation.comment)).all() == ["the sign is cut off at the right"]
    # Streamlit keeps the saved item's box on screen until the rerun replaces it
    next_box = page.get_by_label("Comment (optional)")
    expect(next_box).to_have_count(1, timeout=60_000)
    expect(next_box).to_have_value("")
    page.screenshot(path="/tmp/items-comment.png", full_page=True)
