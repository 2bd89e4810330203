"""The Annotators page's comment switch, Likert scale and pre-task form (AppTest, real
migrated SQLite): each saves through annotation.campaign, a bad value is refused in words
with nothing saved, and the answers table appears once a form exists."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Engine

from accounts.invites import create_annotator
from annotation.campaign import pretask
from annotation.campaign.guidelines import comment_box
from annotation.campaign.likert_scale import likert_scale
from tests.views.conftest import admin_page
from tests.views.pages.test_annotate import make_campaign

TEXTS = [[f"output {j} of system {k}" for k in range(2)] for j in range(3)]


def _click(at, label: str):  # type: ignore[no-untyped-def]
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception, at.exception
    return at


@pytest.mark.slow
def test_switch_scale_and_form(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS, mode="da")
    at = admin_page("views/pages/annotators.py", "demo")
    at.toggle(key=f"comment_box_{cid}").set_value(True).run()
    assert not at.exception, at.exception
    assert comment_box(app_engine, cid)

    at.text_input(key=f"likert_text_{cid}").set_value("4:no,rather no,rather yes,yes")
    _click(at, "Save scale")
    scale = likert_scale(app_engine, cid)
    assert scale == {"labels": ["no", "rather no", "rather yes", "yes"], "keys": list("1234")}
    at.text_input(key=f"likert_text_{cid}").set_value("12")
    _click(at, "Save scale")
    assert any("Nothing was saved" in e.value for e in at.error)
    assert len(likert_scale(app_engine, cid)["labels"]) == 4

    at.text_area(key=f"pretask_def_text_{cid}").set_value('[{"name": "Bad", "type": "text"}]')
    _click(at, "Save form")
    assert any("identifier" in e.value for e in at.error)
    assert pretask.form(app_engine, cid) is None
    good = [{"name": "lang", "label": "Language", "type": "text", "required": True}]
    at.text_area(key=f"pretask_def_text_{cid}").set_value(json.dumps(good))
    _click(at, "Save form")
    assert pretask.form(app_engine, cid)["fields"][0]["name"] == "lang"
    create_annotator(app_engine, cid, "ann")
    at.run()
    assert any(b.label == "Download annotators CSV" for b in at.get("download_button"))
