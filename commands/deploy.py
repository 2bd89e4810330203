"""A deployment on one machine under supervisord (deploy/replicas.sh, `make replicas`,
`make status`, `make stop`): N Streamlit replicas, the scoring worker and HAProxy, each
restarted when it dies, started and stopped as one.

Why supervisord: it is a well-kept process supervisor from PyPI (installed with the project,
so no host needs systemd or root), restarts a program that exits with a back-off while it
keeps failing to start, stops a program's whole process group, keeps every log in one
folder and answers `supervisorctl status`. Hosts with systemd can run the same commands as
units instead (docs/deployment.md).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from commands import base
from commands.base import app

PROJECT_ROOT = Path(__file__).resolve().parent.parent
HAPROXY_TEMPLATE = PROJECT_ROOT / "deploy" / "haproxy.cfg"
DEFAULT_RUN_DIR = PROJECT_ROOT / ".run" / "deploy"
#: A replica is up when it has run this long; one that dies sooner is retried with a
#: back-off (1 s, 2 s, 3 s, …) at most STARTRETRIES times.
STARTSECS = 3
STARTRETRIES = 20


@dataclass(frozen=True)
class Deployment:
    """Where a deployment's files live and what it runs."""

    run_dir: Path
    replicas: int
    first_port: int
    python: str

    @property
    def supervisord_conf(self) -> Path:
        return self.run_dir / "supervisord.conf"

    @property
    def haproxy_cfg(self) -> Path:
        return self.run_dir / "haproxy.cfg"

    @property
    def logs(self) -> Path:
        return self.run_dir / "logs"

    def ports(self) -> list[int]:
        return [self.first_port + k for k in range(self.replicas)]


def _quoted(value: str) -> str:
    """A value for supervisord's config: its own ``%`` expansion escaped."""
    return value.replace("%", "%%")


def _program(name: str, command: str, dep: Deployment, priority: int, extra: str = "") -> str:
    return f"""
[program:{name}]
command={_quoted(command)}
directory={_quoted(str(PROJECT_ROOT))}
priority={priority}
autostart=true
autorestart=true
startsecs={STARTSECS}
startretries={STARTRETRIES}
stopsignal=TERM
stopwaitsecs=15
stopasgroup=true
killasgroup=true
redirect_stderr=true
stdout_logfile={_quoted(str(dep.logs / f"{name}.log"))}
stdout_logfile_maxbytes=20MB
stdout_logfile_backups=3
{extra}"""


def supervisord_config(dep: Deployment) -> str:
    """supervisord's configuration: one program per replica (``cli.py serve``, which becomes
    the Streamlit process), the scoring worker and HAProxy; the control socket and every log
    under ``dep.run_dir``."""
    run = _quoted(str(dep.run_dir))
    parts = [
        f"""[supervisord]
nodaemon=true
logfile={run}/logs/supervisord.log
pidfile={run}/supervisord.pid
childlogdir={run}/logs

[unix_http_server]
file={run}/supervisor.sock
chmod=0700

[supervisorctl]
serverurl=unix://{run}/supervisor.sock

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface
"""
    ]
    cli = f"{dep.python} {PROJECT_ROOT / 'cli.py'}"
    for k, port in enumerate(dep.ports(), start=1):
        parts.append(
            _program(
                f"replica{k}",
                f"{cli} serve --host 127.0.0.1 --port {port}",
                dep,
                100,
                'environment=TANDEM_SCORING_WORKER="external"\n',
            )
        )
    parts.append(_program("scoring-worker", f"{cli} scoring-worker", dep, 200))
    parts.append(_program("haproxy", f"haproxy -db -f {dep.haproxy_cfg}", dep, 300))
    return "".join(parts)


def haproxy_config(dep: Deployment) -> str:
    """deploy/haproxy.cfg with one ``server`` line per replica, and a stats socket in the
    deployment's folder (what :func:`haproxy_servers` reads)."""
    lines = [
        f"    server r{k} 127.0.0.1:{port} cookie r{k}"
        for k, port in enumerate(dep.ports(), start=1)
    ]
    text = HAPROXY_TEMPLATE.read_text().rstrip("\n") + "\n" + "\n".join(lines) + "\n"
    socket_line = f"    stats socket {dep.run_dir / 'haproxy.sock'} mode 600 level user\n"
    return text.replace("\nglobal\n", "\nglobal\n" + socket_line, 1)


