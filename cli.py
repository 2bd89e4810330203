"""Tandem's command line, for headless work: migrate, import, export, score, serve.

Run ``.venv/bin/python cli.py --help``. The database is the one DATABASE_URL names
(default: the SQLite file data/tandem.db).
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may reach a model hub at run time

# Imported in the order `cli.py --help` lists their commands.
from commands import admin, annotators, campaigns, results, plan, statistics  # noqa: F401, I001
from commands import evaluate, scoring, tasks, invites, control_block  # noqa: F401
from commands import ai_spans  # noqa: F401  (import-ai-spans)
from commands import pearmut  # noqa: F401  (import-pearmut, export-pearmut)
from commands import deploy  # noqa: F401  (deploy-config, deploy-status, deploy-stop)
from commands import verdict  # noqa: F401
from commands import judging_extras  # noqa: F401  (comment-box, likert-scale, pretask-form)
from commands.base import app

if __name__ == "__main__":
    app()
