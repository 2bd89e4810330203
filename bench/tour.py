"""The README's Tour: every page on real data, screenshotted, and the timings a user sees.

Starts ``streamlit run app.py`` on a free localhost port over a fresh temporary SQLite
database (``DATABASE_URL``, migrated with ``cli.py migrate``, admin password from
``TANDEM_ADMIN_PASSWORD``), then walks a researcher's and an annotator's day in headless
Debian chromium (Playwright, the system browser; never downloads one), only through the
pages, timing each step with ``time.perf_counter`` from the action to the element that shows
its result:

1. sign in; **Import** the WMT21 TED en-de file (13 systems, 529 items, 6,877 rows) as it is,
   with the mappings the page suggests (human_label ← human_label_binary, annotator ← rater,
   doc_id ← doc): the expert MQM census, for the analysis pages;
2. **Campaigns**: score it with BLEU + chrF + TER (``--bertscore`` adds BERTScore; slow on
   2 cores), a background job the page polls;
3. **Import** the same file again as a campaign to be judged again (human_score ignored,
   human_label and annotator set to "—"), scores shown to annotators, and score it;
4. **Annotators**: build the queue, create an annotator, copy the invite link;
5. open the link in a second browser context and label ``--labels`` items with ``a`` / ``i``
   (the key follows the file's MQM label of the output; attention checks, which are not in
   the file, get ``i``);
6. open **Annotators**, **Dashboard**, **Calibration**, **Planner** (inputs from the MQM
   campaign), **Review** (the annotator's labels) and **Annotate** (the admin's view);
7. document context: switch it on for the re-judge campaign (its items carry the file's
   doc ids) on **Annotators**, invite a second annotator and label ``--labels`` items with
   the document's earlier segments shown above each (``annotate_document``);
8. comparative mode: import the file a third time, switch comparative mode on with 4
   outputs per screen, invite a third annotator and judge ``--screens`` screens with the
   keys, then ``Enter`` (``annotate_compare``: the last screen, judged, before saving).

Every page of ``app.py``'s navigation is screenshotted once it has rendered (its headings
shown and the script run finished), plus the sign-in page and the annotator's page.

Screenshots go to ``--out`` (default docs/screenshots/tour/<page>.png, 1400 px wide, height
capped so each PNG stays under ``--max-kb``). Prints a markdown timings table at the end and
any error box a page showed (then exits 1). Takes about 3 minutes (7 with ``--bertscore``),
so the Makefile's ``bench`` target leaves this script out.

Run: ``.venv/bin/python bench/tour.py [--out docs/screenshots/tour] [--data PATH.csv]``
(``--data``: a file in the shared data's layout, with human_label_binary, human_score and
rater columns; the WMT21 TED en-de file by default).
"""

from __future__ import annotations

import argparse
import csv
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.browser.app_server import CHROMIUM, CHROMIUM_ARGS, app_env, streamlit_app  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "wmt21-ted-mqm" / "wmt21_ted_ende.csv"
WIDTH, HEIGHT = 1400, 900
MAX_PAGE = 12_000  # px: the longest page drawn (the dashboard is about 7,000)
MQM_CAMPAIGN = "WMT21 TED en-de, expert MQM"
JUDGE_CAMPAIGN = "WMT21 TED en-de, to judge"
COMPARE_CAMPAIGN = "WMT21 TED en-de, comparative"
ANNOTATOR = "Annotator 1"
LONG = 600_000  # ms: an import or a scoring run on a loaded 2-core machine


# ---------------------------------------------------------------- the server


