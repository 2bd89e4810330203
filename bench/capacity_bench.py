"""Capacity: how many annotators 1 and 2 replicas serve, through the real deployment
(deploy/replicas.sh: Streamlit replicas behind HAProxy on one PostgreSQL).

The load generator speaks Streamlit's own WebSocket protocol (/_stcore/stream, protobuf
BackMsg / ForwardMsg from streamlit.proto), as the browser does: each simulated annotator
opens its invite link (a full script run), then judges one output every 3–10 s (uniform,
``--think``) by sending the "Adequate" button's trigger in the annotate page's fragment, and
times key → the end of the run that draws the next item (script_finished). The replicas'
CPU comes from /proc, and so does the rest of the server side: PostgreSQL (the postmaster,
its live backends and the backends it has reaped, whose CPU /proc counts in the
postmaster's children's time) and HAProxy; the table gives each share and annotators per
core from the whole. Annotators join at ``--ramp`` per second (their first page is not
timed); each level is measured for ``--seconds`` once all its annotators have joined.

Data: the shipped WMT21 TED en-de file (6,877 outputs; synthetic stand-in when absent), a
fresh PostgreSQL database per replica count.

Limits, stated: the generator runs on the same machine (its CPU is printed: subtract it
from the machine); it draws nothing (a browser's own work is not here), sends no widget
states but the button's (as a page with untouched widgets), asks for full messages (no
browser message cache) and no static files. Latency is the server's answer, not paint.
Run: ``.venv/bin/python bench/capacity_bench.py [--levels 25,50,100,200] [--replicas 1,2]``;
``--idle 100 --replicas 1``: the replicas' CPU with 100 sessions open and untouched instead.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.served import cpu_seconds, load, seed  # noqa: E402
from tests.browser.app_server import app_env, free_port  # noqa: E402

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
GOAL_P95_S = 0.5


class Annotator:
    """One simulated browser session over the WebSocket."""

    def __init__(self, url: str, token: str, stats: dict, think: tuple[float, float]) -> None:  # type: ignore[type-arg]
        self.url, self.token, self.stats, self.think = url, token, stats, think
        self.button = self.fragment = self.page = None

    async def _run(self, ws, msg) -> str:  # type: ignore[no-untyped-def]
        """Send ``msg``; read until its run ends; the end's status."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        await ws.send(msg.SerializeToString())
        while True:
            f = ForwardMsg()
            f.ParseFromString(await ws.recv())
            kind = f.WhichOneof("type")
            if kind == "new_session":
                self.page = f.new_session.page_script_hash
            elif kind == "delta" and f.delta.WhichOneof("type") == "new_element":
                el = f.delta.new_element
                if el.WhichOneof("type") == "button" and el.button.id.endswith("-adequate"):
                    self.button, self.fragment = el.button.id, f.delta.fragment_id
            elif kind == "script_finished":
                return str(f.script_finished)

    def _msg(self, click: bool):  # type: ignore[no-untyped-def]
        from streamlit.proto.BackMsg_pb2 import BackMsg

        m = BackMsg()
        m.rerun_script.query_string = f"token={self.token}"
        m.rerun_script.page_script_hash = self.page or ""
        if click:
            m.rerun_script.fragment_id = self.fragment
            w = m.rerun_script.widget_states.widgets.add()
            w.id, w.trigger_value = self.button, True
        return m

    async def run(self, stop: asyncio.Event) -> None:
        import websockets

        ws_url = self.url.replace("http", "ws", 1) + "/_stcore/stream"
        async with websockets.connect(ws_url, subprotocols=["streamlit"], max_size=None,
                                      open_timeout=120, ping_interval=None) as ws:  # fmt: skip
            await self._run(ws, self._msg(False))
            if self.button is None:
                self.stats["errors"] += 1
                return
            self.stats["joined"] += 1
            while not stop.is_set():
                try:
                    await asyncio.wait_for(stop.wait(), random.uniform(*self.think))
                    return
                except TimeoutError:
                    pass
                started = time.perf_counter()
                await self._run(ws, self._msg(True))
                self.stats["lat"].append((time.monotonic(), time.perf_counter() - started))


