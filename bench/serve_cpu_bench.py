"""The server's own CPU: an idle open annotator page, and CPU-seconds per judgment, through the
real server (``cli.py serve``'s command line) with one headless chromium page pressing keys.

Seeds the shipped WMT21 TED en-de file (13 systems × 529 segments; synthetic stand-in when
absent) as a binary campaign on a fresh SQLite file (``--postgres``: a fresh PostgreSQL
database), starts the server, opens one annotator's invite link, then

- **idle**: the page open and untouched for ``--idle`` s: the server process's CPU in cores
  (from /proc/PID/stat);
- **judge**: ``--judgments`` label keys, each pressed once the previous next item is drawn
  and the page idle: the server's CPU-seconds per judgment, and key → next item (p50 / p95).

``--watcher`` also runs Streamlit's default way of serving (the file watcher on and a full
garbage collection after every script run) in the same run, as the baseline of the ratio.
``--mode comparative``: comparative screens of 13 outputs instead, keys at ``--rate`` per
second, then Enter: each key's mark drawn after its key, Enter → next screen, and CPU-seconds
per output. Run: ``.venv/bin/python bench/serve_cpu_bench.py [--watcher] [--postgres]``.

``--protocols binary,esa,cesa,da``: one judgment as each protocol's annotator gives it,
each protocol on its own fresh database and server in the same run: binary (a label key),
ESA (a word dragged with the mouse, ``w``, the score typed in its box, Enter), cESA
(a screen of 4 systems' outputs, each marked and scored so, then Enter) and DA (a digit
key, Enter); the server's CPU-seconds per judgment (per screen for cESA) and the ratio to
a binary one. The ESA item and the cESA screen are held in the browser until Enter
(views/spans/held.py, views/spans/cesa_held.py): the server runs column shows one run per
judgment or screen. Afterwards the database must hold every output judged with its span
and its score (bench/span_drive.py ``stored``), or the bench stops with what it found.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.served import cpu_seconds, idle_cores, load, seed, server  # noqa: E402
from bench.span_drive import SPAN_FRESH, judge_spans, stored  # noqa: E402
from tests.browser.app_server import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

IDLE = ("(() => { const a = document.querySelector(\"[data-testid='stApp']\");"
        " return !!a && a.dataset.testScriptState === 'notRunning'; })()")  # fmt: skip
FRESH = ("(() => { const o = document.querySelector('.tandem-output');"
         " const c = o && o.closest(\"[data-testid='stElementContainer']\");"
         " return !!o && !(c && c.dataset.stale === 'true'); })()")  # fmt: skip
# the texts and the progress line (two systems' outputs of a source are often the same text)
STATE = ("() => [...document.querySelectorAll('.tandem-source, .tandem-output,"
         " [data-testid=stProgress]')].map(e => e.innerText).join('|')")  # fmt: skip
MARKS = ("[...document.querySelectorAll('.tandem-cmp-label')]"
         ".filter(e => e.innerText !== 'not judged yet').length")  # fmt: skip
PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def ready(page) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(f"() => {FRESH} && {IDLE}", polling="raf", timeout=120_000)
    time.sleep(0.3)


def judge_single(page, pid: int, n: int) -> tuple[float, list[float]]:  # type: ignore[no-untyped-def]
    lat = []
    c0 = cpu_seconds(pid)
    for k in range(n):
        before = page.evaluate(STATE)
        started = time.perf_counter()
        page.keyboard.press("a" if k % 2 else "i")
        page.wait_for_function(f"(b) => ({STATE})() !== b && {FRESH}", arg=before,
                               polling="raf", timeout=60_000)  # fmt: skip
        lat.append(time.perf_counter() - started)
        page.wait_for_function(f"() => {IDLE}", polling="raf", timeout=60_000)
    return (cpu_seconds(pid) - c0) / n, lat


#: Page-side clocks: when each label key went down, and when each new mark was drawn.
WATCH = f"""() => {{ if (window.__bench) {{ window.__bench.reset(); return; }}
  const b = window.__bench = {{ keys: [], marks: [], last: 0 }};
  b.reset = () => {{ b.keys = []; b.marks = []; b.last = {MARKS}; }};
  document.addEventListener("keydown", (e) => {{
    if ("ai12".includes(e.key)) b.keys.push(performance.now()); }}, true);
  new MutationObserver(() => {{ const c = {MARKS};
    while (b.last < c) {{ b.marks.push(performance.now()); b.last++; }}
    if (c < b.last) b.last = c; }}).observe(document.body,
    {{ subtree: true, childList: true, characterData: true, attributes: true }});
  b.reset(); }}"""


def judge_screens(page, pid: int, n: int, rate: float) -> dict[str, list[float] | float]:  # type: ignore[no-untyped-def]
    """``n`` screens: every output's key at ``rate`` per second, then Enter."""
    drawn, enter, outputs = [], [], 0
    c0 = cpu_seconds(pid)
    for k in range(n):
        before = page.evaluate(STATE)
        m = page.evaluate("() => document.querySelectorAll('.tandem-output').length")
        page.evaluate(WATCH)
        for j in range(m):
            pressed = time.perf_counter()
            page.keyboard.press("a" if (j + k) % 3 else "i")
            time.sleep(max(0.0, pressed + 1 / rate - time.perf_counter()))
        page.wait_for_function(f"(m) => {MARKS} >= m", arg=m, polling="raf", timeout=120_000)
        keys, marks = page.evaluate("() => [window.__bench.keys, window.__bench.marks]")
        drawn += [(b - a) / 1000 for a, b in zip(keys, marks, strict=False)]
        page.wait_for_function(f"() => {IDLE}", polling="raf", timeout=60_000)
        started = time.perf_counter()
        page.keyboard.press("Enter")
        page.wait_for_function(f"(b) => ({STATE})() !== b && {FRESH}", arg=before,
                               polling="raf", timeout=60_000)  # fmt: skip
        enter.append(time.perf_counter() - started)
        outputs += m
        page.wait_for_function(f"() => {IDLE}", polling="raf", timeout=60_000)
    return {"drawn": drawn, "enter": enter, "cpu_per_output": (cpu_seconds(pid) - c0) / outputs}


