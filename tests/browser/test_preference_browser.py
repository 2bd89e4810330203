"""Preference mode in a real browser: an annotator judges pairs with the keys (1, 2, 0 for
a tie) and the mouse, with a strength and a reason; undoes a judgment (the same pair comes
back on the same sides); reloads mid-pair (the pair, its sides and the unsaved strength
and reason come back); every judgment is stored with the sides the page showed. Then the
dashboard shows the leaderboard with "tied for first"."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.judging import preference as pref
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Assignment, Campaign, Output, System
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path

pytestmark = pytest.mark.browser

SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "preference.png"
DASHBOARD = PROJECT_ROOT / "docs" / "screenshots" / "preference-dashboard.png"
SYSTEMS = ("sys-alpha", "sys-beta", "sys-gamma")
PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures


def seed(engine, n_items: int = 8, **settings) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    rows = ["item_id,source,reference,system,output"]
    rows += [f"{j},Source sentence {j}.,,{name},Ausgabe {j} in Fassung {name[4]}."
             for j in range(n_items) for name in SYSTEMS]  # fmt: skip
    data = ("\n".join(rows) + "\n").encode()
    report = import_campaign(engine, data, "Prefs en-de", filename="p.csv",
                             settings={"mode": "preference", **settings})  # fmt: skip
    with session_scope(engine) as s:  # a fixed queue order: the same data in every run
        s.get(Campaign, report.campaign_id).queue_seed = 2
    queue_build.build_queue(engine, report.campaign_id)
    return report.campaign_id, create_annotator(engine, report.campaign_id, "Ana").token


def sides(page) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    left, right = page.locator(".tandem-output").all_inner_texts()
    return left, right


def wait_new_pair(page, before: tuple[str, str]) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "(b) => { const o = [...document.querySelectorAll('.tandem-output')]"
        ".map(e => e.innerText); return o.length === 2 && (o[0] !== b[0] || o[1] !== b[1]); }",
        arg=list(before),
    )
    page.wait_for_selector(IDLE)
    return sides(page)


def press(page, key: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    before = sides(page)
    page.wait_for_function("window.__tandemKeysInstalled === true")
    page.keyboard.press(key)
    return wait_new_pair(page, before)


def leave_box(page, box) -> None:  # type: ignore[no-untyped-def]
    """Esc leaves the reason box, which hands its text to the server: wait for that draw."""
    rev = page.evaluate("window.__tandemKeysRev")
    box.press("Escape")
    page.wait_for_function("(r) => window.__tandemKeysRev !== r", arg=rev)
    page.wait_for_selector(IDLE)


def choose_strength(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """Click a strength and wait for the run it starts to be drawn: the idle marker alone can
    match before the click reaches the server, and a reason typed then would be sent behind
    a rerun it does not know of (a reload could come before the reason's run)."""
    rev = page.evaluate("window.__tandemKeysRev")
    page.get_by_text(name, exact=True).click()
    page.wait_for_function("(r) => window.__tandemKeysRev !== r", arg=rev)
    page.wait_for_selector(IDLE)


def test_preference_judged_with_keys_and_mouse(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    cid, token = seed(server.engine, n_items=80, meta={"preference": {"pairs_per_source": 3}})
    page.goto(f"{server.url}/?token={token}")
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(IDLE)
    assert not any(name in page.content() for name in SYSTEMS)  # system names hidden
    shown = [sides(page)]

    # 1: strength and reason with the mouse and keyboard, then key 1 (left better)
    choose_strength(page, "clearly")
    box = page.get_by_label("Why? (optional, one line)")
    box.fill("keeps the whole sentence")
    leave_box(page, box)  # the keys work again
    shown.append(press(page, "1"))
    # 2: the mouse, right better
    before = sides(page)
    page.get_by_role("button", name="Right is better").click()
    shown.append(wait_new_pair(page, before))
    # 3: a tie by key, then undo: the same pair on the same sides, the tie taken back
    tied = sides(page)
    after_tie = press(page, "0")
    page.keyboard.press("u")
    back = wait_new_pair(page, after_tie)
    assert back == tied
    expect(page.get_by_text("Undone: your preference")).to_be_visible()
    shown[-1] = back
    shown.append(press(page, "0"))  # the tie again
    # 4: a draft, then a reload mid-pair: the same pair, sides, strength and reason
    choose_strength(page, "slightly")
    box = page.get_by_label("Why? (optional, one line)")
    box.fill("fewer errors")
    leave_box(page, box)
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)
    page.reload()
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(IDLE)
    assert sides(page) == shown[-1]
    assert page.get_by_label("Why? (optional, one line)").input_value() == "fewer errors"
    expect(page.get_by_role("radio", name="slightly")).to_be_checked()
    shown.append(press(page, "2"))

    with session_scope(server.engine) as s:
        text = dict(s.execute(select(Output.id, Output.text)).all())
        rows = s.scalars(select(Annotation).order_by(Annotation.id)).all()
        judged = [r for r in rows if r.kind == "label"]
        undone = {r.supersedes_id for r in rows if r.kind == "undo"}
        current = [r for r in judged if r.id not in undone]
        slots = s.scalars(select(Assignment).where(Assignment.campaign_id == cid)).all()
        names = dict(s.execute(select(System.id, System.name)).all())
        system_of = {o.id: names[o.system_id] for o in s.scalars(select(Output))}
    assert len(current) == 4 and len(undone) == 1
    choices = [("left", "clearly", "keeps the whole sentence"), ("right", None, None),
               ("tie", None, None), ("right", "slightly", "fewer errors")]  # fmt: skip
    # shown[k] is the pair the k-th current judgment chose on (the last: the next pair)
    for row, (left, right), (choice, strength, reason) in zip(current, shown[:-1], choices,
                                                              strict=True):  # fmt: skip
        on_left = text[row.output_id] if row.screen_position == 0 else text[row.pair_output_id]
        assert on_left == left and {text[row.output_id], text[row.pair_output_id]} == {left, right}
        won_left = {"left": 1.0, "right": 0.0, "tie": 0.5}[choice]
        assert row.preference == (won_left if row.screen_position == 0 else 1 - won_left)
        assert (row.strength, row.reason, row.screen_size) == (strength, reason, 2)
        assert row.inclusion_prob == 1.0  # every pair of every source
        assert system_of[row.output_id] != system_of[row.pair_output_id]
    # the sides are drawn per judgment: both orders occur over the campaign's slots
    firsts = {pref.first_on_left(current[0].annotator_id, a.id) for a in slots}
    assert firsts == {True, False}

    # a second annotator judges the rest: alpha and beta equally good, gamma worse
    judge_rest(server.engine, cid)
    page.goto(server.url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    dashboard = page.get_by_role("link", name="Dashboard")
    expect(dashboard).to_be_visible(timeout=90_000)
    dashboard.click()
    # alpha and beta in the order of their estimated scores, gamma not among them
    first = re.compile(r"^Tied for first: sys-(alpha, sys-beta|beta, sys-alpha)$")
    expect(page.get_by_text(first)).to_be_visible(timeout=90_000)
    for heading in ("Leaderboard (Bradley–Terry with ties, simultaneous intervals)",
                    "Win rates by pair (anytime-valid, Holm-adjusted)",
                    "Position bias"):  # fmt: skip
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    page.wait_for_selector(IDLE)  # the whole page drawn: nothing below can still appear
    assert page.locator("[data-testid='stException']").count() == 0
    page.screenshot(path=str(screenshot_path(DASHBOARD)), full_page=True)


def judge_rest(engine, cid: int) -> None:  # type: ignore[no-untyped-def]
    """Every pair left, judged by "Bo": alpha and beta tie or win half each against each
    other; either beats gamma 9 times in 10 (a fixed seed)."""
    import numpy as np

    from annotation.judging import session

    rng = np.random.default_rng(11)
    bo = create_annotator(engine, cid, "Bo").annotator_id
    with session_scope(engine) as s:
        system_of = {o.id: s.get(System, o.system_id).name for o in s.scalars(select(Output))}
        slot_pair = {a.id: (a.output_id, a.pair_output_id) for a in s.scalars(select(Assignment))}
    view = session.next_view(engine, bo)
    while view.slot is not None:
        aid = view.slot.assignment_id
        first, second = (system_of[o] for o in slot_pair[aid])
        left, right = (first, second) if pref.first_on_left(bo, aid) else (second, first)
        if "sys-gamma" in (left, right):
            good = rng.random() < 0.9
            choice = ("left" if right == "sys-gamma" else "right") if good else (
                "right" if right == "sys-gamma" else "left")  # fmt: skip
        else:
            choice = ("left", "right", "tie")[int(rng.integers(3))]
        view = pref.submit_preference(engine, bo, aid, view.slot.claim_version, choice)
