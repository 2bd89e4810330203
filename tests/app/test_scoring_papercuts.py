"""Issue 34.4 and 34.5 on the Campaigns page (AppTest on a real SQLite database): a job that
has not counted its work yet says so instead of "0 / 0"; a finished run reports one time
against its estimate, not three; and ``cli.py score`` without ``--metrics`` scores what the
page's default chooses."""

from __future__ import annotations

import re

from sqlalchemy import Engine, select
from typer.testing import CliRunner

from db.admin import jobs as store
from db.engine import get_engine, session_scope
from db.schema.models import MetricScore
from metrics.scoring_job import run_scoring_job
from tests.app.conftest import admin_page
from tests.metrics.conftest import make_campaign

ROWS = [(str(i), f"Das ist Satz {i}.", s, f"Das ist {s} Satz {i}.") for i in range(6)
        for s in ("A", "B")]  # fmt: skip


def _page_texts(at) -> str:  # type: ignore[no-untyped-def]
    parts = [e.value for kind in ("success", "warning", "error", "code", "caption")
             for e in at.get(kind)]  # fmt: skip
    parts += [p.proto.text for p in at.get("progress")]
    return "\n".join(str(p) for p in parts)


def test_a_starting_job_shows_no_zero_of_zero(app_engine: Engine) -> None:
    cid, _ = make_campaign(app_engine, ROWS)
    job_id = store.create_job(app_engine, cid, "score", {"metrics": ["chrf"]}, estimate_s=5.0)
    assert store.claim(app_engine, job_id, "test-worker", 30.0) is not None  # total still 0
    at = admin_page("views/pages/campaigns.py", campaign="test")
    text = _page_texts(at)
    assert "Scoring chrf: starting the scoring processes" in text, text
    assert "0 / 0" not in text


def test_a_finished_run_reports_one_time_against_its_estimate(app_engine: Engine) -> None:
    cid, _ = make_campaign(app_engine, ROWS)
    job_id = store.create_job(
        app_engine, cid, "score", {"metrics": ["bleu", "chrf"]}, estimate_s=0.5
    )
    assert run_scoring_job(app_engine, job_id) == store.DONE
    at = admin_page("views/pages/campaigns.py", campaign="test")
    text = _page_texts(at)
    assert "Last scoring run" in text and "bleu: 12 new" in text, text
    assert len(re.findall(r"took ", text)) == 1, text  # one time figure…
    assert len(re.findall(r"× the estimate", text)) == 1, text  # …and one ratio
    assert "Scored in" not in text, text


def test_cli_score_default_is_the_pages_default(app_engine: Engine) -> None:
    import cli

    cid, _ = make_campaign(app_engine, ROWS)
    at = admin_page("views/pages/campaigns.py", campaign="test")
    page_default = at.multiselect(key=f"metrics-{cid}").value
    get_engine.cache_clear()  # DATABASE_URL (the app_engine fixture) for the CLI
    try:
        result = CliRunner().invoke(cli.app, ["score", "--campaign", "test"])
    finally:
        get_engine.cache_clear()
    assert result.exit_code == 0, result.output
    with session_scope(app_engine) as s:
        stored = set(s.scalars(select(MetricScore.metric).distinct()))
    assert stored == set(page_default), (stored, page_default)
