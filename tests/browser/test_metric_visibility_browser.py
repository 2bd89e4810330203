"""Issue 17.3 in a real browser: whether annotators see metric scores is chosen on the Import
page (Import stays off until it is, the trade-off is stated), recorded with the campaign,
respected on the annotate page, stated on the dashboard, changeable after labels only with
a confirmation that is recorded; the admin's Review page shows the scores beside each label.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign
from metrics.scoring import score_campaign
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path

PASSWORD = "browser-test-password"
SHOTS = PROJECT_ROOT / "docs" / "screenshots"
ROWS = [
    ("1", "The cat sat on the mat.", "Die Katze saß auf der Matte."),
    ("2", "It rains in Berlin today.", "Heute regnet es in Berlin."),
    ("3", "We solved the problem together.", "Wir haben das Problem gemeinsam gelöst."),
]
CSV = "item_id,source,reference,system,output\n" + "".join(
    f'{i},"{src}","{ref}",{system},"{out}"\n'
    for i, src, ref in ROWS
    for system, out in (("A", ref), ("B", ref.replace("die", "eine").replace("Die", "Eine")))
)


def _sign_in(page, url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(url)
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_label("Admin password").wait_for(state="detached")


@pytest.mark.browser
def test_metric_visibility_is_chosen_recorded_and_stated(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    _sign_in(page, f"{server.url}/import_campaign")
    page.locator("input[type='file']").set_input_files(
        files=[{"name": "vis.csv", "mimeType": "text/csv", "buffer": CSV.encode()}]
    )
    page.get_by_text("6 rows are valid.").wait_for()
    page.get_by_text("can anchor their labels on the very metrics").wait_for()
    page.get_by_text("Quality control costs 1 extra judgments on top of the 6 outputs").wait_for()
    import_button = page.get_by_role("button", name="Import", exact=True)
    assert import_button.is_disabled()  # no silent default: the admin has to choose
    page.get_by_text("Hidden from annotators (blind)").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('button')].some("
        "b => b.innerText.trim() === 'Import' && !b.disabled)"
    )
    page.screenshot(path=str(screenshot_path(SHOTS / "import_metric_choice.png")), full_page=True)
    import_button.click()
    page.get_by_text("Next: score the outputs").wait_for()
    with session_scope(server.engine) as s:
        camp = s.scalars(select(Campaign)).one()
        assert (camp.show_metrics, camp.overlap, camp.attention_rate) == (False, 0.10, 0.05)
        cid = camp.id

    score_campaign(server.engine, cid, ["chrf"], workers=1)
    queue_admin.update_queue_settings(server.engine, cid, overlap=0.0, attention_rate=0.0)
    queue_build.build_queue(server.engine, cid, seed=2)
    token = create_annotator(server.engine, cid, "Ana").token

    # The annotator sees no scores and labels one item.
    annotator = page.context.browser.new_context().new_page()
    annotator.goto(f"{server.url}/?token={token}")
    annotator.locator(".tandem-output").first.wait_for()
    assert "Metric scores" not in annotator.locator("body").inner_text()
    annotator.wait_for_function("window.__tandemKeysInstalled === true")  # listener ready
    annotator.keyboard.press("a")
    # the saved label shows in the annotator's own count (the next output's text may equal
    # this one's: systems A and B translate items 2 and 3 alike)
    annotator.get_by_text("You: 1 judged", exact=False).wait_for()
    with session_scope(server.engine) as s:
        assert s.scalar(select(Annotation.label)) == 1

    # The admin's review shows the score beside the label; the dashboard states the choice.
    page.get_by_role("link", name="Review").click()
    page.get_by_role("heading", name="Review labelled items").wait_for()
    page.get_by_text("1 of 1 labels").wait_for()
    page.get_by_text("Annotators do not see metric scores (blind)").first.wait_for()
    page.locator("[data-testid='stMetric']", has_text="chrf").wait_for()
    page.screenshot(path=str(screenshot_path(SHOTS / "review_page.png")), full_page=True)
    page.get_by_role("link", name="Dashboard").click()
    page.get_by_text("Annotators do not see metric scores (blind)").wait_for()

    # After a label, showing the scores needs the confirmation, and is then recorded.
    page.get_by_role("link", name="Annotators").click()
    page.get_by_text("Show metric scores beside the item").click()
    page.get_by_role("button", name="Save settings").click()
    page.get_by_text("Nothing was saved: 1 labels were given with metric scores hidden").wait_for()
    with session_scope(server.engine) as s:
        assert s.scalar(select(Campaign.show_metrics)) is False
    page.get_by_text("Change metric visibility although 1 labels exist").click()
    page.get_by_role("button", name="Save settings").click()
    page.get_by_text("Changed after labels arrived: shown from").wait_for()
    with session_scope(server.engine) as s:
        assert s.scalar(select(Campaign.show_metrics)) is True
    page.get_by_role("link", name="Dashboard").click()
    page.get_by_text("after 1 labels").wait_for()
