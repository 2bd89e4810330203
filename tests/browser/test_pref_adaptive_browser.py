"""An adaptive preference campaign in a real browser (Debian chromium): a preference
tutorial first — the first attempt answered wrong once (the page says which side was
expected and shows the item's warning), the second attempt right, which opens the task —,
then pairs drawn by the adaptive policy judged with the keys 1 / 2 / 0 (a tie), an undo and
a reload; each judgment stores its pair's inclusion probability, the π its draw round gave
the slot (below 1, at least the recorded floor)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.judging import tutorial
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.admin_models import TutorialAnswer
from db.schema.models import Annotation, Assignment, Campaign
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_preference_browser import (
    IDLE,
    PASSWORD,
    SYSTEMS,
    judge_rest,
    press,
    sides,
    wait_new_pair,
)

pytestmark = pytest.mark.browser

SHOT = PROJECT_ROOT / "docs" / "screenshots" / "preference-tutorial.png"
DASHBOARD = PROJECT_ROOT / "docs" / "screenshots" / "preference-adaptive-dashboard.png"
WARNING = "Compare the meaning first: the dog does not bark in the source."
TUTORIAL = (
    "source,output,output_b,expected_winner,tie_allowed,explanation,warning\n"
    f"The dog sleeps.,Der Hund schläft.,Der Hund bellt.,1,,The first keeps the meaning.,{WARNING}\n"
    "Thanks a lot.,Vielen Dank.,Danke sehr.,2,1,Both are fine; a tie is accepted.,\n"
).encode()


def _seed(engine) -> tuple[int, int, str]:  # type: ignore[no-untyped-def]
    rows = ["item_id,source,reference,system,output"]
    rows += [f"{j},Source sentence {j}.,,{name},Ausgabe {j} in Fassung {name[4]}."
             for j in range(40) for name in SYSTEMS]  # fmt: skip
    report = import_campaign(
        engine, ("\n".join(rows) + "\n").encode(), "Adaptive prefs", filename="p.csv",
        settings={"mode": "preference", "pair_policy": "adaptive"},
    )  # fmt: skip
    cid = report.campaign_id
    with session_scope(engine) as s:
        s.get(Campaign, cid).queue_seed = 4
    queue_build.build_queue(engine, cid)
    tutorial.set_tutorial(engine, cid, tutorial.parse_file(TUTORIAL, "t.csv"))
    ann = create_annotator(engine, cid, "Ana")
    return cid, ann.annotator_id, ann.token


def _click_side(page, ann: int, index: int, which: str) -> None:  # type: ignore[no-untyped-def]
    """Click the button of the side where the item's ``which`` output (first / second) is."""
    left = tutorial.pair_sides(ann, index) == (which == "first")
    page.get_by_role("button", name="Left is better" if left else "Right is better").click()


def _next(page, label: str) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("button", name=label).click()
    page.wait_for_selector(IDLE)


