"""The real server as users start it, for the serving benchmarks (serve_cpu_bench.py,
capacity_bench.py): seeding a campaign from the shipped WMT21 TED file, starting
``cli.py serve``'s command line (commands.admin.serve_command) and reading the server
process's CPU time from /proc (no psutil needed: Linux only).
"""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from commands.admin import serve_command  # noqa: E402
from tests.browser.app_server import _wait_healthy, app_env, free_port, stop  # noqa: E402

TED = ROOT.parent / "shared" / "data" / "wmt21-ted-mqm" / "wmt21_ted_ende.csv"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int, children: bool = True) -> float:
    """User + system CPU time of process ``pid`` and (``children``) its waited-for children,
    in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # fields[11:15] are utime, stime, cutime, cstime (proc(5), counted from field 3)
    return sum(int(x) for x in fields[11 : 15 if children else 13]) / TICK


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def ted_rows(limit_items: int | None = None) -> list[dict[str, str]]:
    """The WMT21 TED rows (13 systems per segment), or a synthetic stand-in when absent."""
    if TED.exists():
        with TED.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        if limit_items is not None:
            keep = list(dict.fromkeys(r["item_id"] for r in rows))[:limit_items]
            rows = [r for r in rows if r["item_id"] in set(keep)]
        return rows
    print(f"{TED} is absent: synthetic texts of similar length instead", file=sys.stderr)
    return [
        {"item_id": str(j), "system": f"sys{k}",
         "source": f"Source sentence number {j}, about as long as a TED talk's segment.",
         "reference": f"Referenz {j}, ein ganzer Satz.",
         "output": f"Ausgabe {j} von System {k}, ein ganzer Satz aus einem Vortrag."}
        for j in range(limit_items or 529) for k in range(13)
    ]  # fmt: skip


def seed(db_url: str, name: str, annotators: int, *, comparative: bool = False,
         items: int | None = None, mode: str | None = None,
         systems: int | None = None) -> list[str]:  # fmt: skip
    """Migrate ``db_url``, import the TED file as campaign ``name`` (binary labels, or the
    import ``mode``: ``esa``, ``da``…; its judgments left out; only its first ``systems``
    systems when given), build its queue; ``annotators`` invite tokens."""
    from accounts.invites import create_annotator
    from annotation.imports.importer import import_campaign
    from annotation.judging import comparative as cmp
    from annotation.queue import build as queue_build
    from db.engine import make_engine
    from db.migrate import upgrade

    engine = make_engine(db_url)
    upgrade(engine)
    rows = ted_rows(items)
    if systems is not None:
        kept = list(dict.fromkeys(r["system"] for r in rows))[:systems]
        rows = [r for r in rows if r["system"] in kept]
    keep = ["item_id", "system", "source", "reference", "output"]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=keep, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    report = import_campaign(engine, buf.getvalue().encode(), name, filename=f"{name}.csv",
                             settings={"target_lang": "de", "source_lang": "en",
                                       **({"mode": mode} if mode else {})})  # fmt: skip
    if comparative:
        cmp.set_comparative(engine, report.campaign_id, True)
    queue_build.build_queue(engine, report.campaign_id, seed=1)
    tokens = [create_annotator(engine, report.campaign_id, f"ann{k}").token
              for k in range(annotators)]  # fmt: skip
    engine.dispose()
    return tokens


@contextmanager
def server(db_url: str, log: Path, extra: Sequence[str] = (),
           port: int | None = None) -> Iterator[tuple[str, int]]:  # fmt: skip
    """``cli.py serve``'s command line (plus ``extra`` flags, which override it) over
    ``db_url``; (its URL, its pid) until left."""
    port = port or free_port()
    env = {**app_env(db_url, "bench-password-1"), "TOKENIZERS_PARALLELISM": "false"}
    with log.open("wb") as out:
        proc = subprocess.Popen([*serve_command("127.0.0.1", port), *extra], cwd=ROOT,
                                env=env, stdout=out, stderr=subprocess.STDOUT)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(proc, url, log, lambda m: sys.exit(m))
        yield url, proc.pid
    finally:
        stop(proc)


def idle_cores(pid: int, seconds: float) -> float:
    """The process's CPU use over ``seconds`` of wall time, in cores."""
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - c0) / (time.monotonic() - t0)
