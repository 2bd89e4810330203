"""Study links and bulk invites (issue 31 item 2), on SQLite and PostgreSQL: a Prolific-style
link enrols each participant once (their parameters recorded), resumes them, refuses a
second enrolment and a participant beyond the cap; a revoked link keeps its participants; a
closed campaign's links say it is closed; exports carry participant ids; `cli.py invite`
writes a CSV of working links; a returning annotator after the hand-off is not redirected
again."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from sqlalchemy import Engine

from accounts import study
from accounts.invites import annotator_for_token, create_annotators, link_closed
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from annotation.tasks import batches as tasks
from db.campaign.lifecycle import archive_campaign, delete_campaign
from db.engine import session_scope
from db.queue.settings import setting_changes
from tests.annotation.queue.test_queue import make_campaign


def _prolific(pid: str, sess: str = "s1") -> dict[str, str]:
    return {"PROLIFIC_PID": pid, "STUDY_ID": "st-1", "SESSION_ID": sess}


def _token(link: study.StudyLinkIssued) -> str:
    return link.query.removeprefix("?study=")


def test_enrol_resume_refuse_and_cap(engine: Engine) -> None:
    cid = make_campaign(engine, 10, 2, name="crowd")
    link = study.create_study_link(engine, cid, "prolific", cap=11)
    tok = _token(link)
    seen = {}
    for k in range(10):
        e = study.enrol(engine, tok, _prolific(f"P{k:02d}", f"S{k}"))
        assert e.new and e.identity.name == f"P{k:02d}" and e.identity.campaign_id == cid
        seen[e.participant_id] = e.identity.annotator_id
    assert len(set(seen.values())) == 10
    back = study.enrol(engine, tok, _prolific("P03", "S3"))  # a return: the same annotator
    assert not back.new and back.identity.annotator_id == seen["P03"]
    with pytest.raises(study.StudyRefused, match="already taken part"):
        study.enrol(engine, tok, _prolific("P03", "S-other"))
    with pytest.raises(study.StudyRefused, match="participant id"):
        study.enrol(engine, tok, {"STUDY_ID": "st-1"})
    study.enrol(engine, tok, _prolific("P10", "S10"))  # the 11th: the cap
    with pytest.raises(study.StudyRefused, match="full"):
        study.enrol(engine, tok, _prolific("P11", "S11"))
    status = study.study_link_status(engine, cid)
    assert status.participants == 11 and status.cap == 11
    rows = study.participant_ids(engine, cid)
    assert rows[seen["P03"]].params == _prolific("P03", "S3")
    with session_scope(engine) as s:
        assert [c.key for c in setting_changes(s, cid)].count("study_link") == 1


def test_revoked_link_keeps_its_participants_and_a_new_link_replaces_it(engine: Engine) -> None:
    cid = make_campaign(engine, 4, 2, name="crowd")
    tok = _token(study.create_study_link(engine, cid, "mturk"))
    mturk = {"workerId": "W1", "assignmentId": "A1", "hitId": "H1"}
    first = study.enrol(engine, tok, mturk)
    with pytest.raises(study.StudyRefused, match="Accept the HIT"):
        study.enrol(engine, tok, {**mturk, "workerId": "W2", "assignmentId": study.MTURK_PREVIEW})
    assert study.revoke_study_link(engine, cid)
    assert study.enrol(engine, tok, mturk).identity.annotator_id == first.identity.annotator_id
    with pytest.raises(study.StudyRefused, match="no longer admits"):
        study.enrol(engine, tok, {**mturk, "workerId": "W2", "assignmentId": "A2"})
    new = _token(study.create_study_link(engine, cid, "mturk"))
    assert study.enrol(engine, new, {**mturk, "workerId": "W2", "assignmentId": "A2"}).new
    with pytest.raises(ValueError, match="cap"):
        study.create_study_link(engine, cid, cap=0)
    with pytest.raises(ValueError, match="parameter"):
        study.create_study_link(engine, cid, "custom")


def test_closed_campaign_links_say_closed(engine: Engine) -> None:
    """Papercut 3 of issue 34: a link of an archived or deleted campaign says it is closed,
    not "revoked or mistyped"."""
    cid = make_campaign(engine, 4, 2, name="crowd")
    tok = _token(study.create_study_link(engine, cid))
    (inv,) = create_annotators(engine, cid, ["ana"])
    assert link_closed(engine, inv.token) is None  # live
    archive_campaign(engine, "crowd", via="test")
    assert "closed" in (link_closed(engine, inv.token) or "")
    with pytest.raises(study.StudyRefused, match="closed"):
        study.enrol(engine, tok, _prolific("P1"))
    from db.campaign.lifecycle import restore_campaign

    restore_campaign(engine, "crowd", via="test")
    delete_campaign(engine, "crowd", "crowd", via="test")
    assert annotator_for_token(engine, inv.token) is None
    assert "closed" in (link_closed(engine, inv.token) or "")
    assert link_closed(engine, "not-a-token") is None
    with pytest.raises(study.StudyRefused, match="not valid"):
        study.enrol(engine, tok, _prolific("P1"))


def test_exports_carry_participant_ids_and_handoff_is_not_repeated(engine: Engine) -> None:
    cid = make_campaign(engine, 6, 2, name="crowd", attention_rate=0.2)
    queue_build.build_queue(engine, cid, seed=3)
    tasks.cut(engine, cid, 100)
    tasks.set_settings(engine, cid, handoff_url="https://app.prolific.com/c?cc={code}")
    tok = _token(study.create_study_link(engine, cid))
    ann = study.enrol(engine, tok, _prolific("PX")).identity.annotator_id
    view = session.next_view(engine, ann)
    while view.slot is not None:
        view = judging.submit(
            engine, ann, view.slot.assignment_id, view.slot.claim_version, label=0
        )
    assert view.task is not None and view.task.fresh and view.task.code
    assert view.task.handoff_url and view.task.code in view.task.handoff_url
    again = session.next_view(engine, ann)  # the link reopened after the hand-off
    assert again.task is not None and not again.task.fresh
    assert again.task.code == view.task.code and again.slot is None
    rows = list(csv.DictReader(io.StringIO(export_annotations(engine, "crowd", "csv").decode())))
    assert rows and {r["participant_id"] for r in rows} == {"PX"}
    assert json.loads(rows[0]["participant_params"])["PROLIFIC_PID"] == "PX"


def test_cli_invite_writes_working_links(
    sqlite_engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(SQLite only: the CLI calls the functions tested on both engines above.)"""
    engine = sqlite_engine
    from typer.testing import CliRunner

    import cli
    from db.engine import get_engine

    cid = make_campaign(engine, 4, 2, name="crowd")
    monkeypatch.setenv("DATABASE_URL", engine.url.render_as_string(hide_password=False))
    get_engine.cache_clear()
    try:
        run = lambda *a: CliRunner().invoke(cli.app, [*a])  # noqa: E731
        names = tmp_path / "names.csv"
        names.write_text("name,email\nana,a@x\nbob,b@x\n\n", encoding="utf-8")
        out = tmp_path / "links.csv"
        res = run("invite", "--campaign", "crowd", "--from-csv", str(names), "--out", str(out),
                  "--base-url", "https://t.example/")  # fmt: skip
        assert res.exit_code == 0, res.output
        links = list(csv.DictReader(out.open(encoding="utf-8")))
        assert [r["name"] for r in links] == ["ana", "bob"]
        for r in links:
            assert r["link"].startswith("https://t.example/?token=")
            who = annotator_for_token(engine, r["link"].split("token=")[1])
            assert who is not None and who.name == r["name"] and who.campaign_id == cid
        res = run("invite", "--campaign", "crowd", "--count", "3", "--out", str(out),
                  "--base-url", "https://t.example")  # fmt: skip
        assert res.exit_code != 0 and "exists" in res.output
        more = tmp_path / "more.csv"
        res = run("invite", "--campaign", "crowd", "--names", "cy,bob,dee", "--out", str(more),
                  "--base-url", "https://t.example")  # fmt: skip
        assert res.exit_code != 0 and "bob" in res.output and not more.exists()
        assert annotator_names(engine, cid) == ["ana", "bob"]  # nothing created
        res = run("invite", "--campaign", "crowd", "--count", "12", "--prefix", "w",
                  "--out", str(more), "--base-url", "https://t.example")  # fmt: skip
        assert res.exit_code == 0, res.output
        assert annotator_names(engine, cid)[-1] == "w-12"
        res = run("study-link", "--campaign", "crowd", "--base-url", "https://t.example",
                  "--cap", "80")  # fmt: skip
        assert res.exit_code == 0 and "https://t.example/?study=" in res.output, res.output
        assert "PROLIFIC_PID" in res.output and "80" in res.output
    finally:
        get_engine.cache_clear()


