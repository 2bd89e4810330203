"""The deployment of deploy/replicas.sh: two Streamlit replicas behind HAProxy on one
PostgreSQL, with the scoring worker as its own process. Two annotators judge through the
load balancer in chromium; each browser stays on its own replica (the TANDEM_REPLICA
cookie, the WebSocket included) and every judgment lands in the one database."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from accounts.invites import create_annotator
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.models import Annotation, Campaign, Item, Output, System
from tests.browser.app_server import CHROMIUM, CHROMIUM_ARGS, PROJECT_ROOT, app_env, free_port
from tests.browser.conftest import IDLE

JUDGMENTS = 3


def seed(engine: Engine) -> list[str]:
    """Two systems × 8 sources; two annotators' invite tokens."""
    with session_scope(engine) as s:
        camp = Campaign(name="Replicated", show_metrics=False)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"sys{k}") for k in range(2)]
        s.add_all(systems)
        for j in range(8):
            item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source {j}.")
            s.add(item)
            s.flush()
            s.add_all(Output(item_id=item.id, system_id=sy.id, text=f"Ausgabe {j}/{k}.")
                      for k, sy in enumerate(systems))  # fmt: skip
        cid = camp.id
    queue_build.build_queue(engine, cid, seed=3)
    return [create_annotator(engine, cid, f"Ann {k}").token for k in range(2)]


def wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"deploy/replicas.sh exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"the load balancer did not answer in 150 s:\n{log.read_text()}")


@pytest.mark.browser
def test_two_replicas_behind_haproxy(pg_engine: Engine, tmp_path: Path) -> None:
    if not CHROMIUM.exists() or shutil.which("haproxy") is None:
        message = "needs Debian chromium and haproxy (apt-get install chromium haproxy; .ci/run)"
        if os.environ.get("TANDEM_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    tokens = seed(pg_engine)
    db_url = pg_engine.url.render_as_string(hide_password=False)
    lb = free_port()
    env = {**app_env(db_url, "replica-test-password"), "TANDEM_LB_BIND": f"127.0.0.1:{lb}",
           "TANDEM_REPLICA_PORT": str(free_port()), "PYTHON": sys.executable}  # fmt: skip
    log = tmp_path / "replicas.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([str(PROJECT_ROOT / "deploy" / "replicas.sh"), "2"],
                                cwd=PROJECT_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)  # fmt: skip
    url = f"http://127.0.0.1:{lb}"
    try:
        wait_healthy(url, proc, log)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            replicas = []
            for token in tokens:  # one browser profile (its own cookies) per annotator
                context = browser.new_context(viewport={"width": 1200, "height": 800})
                page = context.new_page()
                page.goto(f"{url}/?token={token}")
                page.locator(".tandem-output").first.wait_for(timeout=60_000)
                page.wait_for_selector(IDLE)
                for k in range(1, JUDGMENTS + 1):
                    page.wait_for_function("window.__tandemKeysInstalled === true")
                    page.keyboard.press("a")
                    page.get_by_text(f"You: {k} judged", exact=False).wait_for()
                    page.wait_for_selector(IDLE)
                cookies = {c["name"]: c["value"] for c in context.cookies()}
                replicas.append(cookies.get("TANDEM_REPLICA"))
            browser.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # supervisord stops its replicas, worker, HAProxy
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert sorted(replicas) == ["r1", "r2"], (replicas, log.read_text())
    with session_scope(pg_engine) as s:
        per_annotator = s.execute(
            select(Annotation.annotator_id, func.count())
            .where(Annotation.kind == "label")
            .group_by(Annotation.annotator_id)
        ).all()
    assert sorted(n for _, n in per_annotator) == [JUDGMENTS, JUDGMENTS]
    text = log.read_text()
    assert "scoring worker: log" in text and "2 replicas under supervisord" in text
