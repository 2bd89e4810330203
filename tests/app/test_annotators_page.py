"""Annotators page: a taken name is refused in words, without SQL or the token hash."""

from __future__ import annotations

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from db.reads.campaign import campaign_id
from tests.app.conftest import admin_page


def test_duplicate_name_shows_a_plain_sentence(app_engine) -> None:  # type: ignore[no-untyped-def]
    csv = "item_id,source,reference,system,output\n1,a,b,A,c\n"
    import_campaign(app_engine, csv.encode(), "team", filename="t.csv")
    create_annotator(app_engine, campaign_id(app_engine, "team"), "Ana")
    at = admin_page("views/pages/annotators.py", campaign="team")
    next(t for t in at.text_input if t.label == "Name").input("Ana")
    next(b for b in at.button if b.label == "Create invite link").click().run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "already has an annotator named" in errors[0]
    assert "INSERT" not in errors[0].upper() and "token_hash" not in errors[0]


def test_study_link_panel_creates_shows_once_and_revokes(app_engine) -> None:  # type: ignore[no-untyped-def]
    from accounts import study

    csv = "item_id,source,reference,system,output\n1,a,b,A,c\n"
    import_campaign(app_engine, csv.encode(), "team", filename="t.csv")
    cid = campaign_id(app_engine, "team")
    at = admin_page("views/pages/annotators.py", campaign="team")
    at.number_input(key=f"study-cap-{cid}").set_value(40)
    next(b for b in at.button if b.label == "Create study link").click().run()
    assert not at.exception, at.exception
    link = next(c.value for c in at.code if "?study=" in c.value)
    token = link.split("?study=")[1]
    who = study.enrol(app_engine, token, {"PROLIFIC_PID": "P9", "SESSION_ID": "s"})
    assert who.new and study.study_link_status(app_engine, cid).cap == 40
    at.run()
    assert not any("?study=" in c.value for c in at.code)  # shown once
    assert "1 participant(s) of at most 40" in " ".join(c.value for c in at.caption)
    at.button(key=f"study-revoke-{cid}").click().run()
    assert not study.study_link_status(app_engine, cid).live


def test_public_title_form_sets_what_annotators_see(app_engine) -> None:  # type: ignore[no-untyped-def]
    from annotation.campaign.public_title import DEFAULT, public_title

    csv = "item_id,source,reference,system,output\n1,a,b,A,c\n"
    import_campaign(app_engine, csv.encode(), "team", filename="t.csv")
    cid = campaign_id(app_engine, "team")
    at = admin_page("views/pages/annotators.py", campaign="team")
    assert at.text_input(key=f"public-title-input-{cid}").value == DEFAULT
    at.text_input(key=f"public-title-input-{cid}").input("Rate summaries")
    next(b for b in at.button if b.label == "Save title").click().run()
    assert public_title(app_engine, cid) == "Rate summaries"
