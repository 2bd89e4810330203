"""A click during a long write does not undo it: the admin starts "Build / extend queue" on
a campaign large enough for the build to take seconds, and while its progress bar runs,
creates an invite link. Before, the click's rerun stopped the build inside its transaction
and the queue was not built, with no word on the page (found by bench/tour.py). Now the
build commits, its report is still shown, and the invite the click asked for is created."""

from __future__ import annotations

import re
import time

import pytest
from sqlalchemy import func, select

from db.engine import session_scope
from db.schema.models import Annotator, Assignment
from tests.annotation.test_queue import make_campaign
from tests.browser.conftest import Server

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
ITEMS, SYSTEMS = 15_000, 4  # 60,000 outputs: the build takes seconds on a 2-core machine


def _count(server: Server, what) -> int:  # type: ignore[no-untyped-def]
    with session_scope(server.engine) as s:
        return int(s.scalar(select(func.count()).select_from(what)) or 0)


@pytest.mark.browser
def test_an_invite_created_during_a_queue_build_keeps_the_build(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    make_campaign(server.engine, ITEMS, SYSTEMS, name="Large", overlap=0.0, attention_rate=0.0)
    page.goto(f"{server.url}/annotators")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Create invite link").wait_for()
    page.get_by_label("Name").fill("Ana")
    page.get_by_role("button", name="Build / extend queue").click()
    # the build's own bar is running (a plain "Queued" would also match the page's "queued",
    # case-insensitively, and click before the build started)
    page.get_by_text(re.compile(r"Queued [\d,]+ of [\d,]+ slots")).wait_for()
    started = time.monotonic()
    page.get_by_role("button", name="Create invite link").click()
    page.get_by_text(f"Queued {ITEMS * SYSTEMS:,} outputs of {ITEMS:,} items").wait_for(
        timeout=120_000
    )
    page.locator("[data-testid='stCode']").first.wait_for(timeout=60_000)  # Ana's link
    assert _count(server, Assignment) == ITEMS * SYSTEMS
    assert _count(server, Annotator) == 1
    # the click did wait for the build (it was not answered before the build committed)
    assert time.monotonic() - started > 0.2