def replica_pids(first: int, n: int) -> list[int]:
    want = {f"--server.port={first + k}".encode() for k in range(n)}
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            cmd = set((proc / "cmdline").read_bytes().split(b"\0"))
        except OSError:
            continue
        if cmd & want and b"streamlit" in cmd:
            pids.append(int(proc.name))
    return pids


def _stat(pid: int) -> tuple[str, int]:
    """The command name and parent pid of ``pid`` (proc(5) fields 2 and 4)."""
    raw = Path(f"/proc/{pid}/stat").read_text()
    name = raw[raw.index("(") + 1 : raw.rindex(")")]
    return name, int(raw.rsplit(")", 1)[1].split()[1])


def postgres_cpu() -> float:
    """CPU-seconds of the local PostgreSQL server so far: the postmaster with the backends it
    has reaped (its children's time) plus every live child's own time. A backend that ends
    between two readings moves from the second term to the first, so differences are exact."""
    procs: dict[int, tuple[str, int]] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                procs[int(proc.name)] = _stat(int(proc.name))
            except (OSError, ValueError):
                continue
    masters = [p for p, (name, parent) in procs.items()
               if name == "postgres" and procs.get(parent, ("", 0))[0] != "postgres"]  # fmt: skip
    total = 0.0
    for master in masters:
        try:
            total += cpu_seconds(master)
            for pid, (_, parent) in procs.items():
                if parent == master:
                    total += cpu_seconds(pid, children=False)
        except OSError:
            continue
    return total


def haproxy_cpu() -> float:
    """CPU-seconds of every HAProxy process on the machine (the bench's own, on a machine that
    runs no other)."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if _stat(int(proc.name))[0] == "haproxy":
                    total += cpu_seconds(int(proc.name))
            except (OSError, ValueError):
                continue
    return total


def server_side(pids: list[int]) -> tuple[float, float, float]:
    """CPU-seconds so far of the replicas, PostgreSQL and HAProxy."""
    return sum(cpu_seconds(p) for p in pids), postgres_cpu(), haproxy_cpu()


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))] if xs else float("nan")


async def levels(url: str, tokens: list[str], pids: list[int], args) -> list[str]:  # type: ignore[no-untyped-def]
    stats = {"lat": [], "joined": 0, "errors": 0}
    stop = asyncio.Event()
    tasks: list[asyncio.Task] = []  # type: ignore[type-arg]
    rows = []
    me = os.getpid()
    for level in args.levels:
        while len(tasks) < level:  # join at --ramp per second
            a = Annotator(url, tokens[len(tasks)], stats, args.think)
            tasks.append(asyncio.create_task(a.run(stop)))
            await asyncio.sleep(1 / args.ramp)
        while stats["joined"] + stats["errors"] < level:
            await asyncio.sleep(0.2)
        await asyncio.sleep(args.think[1])  # every annotator past its first judgment's wait
        t0, s0, g0 = time.monotonic(), server_side(pids), cpu_seconds(me)
        await asyncio.sleep(args.seconds)
        t1, s1, g1 = time.monotonic(), server_side(pids), cpu_seconds(me)
        lat = [x for t, x in stats["lat"] if t0 <= t <= t1]
        n = len(lat)
        rep, pg, lb = (b - a for a, b in zip(s0, s1, strict=True))
        whole = rep + pg + lb
        per = whole / max(n, 1)
        # an annotator judging every mean think time costs per / mean core
        per_core = (sum(args.think) / 2) / per if per else float("nan")
        row = (f"| {len(pids)} | {level} | {n / (t1 - t0):.1f} | {pct(lat, .5):.3f} | "
               f"{pct(lat, .95):.3f} | {pct(lat, .99):.3f} | {rep / max(n, 1):.4f} | "
               f"{pg / max(n, 1):.4f} | {lb / max(n, 1):.4f} | {per:.4f} | "
               f"{whole / (t1 - t0):.2f} | {per_core:.0f} | "
               f"{(g1 - g0) / (t1 - t0):.2f} | {load()} |")  # fmt: skip
        print(row, flush=True)
        rows.append(row)
        if pct(lat, 0.95) > 2 * GOAL_P95_S and level != args.levels[-1] and not args.all:
            print(f"p95 over {2 * GOAL_P95_S} s: saturated, no higher level", flush=True)
            break
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return rows


async def idle(url: str, tokens: list[str], pids: list[int], n: int) -> None:
    """The replicas' CPU with no session, then with ``n`` sessions open and untouched."""
    cpu = lambda: sum(cpu_seconds(p) for p in pids)  # noqa: E731
    c0, t0 = cpu(), time.monotonic()
    await asyncio.sleep(15)
    base = (cpu() - c0) / (time.monotonic() - t0)
    stats = {"lat": [], "joined": 0, "errors": 0}
    stop = asyncio.Event()
    never = (1e9, 1e9 + 1)  # no judgment while measured
    tasks = []
    for token in tokens[:n]:
        tasks.append(asyncio.create_task(Annotator(url, token, stats, never).run(stop)))
        await asyncio.sleep(0.1)
    while stats["joined"] + stats["errors"] < n:
        await asyncio.sleep(0.2)
    await asyncio.sleep(5)
    c0, t0 = cpu(), time.monotonic()
    await asyncio.sleep(30)
    after = (cpu() - c0) / (time.monotonic() - t0)
    print(f"idle: {len(pids)} replica(s) with no session {base:.4f} core; "
          f"with {n} open, untouched sessions {after:.4f} core ({load()})")  # fmt: skip
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)


