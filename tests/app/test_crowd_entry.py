"""The annotator's way in (issue 31): a study link enrols through app.py and the page shows
the campaign's public title, never its internal name; links of an archived or deleted
campaign say it is closed (issue 34 papercut 3), not "revoked or mistyped"."""

from __future__ import annotations

from sqlalchemy import Engine
from streamlit.testing.v1 import AppTest

from accounts import study
from accounts.invites import create_annotator
from annotation.campaign.public_title import DEFAULT, set_public_title
from annotation.queue import build as queue_build
from db.campaign.lifecycle import archive_campaign, delete_campaign
from tests.app.test_annotate import APP, PLAIN, make_campaign


def _visit(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def _errors(at: AppTest) -> str:
    return " ".join(str(e.value) for e in at.error)


def test_study_link_enrols_and_shows_the_public_title(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)  # internal name "demo"
    queue_build.build_queue(app_engine, cid, seed=1)
    tok = study.create_study_link(app_engine, cid).query.removeprefix("?study=")
    at = _visit(study=tok, PROLIFIC_PID="P1", STUDY_ID="x", SESSION_ID="s1")
    assert not at.exception, at.exception
    assert at.session_state["role"] == "annotator" and at.title[0].value == DEFAULT
    assert "demo" not in [t.value for t in at.title]
    assert set_public_title(app_engine, cid, "  Rate German  translations ")
    again = _visit(study=tok, PROLIFIC_PID="P1", STUDY_ID="x", SESSION_ID="s1")  # resumes
    assert again.title[0].value == "Rate German translations"
    assert again.session_state["annotator_id"] == at.session_state["annotator_id"]
    twice = _visit(study=tok, PROLIFIC_PID="P1", STUDY_ID="x", SESSION_ID="s2")
    assert "already taken part" in _errors(twice) and "role" not in twice.session_state


def test_closed_campaign_links_say_closed(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)
    token = create_annotator(app_engine, cid, "ann").token
    archive_campaign(app_engine, "demo", via="test")
    at = _visit(token=token)
    assert "is closed" in _errors(at) and "mistyped" not in _errors(at)
    from db.campaign.lifecycle import restore_campaign

    restore_campaign(app_engine, "demo", via="test")
    delete_campaign(app_engine, "demo", "demo", via="test")
    at = _visit(token=token)
    assert "is closed" in _errors(at) and "mistyped" not in _errors(at)
    assert "mistyped" in _errors(_visit(token="no-such-token"))
