"""Issue 34's papercuts that only the page shows, in a real browser (Debian chromium), one
app start for all of them (each step says its papercut):

1. the dashboard keeps the chosen campaign across a reload (it went back to the newest);
7. the Import page suggests the target language from a ``lang_pair`` column, does not offer
   an all-empty ``post_edit`` column as a judgment, and after a finished import shows its
   report without the form of the file just imported (a disabled Import button);
8. a lone attention check in a paired one-at-a-time campaign has no "k of m for this source"
   (it read "Output 1 of 4" with none of its source's other outputs to follow);
10. creating two accounts in a row keeps both passwords on screen until acknowledged.

Screenshots (under /tmp/tandem-screenshots unless TANDEM_UPDATE_SCREENSHOTS=1):
papercut_dashboard_reload.png, papercut_accounts_two.png, papercut_import_done.png,
papercut_lone_check.png.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging.session import next_view
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System
from db.schema.vocabulary import SlotKind
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
SHOTS = PROJECT_ROOT / "docs" / "screenshots"
SIDE_BY_SIDE = "All outputs for this source (side by side)"
IMPORT_FILE = "item_id,system,source,reference,output,human_label_binary,post_edit,lang_pair\n" + (
    "".join(
        f"s{i},{s},Source {i}.,Referenz {i}.,Ausgabe {i} {s}.,{(i + (s == 'B')) % 2},,en-de\n"
        for i in range(6)
        for s in "AB"
    )
)


def _campaign(server: Server, name: str, *, paired: bool = False, attention: float = 0.0) -> int:
    with session_scope(server.engine) as s:
        camp = Campaign(name=name, paired=paired, show_metrics=False, attention_rate=attention,
                        overlap=0.0)  # fmt: skip
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"sys{k}") for k in range(4)]
        s.add_all(systems)
        for j in range(4):
            item = Item(campaign_id=camp.id, external_id=str(j),
                        source=f"The cat number {j} sat on the mat today.")  # fmt: skip
            s.add(item)
            s.flush()
            s.add_all(
                Output(item_id=item.id, system_id=sy.id,
                       text=f"Die Katze Nummer {j} saß heute auf der Matte ({sy.name}).")
                for sy in systems
            )  # fmt: skip
        return camp.id


def _lone_check_token(server: Server) -> str:
    """A paired campaign with attention checks whose annotator's next slot is a check."""
    cid = _campaign(server, "Paired with checks", paired=True, attention=0.25)
    queue_build.build_queue(server.engine, cid, seed=3)
    invite = create_annotator(server.engine, cid, "Ana")
    view = next_view(server.engine, invite.annotator_id)
    # checks are spread evenly from a random start: skip the regular outputs before the first
    for _ in range(40):
        slot = view.slot
        assert slot is not None
        if slot.kind == SlotKind.ATTENTION:
            return invite.token
        view = judging.skip(server.engine, invite.annotator_id, slot.assignment_id,
                            slot.claim_version, judging.SKIP_REASONS[0])  # fmt: skip
    raise AssertionError("no attention check among the first 40 slots")


def _chosen(page) -> str:  # type: ignore[no-untyped-def]
    """The campaign picker's value (a combobox input)."""
    return page.get_by_role("combobox", name="Campaign", exact=True).input_value()


