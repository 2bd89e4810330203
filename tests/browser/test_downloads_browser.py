"""Two download buttons clicked within about a second give two files. Before, a click
reran the page, which re-registered every deferred download under a new id and pruned the
file generated for the first click: the second (or the first) download gave nothing, the
server logged ``MediaFileStorageError: Deferred file … not found`` and the button could
stay disabled. Now a download does not rerun the page (views.common.download)."""

from __future__ import annotations

import time
from pathlib import Path

from tests.browser.conftest import Server
from tests.life_data import campaign_csv

PASSWORD = "browser-test-password"  # what the shared ``server`` fixture configures
#: Milliseconds between the two clicks: at once, and through the first click's rerun.
DELAYS_MS = (0, 300, 700, 1000, 1300, 1600)


def sign_in(page, url: str) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto(url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Campaigns", exact=True)).to_be_visible(timeout=90_000)


def test_two_quick_downloads_give_two_files(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    from annotation.imports.importer import import_campaign

    import_campaign(server.engine, campaign_csv("dl"), "dl", filename="dl.csv")
    sign_in(page, server.url)
    got: list = []
    page.on("download", lambda d: got.append(d))
    csv, tsv = (page.get_by_role("button", name=f"Download {f}") for f in ("CSV", "TSV"))
    for delay in DELAYS_MS:
        got.clear()
        csv.click(timeout=5_000)
        page.wait_for_timeout(delay)
        tsv.click(timeout=5_000)  # a button left disabled fails here
        deadline = time.monotonic() + 10
        while len(got) < 2 and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        names = sorted(d.suggested_filename for d in got)
        assert names == ["dl.csv", "dl.tsv"], (delay, names)
        for d in got:
            assert d.failure() is None
            assert b"src dl 0" in Path(d.path()).read_bytes()
    assert "Deferred file" not in server.log.read_text()


def test_dashboard_result_downloads_are_written_when_clicked(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    """The dashboard's results, pairs and ranking files are generated on click (deferred:
    a refresh no longer writes them), and hold the report the page shows."""
    from playwright.sync_api import expect

    from tests.test_reads import seed_campaign

    seed_campaign(server.engine, "dash", n_items=40, labelled=30, overlap=0)
    sign_in(page, server.url)
    page.goto(f"{server.url}/dashboard?campaign=dash", wait_until="domcontentloaded")
    expect(page.get_by_role("heading", name="Download results", exact=True)).to_be_visible(
        timeout=90_000
    )
    wanted = {
        "Results (CSV)": ("dash-results.csv", b"label_kind,system,rank,"),
        "Results (LaTeX)": ("dash-results.tex", b"\\begin{table}"),
        "Pairwise verdicts (CSV)": ("dash-pairs.csv", b"a,b,estimate,"),
        "Ranking (CSV)": ("ranking.csv", b"position,cluster,system,"),
    }
    for label, (name, head) in wanted.items():
        with page.expect_download(timeout=30_000) as info:
            page.get_by_role("button", name=label, exact=True).click()
        d = info.value
        assert d.suggested_filename == name
        body = Path(d.path()).read_bytes()
        assert head in body[:400], (label, body[:200])
        assert b"sys0" in body and b"sys2" in body
    assert "Deferred file" not in server.log.read_text()
