"""An ESA tutorial in a real browser (Debian chromium): a Pearmut-shaped tutorial file (a
score range and an expected minor span with tolerant offsets, then a silent check) set on an
``--mode esa`` campaign. The annotator marks the span but scores 40: the page says what was
missed and shows the item's warning; the silent check shows nothing; the second attempt is
right and opens the task. Every answer is recorded (the silent one too), none among the
annotations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from annotation.judging import tutorial
from db.engine import session_scope
from db.reads.campaign import campaign_id
from db.schema.admin_models import TutorialAnswer
from db.schema.models import Annotation
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path
from tests.browser.test_esa_mode_browser import _cli_import
from tests.browser.test_spans_browser import WIDGET, _drag

pytestmark = pytest.mark.browser

SHOT = PROJECT_ROOT / "docs" / "screenshots" / "esa-tutorial-warning.png"
WARNING = "Mark walked as a minor error and give a score from 75 to 85."
ITEMS = [
    {
        "src": "Der Hund ist rausgerannt.",
        "tgt": "The dog walked outside.",
        "instructions": "<b>Tutorial 1</b><br>One word is wrong: mark it and score the output.",
        "validation": {
            "warning": WARNING,
            "score": [75, 85],
            "error_spans": [{"start_i": [8, 9], "end_i": [13, 15], "severity": "minor"}],
        },
    },
    {  # no warning: a silent check
        "src": "Die Sonne scheint.",
        "tgt": "The sun shines.",
        "validation": {"score": [90, 100], "error_spans": []},
    },
]


def _answer_first(page, score: str) -> None:  # type: ignore[no-untyped-def]
    """Mark "walked" minor and type ``score``, then check the answer."""
    page.locator(WIDGET).wait_for()
    frame = page.frame_locator(WIDGET)
    target = frame.locator('.text[data-side="target"]')
    target.wait_for()
    text = target.inner_text()
    assert text == "The dog walked outside."
    inner = next(f for f in page.frames if "tandem_span_widget" in f.url)
    page.locator(WIDGET).scroll_into_view_if_needed()
    k = text.index("walked")
    _drag(page, inner, text, k + 1, k + 3)  # snaps to the whole word
    frame.locator(".pending").first.wait_for()
    page.keyboard.press("q")
    frame.locator(".err.minor").first.wait_for()
    _score(page, score)
    if score == "40":
        page.screenshot(path=str(screenshot_path(SHOT).with_name("esa-tutorial-item.png")))
    page.get_by_role("button", name="Check my answer").click()


def _score(page, score: str) -> None:  # type: ignore[no-untyped-def]
    box = page.get_by_role("spinbutton", name="Score")
    box.fill(score)
    box.press("Enter")
    page.get_by_text("Not set yet: move the slider").wait_for(state="detached")


def _silent(page, score: str) -> None:  # type: ignore[no-untyped-def]
    page.frame_locator(WIDGET).get_by_text("The sun shines.").wait_for()
    # Until the run ends, the first item's "No errors" button is still on the page beside
    # this one's.
    page.wait_for_selector(IDLE)
    _score(page, score)
    page.wait_for_selector(IDLE)
    page.get_by_role("button", name="No errors").click()


def test_esa_tutorial_warns_then_passes_and_records_a_silent_check(
    server: Server,
    page,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    token = _cli_import(server, tmp_path, "esa tutorial", "esa")
    cid = campaign_id(server.engine, "esa tutorial")
    assert cid is not None
    items = tutorial.parse_file(json.dumps(ITEMS).encode(), "esa_deen.json")
    tut = tutorial.set_tutorial(server.engine, cid, items)
    assert tut is not None and tut.pass_needed == 1 and tut.loud == (0,)
    page.goto(f"{server.url}/?token={token}")
    page.get_by_text("Before you start: a short tutorial").wait_for()
    page.get_by_text("One word is wrong", exact=False).wait_for()  # the instructions, as text

    _answer_first(page, "40")  # the span right, the score outside 75–85
    page.get_by_text("the score should be from 75 to 85, not 40", exact=False).wait_for()
    page.get_by_text(WARNING).wait_for()  # the item's warning
    page.get_by_text("score 40 · errors: “walked” (minor)", exact=False).wait_for()
    page.screenshot(path=screenshot_path(SHOT), full_page=True)
    page.get_by_role("button", name="Next item").click()
    _silent(page, "95")  # the silent check, right: nothing said but the attempt's end
    page.get_by_text("You have one more attempt", exact=False).wait_for()
    page.wait_for_selector(IDLE)
    assert page.get_by_text("Not quite", exact=False).count() == 0
    page.get_by_role("button", name="Try again").click()

    _answer_first(page, "80")
    # "Right" alone also matches the item's caption ("… whether it was right …"), and the
    # feedback's explanation is the warning's text: the feedback's own box, then the run's end.
    page.locator("[data-testid='stAlertContentSuccess']").filter(has_text="Right").wait_for()
    page.wait_for_selector(IDLE)
    assert (
        page.locator("[data-testid='stAlertContentWarning']").filter(has_text=WARNING).count() == 0
    )
    page.get_by_role("button", name="Next item").click()
    _silent(page, "50")  # the silent check, wrong: still nothing said
    page.get_by_text("You passed the tutorial", exact=False).wait_for()
    page.wait_for_selector(IDLE)
    assert page.get_by_text("Not quite", exact=False).count() == 0
    page.get_by_role("button", name="Start the task").click()
    page.get_by_role("button", name="Save and next").first.wait_for()  # the real task
    page.screenshot(path=str(screenshot_path(SHOT).with_name("esa-tutorial-passed.png")))

    with session_scope(server.engine) as s:
        rows = s.execute(
            select(
                TutorialAnswer.attempt,
                TutorialAnswer.item_index,
                TutorialAnswer.correct,
                TutorialAnswer.answer,
            ).order_by(TutorialAnswer.id)
        ).all()
        assert s.scalar(select(func.count()).select_from(Annotation)) == 0
    assert [(a, i, ok) for a, i, ok, _ in rows] == [
        (1, 0, False),
        (1, 1, True),
        (2, 0, True),
        (2, 1, False),
    ]
    first, _, second, silent = (r[3] for r in rows)
    assert first["score"] == 40 and "not 40" in first["problems"][0]
    assert [(sp["start"], sp["end"], sp["severity"]) for sp in second["spans"]] == [
        (8, 14, "minor")
    ]
    assert silent["score"] == 50 and silent["spans"] == []
    (result,) = tutorial.results(server.engine, cid).values()
    assert result == "passed (attempt 2, 1/1) · silent checks 1/2"


def test_the_annotators_page_shows_results_and_exports_answers(
    server: Server,
    page,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    """The organiser's side: the tutorial file uploaded on the Annotators page, each
    annotator's result in the table (silent checks counted apart), every answer in the
    download."""
    from tests.browser.test_downloads_browser import sign_in

    token = _cli_import(server, tmp_path, "esa tutorial", "esa")
    cid = campaign_id(server.engine, "esa tutorial")
    assert cid is not None and token
    sign_in(page, server.url)
    page.goto(f"{server.url}/annotators")
    page.get_by_text("Tutorial and checks", exact=True).wait_for()
    path = tmp_path / "esa_deen.json"
    path.write_text(json.dumps(ITEMS), encoding="utf-8")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(path))
    page.get_by_role("button", name="Set the tutorial from the file").click()
    page.get_by_text("Tutorial saved: 2 item(s).").wait_for()
    ann = next(iter(tutorial.results(server.engine, cid)), None)
    assert ann is None  # nobody has answered yet
    from accounts.invites import annotator_for_token

    identity = annotator_for_token(server.engine, token)
    assert identity is not None
    who = identity.annotator_id
    walked = {"start": 8, "end": 14, "severity": "minor", "category": "error", "side": "target"}
    tutorial.answer(server.engine, cid, who, 0, score=80, spans=[walked])
    tutorial.answer(server.engine, cid, who, 1, score=50, spans=[])
    page.reload()
    page.get_by_text("Tutorial and checks", exact=True).wait_for()
    page.get_by_text("1 of 1 right to pass", exact=False).wait_for()
    with page.expect_download() as got:
        page.get_by_role("button", name="Download every answer (CSV)").click()
    text = Path(got.value.path()).read_text(encoding="utf-8")
    assert text.splitlines()[0].startswith("annotator,attempt,item,kind,expects,right")
    assert "silent check" in text and "the score should be from 90 to 100, not 50" in text
    page.get_by_text("Tutorial and checks", exact=True).scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path(SHOT).with_name("tutorial-section.png")))
    result = tutorial.results(server.engine, cid)
    assert result == {who: "passed (attempt 1, 1/1) · silent checks 0/1"}
    page.get_by_text("Watch", exact=False).last.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path(SHOT).with_name("tutorial-results.png")))
