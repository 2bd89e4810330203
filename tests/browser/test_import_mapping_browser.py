"""Issue 17 item 7 in a real browser: the Import page suggests mappings (human_label ←
human_label_binary, annotator ← rater), offers score-looking columns as imported metrics,
says before import how many judgments come with the file and that they are not queued,
lets a judged file be judged again by ignoring its judgment columns, words its errors with
the page's own controls (not CLI flags), and gives ;-separated and empty files their own
message. Saves a screenshot of the mapping step."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import Server, screenshot_path
from tests.conftest import PROJECT_ROOT

PASSWORD = "browser-test-password"
SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "import_mapping.png"
N_ITEMS = 12

WMT_LIKE = (
    "item_id,system,source,reference,output,human_label_binary,rater,nmt_model_score\n"
    + "".join(
        f"seg{i},{s},Source {i}.,Referenz {i}.,Ausgabe {i} {s}.,{(i + (s == 'B')) % 2},"
        f"rater{i % 3},{-0.1 * i - (s == 'B')}\n"
        for i in range(N_ITEMS)
        for s in "AB"
    )
)
JUDGED = "item_id,source,reference,system,output,human_label\n" + "".join(
    f"{i},Hi {i},Hallo {i},A,Hallo {i},{i % 2}\n" for i in range(5)
)


def _open_import(page, url: str):  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto(url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    link = page.get_by_role("link", name="Import")
    expect(link).to_be_visible(timeout=90_000)
    link.click()
    heading = page.get_by_role("heading", name="Import a campaign or its metric scores")
    expect(heading).to_be_visible(timeout=60_000)


def _upload(page, path: Path) -> None:  # type: ignore[no-untyped-def]
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(path))


def test_import_mapping_step(server: Server, page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    from db.reads.campaign import campaign_id, read_campaign

    wmt = tmp_path / "wmt_like.csv"
    wmt.write_text(WMT_LIKE, encoding="utf-8")
    _open_import(page, server.url)
    _upload(page, wmt)

    # suggestions, already chosen in the mapping boxes
    expect(page.get_by_text("human_label ← human_label_binary", exact=False)).to_be_visible(
        timeout=60_000
    )
    expect(page.get_by_text("annotator ← rater", exact=False).first).to_be_visible()
    expect(page.get_by_role("combobox", name="human_label ←")).to_have_value("human_label_binary")
    expect(page.get_by_role("combobox", name="annotator ←")).to_have_value("rater")
    # judgments counted before import, and said not to be queued
    expect(
        page.get_by_text(f"{2 * N_ITEMS} of {2 * N_ITEMS} rows come with a judgment")
    ).to_be_visible()
    expect(page.get_by_text("not queued", exact=False)).to_be_visible()

    # the score-looking column is offered as an imported metric
    metrics = page.locator("[data-testid='stMultiSelect']").filter(
        has_text="Import as metric scores"
    )
    metrics.click()
    page.get_by_role("option", name="nmt_model_score").click()
    page.keyboard.press("Escape")
    expect(page.get_by_text("Metric scores to import", exact=False)).to_be_visible(timeout=30_000)
    page.wait_for_timeout(500)
    shot = screenshot_path(SCREENSHOT)
    height = page.evaluate(
        "document.querySelector(\"[data-testid='stMainBlockContainer']\").scrollHeight"
    )
    page.set_viewport_size({"width": 1280, "height": int(height) + 120})
    page.screenshot(path=str(shot), full_page=True)

    page.get_by_text("Hidden from annotators (blind)").click()
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_text("nmt_model_score (higher is better)", exact=False)).to_be_visible(
        timeout=60_000
    )
    cid = campaign_id(server.engine, "wmt_like")
    assert cid is not None
    data = read_campaign(server.engine, cid)
    assert sorted(data.annotators) == ["rater0", "rater1", "rater2"]
    assert len(data.judgments) == 2 * N_ITEMS
    assert [m.metric for m in data.metrics] == ["nmt_model_score"]
    assert data.metrics[0].n_scores == 2 * N_ITEMS


def test_judged_file_can_be_judged_again(server: Server, page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    judged = tmp_path / "judged.csv"
    judged.write_text(JUDGED, encoding="utf-8")
    _open_import(page, server.url)
    _upload(page, judged)
    expect(page.get_by_text("5 of 5 rows come with a judgment")).to_be_visible(timeout=60_000)
    ignore = page.locator("[data-testid='stMultiSelect']").filter(
        has_text="Ignore columns of the file"
    )
    ignore.click()
    page.get_by_role("option", name="human_label").click()
    page.keyboard.press("Escape")
    expect(page.get_by_text("The file carries no judgments")).to_be_visible(timeout=30_000)


def test_web_errors_name_the_page_controls(server: Server, page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    missing = tmp_path / "missing.csv"
    missing.write_text("item_id,src,system,output\n1,a,A,b\n", encoding="utf-8")
    semi = tmp_path / "semi.csv"
    semi.write_text("item_id;source;reference;system;output\n1;a;b;A;c\n", encoding="utf-8")
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    _open_import(page, server.url)

    _upload(page, missing)
    error = page.locator("[data-testid='stAlert']").filter(has_text="cannot be imported")
    expect(error).to_contain_text("missing required column 'reference'", timeout=60_000)
    expect(error).to_contain_text("under 'Map columns'")
    assert "--map" not in error.inner_text()

    _upload(page, semi)
    expect(page.get_by_text("looks semicolon-separated", exact=False)).to_be_visible(timeout=60_000)
    _upload(page, empty)
    expect(page.get_by_text("is empty (0 bytes)", exact=False)).to_be_visible(timeout=60_000)