def deployment(db_url: str, n: int, log: Path):  # type: ignore[no-untyped-def]
    lb, first = free_port(), free_port()
    env = {**app_env(db_url, "capacity-bench-1"), "TANDEM_LB_BIND": f"127.0.0.1:{lb}",
           "TANDEM_REPLICA_PORT": str(first), "PYTHON": sys.executable}  # fmt: skip
    proc = subprocess.Popen([str(ROOT / "deploy" / "replicas.sh"), str(n)], cwd=ROOT, env=env,
                            stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)  # fmt: skip
    url = f"http://127.0.0.1:{lb}"
    deadline = time.monotonic() + 240
    while True:
        if proc.poll() is not None or time.monotonic() > deadline:
            sys.exit(f"deploy/replicas.sh did not start:\n{log.read_text()}")
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    return proc, url, replica_pids(first, n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="25,50,100,200",
                        help="annotators, comma-separated, ascending")  # fmt: skip
    parser.add_argument("--replicas", default="1,2")
    parser.add_argument("--seconds", type=float, default=40.0, help="measured per level")
    parser.add_argument("--ramp", type=float, default=8.0, help="annotators joining per second")
    parser.add_argument("--think", default="3,10", help="seconds between judgments: min,max")
    parser.add_argument("--all", action="store_true", help="every level, even past saturation")
    parser.add_argument("--idle", type=int, default=0,
                        help="instead: CPU with this many sessions open, untouched")  # fmt: skip
    args = parser.parse_args()
    args.levels = [int(x) for x in args.levels.split(",")]
    args.think = tuple(float(x) for x in args.think.split(","))
    from sqlalchemy import create_engine, text

    print(
        "| replicas | annotators | judgments/s | p50 s | p95 s | p99 s "
        "| CPU-s/judgment: replicas | PostgreSQL | HAProxy | server side "
        "| server side's cores | annotators per core | generator's cores | load |\n"
        + "| --- " * 14
        + "|"
    )
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    for n in (int(x) for x in args.replicas.split(",")):
        db = f"capacity_{uuid.uuid4().hex[:8]}"
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{db}"'))
        db_url = PG_ADMIN.rsplit("/", 1)[0] + f"/{db}"
        proc = None
        try:
            tokens = seed(db_url, "ted", max([*args.levels, args.idle]))
            log = Path(f"/tmp/capacity-{db}.log")
            proc, url, pids = deployment(db_url, n, log)
            if args.idle:
                asyncio.run(idle(url, tokens, pids, args.idle))
            else:
                asyncio.run(levels(url, tokens, pids, args))
        finally:
            if proc is not None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
            with admin.connect() as c:
                c.execute(text(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'))
    admin.dispose()


if __name__ == "__main__":
    main()
