"""The dashboard at WMT25 size in a real browser: 60 systems × 2,000 items, 500 labelled.

Builds (or reuses, ``--db``) a SQLite database holding a synthetic campaign imported from a
CSV like a WMT file (60 systems, 2,000 items, binary labels on 500 items for every system;
adequacy rates with the WMT-like spread of bench/monitor_read_bench.py), serves the app
(``streamlit run app.py``), signs in as admin in headless Debian chromium (Playwright, the
system browser) and times:

- cold draw: the first open of the dashboard after the server started (empty caches: the
  campaign read and the live monitor's first full computation, then drawing);
- after one label: a label undone in the database (a new log event, so the report is read
  again), then the page reloaded — the monitor cache of the server process carries over;
- the empty-campaign dashboard as the floor, in the same run.

Prints each, with the ratio to the empty dashboard, and the "Computed in" figure the page
shows; ``--screenshot PATH`` saves the drawn dashboard (docs/screenshots/dashboard-60-systems.png).

    .venv/bin/python bench/dashboard_wmt60_bench.py [--db /tmp/wmt60.db] [--screenshot PATH]
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

PASSWORD = "bench-password"
K, N, LABELLED = 60, 2000, 500


def build(db: Path) -> None:
    """The campaign "wmt60" (and an "empty" one) imported into ``db`` unless already there."""
    from dashboard_bench import EMPTY_CSV
    from monitor_read_bench import wmt_like_rates

    from annotation.importer import import_campaign
    from db.campaigns import campaign_exists
    from db.engine import make_engine
    from db.migrate import upgrade

    engine = make_engine(f"sqlite:///{db}")
    upgrade(engine)
    if not campaign_exists(engine, "wmt60"):
        rng = np.random.default_rng(60)
        y = (rng.random((K, N)) < wmt_like_rates(K)[:, None]).astype(int)
        labelled = set(rng.permutation(N)[:LABELLED].tolist())
        path = db.with_suffix(".csv")
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["item_id", "source", "reference", "system", "output", "human_label"])
            for i in range(N):
                for s in range(K):
                    w.writerow([f"i{i}", f"Source sentence {i}.", f"Reference {i}.",
                                f"sys{s:02d}", f"Output {i} of system {s}.",
                                y[s, i] if i in labelled else ""])  # fmt: skip
        import_campaign(engine, path, "wmt60", settings={"target_lang": "de"})
    if not campaign_exists(engine, "empty"):
        import_campaign(engine, EMPTY_CSV, "empty", filename="empty.csv")
    engine.dispose()


def undo_one_label(db: Path) -> None:
    """Append an undo of the newest label of "wmt60" (a real log event: a new read)."""
    from db.annotations import append
    from db.engine import make_engine, session_scope
    from db.log_export import annotation_log
    from db.models import Annotation
    from db.reads import campaign_id

    engine = make_engine(f"sqlite:///{db}")
    cid = campaign_id(engine, "wmt60")
    last = [r for r in annotation_log(engine, cid) if r["kind"] == "label"][-1]
    with session_scope(engine) as s:
        ann = s.get(Annotation, last["annotation_id"])
        append(s, output_id=ann.output_id, annotator_id=ann.annotator_id, kind="undo",
               supersedes_id=ann.id)  # fmt: skip
    engine.dispose()


def sign_in(page, url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD, timeout=120_000)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Dashboard").wait_for(timeout=120_000)


def draw(page, url: str, campaign: str) -> tuple[float, str]:  # type: ignore[no-untyped-def]
    """Seconds from opening the dashboard's link for ``campaign`` (signed in) to the page
    drawn to its end (the "Download annotations" heading, after the live part), and the
    "Computed in" line ("" without labels)."""
    from playwright.sync_api import expect

    started = time.perf_counter()
    page.goto(f"{url}/dashboard?campaign={campaign}", wait_until="domcontentloaded")
    end = page.get_by_role("heading", name="Download annotations", exact=True)
    expect(end).to_be_visible(timeout=900_000)
    took = time.perf_counter() - started
    assert page.locator("[data-testid='stException']").count() == 0
    line = page.get_by_text("Computed in").first
    return took, line.inner_text() if line.count() else ""


def screenshot(page, path: Path) -> None:  # type: ignore[no-untyped-def]
    """The whole dashboard (Streamlit scrolls inside its main block: grow the viewport)."""
    height = page.evaluate(
        "document.querySelector(\"[data-testid='stMainBlockContainer']\").scrollHeight"
    )
    page.set_viewport_size({"width": 1400, "height": int(height) + 120})
    page.wait_for_timeout(2000)
    page.screenshot(path=str(path), full_page=True)


def main() -> None:
    from playwright.sync_api import sync_playwright

    from tests.browser.app_server import app_env, streamlit_app
    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", type=Path, default=None, help="reuse/create this SQLite file")
    ap.add_argument("--screenshot", type=Path, default=None)
    args = ap.parse_args()
    db = args.db or Path(tempfile.mkdtemp()) / "wmt60.db"
    t = time.perf_counter()
    build(db)
    print(f"database {db} ready in {time.perf_counter() - t:.1f} s", flush=True)
    env = app_env(f"sqlite:///{db}", PASSWORD)
    log = db.with_suffix(".log")
    with streamlit_app(env, log, fail=sys.exit) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        sign_in(page, url)
        empty, _ = draw(page, url, "empty")
        cold, cold_line = draw(page, url, "wmt60")
        if args.screenshot:
            screenshot(page, args.screenshot)
        undo_one_label(db)
        page.set_viewport_size({"width": 1400, "height": 1000})
        after, after_line = draw(page, url, "wmt60")
        browser.close()
    print(f"empty campaign dashboard: {empty:.2f} s")
    print(f"cold draw, 60 systems: {cold:.2f} s = {cold / empty:.1f} × empty ({cold_line})")
    print(f"after one label (undone): {after:.2f} s = {after / empty:.1f} × empty "
          f"({after_line})")  # fmt: skip


if __name__ == "__main__":
    main()
