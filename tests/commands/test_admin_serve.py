"""Every served mode starts Streamlit without a file watcher, and no annotator page polls
(issue 33: one idle page with the watcher on kept a core busy)."""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

from commands.admin import SERVE_FLAGS, serve_command

ROOT = Path(__file__).resolve().parents[2]


def test_config_turns_the_watcher_off() -> None:
    server = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]
    assert server["fileWatcherType"] == "none"
    assert server["runOnSave"] is False
    # a full gc.collect() after every script run was 60 % of a judgment's CPU
    assert (
        tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["runner"]["postScriptGC"]
        is False
    )


def test_no_page_relies_on_magic_which_serving_turns_off() -> None:
    """Streamlit's magic (a bare expression drawn with st.write) is off when serving: it
    re-parsed app.py and the page in each new session. No page script draws that way."""
    import ast

    from streamlit.runtime.scriptrunner import magic

    runner = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["runner"]
    assert runner["magicEnabled"] is False
    assert "--runner.magicEnabled=false" in SERVE_FLAGS
    scripts = [ROOT / "app.py", *sorted((ROOT / "views").rglob("*.py"))]
    assert len(scripts) > 20
    for script in scripts:
        tree = magic.add_magic(script.read_text(), str(script))
        writes = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)
                  and "transparent_write" in ast.dump(n.func)]  # fmt: skip
        assert writes == [], (script.name, writes)


def test_serve_command_turns_the_watcher_off_wherever_it_is_started() -> None:
    cmd = serve_command("0.0.0.0", 8600)
    assert "--server.fileWatcherType=none" in cmd
    assert "--server.runOnSave=false" in cmd
    assert "--runner.postScriptGC=false" in cmd
    assert "--runner.magicEnabled=false" in cmd
    assert cmd[cmd.index("run") + 1] == str(ROOT / "app.py")
    assert "--server.port=8600" in cmd and "--server.address=0.0.0.0" in cmd
    assert set(SERVE_FLAGS) <= set(cmd)


def test_make_run_serves_through_the_cli() -> None:
    makefile = (ROOT / "Makefile").read_text()
    run = re.search(r"^run:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert run is not None
    assert "cli.py serve" in run.group(1)
    assert "streamlit run" not in run.group(1)


def test_no_annotator_page_polls() -> None:
    """An annotator's page reruns only when they act: no timed fragment or auto-refresh."""
    names = (
        "annotate*.py",
        "compare*.py",
        "label_buttons.py",
        "item_surroundings.py",
        "task_complete.py",
        "document_context_panel.py",
        "keys.js",
    )
    pages = [p for name in names for p in ROOT.glob(f"views/**/{name}")]
    assert len(pages) >= 6
    for page in pages:
        text = page.read_text()
        assert "run_every" not in text and "autorefresh" not in text, page.name
        assert "setInterval" not in text, page.name


def _replicas(args: list[str], db_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": db_url}
    return subprocess.run([str(ROOT / "deploy" / "replicas.sh"), *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=30)  # fmt: skip


def test_replicas_refuse_sqlite_and_a_bad_count_before_starting_anything() -> None:
    done = _replicas(["2"], "sqlite:////tmp/never-created.db")
    assert done.returncode == 2 and "must be PostgreSQL" in done.stderr
    done = _replicas(["two"], "postgresql+psycopg://nobody@127.0.0.1:1/none")
    assert done.returncode == 2 and "whole number of replicas" in done.stderr
    done = _replicas(["0"], "postgresql+psycopg://nobody@127.0.0.1:1/none")
    assert done.returncode == 2 and "whole number of replicas" in done.stderr
    assert not Path("/tmp/never-created.db").exists()