#: Counts the server runs the page sees start (the app's script-run state turning "running").
COUNT_RUNS = """() => { const a = document.querySelector("[data-testid='stApp']");
  if (window.__runs !== undefined) { window.__runs = 0; return; }
  window.__runs = 0; let last = a.dataset.testScriptState;
  new MutationObserver(() => { const s = a.dataset.testScriptState;
    if (s !== last && s === 'running') window.__runs++; last = s; })
  .observe(a, { attributes: true, attributeFilter: ['data-test-script-state'] }); }"""


def judge_da(page, pid: int, n: int) -> tuple[float, list[float]]:  # type: ignore[no-untyped-def]
    """``n`` DA judgments: a digit key (the score ÷ 10), then Enter."""
    lat = []
    c0 = cpu_seconds(pid)
    for k in range(n):
        before = page.evaluate(STATE)
        page.keyboard.press(str(3 + k % 7))
        time.sleep(0.1)
        started = time.perf_counter()
        page.keyboard.press("Enter")
        page.wait_for_function(f"(b) => ({STATE})() !== b && {FRESH}", arg=before,
                               polling="raf", timeout=60_000)  # fmt: skip
        lat.append(time.perf_counter() - started)
        page.wait_for_function(f"() => {IDLE}", polling="raf", timeout=60_000)
    return (cpu_seconds(pid) - c0) / n, lat


#: The protocols ``--protocols`` measures: (import mode, comparative, systems kept).
PROTOCOLS = {
    "binary": (None, False, None),
    "esa": ("esa", False, None),
    "cesa": ("esa", True, 4),
    "da": ("da", False, None),
}


