"""The dashboard at WMT25 size in a real browser: 60 systems × 2,000 items, 500 labelled.

Builds (or reuses, ``--db``) a SQLite database holding a synthetic campaign imported from a
CSV like a WMT file (60 systems, 2,000 items, binary labels on 500 items for every system;
adequacy rates with the WMT-like spread of bench/monitor_read_bench.py), serves the app
(``streamlit run app.py``), signs in as admin in headless Debian chromium (Playwright, the
system browser) and times:

- cold draw: the first open of the dashboard after the server started (empty caches, and
  no live monitor states kept in the database: the ``monitor_states`` rows are deleted
  before each server, the number printed; the campaign read and the live monitor's first
  full computation, then drawing);
- after one label: a new label written at the end of the queue order (:func:`add_one_label`),
  then the page reloaded — the server process's last campaign read, report parts and
  monitor cache carry over; three times, the median; then once a label undone (the newest
  current one: an undo also makes the learned ŷ refit, as it must);
- the empty-campaign dashboard drawn again after that as the floor (the first draw of any
  page also pays the server's first imports: printed too);
- the live fragment's auto-refresh after one label (:func:`fragment_refresh`): the dashboard
  left open, a label written, the seconds until the page shows the new count (no reload),
  split into the wait for the refresh's tick (every 10 s) and the fragment's own rerun
  (from the browser's rerun request on the websocket to the new count drawn); three times,
  the median.

Each with the ratio to the floor and the "Computed in" figure the page shows, first for a
server reading afresh per label (``TANDEM_INCREMENTAL=0``: full campaign reads, no carried
report parts; the baseline) then for the default (delta reads, db.reads.delta; carried
report parts, estimators/caches/report.py), in the same run; before that, the campaign read
alone after one label in this process, full against delta. ``--screenshot PATH`` saves the
drawn dashboard (docs/screenshots/dashboard-60-systems.png).

    .venv/bin/python bench/dashboard_wmt60_bench.py [--db /tmp/wmt60.db] [--screenshot PATH]
        [--delta-only] [--metric] [--two-servers]

``--two-servers`` times instead what the live monitor's states kept in the database
(``monitor_states``, db.reads.monitor_state) buy a new server process: every row of the
table is deleted first (the number deleted is printed), then server A (a fresh default
process) draws the empty dashboard (first, then warm: the floor), the 60-system dashboard
cold and after one new label (three times, the median) and is stopped (its process checked
gone); server B, a second fresh process on the same database, then does the same — its
first 60-system draw should resume A's saved states instead of the cold computation. Each
draw with its ratio to its server's floor and the "Computed in" line; also the
``monitor_states`` rows there were before B started and each server's CPU seconds (user +
system, /proc) for its first 60-system draw.

Every draw watches for an idle stall (a page not drawn while the server uses no CPU: seen
once, docs/performance.md): it then prints "STALL?" and takes the server's thread stacks
into its log (:func:`draw`).

``--metric`` scores the campaign with a chrF-like metric first (a WMT campaign has metric
scores: the dashboard then also computes the metric columns and their efficiency); give it
its own ``--db``, the scores stay in the database.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

PASSWORD = "bench-password"
K, N, LABELLED = 60, 2000, 500
REPEATS = 3  # labels undone one after another, each drawn
#: A draw is given up after DRAW_TIMEOUT_S; every STALL_CHECK_S of it the server's CPU is
#: looked at, and under STALL_CPU_S its stacks are taken (:func:`draw`).
DRAW_TIMEOUT_S, STALL_CHECK_S, STALL_CPU_S = 900, 60, 0.5
#: Every server's threads' stacks on SIGUSR1 (a sitecustomize on its PYTHONPATH).
STACKS_ON_SIGNAL = (
    "import faulthandler, signal\nfaulthandler.register(signal.SIGUSR1, all_threads=True)\n"
)
METRIC_SIG = "chrf|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:bench"


def build(db: Path, metric: bool = False) -> None:
    """The campaign "wmt60" (and an "empty" one) imported into ``db`` unless already there;
    with ``metric``, chrF-like scores of its outputs (:func:`score_campaign`)."""
    from dashboard_bench import EMPTY_CSV
    from monitor_read_bench import wmt_like_rates

    from annotation.imports.importer import import_campaign
    from db.campaign.campaigns import campaign_exists
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
    if metric:
        score_campaign(engine)
    engine.dispose()


def score_campaign(engine) -> None:  # type: ignore[no-untyped-def]
    """chrF-like scores for every output of "wmt60" (the label's rate plus noise, ρ ≈ 0.5)
    and a threshold, unless scored already: the metric columns and efficiency the
    dashboard then computes too."""
    from db.reads.campaign import campaign_id, read_campaign
    from db.scores.metric_scores import ScoreRow, insert_scores, save_threshold

    cid = campaign_id(engine, "wmt60")
    data = read_campaign(engine, cid)
    if data.metrics:
        return
    rng = np.random.default_rng(61)
    truth = np.full(data.output_ids.shape, 0.5)
    j = data.judgments
    truth[j.system, j.item] = j.label
    g = 50 + 20 * truth + rng.normal(0, 15, truth.shape)
    ids = data.output_ids
    insert_scores(engine, [ScoreRow(int(ids[s, i]), "chrf", METRIC_SIG, float(g[s, i]))
                           for s in range(K) for i in range(N)])  # fmt: skip
    save_threshold(engine, cid, METRIC_SIG, 60.0, True, "youden")


def undo_one_label(db: Path) -> None:
    """Append an undo of the newest current label of "wmt60": a new log event that takes a
    label back, so each call changes the judgments (and the monitor's streams)."""
    from db.engine import make_engine, session_scope
    from db.judging.log import append
    from db.reads.campaign import campaign_id, current_rows
    from db.schema.models import Annotation

    engine = make_engine(f"sqlite:///{db}")
    cid = campaign_id(engine, "wmt60")
    newest = current_rows(cid).where(Annotation.kind == "label").order_by(Annotation.id.desc())
    with session_scope(engine) as s:
        aid, oid, annotator = s.execute(newest.limit(1)).one()[:3]
        append(s, output_id=oid, annotator_id=annotator, kind="undo", supersedes_id=aid)
    engine.dispose()


def add_one_label(db: Path) -> None:
    """A new label of "wmt60" at the end of the queue order: a done slot on the first
    unlabelled output, π as the others', and its judgment (what an annotator's save
    writes), so it extends the live monitor's prefix like a label in a running campaign."""
    from sqlalchemy import func, select

    from db.engine import make_engine, session_scope
    from db.judging.log import append
    from db.reads.campaign import campaign_id
    from db.schema.models import Annotation, Annotator, Assignment, Item, Output

    engine = make_engine(f"sqlite:///{db}")
    cid = campaign_id(engine, "wmt60")
    with session_scope(engine) as s:
        last = s.execute(
            select(Assignment.position, Assignment.inclusion_prob, Assignment.annotator_id)
            .where(Assignment.campaign_id == cid)
            .order_by(Assignment.position.desc())
            .limit(1)
        ).one()
        judged = select(Annotation.output_id)
        oid = s.scalar(
            select(func.min(Output.id))
            .join(Item, Item.id == Output.item_id)
            .where(Item.campaign_id == cid, Output.id.not_in(judged))
        )
        annotator = last.annotator_id or s.scalar(
            select(Annotator.id).where(Annotator.campaign_id == cid).limit(1)
        )
        slot = Assignment(campaign_id=cid, output_id=oid, annotator_id=annotator,
                          position=last.position + 1, inclusion_prob=last.inclusion_prob,
                          state="done", kind="regular", slot=0)  # fmt: skip
        s.add(slot)
        s.flush()
        append(s, output_id=oid, annotator_id=annotator, assignment_id=slot.id, kind="label",
               label=int(oid % 3 != 0), seconds=5.0)  # fmt: skip
    engine.dispose()


def campaign_reads(db: Path, repeats: int = 5) -> tuple[float, float]:
    """Median seconds of the campaign read after one label, in this process: a full read
    (db.reads.campaign.read_campaign) and a delta read (db.reads.delta.read_delta)."""
    from db.engine import make_engine
    from db.reads.campaign import campaign_id, read_campaign
    from db.reads.delta import read_delta

    engine = make_engine(f"sqlite:///{db}")
    cid = campaign_id(engine, "wmt60")
    state = read_delta(engine, cid)
    full, delta = [], []
    for _ in range(repeats):
        undo_one_label(db)
        t = time.perf_counter()
        state = read_delta(engine, cid, state)
        delta.append(time.perf_counter() - t)
        assert state.how == "delta"
        t = time.perf_counter()
        read_campaign(engine, cid)
        full.append(time.perf_counter() - t)
    engine.dispose()
    return float(np.median(full)), float(np.median(delta))


def sign_in(page, url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_label("Admin password").fill(PASSWORD, timeout=120_000)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Dashboard").wait_for(timeout=120_000)


def draw(page, url: str, campaign: str, pid: int | None = None) -> tuple[float, str]:  # type: ignore[no-untyped-def]
    """Seconds from opening the dashboard's link for ``campaign`` (signed in) to the page
    drawn to its end (the "Download annotations" heading, after the live part), and the
    "Computed in" line ("" without labels). With the server's ``pid`` (a server from
    :func:`started`): each :data:`STALL_CHECK_S` without the page drawn in which the
    server used under :data:`STALL_CPU_S` CPU-s, a line says so and the server writes
    every thread's stack to its log (SIGUSR1, faulthandler): what an idle stall waits on."""
    from playwright.sync_api import expect
    from served import cpu_seconds

    started = time.perf_counter()
    page.goto(f"{url}/dashboard?campaign={campaign}", wait_until="domcontentloaded")
    end = page.get_by_role("heading", name="Download annotations", exact=True)
    while True:
        cpu = cpu_seconds(pid) if pid else 0.0
        try:
            expect(end).to_be_visible(timeout=STALL_CHECK_S * 1000)
            break
        except AssertionError:
            waited = time.perf_counter() - started
            if waited > DRAW_TIMEOUT_S:
                raise
            if pid and (used := cpu_seconds(pid) - cpu) < STALL_CPU_S:
                os.kill(pid, signal.SIGUSR1)
                print(f"STALL? {campaign} not drawn after {waited:.0f} s, the server used "
                      f"{used:.2f} CPU-s in the last {STALL_CHECK_S} s: its stacks are in "
                      "its log", flush=True)  # fmt: skip
    took = time.perf_counter() - started
    assert page.locator("[data-testid='stException']").count() == 0
    line = page.get_by_text("Computed in").first
    return took, line.inner_text() if line.count() else ""


def watch_websocket(page) -> list[tuple[float, str]]:  # type: ignore[no-untyped-def]
    """(perf_counter time, "sent" / "received") of every websocket frame of ``page`` from
    now on: a fragment's rerun starts with the browser's request (a frame sent)."""
    frames: list[tuple[float, str]] = []

    def on_socket(ws) -> None:  # type: ignore[no-untyped-def]
        ws.on("framesent", lambda _: frames.append((time.perf_counter(), "sent")))
        ws.on("framereceived", lambda _: frames.append((time.perf_counter(), "received")))

    page.on("websocket", on_socket)
    return frames


def fragment_refresh(page, db: Path, frames: list) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    """One label written while the dashboard is open: (seconds until the page shows the new
    "Human judgments" count without a reload, of which the wait for the auto-refresh's
    tick, and the fragment's rerun: from its request — the last frame the browser sent
    before the count changed — to the count drawn)."""
    metric = page.locator("[data-testid='stMetric']").filter(has_text="Human judgments")
    before = metric.inner_text()
    add_one_label(db)
    saved = time.perf_counter()
    while metric.inner_text() == before:
        if time.perf_counter() - saved > 300:
            raise TimeoutError("the open dashboard did not show the new label in 300 s")
        page.wait_for_timeout(20)
    shown = time.perf_counter()
    request = max(t for t, kind in frames if kind == "sent" and t < shown)
    if request < saved:  # a rerun already under way read the label: it shows at its end
        request = saved
    return shown - saved, request - saved, shown - request


def screenshot(page, path: Path) -> None:  # type: ignore[no-untyped-def]
    """The whole dashboard (Streamlit scrolls inside its main block: grow the viewport)."""
    height = page.evaluate(
        "document.querySelector(\"[data-testid='stMainBlockContainer']\").scrollHeight"
    )
    page.set_viewport_size({"width": 1400, "height": int(height) + 120})
    page.wait_for_timeout(2000)
    page.screenshot(path=str(path), full_page=True)


@contextmanager
def started(db: Path, extra: dict[str, str], log: Path) -> Iterator[tuple[str, Any]]:
    """``streamlit run app.py`` over ``db`` (tests/browser/app_server.py's command line,
    health wait and stop) with ``extra`` in its environment: (its URL, its process) until
    left; the process is the Streamlit server itself (serve_command runs it, no launcher)."""
    from commands.admin import serve_command
    from tests.browser.app_server import PROJECT_ROOT, _wait_healthy, app_env, free_port, stop

    env = {**app_env(f"sqlite:///{db}", PASSWORD), **extra}
    hooks = Path(tempfile.mkdtemp())
    (hooks / "sitecustomize.py").write_text(STACKS_ON_SIGNAL)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(hooks), env.get("PYTHONPATH")) if p)
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(serve_command("127.0.0.1", port), cwd=PROJECT_ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(proc, url, log, sys.exit)
        yield url, proc
    finally:
        stop(proc)
        shutil.rmtree(hooks, ignore_errors=True)


def serve(db: Path, extra: dict[str, str], shot: Path | None) -> dict[str, Any]:
    """One server over ``db`` with ``extra`` in its environment: the dashboard's draws."""
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

    out: dict[str, Any] = {}
    with started(db, extra, db.with_suffix(".log")) as (url, proc), sync_playwright() as p:
        pid = proc.pid
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        frames = watch_websocket(page)
        sign_in(page, url)
        out["empty_first"], _ = draw(page, url, "empty", pid)
        out["cold"], out["cold_line"] = draw(page, url, "wmt60", pid)
        if shot:
            screenshot(page, shot)
            page.set_viewport_size({"width": 1400, "height": 1000})
        out["empty"], _ = draw(page, url, "empty", pid)  # the floor, warm
        after = []
        for _ in range(REPEATS):
            add_one_label(db)
            after.append(draw(page, url, "wmt60", pid))
        undo_one_label(db)
        out["undo"], out["undo_line"] = draw(page, url, "wmt60", pid)
        page.wait_for_timeout(1000)
        live = [fragment_refresh(page, db, frames) for _ in range(REPEATS)]
        browser.close()
    out["live"], out["live_wait"], out["live_rerun"] = (
        float(np.median([r[i] for r in live])) for i in range(3)
    )
    out["live_all"] = [tuple(round(x, 2) for x in r) for r in live]
    out["after"] = float(np.median([t for t, _ in after]))
    out["after_all"] = [round(t, 2) for t, _ in after]
    out["after_line"] = after[-1][1]
    return out


def monitor_rows(db: Path, *, delete: bool = False) -> int:
    """The number of ``monitor_states`` rows in ``db`` (all campaigns; ``delete``: deleted
    too, the number there were)."""
    from sqlalchemy import func, select

    from db.engine import make_engine, session_scope
    from db.schema.admin_models import MonitorState

    engine = make_engine(f"sqlite:///{db}")
    t = MonitorState.__table__
    with session_scope(engine) as s:
        n = int(s.scalar(select(func.count()).select_from(t)) or 0)
        if delete:
            s.execute(t.delete())
    engine.dispose()
    return n


def serve_fresh(db: Path, name: str) -> dict[str, Any]:
    """One fresh default server process over ``db``: the empty dashboard (first, then warm:
    the floor), the 60-system dashboard's first draw (with the server's CPU seconds for it)
    and after one new label (:data:`REPEATS` times); the server stopped and its process
    checked gone before returning."""
    from playwright.sync_api import sync_playwright
    from served import cpu_seconds

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS

    out: dict[str, Any] = {}
    log = db.with_name(f"{db.stem}-{name}.log")
    with started(db, {}, log) as (url, proc), sync_playwright() as p:
        out["pid"] = pid = proc.pid
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        sign_in(page, url)
        out["empty_first"], _ = draw(page, url, "empty", pid)
        out["empty"], _ = draw(page, url, "empty", pid)  # the floor, warm
        c0 = cpu_seconds(proc.pid)
        out["first"], out["first_line"] = draw(page, url, "wmt60", pid)
        out["first_cpu"] = cpu_seconds(proc.pid) - c0
        after = []
        for _ in range(REPEATS):
            add_one_label(db)
            after.append(draw(page, url, "wmt60", pid))
        browser.close()
    out["gone"] = proc.poll() is not None and not Path(f"/proc/{proc.pid}").exists()
    out["returncode"] = proc.returncode
    out["after"] = float(np.median([t for t, _ in after]))
    out["after_all"] = [round(t, 2) for t, _ in after]
    out["after_line"] = after[-1][1]
    return out


def two_servers(db: Path) -> None:
    """Server A then server B, two fresh processes on ``db`` one after the other, from no
    kept monitor state: what B's first draw gains from A's saved states."""
    print(f"monitor_states rows deleted before server A: {monitor_rows(db, delete=True)}",
          flush=True)  # fmt: skip
    for name in ("A", "B"):
        if name == "B":
            print(f"monitor_states rows before server B started: {monitor_rows(db)}")
        r = serve_fresh(db, name)
        print(f"[server {name}, pid {r['pid']}] empty campaign dashboard: first "
              f"{r['empty_first']:.2f} s, warm {r['empty']:.2f} s (the floor)")  # fmt: skip
        print(f"[server {name}] first draw, 60 systems: {r['first']:.2f} s = "
              f"{r['first'] / r['empty']:.1f} × floor ({r['first_line']}); server CPU "
              f"{r['first_cpu']:.1f} s")  # fmt: skip
        print(f"[server {name}] after one new label, median of {REPEATS}: {r['after']:.2f} s = "
              f"{r['after'] / r['empty']:.1f} × floor {r['after_all']}")  # fmt: skip
        print(f"    ({r['after_line']})")
        print(f"[server {name}] stopped: process {r['pid']} "
              f"{'gone' if r['gone'] else 'STILL THERE'} (exit {r['returncode']})",
              flush=True)  # fmt: skip
        if not r["gone"]:
            sys.exit(f"server {name} (pid {r['pid']}) did not exit")
    print(f"monitor_states rows after server B: {monitor_rows(db)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", type=Path, default=None, help="reuse/create this SQLite file")
    ap.add_argument("--screenshot", type=Path, default=None)
    ap.add_argument("--delta-only", action="store_true", help="skip the afresh baseline")
    ap.add_argument(
        "--metric", action="store_true", help="score the outputs with a chrF-like metric"
    )
    ap.add_argument("--two-servers", action="store_true", help="two fresh servers on one database")
    args = ap.parse_args()
    db = args.db or Path(tempfile.mkdtemp()) / "wmt60.db"
    t = time.perf_counter()
    build(db, args.metric)
    print(f"database {db} ready in {time.perf_counter() - t:.1f} s", flush=True)
    if args.two_servers:
        two_servers(db)
        return
    full_read, delta_read = campaign_reads(db)
    print(f"campaign read after one label: full {full_read:.3f} s, delta {delta_read:.3f} s "
          f"= {full_read / delta_read:.1f}× faster", flush=True)  # fmt: skip
    runs = {}
    modes = [("incremental", {})]
    if not args.delta_only:
        modes.insert(0, ("afresh (baseline)", {"TANDEM_INCREMENTAL": "0"}))
    for name, extra in modes:
        # the previous server's kept states would make this one's first draw a resumed one
        print(f"[{name}] monitor_states rows deleted: {monitor_rows(db, delete=True)}")
        runs[name] = r = serve(db, extra, args.screenshot if name == "incremental" else None)
        print(f"[{name}] empty campaign dashboard: first {r['empty_first']:.2f} s, warm "
              f"{r['empty']:.2f} s (the floor)")  # fmt: skip
        print(f"[{name}] cold draw, 60 systems: {r['cold']:.2f} s = "
              f"{r['cold'] / r['empty']:.1f} × floor ({r['cold_line']})")  # fmt: skip
        print(f"[{name}] after one new label, median of {REPEATS}: {r['after']:.2f} s = "
              f"{r['after'] / r['empty']:.1f} × floor {r['after_all']}")  # fmt: skip
        print(f"    ({r['after_line']})")
        print(f"[{name}] after one label undone: {r['undo']:.2f} s = "
              f"{r['undo'] / r['empty']:.1f} × floor ({r['undo_line']})", flush=True)  # fmt: skip
        print(f"[{name}] live fragment, a label shown without a reload, median of {REPEATS}: "
              f"{r['live']:.2f} s = tick wait {r['live_wait']:.2f} s + fragment rerun "
              f"{r['live_rerun']:.2f} s {r['live_all']}", flush=True)  # fmt: skip
    if len(runs) == 2:
        base, new = runs.values()
        print(f"live fragment rerun: {base['live_rerun']:.2f} s → {new['live_rerun']:.2f} s")
        for what in ("after", "undo"):
            above = [r[what] - r["empty"] for r in (base, new)]
            print(f"{'new label' if what == 'after' else 'undo'}: {base[what]:.2f} s → "
                  f"{new[what]:.2f} s ({base[what] / new[what]:.2f}× faster); above the floor "
                  f"{above[0]:.2f} s → {above[1]:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
