"""Issue 17.5 in a real browser: the metric choice belongs to one campaign (no carry-over),
an estimate is shown before the start, scoring runs as a background job the page polls
(the session stays usable: another page opens while it runs), and Cancel stops it keeping
what was stored; a small job runs to the end and reports what it did."""

from __future__ import annotations

import time

import pytest

from db.admin import jobs as store
from db.engine import session_scope
from db.schema.models import Campaign, Item, Output, System
from metrics.scoring_job import latest_jobs
from tests.browser.conftest import IDLE, PROJECT_ROOT, Server, screenshot_path

PASSWORD = "browser-test-password"
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "scoring_job.png"
WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "seven",
    "tired",
    "cats",
    "watch",
    "it",
]


def _campaign(server: Server, name: str, n_items: int, n_systems: int) -> int:
    with session_scope(server.engine) as s:
        camp = Campaign(name=name, target_lang="de")
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"sys{k}") for k in range(n_systems)]
        s.add_all(systems)
        s.flush()
        items = [
            Item(
                campaign_id=camp.id,
                external_id=str(j),
                source="x",
                reference=" ".join(WORDS[(j + k) % len(WORDS)] for k in range(24)),
            )
            for j in range(n_items)
        ]
        s.add_all(items)
        s.flush()  # one flush for the items: a big campaign is built in a second or two
        s.add_all(
            Output(
                item_id=item.id,
                system_id=sy.id,
                text=" ".join(WORDS[(j * 3 + k * (i + 2)) % len(WORDS)] for k in range(22)),
            )
            for j, item in enumerate(items)
            for i, sy in enumerate(systems)
        )
        return camp.id


def _choose_campaign(page, name: str) -> None:  # type: ignore[no-untyped-def]
    page.get_by_label("Campaign", exact=True).click()
    page.get_by_role("option", name=name, exact=True).click()


def _chips(page) -> list[str]:  # type: ignore[no-untyped-def]
    section = page.locator("[data-testid='stMultiSelect']").first
    tags = section.locator(".react-aria-ComboBox [data-tag]")
    return [t.get_attribute("aria-label") or "" for t in tags.all()]


def _wait_job(server: Server, cid: int, states: tuple[str, ...], timeout: float = 120):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        jobs = latest_jobs(server.engine, cid, 1)
        if jobs and jobs[0].state in states:
            return jobs[0]
        assert time.monotonic() < deadline, jobs
        time.sleep(0.2)


@pytest.mark.browser
def test_scoring_is_a_background_job_per_campaign(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    big = _campaign(server, "big", 4000, 3)  # 12,000 outputs: the cancel lands mid-run
    small = _campaign(server, "small", 5, 2)
    page.goto(f"{server.url}/campaigns")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Metric scores").wait_for()

    # The choice is this campaign's: dropping TER here does not drop it elsewhere.
    _choose_campaign(page, "small")
    page.get_by_text("To score: bleu 10 of 10").wait_for()
    page.get_by_role("button", name="Remove ter").click()
    page.get_by_text("To score: bleu 10 of 10, chrf 10 of 10 outputs").wait_for()
    _choose_campaign(page, "big")
    page.get_by_text("To score: bleu 12,000 of 12,000").wait_for()
    assert _chips(page) == ["bleu", "chrf", "ter"]
    estimate = page.get_by_text("Estimated time: about").inner_text()
    assert "ter 12,000 of 12,000" in estimate, estimate

    page.wait_for_selector(IDLE)  # until then "Start scoring" may be small's, still drawn
    page.get_by_role("button", name="Start scoring").click()
    page.get_by_role("button", name="Cancel scoring").wait_for()
    job = _wait_job(server, big, (store.RUNNING,))
    page.get_by_text("Scoring bleu, chrf, ter:").wait_for()
    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)

    # The session is not blocked: another page opens while the job runs.
    started = time.monotonic()
    page.get_by_role("link", name="Planner").click()
    page.get_by_role("heading", name="Planner").first.wait_for()
    other_page_s = time.monotonic() - started
    assert store.get_job(server.engine, job.id).state == store.RUNNING  # type: ignore[union-attr]
    assert other_page_s < 15, other_page_s
    page.get_by_role("link", name="Campaigns").click()
    page.get_by_role("button", name="Cancel scoring").click()
    page.get_by_text("Last scoring run").wait_for(timeout=60_000)
    stopped = _wait_job(server, big, (store.CANCELLED,))
    assert stopped.done < stopped.total, stopped
    print(f"cancelled at {stopped.done:,} of {stopped.total:,} scores")
    page.get_by_text("the scores stored so far are kept").first.wait_for()

    # A small job runs to its end; its result is on the page.
    _choose_campaign(page, "small")
    page.get_by_text("To score: bleu 10 of 10").wait_for()  # big's button is still on the page
    page.wait_for_selector(IDLE)
    page.get_by_role("button", name="Start scoring").click()
    done = _wait_job(server, small, (store.DONE, store.FAILED))
    assert done.state == store.DONE, done.message
    page.get_by_text("Last scoring run").wait_for()
    page.get_by_text("ter: 10 new, 0 already scored of 10 outputs").wait_for()
    print(f"another page while scoring: {other_page_s:.2f} s")
