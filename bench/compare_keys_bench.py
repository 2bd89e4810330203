"""Comparative mode's keyboard path in chromium: key → next screen for 4 outputs, as a ratio
to the single-output page's key → next item, measured in the same run.

Starts ``streamlit run app.py`` over a fresh SQLite file (bench/tour.py's ``app_server``),
seeds two paired binary campaigns of 4 systems × ``--items`` sources, one judged one output
at a time and one in comparative mode (all 4 outputs on one screen), each with its own
annotator, and drives headless Debian chromium (Playwright, the system browser):

- single: ``a`` / ``i`` → the next output's text on the screen (the tour's measure);
- comparative: four label keys (each waits for its mark), then ``Enter`` → the next
  screen's source and outputs on the screen. Also the whole screen: first key → next screen.

Reports medians, p90 and the ratio comparative / single. The target is a median of at most
0.4 s for the comparative screen (0.3 s for the single page); the ratio is the portable
figure. Run: ``.venv/bin/python bench/compare_keys_bench.py [--screens 20]``.
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.tour import CHROMIUM, CHROMIUM_ARGS, IDLE, app_server  # noqa: E402

SYSTEMS = 4
FRESH = ("(() => { const o = document.querySelector('.tandem-output');"
         " const c = o && o.closest(\"[data-testid='stElementContainer']\");"
         " return !!o && !(c && c.dataset.stale === 'true'); })()")  # fmt: skip
STATE = ("() => [...document.querySelectorAll('.tandem-source, .tandem-output')]"
         ".map(e => e.innerText).join('|')")  # fmt: skip


def seed(db_url: str, items: int) -> dict[str, str]:
    """Two campaigns (single, comparative); their annotators' invite tokens."""
    from accounts.invites import create_annotator
    from annotation.judging import comparative
    from annotation.queue import build as queue_build
    from db.engine import make_engine, session_scope
    from db.schema.models import Campaign, Item, Output, System

    engine = make_engine(db_url)
    tokens = {}
    for name in ("single", "comparative"):
        with session_scope(engine) as s:
            camp = Campaign(name=name, show_metrics=False)
            s.add(camp)
            s.flush()
            systems = [System(campaign_id=camp.id, name=f"sys{k}") for k in range(SYSTEMS)]
            s.add_all(systems)
            for j in range(items):
                item = Item(campaign_id=camp.id, external_id=str(j),
                            source=f"Source sentence number {j} of the benchmark.")  # fmt: skip
                s.add(item)
                s.flush()
                s.add_all(Output(item_id=item.id, system_id=sy.id,
                                 text=f"Ausgabe {j} von System {k}, ein ganzer Satz.")
                          for k, sy in enumerate(systems))  # fmt: skip
            cid = camp.id
        if name == "comparative":
            comparative.set_comparative(engine, cid, True)
        queue_build.build_queue(engine, cid, seed=1)
        tokens[name] = create_annotator(engine, cid, f"ann-{name}").token
    engine.dispose()
    return tokens


def _wait_changed(page, before: str) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(f"(b) => ({STATE})() !== b && {FRESH}", arg=before, polling="raf")


def single(page, n: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for k in range(n):
        before = page.evaluate(STATE)
        started = time.perf_counter()
        page.keyboard.press("a" if k % 2 else "i")
        _wait_changed(page, before)
        out.append(time.perf_counter() - started)
        page.wait_for_function(f"() => {IDLE}", polling="raf")
    return out


def screens(page, n: int) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    enter, whole = [], []
    marks = ("[...document.querySelectorAll('.tandem-cmp-label')]"
             ".filter(e => e.innerText !== 'not judged yet').length")  # fmt: skip
    for k in range(n):
        before = page.evaluate(STATE)
        first = time.perf_counter()
        for m, key in enumerate("aiai" if k % 2 else "iaia", start=1):
            page.keyboard.press(key)
            page.wait_for_function(f"(m) => {marks} >= m", arg=m, polling="raf")
        page.wait_for_function(f"() => {IDLE}", polling="raf")
        started = time.perf_counter()
        page.keyboard.press("Enter")
        _wait_changed(page, before)
        enter.append(time.perf_counter() - started)
        whole.append(time.perf_counter() - first)
        page.wait_for_function(f"() => {IDLE}", polling="raf")
    return enter, whole


def summary(name: str, xs: list[float]) -> str:
    xs = sorted(xs)
    p90 = xs[min(len(xs) - 1, round(0.9 * (len(xs) - 1)))]
    return f"| {name} | {statistics.median(xs):.3f} s | {p90:.3f} s | {xs[-1]:.3f} s |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--screens", type=int, default=20, help="screens (and single items)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory(prefix="tandem-cmp-") as tmp,
        app_server(Path(tmp), secrets.token_urlsafe(12)) as url,
    ):
        tokens = seed(f"sqlite:///{Path(tmp) / 'tandem.db'}", args.screens + 5)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            results = {}
            for name in ("single", "comparative"):
                page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
                page.goto(f"{url}/?token={tokens[name]}")
                page.locator(".tandem-output").first.wait_for(timeout=60_000)
                page.wait_for_function("window.__tandemKeysInstalled === true")
                page.wait_for_function(f"() => {IDLE}")
                if name == "single":
                    results["single"] = single(page, 4 * args.screens)
                else:
                    results["enter"], results["whole"] = screens(page, args.screens)
            browser.close()
    print("| chromium, key → | median | p90 | max |\n| --- | --- | --- | --- |")
    print(summary(f"next item, single output ({4 * args.screens} keys)", results["single"]))
    print(summary(f"next screen, 4 outputs (Enter, {args.screens} screens)", results["enter"]))
    print(summary("whole screen: first label key → next screen", results["whole"]))
    ratio = statistics.median(results["enter"]) / statistics.median(results["single"])
    print(f"\nratio comparative Enter / single key (medians): {ratio:.2f}")


if __name__ == "__main__":
    main()
