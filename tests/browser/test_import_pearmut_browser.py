"""A Pearmut campaign (JSON) on the Import page in a real browser: the preview says what it
becomes and lists what is not imported, its log is taken beside it, and Import writes the
campaign with the log's judgments. Saves a screenshot of the preview."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.conftest import Server
from tests.browser.test_import_mapping_browser import _open_import
from tests.support import pearmut_shapes as P

pytestmark = pytest.mark.browser


def test_pearmut_campaign_and_log_import(server: Server, page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    from db.judging.log_export import annotation_log
    from db.reads.campaign import campaign_id

    campaign = tmp_path / "contrastive.json"
    campaign.write_bytes(P.as_bytes(P.contrastive()))
    item = P.contrastive()["data"][0][0][0]
    line = {
        "user_id": "wmt-rater",
        "item_i": 0,
        "item": [item],
        "annotation": [
            {
                "sysA": {"score": 80, "error_spans": []},
                "sysB": {
                    "score": 40,
                    "error_spans": [{"start_i": 0, "end_i": 2, "severity": "major"}],
                },
            }
        ],
    }
    log = tmp_path / "contrastive.jsonl"
    log.write_text(json.dumps(line) + "\n", encoding="utf-8")

    _open_import(page, server.url)
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(campaign))
    expect(page.get_by_text("A Pearmut campaign (cESA)", exact=False)).to_be_visible(timeout=60_000)
    expect(page.get_by_text("ESA on comparative screens", exact=False)).to_be_visible()
    expect(page.get_by_text("info.textfield", exact=False)).to_be_visible()
    page.locator("[data-testid='stFileUploaderDropzoneInput']").nth(1).set_input_files(str(log))
    # the log's upload has finished when the uploader lists it, as an organiser sees it
    # before Import (a click before that imports the campaign without its log)
    expect(page.get_by_text("contrastive.jsonl", exact=True)).to_be_visible(timeout=30_000)
    page.screenshot(path="/tmp/pearmut-import.png", full_page=True)
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_text("Imported Pearmut campaign", exact=False)).to_be_visible(timeout=60_000)
    cid = campaign_id(server.engine, "example_cesa")
    assert cid is not None
    judged = {(r["system"], r["esa_score"]) for r in annotation_log(server.engine, cid)}
    assert judged == {("sysA", 80.0), ("sysB", 40.0)}