def annotator_names(engine: Engine, cid: int) -> list[str]:
    from db.people.annotators import list_annotators

    with session_scope(engine) as s:
        return [a.name for a in list_annotators(s, cid)]


@pytest.mark.parametrize(
    "hostile",
    ["P\x00X", "P\nX", "P\rX", "P\x1b[31mX", "P\u202eX", "P\u200bX", "P\tX"],
    ids=["nul", "newline", "cr", "esc", "bidi-override", "zero-width-space", "tab"],
)
def test_hostile_participant_ids_are_refused_naming_the_parameter(
    engine: Engine, hostile: str
) -> None:
    """A participant id is an annotator name: the one name rule refuses control, invisible
    and bidirectional characters, the message names the parameter, nothing is written."""
    cid = make_campaign(engine, 4, 2, name="crowd")
    tok = _token(study.create_study_link(engine, cid, "prolific"))
    with pytest.raises(study.StudyRefused, match="PROLIFIC_PID parameter") as refused:
        study.enrol(engine, tok, _prolific(hostile))
    assert "participant id" in str(refused.value) and "needs your" not in str(refused.value)
    assert study.study_link_status(engine, cid).participants == 0
    assert study.enrol(engine, tok, _prolific("P-ok")).new  # the link still works


@pytest.mark.parametrize("param", ["STUDY_ID", "SESSION_ID"])
def test_a_nul_in_any_recorded_parameter_is_refused_on_both_databases(
    engine: Engine, param: str
) -> None:
    cid = make_campaign(engine, 4, 2, name="crowd")
    tok = _token(study.create_study_link(engine, cid, "prolific"))
    visit = _prolific("P1") | {param: "st\x00-1"}
    with pytest.raises(study.StudyRefused, match=f"the {param} parameter"):
        study.enrol(engine, tok, visit)
    assert study.study_link_status(engine, cid).participants == 0


@pytest.mark.parametrize("length", [201, 10_000])
def test_a_too_long_participant_id_is_refused_as_too_long(engine: Engine, length: int) -> None:
    cid = make_campaign(engine, 4, 2, name="crowd")
    tok = _token(study.create_study_link(engine, cid, "prolific"))
    with pytest.raises(study.StudyRefused, match="PROLIFIC_PID parameter is too long") as no:
        study.enrol(engine, tok, _prolific("p" * length))
    assert "needs your participant id" not in str(no.value)
    assert study.enrol(engine, tok, _prolific("p" * 200)).new  # 200: the limit itself


def test_invited_annotator_names_obey_the_same_rule(engine: Engine) -> None:
    cid = make_campaign(engine, 4, 2, name="crowd")
    with pytest.raises(ValueError, match="U\\+202E"):
        create_annotators(engine, cid, ["ok", "evil\u202eexe"])
    with pytest.raises(ValueError, match="control character"):
        create_annotators(engine, cid, ["two\nlines"])
    assert [i.name for i in create_annotators(engine, cid, ["fine"])] == ["fine"]
