"""Annotators page: a taken name is refused in words, without SQL or the token hash."""

from __future__ import annotations

from accounts.invites import create_annotator
from annotation.importer import import_campaign
from db.reads import campaign_id
from tests.app.conftest import admin_page


def test_duplicate_name_shows_a_plain_sentence(app_engine) -> None:  # type: ignore[no-untyped-def]
    csv = "item_id,source,reference,system,output\n1,a,b,A,c\n"
    import_campaign(app_engine, csv.encode(), "team", filename="t.csv")
    create_annotator(app_engine, campaign_id(app_engine, "team"), "Ana")
    at = admin_page("views/annotators.py", campaign="team")
    at.text_input[0].input("Ana")
    next(b for b in at.button if b.label == "Create invite link").click().run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "already has an annotator named" in errors[0]
    assert "INSERT" not in errors[0].upper() and "token_hash" not in errors[0]
