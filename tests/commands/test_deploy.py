"""The supervised deployment (deploy/replicas.sh → supervisord, commands/deploy.py): its
configuration, and — on PostgreSQL with HAProxy — a replica and the scoring worker killed
with SIGKILL while annotators judge, then a stop that leaves nothing running."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from commands.deploy import Deployment, haproxy_config, haproxy_servers, supervisord_config
from tests.browser.app_server import PROJECT_ROOT, app_env, free_port

ANNOTATORS = 10


def test_the_configuration_supervises_every_program() -> None:
    dep = Deployment(Path("/srv/run 100%"), 3, 8601, "/venv/bin/python")
    conf = supervisord_config(dep)
    for name in ("replica1", "replica2", "replica3", "scoring-worker", "haproxy"):
        block = conf.split(f"[program:{name}]")[1].split("[program:")[0]
        assert "autorestart=true" in block and "stopasgroup=true" in block, name
        assert "killasgroup=true" in block, name
    assert "--port 8603" in conf and "--port 8604" not in conf
    assert "/srv/run 100%%/logs/replica1.log" in conf  # supervisord's own % escaped
    assert "\nglobal\n    stats socket /srv/run 100%/haproxy.sock" in haproxy_config(dep)
    assert conf.count('TANDEM_SCORING_WORKER="external"') == 3
    servers = [
        w for line in haproxy_config(dep).splitlines() if (w := line.split())[:1] == ["server"]
    ]
    assert [s[1:3] for s in servers] == [["r1", "127.0.0.1:8601"], ["r2", "127.0.0.1:8602"],
                                        ["r3", "127.0.0.1:8603"]]  # fmt: skip


@dataclass
class WsAnnotator:
    """One annotator's browser session, spoken over Streamlit's WebSocket as the browser
    does (a page run, then the "Adequate" button of the annotate fragment); reconnects
    through the load balancer when its replica dies."""

    url: str
    token: str
    acked: int = 0
    drops: list[float] = field(default_factory=list)  # time of each lost connection
    recoveries: list[float] = field(default_factory=list)  # seconds to the next acked label

    async def _run(self, ws, msg) -> tuple[str | None, str | None, str]:  # type: ignore[no-untyped-def]
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        await ws.send(msg.SerializeToString())
        page = button = fragment = None
        while True:
            f = ForwardMsg()
            f.ParseFromString(await asyncio.wait_for(ws.recv(), 60))
            kind = f.WhichOneof("type")
            if kind == "new_session":
                page = f.new_session.page_script_hash
            elif kind == "delta" and f.delta.WhichOneof("type") == "new_element":
                el = f.delta.new_element
                if el.WhichOneof("type") == "button" and el.button.id.endswith("-adequate"):
                    button, fragment = el.button.id, f.delta.fragment_id
            elif kind == "script_finished":
                return button, fragment, page or ""

    def _msg(self, page: str, button: str | None = None, fragment: str | None = None):  # type: ignore[no-untyped-def]
        from streamlit.proto.BackMsg_pb2 import BackMsg

        m = BackMsg()
        m.rerun_script.query_string = f"token={self.token}"
        m.rerun_script.page_script_hash = page
        if button is not None:
            m.rerun_script.fragment_id = fragment or ""
            w = m.rerun_script.widget_states.widgets.add()
            w.id, w.trigger_value = button, True
        return m

    async def judge(self, stop: asyncio.Event) -> None:
        import websockets

        ws_url = self.url.replace("http", "ws", 1) + "/_stcore/stream"
        while not stop.is_set():
            try:
                async with websockets.connect(ws_url, subprotocols=["streamlit"],
                                              max_size=None, open_timeout=30,
                                              ping_interval=None) as ws:  # fmt: skip
                    button, fragment, page = await self._run(ws, self._msg(""))
                    while not stop.is_set() and button is not None:
                        await asyncio.sleep(0.3)
                        got = await self._run(ws, self._msg(page, button, fragment))
                        self.acked += 1
                        if len(self.recoveries) < len(self.drops):
                            self.recoveries.append(time.monotonic() - self.drops[-1])
                        button, fragment = got[0], got[1] or fragment
                    if button is None:
                        return  # nothing left to judge
            except (OSError, TimeoutError, websockets.ConnectionClosed,
                    websockets.InvalidStatus, websockets.InvalidHandshake):  # fmt: skip
                if len(self.drops) == len(self.recoveries):
                    self.drops.append(time.monotonic())
                await asyncio.sleep(0.2)


def _seed(engine: Engine) -> tuple[int, list[str]]:
    from accounts.invites import create_annotator
    from annotation.queue import build as queue_build
    from db.engine import session_scope
    from db.schema.models import Campaign, Item, Output, System

    with session_scope(engine) as s:
        camp = Campaign(name="Supervised", show_metrics=False)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"sys{k}") for k in range(2)]
        s.add_all(systems)
        for j in range(600):  # long outputs: a scoring job that runs for seconds, not one
            words = " ".join(f"Wort{(j * 7 + w) % 97}" for w in range(120))
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source {j}.",
                        reference=f"Die Referenz {j}. {words}")  # fmt: skip
            s.add(item)
            s.flush()
            s.add_all(Output(item_id=item.id, system_id=sy.id, text=f"Ausgabe {j}/{k}. {words}")
                      for k, sy in enumerate(systems))  # fmt: skip
        cid = camp.id
    queue_build.build_queue(engine, cid, seed=3)
    return cid, [create_annotator(engine, cid, f"Ann {k}").token for k in range(ANNOTATORS)]


def _ctl(run: Path, *args: str) -> str:
    exe = Path(sys.executable).with_name("supervisorctl")
    done = subprocess.run([str(exe), "-c", str(run / "supervisord.conf"), *args],
                          capture_output=True, text=True, timeout=30)  # fmt: skip
    return done.stdout.strip()


def _wait(predicate, seconds: float, what: str, log: Path) -> float:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if predicate():
            return time.monotonic() - started
        time.sleep(0.2)
    pytest.fail(f"{what} not within {seconds:g} s:\n{log.read_text()[-3000:]}")


def _healthy(address: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{address}/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def _port_free(port: int) -> bool:
    """Whether a server could listen on ``port`` now (as Tornado and HAProxy bind: with
    SO_REUSEADDR, so the closed connections' TIME_WAIT does not count)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _ours(run: Path, ports: list[int], db_url: str) -> list[str]:
    """Command lines of this deployment's processes still alive (zombies are dead)."""
    marks = [str(run).encode(), *(f"--server.port={p}".encode() for p in ports),
             *(f"--port {p}".encode() for p in ports)]  # fmt: skip
    alive = []
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
            state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
            job = (
                b"metrics.scoring_job" in cmd and db_url.encode() in (proc / "environ").read_bytes()
            )
        except (OSError, IndexError):
            continue
        if state != "Z" and (job or any(m in cmd for m in marks)):
            alive.append(cmd.decode(errors="replace"))
    return alive


@pytest.mark.slow
def test_a_killed_replica_and_worker_come_back_and_stop_leaves_nothing(
    pg_engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("haproxy") is None:
        message = "needs Debian haproxy (apt-get install haproxy; .ci/run installs it)"
        if os.environ.get("TANDEM_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    _scenario(pg_engine, tmp_path, monkeypatch)


def _scenario(pg_engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from db.admin import jobs as store
    from db.engine import session_scope
    from db.schema.models import Annotation, MetricScore
    from metrics.scoring_job import start_scoring

    cid, tokens = _seed(pg_engine)
    db_url = pg_engine.url.render_as_string(hide_password=False)
    lb, first = free_port(), free_port()
    while first + 1 == lb or not _port_free(first + 1):
        first = free_port()
    ports = [first, first + 1]
    run = tmp_path / "run"
    env = {**app_env(db_url, "deploy-test-password"), "TANDEM_LB_BIND": f"127.0.0.1:{lb}",
           "TANDEM_REPLICA_PORT": str(first), "TANDEM_RUN_DIR": str(run),
           "PYTHON": sys.executable}  # fmt: skip
    log = tmp_path / "replicas.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([str(PROJECT_ROOT / "deploy" / "replicas.sh"), "2"],
                                cwd=PROJECT_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)  # fmt: skip
    try:
        _wait(lambda: all(_healthy(f"127.0.0.1:{p}") for p in [*ports, lb]), 150,
              "the deployment answering", log)  # fmt: skip
        _wait(lambda: haproxy_servers(run) == {"r1": "UP", "r2": "UP"}, 60,
              "HAProxy sending to both replicas", log)  # fmt: skip

        # 1. ten annotators judge through HAProxy; replica 1 is killed under them
        annotators = [WsAnnotator(f"http://127.0.0.1:{lb}", t) for t in tokens]

        async def judging() -> float:
            stop = asyncio.Event()
            tasks = [asyncio.create_task(a.judge(stop)) for a in annotators]
            while min(a.acked for a in annotators) < 2:
                await asyncio.sleep(0.2)
            pid = int(_ctl(run, "pid", "replica1"))
            os.kill(pid, signal.SIGKILL)
            killed = time.monotonic()
            while _ctl(run, "pid", "replica1") in ("", "0", str(pid)):
                await asyncio.sleep(0.1)
            restarted = time.monotonic() - killed
            marks = [a.acked for a in annotators]
            while any(a.acked < m + 3 for a, m in zip(annotators, marks, strict=True)):
                await asyncio.sleep(0.2)
            stop.set()
            await asyncio.gather(*tasks)
            return restarted

        restarted = asyncio.run(asyncio.wait_for(judging(), 240))
        assert restarted <= 10, f"replica1 restarted after {restarted:.1f} s"
        _wait(lambda: _healthy(f"127.0.0.1:{first}"), 60, "replica1 healthy again", log)
        moved = [a for a in annotators if a.drops]
        assert moved, "no annotator was on the killed replica"
        waits = sorted(r for a in moved for r in a.recoveries)
        print(f"annotators of the killed replica labelling again after {waits} s")  # -s shows it
        assert waits[-1] <= 5, f"an annotator of the killed replica waited {waits[-1]:.1f} s"
        with session_scope(pg_engine) as s:
            rows = s.execute(
                select(Annotation.annotator_id, Annotation.output_id, func.count())
                .where(Annotation.kind == "label")
                .group_by(Annotation.annotator_id, Annotation.output_id)
            ).all()
        assert all(n == 1 for *_, n in rows), "a label was stored twice"
        stored = len(rows)
        acked = sum(a.acked for a in annotators)
        # every acknowledged label is stored; at most the one in flight per drop beyond it
        assert acked <= stored <= acked + sum(len(a.drops) for a in annotators)

        # 2. the scoring worker (and the job process it runs) killed mid-job
        monkeypatch.setenv("TANDEM_SCORING_WORKER", "external")  # queued, as a replica does
        job_id = start_scoring(pg_engine, cid, ["chrf", "ter", "bleu"])

        def running() -> bool:  # killed while it runs: some scores stored, not all
            job = store.get_job(pg_engine, job_id)
            assert job is not None and job.state != store.DONE, "the job ended before the kill"
            return job.state == store.RUNNING and 0 < job.done < job.total

        _wait(running, 120, "the job running", log)
        worker = int(_ctl(run, "pid", "scoring-worker"))
        os.killpg(worker, signal.SIGKILL)  # the worker and its job: one process group
        _wait(lambda: _ctl(run, "pid", "scoring-worker") not in ("", "0", str(worker)), 10,
              "the scoring worker restarted", log)  # fmt: skip
        _wait(lambda: store.get_job(pg_engine, job_id).state == store.DONE, 180,  # type: ignore[union-attr]
              "the job resumed and finished", log)  # fmt: skip
        job = store.get_job(pg_engine, job_id)
        assert job is not None and job.attempts >= 2
        with session_scope(pg_engine) as s:
            scores = s.scalar(select(func.count()).select_from(MetricScore))
        assert scores == 1200 * 3  # chrF, TER and BLEU for every output, each once
    finally:
        proc.send_signal(signal.SIGTERM)  # the script is supervisord now (exec)
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    # 3. stopped: no process of the deployment left, every port free
    time.sleep(0.5)
    assert _ours(run, ports, db_url) == []
    assert all(_port_free(p) for p in [*ports, lb])