def run_protocol(protocol: str, db_url: str, tmp: Path, args) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """One protocol on its own fresh database and server: CPU-seconds per judgment (per
    screen for cESA), and the same above the idle server's (its CPU with the page open and
    untouched, in cores, times the judgment's wall time: an ESA judgment's drag and typing
    take seconds, a binary one's key a fraction of one, and the idle server's ticks are no
    cost of either); printed with Enter → next p50 / p95 and the server runs per judgment
    (counted in the page)."""
    from playwright.sync_api import sync_playwright

    mode, comparative, systems = PROTOCOLS[protocol]
    token = seed(db_url, protocol, 1, comparative=comparative, items=args.items, mode=mode,
                 systems=systems)[0]  # fmt: skip
    spans = protocol in ("esa", "cesa")
    outputs = systems or 1
    with server(db_url, tmp / f"{protocol}.log", []) as (url, pid), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        page.goto(f"{url}/?token={token}")
        fresh = SPAN_FRESH if spans else FRESH
        page.wait_for_function(f"() => {fresh} && {IDLE}", polling="raf", timeout=120_000)
        time.sleep(2)

        def judge(n: int) -> tuple[float, list[float]]:
            if spans:
                return judge_spans(page, pid, n, outputs)
            if protocol == "da":
                return judge_da(page, pid, n)
            return judge_single(page, pid, n)

        warm = 2
        judge(warm)  # warm-up: first draws import and cache
        idle = idle_cores(pid, args.idle)
        n = args.judgments if outputs == 1 else max(2, args.judgments // outputs)
        page.evaluate(COUNT_RUNS)
        started = time.perf_counter()
        cpu, lat = judge(n)
        wall = (time.perf_counter() - started) / n
        runs = page.evaluate("window.__runs") / n
        unit = f"per screen of {outputs}" if outputs > 1 else "per judgment"
        print(f"| {protocol} | {unit} | {cpu:.4f} | {cpu - idle * wall:.4f} | {wall:.2f} s |"
              f" {runs:.1f} | p50 {statistics.median(lat):.3f} s, p95 {pct(lat, 0.95):.3f} s |"
              f" {n} | {load()} |", flush=True)  # fmt: skip
        browser.close()
    if spans:  # every output of every screen saved, with its span and its score
        want = (warm + n) * outputs
        got = stored(db_url)
        if got != (want, want, want):
            sys.exit(f"{protocol}: the database holds {got} (judgments, scored, with spans), "
                     f"not {want} of each")  # fmt: skip
    return cpu, cpu - idle * wall


def run(name: str, db_url: str, tmp: Path, args, extra: list[str]) -> float:  # type: ignore[no-untyped-def]
    """One server's figures (printed); its CPU-seconds per judgment (per output)."""
    from playwright.sync_api import sync_playwright

    token = seed(db_url, "ted", 1, comparative=args.mode == "comparative", items=args.items)[0]
    with server(db_url, tmp / f"{name}.log", extra) as (url, pid), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        page.goto(f"{url}/?token={token}")
        ready(page)
        time.sleep(2)
        idle = idle_cores(pid, args.idle)
        print(f"| {name} | idle page | {idle:.4f} core | | {load()} |", flush=True)
        if args.mode == "single":
            judge_single(page, pid, 3)  # warm-up: first draws import and cache
            cpu, lat = judge_single(page, pid, args.judgments)
            print(f"| {name} | per judgment | {cpu:.3f} CPU-s | key → next p50 "
                  f"{statistics.median(lat):.3f} s, p95 {pct(lat, 0.95):.3f} s | {load()} |",
                  flush=True)  # fmt: skip
            browser.close()
            return cpu
        judge_screens(page, pid, 1, args.rate)
        r = judge_screens(page, pid, args.screens, args.rate)
        print(f"| {name} | per output | {r['cpu_per_output']:.3f} CPU-s | key → mark "
              f"p50 {statistics.median(r['drawn']):.3f} s, p95 {pct(r['drawn'], .95):.3f} s;"
              f" Enter → next screen p50 {statistics.median(r['enter']):.3f} s | {load()} |",
              flush=True)  # fmt: skip
        browser.close()
        return float(r["cpu_per_output"])  # type: ignore[arg-type]


def with_database(args, body):  # type: ignore[no-untyped-def]
    """``body(db_url, tmp)`` on a fresh SQLite file (``--postgres``: a fresh database)."""
    with tempfile.TemporaryDirectory(prefix="tandem-cpu-") as tmp:
        if not args.postgres:
            return body(f"sqlite:///{Path(tmp) / 'tandem.db'}", Path(tmp))
        from sqlalchemy import create_engine, text

        db = f"bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{db}"'))
        try:
            return body(PG_ADMIN.rsplit("/", 1)[0] + f"/{db}", Path(tmp))
        finally:
            with admin.connect() as c:
                c.execute(text(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'))
            admin.dispose()


def protocols(args) -> None:  # type: ignore[no-untyped-def]
    """``--protocols``: each protocol's CPU-seconds per judgment in the same run, and its
    ratio to a binary judgment (when binary is measured)."""
    names = [p.strip() for p in args.protocols.split(",") if p.strip()]
    unknown = [p for p in names if p not in PROTOCOLS]
    if unknown:
        sys.exit(f"--protocols {unknown}: choose among {', '.join(PROTOCOLS)}")
    db = "PostgreSQL" if args.postgres else "SQLite"
    print(f"{db}, {load()}\n\n| protocol | measure | server CPU-s | above idle | wall |"
          " server runs | Enter → next | judgments | load |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")  # fmt: skip
    cpu = {p: with_database(args, lambda url, tmp, p=p: run_protocol(p, url, tmp, args))
           for p in names}  # fmt: skip
    if "binary" in cpu:
        for p, (raw, above) in cpu.items():
            if p != "binary":
                print(f"{p} / binary: {raw / cpu['binary'][0]:.2f} "
                      f"(above idle: {above / cpu['binary'][1]:.2f})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("single", "comparative"), default="single")
    parser.add_argument("--judgments", type=int, default=40)
    parser.add_argument("--screens", type=int, default=6)
    parser.add_argument("--rate", type=float, default=10.0, help="comparative keys per second")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle measured")
    parser.add_argument("--items", type=int, default=None, help="TED segments (all: 529)")
    parser.add_argument("--watcher", action="store_true", help="also the old file watcher")
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--protocols", default=None,
                        help="comma-separated, of binary, esa, cesa, da: each on its own fresh "
                             "database and server, in one run (ratios to binary)")  # fmt: skip
    args = parser.parse_args()
    if args.protocols:
        protocols(args)
        return

    configs = [("served", [])]
    if args.watcher:  # the old default: Streamlit watches the project folder, .venv included
        configs.insert(
            0,
            ("old flags (before)", ["--server.fileWatcherType=auto", "--runner.postScriptGC=true"]),
        )
    print("| server | measure | CPU | latency | load |\n| --- | --- | --- | --- | --- |")
    cpu = {}
    for name, extra in configs:
        with tempfile.TemporaryDirectory(prefix="tandem-cpu-") as tmp:
            if args.postgres:
                from sqlalchemy import create_engine, text

                db = f"bench_{uuid.uuid4().hex[:8]}"
                admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
                with admin.connect() as c:
                    c.execute(text(f'CREATE DATABASE "{db}"'))
                try:
                    cpu[name] = run(name, PG_ADMIN.rsplit("/", 1)[0] + f"/{db}", Path(tmp),
                                    args, extra)  # fmt: skip
                finally:
                    with admin.connect() as c:
                        c.execute(text(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'))
                    admin.dispose()
            else:
                cpu[name] = run(name, f"sqlite:///{Path(tmp) / 'tandem.db'}", Path(tmp), args,
                                extra)  # fmt: skip
    if len(cpu) == 2:
        before, after = cpu.values()
        print(f"CPU per judgment, served / old flags: {after / before:.2f}")


if __name__ == "__main__":
    main()