@contextmanager
def app_server(workdir: Path, password: str) -> Iterator[str]:
    """``streamlit run app.py`` on localhost over a fresh migrated SQLite file; its URL."""
    env = {
        **app_env(f"sqlite:///{workdir / 'tandem.db'}", password),
        "TOKENIZERS_PARALLELISM": "false",
    }
    subprocess.run([sys.executable, "cli.py", "migrate"], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    with streamlit_app(env, workdir / "streamlit.log", fail=sys.exit) as url:
        try:
            yield url
        finally:
            stop_scoring(env["DATABASE_URL"])


def stop_scoring(db_url: str) -> None:
    """Cancel every scoring job still running (a tour stopped early): the worker runs in its
    own session and would outlive the server; it stops within 10 s of a cancel."""
    from db.campaign.campaigns import list_campaigns
    from db.engine import make_engine
    from metrics.scoring_job import active_job, cancel_job

    engine = make_engine(db_url)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            jobs = [j for c in list_campaigns(engine) if (j := active_job(engine, c.id))]
            if not jobs:
                return
            for job in jobs:
                cancel_job(engine, job.id)
            time.sleep(0.5)
    finally:
        engine.dispose()


# ---------------------------------------------------------------- the walk


class Tour:
    def __init__(self, out: Path, max_kb: int) -> None:
        self.out = out
        self.max_kb = max_kb
        self.timings: list[tuple[str, str]] = []
        self.problems: list[str] = []
        self.pages: list = []  # every open tab, screenshotted when a step fails

    def record(self, step: str, seconds: float | str) -> None:
        text = f"{seconds:.2f} s" if isinstance(seconds, float) else seconds
        self.timings.append((step, text))
        print(f"  {step}: {text}", flush=True)

    def timed(self, step: str, action: Callable[[], object], done: Callable[[], object]) -> float:
        started = time.perf_counter()
        action()
        done()
        seconds = time.perf_counter() - started
        self.record(step, seconds)
        return seconds

    def check(self, page, where: str) -> None:  # type: ignore[no-untyped-def]
        """Every exception or error box the page shows, kept for the report."""
        for testid in ("stException", "stAlertContentError"):
            for box in page.locator(f"[data-testid='{testid}']").all():
                text = " ".join(box.inner_text().split())
                self.problems.append(f"{where}: {testid}: {text}")
                print(f"  ! {where}: {testid}: {text}", flush=True)

    def shot(self, page, name: str) -> None:  # type: ignore[no-untyped-def]
        """The whole page (up to ``MAX_PAGE`` px) in one PNG, or in parts ``name-2.png``, …
        when one PNG would exceed ``--max-kb``; then the normal viewport again."""
        settle(page)
        self.check(page, name)
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.mouse.move(WIDTH - 2, HEIGHT - 2)  # no hover outline or tooltip in the picture
        height = page.evaluate(  # the main column, or the sidebar when it is longer
            "() => Math.max(...['stMainBlockContainer', 'stSidebarContent'].map(id => {"
            " const e = document.querySelector(`[data-testid='${id}']`);"
            " return e ? e.scrollHeight : 0; }))"
        )
        full = min(MAX_PAGE, int(height) + 40)
        page.set_viewport_size({"width": WIDTH, "height": max(full, HEIGHT)})
        settle(page)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => "
                      "requestAnimationFrame(r)))")  # fmt: skip
        for old in self.out.glob(f"{name}-*.png"):
            old.unlink()
        parts = -(-full // 3200)
        while True:  # equal parts, as few as the size limit allows
            h = -(-full // parts)
            shots = []
            for k in range(parts):
                path = self.out / (f"{name}.png" if k == 0 else f"{name}-{k + 1}.png")
                clip = {"x": 0, "y": k * h, "width": WIDTH, "height": min(h, full - k * h)}
                page.screenshot(path=str(path), clip=clip)
                shots.append((path, clip["height"], path.stat().st_size))
            if all(size <= self.max_kb * 1024 for *_, size in shots) or h <= HEIGHT:
                break
            parts += 1
        for path, h, size in shots:
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            print(f"  screenshot {shown} ({WIDTH}×{h}, {size // 1024} KB)", flush=True)
        page.set_viewport_size({"width": WIDTH, "height": HEIGHT})


def settle(page, timeout: float = LONG) -> None:  # type: ignore[no-untyped-def]
    """Until the script run the page is waiting for (if any) has finished."""
    page.wait_for_selector(
        "[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout
    )


#: True when no script run is under way (the page is drawn as the last run left it).
IDLE = "document.querySelector(\"[data-testid='stApp']\").dataset.testScriptState === 'notRunning'"


#: Counts the script runs the page has finished since it was loaded (installed on first use).
COUNT_RUNS = """() => {
  if (window.__tourRuns === undefined) {
    window.__tourRuns = 0;
    const app = document.querySelector("[data-testid='stApp']");
    new MutationObserver(records => {
      const states = [...records.map(r => r.oldValue), app.dataset.testScriptState];
      for (let k = 1; k < states.length; k++)
        if (states[k] === 'notRunning' && states[k - 1] !== 'notRunning') window.__tourRuns++;
    }).observe(app, {attributes: true, attributeOldValue: true,
                     attributeFilter: ['data-test-script-state']});
  }
  return window.__tourRuns;
}"""


def rerun(page, action: Callable[[], object]) -> None:  # type: ignore[no-untyped-def]
    """Do ``action`` (a click or key that makes the page run its script again) and return when
    that run has finished: no element of the page before it is left on the screen."""
    before = page.evaluate(COUNT_RUNS)
    action()
    page.wait_for_function("n => window.__tourRuns > n", arg=before, timeout=LONG)


def heading(page, text: str):  # type: ignore[no-untyped-def]
    return page.get_by_role("heading", name=text, exact=True).first


def open_page(tour: Tour, page, link: str, ready: list[str], step: str | None = None) -> None:  # type: ignore[no-untyped-def]
    """Click a navigation link; done when every ``ready`` heading shows and the run ended."""

    def done() -> None:
        for text in ready:
            heading(page, text).wait_for(timeout=LONG)
        settle(page)

    tour.timed(step or f"open {link}", lambda: page.get_by_role("link", name=link).click(), done)


def choose(page, label: str, option: str) -> None:  # type: ignore[no-untyped-def]
    """Pick ``option`` in the selectbox labelled ``label`` (when it is not chosen already)."""
    box = page.get_by_role("combobox", name=label, exact=True).first
    box.wait_for()
    if box.input_value() == option:
        return
    box.click()
    rerun(page, page.get_by_role("option", name=option, exact=True).click)


def read_rows(data: Path) -> list[dict[str, str]]:
    with data.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def import_file(  # type: ignore[no-untyped-def]
    tour: Tour, page, data: Path, name: str, *, rejudge: bool, shot: str | None
) -> None:
    tag = "re-judge copy" if rejudge else "with its MQM labels"
    open_page(tour, page, "Import", ["Import a campaign or its metric scores"])
    upload = page.locator("[data-testid='stFileUploaderDropzoneInput']").first
    tour.timed(
        f"Import ({tag}): upload → validated preview",
        lambda: upload.set_input_files(str(data)),
        lambda: (page.get_by_text("rows are valid.").first.wait_for(timeout=LONG), settle(page)),
    )
    if rejudge:  # have the judged file judged again: its judgment columns left out
        ignore = page.locator("[data-testid='stMultiSelect']").filter(
            has_text="Ignore columns of the file"
        )
        ignore.click()
        page.get_by_role("option", name="human_score", exact=True).click()
        page.keyboard.press("Escape")
        settle(page)
        choose(page, "human_label ←", "—")
        choose(page, "annotator ←", "—")
        page.get_by_text("The file carries no judgments").wait_for(timeout=LONG)
    else:
        page.get_by_text("rows come with a judgment", exact=False).first.wait_for()
    for label, value in (("Campaign name", name), ("Target language code (for metric "
                                                   "tokenizers)", "de")):  # fmt: skip
        box = page.get_by_label(label, exact=True)
        box.fill(value)
        rerun(page, lambda box=box: box.press("Enter"))
    visibility = "Shown to annotators" if rejudge else "Hidden from annotators (blind)"
    rerun(page, page.get_by_text(visibility, exact=True).click)
    button = page.get_by_role("button", name="Import", exact=True)
    page.wait_for_function(
        "() => [...document.querySelectorAll('button')].some(b => b.innerText.trim() === "
        "'Import' && !b.disabled)"
    )
    tour.timed(
        f"Import ({tag}): Import click → done",
        button.click,
        lambda: page.get_by_text("Next: score the outputs", exact=False).wait_for(timeout=LONG),
    )
    summary = page.locator("[data-testid='stAlertContentSuccess']").filter(has_text="Imported ")
    text = " ".join(summary.first.inner_text().split())  # "… in 1.39 s." ends its first line
    server_s = text.split(" s.", 1)[0].rsplit(" in ", 1)[-1]
    tour.record(f"Import ({tag}): server-side import (the page's own report)", f"{server_s} s")
    if shot:
        tour.shot(page, shot)


def score(tour: Tour, page, name: str, n: int, bertscore: bool, shot: str | None) -> None:  # type: ignore[no-untyped-def]
    open_page(tour, page, "Campaigns", ["Metric scores"])
    choose(page, "Campaign", name)
    page.get_by_text(f"To score: bleu {n:,} of {n:,}", exact=False).wait_for(timeout=LONG)
    metrics = "BLEU+chrF+TER"
    if bertscore:
        page.locator("[data-testid='stMultiSelect']").filter(has_text="Metrics").click()
        page.get_by_role("option", name="bertscore", exact=True).click()
        page.keyboard.press("Escape")
        page.get_by_text(f"bertscore {n:,} of {n:,}", exact=False).wait_for(timeout=LONG)
        metrics += "+BERTScore"
    estimate = page.get_by_text("Estimated time: about", exact=False).first.inner_text()
    tour.timed(
        f"Score {metrics} ({name}): Start scoring → done",
        lambda: rerun(page, page.get_by_role("button", name="Start scoring").click),
        lambda: page.get_by_text("Last scoring run", exact=False).wait_for(timeout=3 * LONG),
    )
    report = page.locator("[data-testid='stCode']").filter(has_text="Scored in").first
    server_s = report.inner_text().split("Scored in", 1)[1].split(" s", 1)[0].strip()
    tour.record(f"Score {metrics} ({name}): the job's own report", f"{server_s} s")
    tour.record(f"Score {metrics} ({name}): the page's estimate before the start",
                estimate.split("Estimated time: about", 1)[1].strip().rstrip("."))  # fmt: skip
    if shot:
        tour.shot(page, shot)


def new_tab(tour: Tour, browser):  # type: ignore[no-untyped-def]
    """A fresh browser context (its own cookies: a separate user) with one tab, recorded
    for the failure screenshots."""
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    tab = context.new_page()
    tab.set_default_timeout(120_000)
    tour.pages.append(tab)
    return context, tab


def open_invite(tour: Tour, browser, link: str):  # type: ignore[no-untyped-def]
    """An annotator's tab on ``link``, once the first item is drawn and the page is idle."""
    context, tab = new_tab(tour, browser)
    tab.goto(link)
    tab.locator(".tandem-output").first.wait_for()
    settle(tab)
    return context, tab


def annotate(tour: Tour, browser, link: str, labels: dict, n: int) -> None:  # type: ignore[no-untyped-def]
    context, page = new_tab(tour, browser)

    def first_item() -> None:
        page.locator(".tandem-output").first.wait_for()
        page.wait_for_selector(".st-key-adequate button")
        settle(page)

    tour.timed("Invite link opened → first item shown", lambda: page.goto(link), first_item)
    state = ("() => { const o = document.querySelector('.tandem-output');"
             " const p = document.querySelector(\"[data-testid='stProgress']\");"
             " return (o ? o.innerText : '') + '|' + (p ? p.innerText : ''); }")  # fmt: skip
    # the output on the screen is this run's, not the previous item's waiting to be replaced
    fresh = ("(() => { const o = document.querySelector('.tandem-output');"
             " const c = o && o.closest(\"[data-testid='stElementContainer']\");"
             " return !!o && !(c && c.dataset.stale === 'true'); })()")  # fmt: skip
    shown_s: list[float] = []  # key → the next item's text on the screen
    drawn_s: list[float] = []  # key → the page's run finished (buttons, keys ready again)
    keys = {"a": 0, "i": 0, "not in the file": 0}
    for _ in range(n):
        source = page.locator(".tandem-source").first
        shown = (
            source.inner_text() if source.count() else "",
            page.locator(".tandem-output").first.inner_text(),
        )
        label = labels.get(shown)
        key = "a" if label == 1 else "i"
        keys["not in the file" if label is None else key] += 1
        before = page.evaluate(state)
        started = time.perf_counter()
        page.keyboard.press(key)
        page.wait_for_function(f"(b) => ({state})() !== b && {fresh}", arg=before, polling="raf")
        shown_s.append(time.perf_counter() - started)
        page.wait_for_function(f"() => {IDLE}", polling="raf")
        drawn_s.append(time.perf_counter() - started)
    mix = f"a ×{keys['a']}, i ×{keys['i']}, i ×{keys['not in the file']} not in the file"
    for what, seconds in (("next item shown", shown_s), ("page run finished", drawn_s)):
        seconds.sort()
        p90 = seconds[min(len(seconds) - 1, round(0.9 * (len(seconds) - 1)))]
        tour.record(
            f"Key → {what}, {n} items ({mix}): median / p90 / max",
            f"{statistics.median(seconds):.2f} s / {p90:.2f} s / {seconds[-1]:.2f} s",
        )
    tour.shot(page, "annotate")
    context.close()


def walk(tour: Tour, url: str, password: str, data: Path, args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    rows = read_rows(data)  # the keys follow the file's binary label of the shown output
    labels = {(r["source"], r["output"]): int(r["human_label_binary"])
              for r in rows if r.get("human_label_binary")}  # fmt: skip
    args.n_rows = len(rows)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        _, page = new_tab(tour, browser)
        try:
            researcher(tour, browser, page, url, password, labels, args)
        except Exception:
            for k, tab in enumerate(tour.pages):
                if not tab.is_closed():
                    failed = Path(tempfile.gettempdir()) / f"tandem-tour-failed-{k}.png"
                    tab.screenshot(path=str(failed), full_page=True)
                    print(f"failed: tab {k} ({tab.url}) saved as {failed}", file=sys.stderr)
            raise
        finally:
            browser.close()


def researcher(  # type: ignore[no-untyped-def]
    tour: Tour,
    browser,
    page,
    url: str,
    password: str,
    labels: dict,
    args: argparse.Namespace,
) -> None:
    """The walk through the pages, the annotator's part included."""
    # -- sign in
    page.goto(url)
    page.get_by_label("Admin password").wait_for()
    tour.shot(page, "sign_in")
    page.get_by_label("Admin password").fill(password)
    tour.timed(
        "Sign in → Campaigns page",
        page.get_by_role("button", name="Sign in").click,
        lambda: (heading(page, "Campaigns").wait_for(), settle(page)),
    )

    # -- the researcher: import (MQM census), score; import a copy to judge, score it
    import_file(tour, page, args.data, MQM_CAMPAIGN, rejudge=False, shot="import")
    score(tour, page, MQM_CAMPAIGN, args.n_rows, args.bertscore, shot=None)
    import_file(tour, page, args.data, JUDGE_CAMPAIGN, rejudge=True, shot=None)
    score(tour, page, JUDGE_CAMPAIGN, args.n_rows, False, shot="campaigns")

    # -- Annotators: build the queue, invite
    open_page(tour, page, "Annotators", ["Invite an annotator"])
    choose(page, "Campaign", JUDGE_CAMPAIGN)
    tour.timed(
        "Annotators: Build / extend queue → queued",
        page.get_by_role("button", name="Build / extend queue").click,
        lambda: (
            page.locator("[data-testid='stAlertContentSuccess']")
            .filter(has_text="Queued ")
            .wait_for(timeout=LONG)
        ),
    )
    settle(page)
    page.get_by_label("Name", exact=True).fill(ANNOTATOR)
    code = page.locator("[data-testid='stCode']").first
    tour.timed(
        "Annotators: Create invite link → link shown",
        page.get_by_role("button", name="Create invite link").click,
        lambda: code.wait_for(),
    )
    link = code.inner_text().strip()
    if "?token=" not in link:
        tour.problems.append(f"annotators: the invite box holds no link: {link!r}")
        return

    # -- the annotator
    annotate(tour, browser, link, labels, args.labels)

    # -- every page of the navigation, on real data
    page.reload()
    heading(page, "Annotators").wait_for()
    choose(page, "Campaign", JUDGE_CAMPAIGN)
    page.locator("[data-testid='stDataFrame']").first.wait_for()
    tour.shot(page, "annotators")
    open_page(tour, page, "Dashboard", ["Dashboard"])
    choose(page, "Campaign", MQM_CAMPAIGN)
    for text in ("Per-system estimates", "Pairwise verdicts (anytime-valid, Holm-adjusted)",
                 "Download annotations"):  # fmt: skip
        heading(page, text).wait_for(timeout=LONG)
    tour.shot(page, "dashboard")
    open_page(tour, page, "Calibration", ["Calibration"])
    choose(page, "Campaign", MQM_CAMPAIGN)
    for text in ("Confusion matrix", "ROC curve", "Per system"):
        heading(page, text).wait_for(timeout=LONG)
    page.locator("[data-testid='stVegaLiteChart']").first.wait_for()
    tour.shot(page, "calibration")
    open_page(tour, page, "Planner", ["Planner"])
    rerun(page, page.get_by_text("Take them from a campaign", exact=True).click)
    choose(page, "Campaign", MQM_CAMPAIGN)
    heading(page, "What these labels can tell apart").wait_for(timeout=LONG)
    page.locator("[data-testid='stVegaLiteChart']").first.wait_for()
    tour.shot(page, "planner")
    open_page(tour, page, "Review", ["Review labelled items"])
    choose(page, "Campaign", JUDGE_CAMPAIGN)
    heading(page, "One label").wait_for(timeout=LONG)
    page.locator("[data-testid='stDataFrame']").first.wait_for()
    tour.shot(page, "review")
    open_page(tour, page, "Annotate", ["Annotate"], step="open Annotate (admin)")
    tour.shot(page, "annotate_admin")

    # -- WMT-style tasks: document context, then several systems on one screen
    document_task(tour, browser, page, labels, args.labels)
    import_file(tour, page, args.data, COMPARE_CAMPAIGN, rejudge=True, shot=None)
    comparative_task(tour, browser, page, labels, args.screens)


def invite(tour: Tour, page, campaign: str, name: str, settings: Callable[[], None]) -> str:  # type: ignore[no-untyped-def]
    """On Annotators: apply ``settings``, build the queue, create an invite; its link."""
    open_page(tour, page, "Annotators", ["Invite an annotator"], step=f"open Annotators ({name})")
    choose(page, "Campaign", campaign)
    settings()
    settle(page)  # a switch's own run must end first
    rerun(page, page.get_by_role("button", name="Build / extend queue").click)
    # a click before the build's run ends would stop it, and the build would roll back
    settle(page)
    page.get_by_label("Name", exact=True).fill(name)
    rerun(page, page.get_by_role("button", name="Create invite link").click)
    link = page.locator("[data-testid='stCode']").filter(has_text="?token=").first.inner_text()
    return link.strip()


#: The shown source, output and progress line (context segments have their own classes;
#: two systems' outputs of a source can be the same text, the progress line tells them apart).
PAIR = ("() => ['.tandem-source', '.tandem-output', \"[data-testid='stProgress']\"]"
        ".map(c => { const e = document.querySelector(c); return e ? e.innerText : ''; })"
        ".join('|')")  # fmt: skip


def document_task(tour: Tour, browser, page, labels: dict, n: int) -> None:  # type: ignore[no-untyped-def]
    """Document context on (the re-judge campaign has doc ids): an annotator labels ``n``
    items with the document's earlier segments above each."""

    def switch_on() -> None:
        page.get_by_text("Document context: show the document's earlier segments").click()
        rerun(page, page.get_by_role("button", name="Save document context").click)

    link = invite(tour, page, JUDGE_CAMPAIGN, "Annotator 2", switch_on)
    context, tab = open_invite(tour, browser, link)
    times = []
    for _ in range(n):
        shown = (tab.locator(".tandem-source").first.inner_text(),
                 tab.locator(".tandem-output").first.inner_text())  # fmt: skip
        before = tab.evaluate(PAIR)
        started = time.perf_counter()
        tab.keyboard.press("a" if labels.get(shown) == 1 else "i")
        tab.wait_for_function(f"(b) => ({PAIR})() !== b", arg=before, polling="raf")
        times.append(time.perf_counter() - started)
        tab.wait_for_function(f"() => {IDLE}", polling="raf")
    with_context = tab.locator(".tandem-context-segment").count()
    tour.record(f"Document context: key → next item, {n} items: median",
                f"{statistics.median(times):.2f} s")  # fmt: skip
    tour.record(
        "Document context: earlier segments above the last item (collapsed too)", str(with_context)
    )
    tour.shot(tab, "annotate_document")
    context.close()


def comparative_task(tour: Tour, browser, page, labels: dict, n: int) -> None:  # type: ignore[no-untyped-def]
    """A fresh copy in comparative mode (4 outputs per screen): an annotator judges ``n``
    screens with the keys, each output's key following the file's label."""

    def switch_on() -> None:
        page.get_by_text("Comparative mode: all outputs of a source on one screen").click()
        page.get_by_text("All outputs of the source", exact=True).click()
        box = page.get_by_label("Otherwise, outputs per screen")
        box.fill("4")
        rerun(page, page.get_by_role("button", name="Save comparative mode").click)

    link = invite(tour, page, COMPARE_CAMPAIGN, "Annotator 3", switch_on)
    context, tab = open_invite(tour, browser, link)
    state = ("() => [...document.querySelectorAll('.tandem-source, .tandem-output')]"
             ".map(e => e.innerText).join('|')")  # fmt: skip
    marks = ("[...document.querySelectorAll('.tandem-cmp-label')]"
             ".filter(e => e.innerText !== 'not judged yet').length")  # fmt: skip
    enter, sizes = [], []
    for k in range(n):
        source = tab.locator(".tandem-source").first.inner_text()
        outputs = tab.locator(".tandem-output").all_inner_texts()
        sizes.append(len(outputs))
        for m, text in enumerate(outputs, start=1):
            tab.keyboard.press("a" if labels.get((source, text)) == 1 else "i")
            tab.wait_for_function(f"(m) => {marks} >= m", arg=m, polling="raf")
        tab.wait_for_function(f"() => {IDLE}", polling="raf")
        if k == n - 1:  # the last screen judged but not saved: the picture shows the marks
            tour.shot(tab, "annotate_compare")
        before = tab.evaluate(state)
        started = time.perf_counter()
        tab.keyboard.press("Enter")
        tab.wait_for_function(f"(b) => ({state})() !== b", arg=before, polling="raf")
        enter.append(time.perf_counter() - started)
        tab.wait_for_function(f"() => {IDLE}", polling="raf")
    tour.record(f"Comparative: Enter → next screen, {n} screens of {sizes} outputs: median",
                f"{statistics.median(enter):.2f} s")  # fmt: skip
    context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots" / "tour")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--labels", type=int, default=25, help="items the annotator labels")
    parser.add_argument("--screens", type=int, default=6, help="comparative screens judged")
    parser.add_argument(
        "--bertscore", action="store_true", help="add BERTScore to the MQM campaign's scoring"
    )
    parser.add_argument("--max-kb", type=int, default=400, help="largest PNG size")
    args = parser.parse_args()
    # a stopped tour (kill, Ctrl+C) still ends its server and scoring workers (finally blocks)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if not CHROMIUM.exists():
        sys.exit(f"needs Debian chromium at {CHROMIUM} (set TANDEM_CHROMIUM)")
    if not args.data.exists():
        sys.exit(f"no data file at {args.data} (--data)")
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    tour = Tour(args.out, args.max_kb)
    password = secrets.token_urlsafe(16)
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="tandem-tour-") as tmp,
        app_server(Path(tmp), password) as url,
    ):
        print(f"app at {url} over a fresh SQLite database in {tmp}", flush=True)
        args.data = args.data.resolve()
        walk(tour, url, password, args.data, args)
    load_after = Path("/proc/loadavg").read_text().split()[:3]

    print(f"\n{args.data.name}; {os.cpu_count()} cores; load average (1/5/15 min) "
          f"{' '.join(load_before)} before, {' '.join(load_after)} after; whole tour "
          f"{time.perf_counter() - started:.0f} s\n")  # fmt: skip
    print("| step (in the browser) | time |\n| --- | --- |")
    for step, text in tour.timings:
        print(f"| {step} | {text} |")
    if tour.problems:
        print("\nProblems shown by the pages:")
        for problem in tour.problems:
            print(f"- {problem}")
        sys.exit(1)


if __name__ == "__main__":
    main()
