"""``streamlit run app.py`` on a free localhost port, for a headless chromium to drive.

Shared by the browser tests' ``server`` fixture (tests/browser/conftest.py) and the README's
tour (bench/tour.py): the same command line, the same wait for ``/_stcore/health`` and the
same stop. The caller prepares the database and says how a failed start ends (``pytest.fail``
in a test, ``sys.exit`` in the tour). Never runs ``playwright install``: the browser is the
system's chromium.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

from commands.admin import serve_command

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("TANDEM_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
STARTUP_TIMEOUT_S = 90


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app_env(db_url: str, password: str) -> dict[str, str]:
    """This process's environment for an app over ``db_url``: models offline, the admin
    password set."""
    return {
        **os.environ,
        "DATABASE_URL": db_url,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TANDEM_ADMIN_PASSWORD": password,
    }


@contextmanager
def streamlit_app(env: dict[str, str], log: Path, fail: Callable[[str], NoReturn]) -> Iterator[str]:
    """``streamlit run app.py`` with ``env`` (output to ``log``) until it answers its health
    check; its URL. ``fail(message)`` when it exits or does not answer in
    :data:`STARTUP_TIMEOUT_S`. Stopped (terminated, killed after 15 s) on leaving."""
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            serve_command("127.0.0.1", port),  # as `make run` / `cli.py serve` start it
            cwd=PROJECT_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(proc, url, log, fail)
        yield url
    finally:
        stop(proc)


def stop(proc: subprocess.Popen) -> None:  # type: ignore[type-arg]
    """Terminate a started server; kill it if it has not exited within 15 s."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _wait_healthy(
    proc: subprocess.Popen[bytes], url: str, log: Path, fail: Callable[[str], NoReturn]
) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while True:
        if proc.poll() is not None:
            fail(f"streamlit exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            fail(f"streamlit did not answer in {STARTUP_TIMEOUT_S} s:\n{log.read_text()}")
        time.sleep(0.3)