def test_adaptive_preference_campaign_with_its_tutorial(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    cid, ann, token = _seed(server.engine)
    page.goto(f"{server.url}/?token={token}")
    page.get_by_text("Before you start: a short tutorial").wait_for()
    page.wait_for_selector(IDLE)
    expect(page.get_by_text("Der Hund schläft.")).to_be_visible()
    page.screenshot(path=str(screenshot_path(SHOT).with_name("preference-tutorial-item.png")))
    # attempt 1: the first item wrong — its feedback names the side that was expected
    _click_side(page, ann, 0, "second")
    side = "left" if tutorial.pair_sides(ann, 0) else "right"
    expect(page.get_by_text(f"Not quite: expected the {side} output better")).to_be_visible()
    expect(page.get_by_text(WARNING)).to_be_visible()
    page.screenshot(path=str(screenshot_path(SHOT)), full_page=True)
    rev = page.evaluate("window.__tandemKeysRev")
    _next(page, "Next item")
    # the second item's keys drawn (a key pressed before that meets the feedback's keys)
    page.wait_for_function("(r) => window.__tandemKeysRev !== r", arg=rev)
    expect(page.get_by_text("Vielen Dank.")).to_be_visible()
    page.wait_for_selector(IDLE)
    page.keyboard.press("0")  # a tie, accepted on the second item
    expect(page.get_by_text("Right (the")).to_be_visible()
    expect(page.get_by_text("one more attempt")).to_be_visible()
    _next(page, "Try again")
    # attempt 2: both right, by the mouse
    _click_side(page, ann, 0, "first")
    expect(page.get_by_text("Right (the")).to_be_visible()
    _next(page, "Next item")
    _click_side(page, ann, 1, "second")
    expect(page.get_by_text("You passed the tutorial")).to_be_visible()
    _next(page, "Start the task")

    # the task: pairs drawn by the adaptive rounds
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(IDLE)
    shown = [sides(page)]
    shown.append(press(page, "1"))
    shown.append(press(page, "2"))
    tied = shown[-1]
    after_tie = press(page, "0")
    page.keyboard.press("u")  # undo the tie: the same pair on the same sides
    assert wait_new_pair(page, after_tie) == tied
    expect(page.get_by_text("Undone: your preference")).to_be_visible()
    shown.append(press(page, "0"))  # the tie again
    page.reload()
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(IDLE)
    assert sides(page) == shown[-1]  # the same pair after the reload, tutorial not again
    shown.append(press(page, "2"))

    with session_scope(server.engine) as s:
        rows = s.scalars(select(Annotation).order_by(Annotation.id)).all()
        undone = {r.supersedes_id for r in rows if r.kind == "undo"}
        current = [r for r in rows if r.kind == "label" and r.id not in undone]
        slot_pi = dict(s.execute(select(Assignment.id, Assignment.inclusion_prob)).all())
        camp = s.get(Campaign, cid)
        answers = s.scalars(select(TutorialAnswer)).all()
    floor = camp.meta["preference"]["floor"]
    assert camp.meta["preference"]["policy"] == "adaptive" and camp.meta["active_rounds"]
    assert [r.preference in (0.0, 1.0) for r in current] == [True, True, False, True]
    assert current[2].preference == 0.5  # the tie
    for row in current:
        assert row.inclusion_prob == slot_pi[row.assignment_id]
        assert floor - 1e-12 <= row.inclusion_prob < 1.0
    assert len(answers) == 4 and [a.correct for a in answers] == [False, True, True, True]

    # the rest judged by a second annotator (who has no tutorial answers: the gate asks her
    # too, so the tutorial is taken off first); the dashboard says how the pairs were drawn
    tutorial.set_tutorial(server.engine, cid, [])
    judge_rest(server.engine, cid)
    page.goto(server.url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    dashboard = page.get_by_role("link", name="Dashboard")
    expect(dashboard).to_be_visible(timeout=90_000)
    dashboard.click()
    expect(page.get_by_text("Pairs drawn adaptively")).to_be_visible(timeout=90_000)
    expect(page.get_by_text(f"at least {floor:.3f} of a source's draw")).to_be_visible()
    page.wait_for_selector(IDLE)  # the whole page drawn: nothing below can still appear
    assert page.locator("[data-testid='stException']").count() == 0
    assert "drawn with unequal probabilities" not in page.content()
    page.screenshot(path=str(screenshot_path(DASHBOARD)), full_page=True)


def test_import_page_records_the_adaptive_policy(server: Server, page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The Import page offers *Which pairs are shown* for a preference campaign only; the
    choice is recorded with the campaign."""
    from playwright.sync_api import expect

    from db.reads.campaign import campaign_id
    from tests.browser.test_da_campaign_browser import _choose_mode
    from tests.browser.test_import_mapping_browser import _open_import, _upload

    path = tmp_path / "pairs_demo.csv"
    path.write_text("item_id,system,source,reference,output\n" + "".join(
        f"s{i},{n},Source {i}.,,Ausgabe {i} {n}.\n" for i in range(6) for n in "ABC"),
        encoding="utf-8")  # fmt: skip
    _open_import(page, server.url)
    _upload(page, path)
    page.get_by_label("Annotation mode", exact=True).wait_for()
    expect(page.get_by_text("Which pairs are shown")).to_have_count(0)  # binary: not offered
    _choose_mode(page, "preference")
    page.get_by_text("Which pairs are shown").wait_for()
    page.get_by_text("adaptive", exact=True).click()
    page.wait_for_selector(IDLE)
    page.get_by_text("Hidden from annotators (blind)").click()
    page.get_by_role("button", name="Import", exact=True).click()
    for _ in range(300):
        cid = campaign_id(server.engine, "pairs_demo")
        if cid is not None:
            break
        page.wait_for_timeout(100)
    assert cid is not None
    with session_scope(server.engine) as s:
        camp = s.get(Campaign, cid)
        assert (camp.mode, camp.meta["preference"]["policy"]) == ("preference", "adaptive")
