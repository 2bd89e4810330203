"""Comparative mode in a real browser: an annotator judges screens of four outputs with the
keyboard (one screen typed fast, without waiting), moves with j / k, reloads (the same
order comes back), and the export carries each output's place on its screen."""

from __future__ import annotations

import csv
import io

import pytest

from accounts.invites import create_annotator
from annotation.judging import comparative
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path

SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "compare.png"
SYSTEMS = ("sys-alpha", "sys-beta", "sys-gamma", "sys-delta")


def seed_compare(engine, name: str = "Compare en-de", n_items: int = 6) -> str:  # type: ignore[no-untyped-def]
    """Four systems, ``n_items`` sources, comparative mode on; the annotator's token."""
    with session_scope(engine) as s:
        camp = Campaign(name=name, show_metrics=False)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in SYSTEMS]
        s.add_all(systems)
        for j in range(n_items):
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source sentence {j}.")
            s.add(item)
            s.flush()
            s.add_all(
                Output(item_id=item.id, system_id=sy.id, text=f"Ausgabe {j} von Modell {k}.")
                for k, sy in enumerate(systems)
            )
        cid = camp.id
    comparative.set_comparative(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=5)
    return create_annotator(engine, cid, "Ana").token


def card_texts(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator(".tandem-output").all_inner_texts()


def source(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator(".tandem-source").first.inner_text()


def judge_screen(page, keys: str) -> None:  # type: ignore[no-untyped-def]
    """One label key per output (the highlighted one moves on), then Enter."""
    before = source(page)
    marks = ("() => [...document.querySelectorAll('.tandem-cmp-label')]"
             ".filter(e => e.innerText !== 'not judged yet').length")  # fmt: skip
    for key in keys:  # each key labels an output not judged yet: one more mark
        page.wait_for_function("window.__tandemKeysInstalled === true")
        n = page.evaluate(marks)
        page.keyboard.press(key)
        page.wait_for_function(f"(n) => ({marks})() > n", arg=n)
        page.wait_for_selector(IDLE)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(b) => { const e = document.querySelector('.tandem-source');"
        " return e && e.innerText !== b; }",
        arg=before,
    )
    page.wait_for_selector(IDLE)  # the whole new screen drawn, no stale card left


@pytest.mark.browser
def test_comparative_screens_with_the_keyboard(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = seed_compare(server.engine)
    page.goto(f"{server.url}/?token={token}")
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(IDLE)  # every card drawn, not only the first
    assert len(card_texts(page)) == 4
    assert not any(name in page.content() for name in SYSTEMS)  # names hidden

    judge_screen(page, "aiai")
    # typed fast, without waiting: the screen's listener queues the keys, none is lost
    before = source(page)
    page.keyboard.type("1212", delay=20)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(b) => { const e = document.querySelector('.tandem-source');"
        " return e && e.innerText !== b; }",
        arg=before,
    )
    page.wait_for_selector(IDLE)
    # j / k move the highlight: label the 2nd output first, then go back to the 1st
    page.keyboard.press("j")
    page.wait_for_selector("[class*='st-key-cmp_card_cur_1']")
    page.keyboard.press("i")
    page.wait_for_selector("[class*='st-key-cmp_card_cur_2']")
    page.keyboard.press("k")
    page.wait_for_selector("[class*='st-key-cmp_card_cur_1']")
    page.keyboard.press("k")
    page.wait_for_selector("[class*='st-key-cmp_card_cur_0']")
    judge_screen(page, "aaa")

    shown = card_texts(page)
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)
    page.reload()
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(IDLE)
    assert card_texts(page) == shown  # the same order after a reload
    assert "You: 12 judged" in page.locator("[data-testid='stProgress']").first.inner_text()

    with session_scope(server.engine) as s:
        name = s.query(Campaign.name).scalar()
    rows = list(
        csv.DictReader(io.StringIO(export_annotations(server.engine, name, "csv").decode()))
    )
    assert len(rows) == 12
    assert sorted((r["screen_position"], r["screen_size"]) for r in rows) == sorted(
        (str(k), "4") for k in range(4) for _ in range(3)
    )
    assert [r["label"] for r in rows[:8]] == ["1", "0", "1", "0"] * 2
    # the third screen: output 2 inadequate (j then i), the others adequate
    assert [r["label"] for r in rows[8:]] == ["1", "0", "1", "1"]