def _shot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """The whole page from its top (Streamlit scrolls inside its main block, so a full-page
    shot of a scrolled page starts where it was scrolled to)."""
    page.wait_for_timeout(300)
    height = page.evaluate(
        "document.querySelector(\"[data-testid='stMainBlockContainer']\").scrollHeight"
    )
    page.set_viewport_size({"width": 1280, "height": max(900, int(height) + 120)})
    page.screenshot(path=str(screenshot_path(SHOTS / name)), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


@pytest.mark.browser
def test_papercuts_seen_in_the_page(server: Server, page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    _campaign(server, "Older campaign")
    _campaign(server, "Newer campaign")
    token = _lone_check_token(server)

    page.goto(f"{server.url}/dashboard")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Dashboard").first.wait_for()
    page.wait_for_function("document.cookie.includes('tandem_admin=')")  # a reload keeps it

    # 1. Choose a campaign that is not the default; a reload keeps it.
    expect(page.get_by_role("combobox", name="Campaign", exact=True)).not_to_have_value("")
    assert _chosen(page) != "Older campaign"
    page.locator("[data-testid='stSelectbox']").filter(has_text="Campaign").first.click()
    started = time.monotonic()
    page.get_by_role("option", name="Older campaign").click()
    page.wait_for_url(re.compile(r"campaign=Older"))
    page.get_by_text("No human labels yet").wait_for()
    switch_s = time.monotonic() - started
    page.reload()
    page.get_by_role("heading", name="Dashboard").first.wait_for()
    page.get_by_text("No human labels yet").wait_for()
    expect(page.get_by_role("combobox", name="Campaign", exact=True)).to_have_value(
        "Older campaign"
    )
    _shot(page, "papercut_dashboard_reload.png")
    print(f"dashboard: switching campaign took {switch_s:.2f} s in the browser")

    # 10. Two accounts in a row: both passwords stay until acknowledged.
    page.goto(f"{server.url}/accounts")
    page.get_by_role("heading", name="Accounts").first.wait_for()
    for name in ("ann-one", "ann-two"):
        page.get_by_label("Name", exact=True).fill(name)
        page.get_by_role("button", name="Create account").click()
        page.get_by_text(f"Account '{name}' (viewer) created.").first.wait_for()
    codes = page.locator("[data-testid='stCode']")
    expect(codes).to_have_count(2)
    passwords = codes.all_inner_texts()
    assert len({p.strip() for p in passwords}) == 2, passwords
    _shot(page, "papercut_accounts_two.png")
    page.get_by_role("button", name="I have noted these passwords").click()
    expect(codes).to_have_count(0)

    # 7. Import: the target language from lang_pair, no empty post_edit as a judgment, and
    # the report without the imported file's form once it is done.
    upload = tmp_path / "ted_like.csv"
    upload.write_text(IMPORT_FILE, encoding="utf-8")
    page.goto(f"{server.url}/import_campaign")
    page.get_by_role("heading", name="Import a campaign or its metric scores").wait_for()
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(upload))
    carried = page.locator("[data-testid='stAlert']").filter(
        has_text="12 of 12 rows come with a judgment"
    )
    carried.wait_for(timeout=60_000)
    said = carried.inner_text()
    assert "(human_label)" in said and "post_edit" not in said, said
    lang = page.get_by_role("textbox", name="Target language code (for metric tokenizers)")
    expect(lang).to_have_value("de")
    page.get_by_text("Hidden from annotators (blind)").click()
    page.get_by_role("button", name="Import", exact=True).click()
    page.get_by_text("Next: score the outputs").wait_for(timeout=60_000)
    expect(page.get_by_role("button", name="Import", exact=True)).to_have_count(0)
    expect(page.get_by_label("Campaign name")).to_have_count(0)
    _shot(page, "papercut_import_done.png")
    with session_scope(server.engine) as s:
        target = s.query(Campaign.target_lang).filter(Campaign.name == "ted_like").scalar()
    assert target == "de"

    # 8. A lone attention check, one output at a time: no "k of m for this source".
    page.goto(f"{server.url}/?token={token}")
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(IDLE)
    shown = page.locator("[data-testid='stHtml']").filter(has=page.locator(".tandem-output"))
    assert "for this source" not in shown.first.inner_text(), shown.first.inner_text()
    expect(page.get_by_text(SIDE_BY_SIDE)).to_have_count(0)
    _shot(page, "papercut_lone_check.png")
    # The positions are still there for the groups that follow the check.
    for _ in range(6):
        before = page.locator(".tandem-output").first.inner_text()
        page.locator(".st-key-adequate button").click()
        page.wait_for_function(
            "(b) => { const el = document.querySelector('.tandem-output');"
            " return el && el.innerText !== b; }",
            arg=before,
        )
        # the run goes on below the output: the next click on the same button could be lost
        page.wait_for_selector(IDLE)
        if "for this source" in shown.first.inner_text():
            break
    assert re.search(r"Output 1 of 4 for this source", shown.first.inner_text())
    expect(page.get_by_text(SIDE_BY_SIDE)).to_have_count(1)
