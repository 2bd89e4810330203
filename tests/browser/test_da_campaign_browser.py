"""A DA campaign end to end in chromium: import it on the Import page with mode `da`; an
annotator scores with keys and the mouse; a second tab on the same item cannot save it
twice; a second annotator's scores arrive through the service (as the CLI does); the
dashboard analyses the DA score and calls the pair; `cli.py export-ranking --label-kind da`
ranks by it with two clusters."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from db.engine import get_engine, session_scope
from db.reads.campaign import campaign_id
from db.schema.models import Annotation, Campaign
from tests.browser.conftest import IDLE, Server
from tests.browser.test_da_browser import UNSET, wait_rows
from tests.browser.test_import_mapping_browser import _open_import, _upload

N_ITEMS = 40
CSV = "item_id,system,source,reference,output\n" + "".join(
    f"seg{i},{s},Source {i}.,Referenz {i}.,Ausgabe {i} von {s}.\n"
    for i in range(N_ITEMS)
    for s in "AB"
)


def _score(text: str) -> float:
    """System A about 30 points above B (the test's truth; annotators never see it); an
    attention check's degraded text gets 20."""
    m = re.fullmatch(r"Ausgabe (\d+) von ([AB])\.", text)
    if m is None:
        return 20.0
    i = int(m[1])
    return float(75 + i % 11 if m[2] == "A" else 45 + i % 13)


def _choose_mode(page, mode: str) -> None:  # type: ignore[no-untyped-def]
    """Pick the mode once the upload's run has drawn the page (a click during a run can
    land on a box about to be replaced: try again then)."""
    option = page.get_by_role("option", name=mode, exact=True)
    for _ in range(5):
        page.get_by_label("Annotation mode", exact=True).wait_for()
        page.wait_for_selector(IDLE)
        page.get_by_label("Annotation mode", exact=True).click()
        try:
            option.wait_for(timeout=5_000)
        except Exception:  # the list did not open: the box was redrawn under the click
            continue
        option.click()
        return
    raise AssertionError(f"could not choose the mode {mode!r}")


@pytest.mark.browser
def test_da_campaign_end_to_end(server: Server, page, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    path = tmp_path / "da_demo.csv"
    path.write_text(CSV, encoding="utf-8")
    _open_import(page, server.url)
    _upload(page, path)
    _choose_mode(page, "da")
    page.get_by_text("Hidden from annotators (blind)").click()
    page.get_by_role("button", name="Import", exact=True).click()
    for _ in range(300):
        cid = campaign_id(server.engine, "da_demo")
        if cid is not None:
            break
        page.wait_for_timeout(100)
    assert cid is not None
    with session_scope(server.engine) as s:
        assert s.scalar(select(Campaign.mode).where(Campaign.id == cid)) == "da"
    queue_build.build_queue(server.engine, cid, seed=4)
    invite = create_annotator(server.engine, cid, "Ana")
    ana = invite.token

    # Ana: one score by keys, one with the mouse
    page.goto(f"{server.url}/?token={ana}")
    page.wait_for_function(UNSET)
    second = page.context.new_page()  # the same item in a second tab
    second.goto(f"{server.url}/?token={ana}")
    second.wait_for_function(UNSET)
    shown = page.locator(".tandem-output").first.inner_text()
    assert second.locator(".tandem-output").first.inner_text() == shown
    page.keyboard.press("8")
    page.keyboard.press("Enter")
    wait_rows(page, server, 1)
    second.keyboard.press("3")
    second.keyboard.press("Enter")  # that item was saved in the first tab: refused
    expect(second.get_by_text("already answered in another tab")).to_be_visible(timeout=30_000)
    page.wait_for_function(UNSET)
    box = page.locator(".tandem-da-input").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2)
    page.locator(".tandem-da-save").click()
    assert len(wait_rows(page, server, 2)) == 2
    second.close()

    # the rest through the service (as the CLI would): Ana's held item, then Bo scores
    # every output left (the monitor waits for held slots: its labels are a gap-free prefix)
    bo = create_annotator(server.engine, cid, "Bo").annotator_id
    for who in (invite.annotator_id, bo):
        v = session.next_view(server.engine, who)
        while v.slot is not None:
            v = judging.submit(server.engine, who, v.slot.assignment_id, v.slot.claim_version,
                               da_score=_score(v.slot.text))  # fmt: skip
    with session_scope(server.engine) as s:
        n = s.scalar(select(func.count(Annotation.id)).where(Annotation.da_score.is_not(None)))
    assert n >= 2 * N_ITEMS  # every output scored (and attention checks answered)

    admin = page.context.browser.new_context(viewport={"width": 1280, "height": 900})
    page = admin.new_page()  # the administrator, in a browser of their own
    page.goto(server.url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill("browser-test-password")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Dashboard").click()
    note = page.get_by_text("DA / SQM score is analysed and shown ÷ 100", exact=False)
    expect(note).to_be_visible(timeout=90_000)
    expect(page.get_by_role("heading", name="Per-system estimates", exact=True)).to_be_visible()
    decided = page.locator("[data-testid='stMetric']").filter(has_text="Decided pairs")
    expect(decided).to_contain_text("1 / 1")  # the live verdict on the DA score called it
    assert page.locator("[data-testid='stException']").count() == 0

    monkeypatch.setenv("DATABASE_URL", str(server.engine.url))
    get_engine.cache_clear()
    try:
        import cli

        args = ["export-ranking", "--campaign", "da_demo", "--out", str(tmp_path / "rank.csv"),
                "--label-kind", "da"]  # fmt: skip
        res = CliRunner().invoke(cli.app, args)
    finally:
        get_engine.cache_clear()
    assert res.exit_code == 0, res.output
    ranking = pd.read_csv(tmp_path / "rank.csv")
    assert list(ranking["system"]) == ["A", "B"] and list(ranking["cluster"]) == [1, 2]