def haproxy_servers(run_dir: Path) -> dict[str, str]:
    """Each replica's state as HAProxy sees it (``UP``, ``DOWN``, ``UP 1/2``…), from the
    stats socket of a running deployment; empty when HAProxy does not answer."""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(3)
            s.connect(str(run_dir / "haproxy.sock"))
            s.sendall(b"show stat\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
    except OSError:
        return {}
    rows = data.decode(errors="replace").splitlines()
    if not rows or not rows[0].startswith("# "):
        return {}
    header = rows[0][2:].split(",")
    states = {}
    for row in rows[1:]:
        cells = dict(zip(header, row.split(","), strict=False))
        if cells.get("pxname") == "replicas" and cells.get("svname", "").startswith("r"):
            states[cells["svname"]] = cells.get("status", "")
    return states


def write_deployment(dep: Deployment) -> None:
    """Write the deployment's configuration files (and its log folder)."""
    dep.logs.mkdir(parents=True, exist_ok=True)
    dep.haproxy_cfg.write_text(haproxy_config(dep))
    dep.supervisord_conf.write_text(supervisord_config(dep))


def _run_dir(run_dir: Path | None) -> Path:
    return (run_dir or DEFAULT_RUN_DIR).resolve()


def _supervisorctl(conf: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("supervisorctl")
    return subprocess.run([str(exe), "-c", str(conf), *args],
                          capture_output=True, text=True, timeout=60)  # fmt: skip


RunDir = Annotated[Path | None, typer.Option(help="The deployment's folder (default .run/deploy).")]


@app.command("deploy-config")
def deploy_config(
    replicas: Annotated[int, typer.Argument(help="How many Streamlit replicas.")] = 2,
    first_port: Annotated[int, typer.Option(help="The first replica's port.")] = 8601,
    run_dir: RunDir = None,
) -> None:
    """Write the supervisord and HAProxy configuration of a deployment on this machine
    (deploy/replicas.sh calls it, then runs supervisord)."""
    if replicas < 1:
        base.fail("The number of replicas must be a whole number ≥ 1.", code=2)
    if not 1024 <= first_port <= 65535 - replicas:
        base.fail(f"--first-port {first_port} leaves no room for {replicas} replica ports.", 2)
    dep = Deployment(_run_dir(run_dir), replicas, first_port, sys.executable)
    write_deployment(dep)
    typer.echo(f"Wrote {dep.supervisord_conf} and {dep.haproxy_cfg}.")


@app.command("deploy-status")
def deploy_status(run_dir: RunDir = None) -> None:
    """Each program of the running deployment (supervisorctl status) and each replica's
    health check. Exit code 0 when everything runs and answers, 1 otherwise."""
    conf = _run_dir(run_dir) / "supervisord.conf"
    if not conf.exists():
        base.fail(f"No deployment at {conf.parent} (start one with `make replicas`).")
    status = _supervisorctl(conf, "status")
    typer.echo(status.stdout.rstrip() or status.stderr.rstrip())
    healthy = status.returncode == 0
    balanced = haproxy_servers(conf.parent)
    for line in conf.parent.joinpath("haproxy.cfg").read_text().splitlines():
        words = line.split()
        if words[:1] == ["server"] and len(words) >= 3:
            answer = _health(words[2])
            seen = balanced.get(words[1], "unknown")
            healthy &= answer == "ok" and seen == "UP"
            typer.echo(f"{words[1]} {words[2]}: health {answer}, load balancer {seen}")
    raise typer.Exit(0 if healthy else 1)


@app.command("deploy-stop")
def deploy_stop(run_dir: RunDir = None) -> None:
    """Stop the running deployment: every replica, the worker (and its jobs, which resume
    at the next start) and HAProxy."""
    conf = _run_dir(run_dir) / "supervisord.conf"
    if not conf.exists():
        base.fail(f"No deployment at {conf.parent}.")
    done = _supervisorctl(conf, "shutdown")
    typer.echo(done.stdout.rstrip() or done.stderr.rstrip())


def _health(address: str) -> str:
    try:
        with urllib.request.urlopen(f"http://{address}/_stcore/health", timeout=3) as r:
            return "ok" if r.status == 200 else f"HTTP {r.status}"
    except OSError as exc:
        return f"no answer ({exc.__class__.__name__})"
