"""The pre-task form on SQLite and PostgreSQL: until an annotator answers it nothing is
shown or saved (FormPending); wrong answers store nothing; answers are stored, exported in
the annotations export and the annotators table, and the organiser may correct them or ask
again."""

from __future__ import annotations

import csv
import io

import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.campaign import pretask
from annotation.imports.importer import import_campaign
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from db.engine import session_scope
from db.schema.models import Annotator

CSV = "item_id,source,reference,system,output\n1,Hi,Hallo,A,Hallo\n2,Bye,Tschüss,A,Ciao\n"
FORM = {"fields": [
    {"name": "lang", "label": "Native language", "type": "text", "required": True},
    {"name": "years", "label": "Years", "type": "number", "min": 0},
]}  # fmt: skip


def test_the_form_comes_first_and_its_answers_are_kept(engine: Engine) -> None:
    cid = import_campaign(engine, CSV.encode(), "c", filename="c.csv").campaign_id
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "ann").annotator_id
    create_annotator(engine, cid, "bob")
    assert pretask.set_form(engine, cid, FORM) is not None
    assert pretask.pending_form(engine, a) is not None
    with pytest.raises(session.FormPending):
        session.next_view(engine, a)
    with pytest.raises(ValueError, match="Native language"):
        pretask.save_answers(engine, a, {"years": "3"})
    with session_scope(engine) as s:
        assert s.scalars(select(Annotator.form_answers)).all() == [None, None]
    assert pretask.save_answers(engine, a, {"lang": "cs", "years": "3"}) == {
        "lang": "cs",
        "years": 3,
    }
    assert pretask.pending_form(engine, a) is None
    slot = session.next_view(engine, a).slot
    assert slot is not None
    judging.submit(engine, a, slot.assignment_id, slot.claim_version, label=1)
    rows = list(csv.DictReader(io.StringIO(export_annotations(engine, "c", "csv").decode())))
    assert [(r["form_lang"], r["form_years"]) for r in rows] == [("cs", "3")]
    columns, table = pretask.answers_table(engine, cid)
    assert columns == ["annotator", "form_answered_at", "form_lang", "form_years"]
    assert [(t["annotator"], t["form_lang"]) for t in table] == [("ann", "cs"), ("bob", None)]
    pretask.set_answers(engine, cid, "ann", {"lang": "de"})
    assert pretask.answers_table(engine, cid)[1][0]["form_lang"] == "de"
    pretask.set_answers(engine, cid, "ann", None)  # ask again
    with pytest.raises(session.FormPending):
        session.next_view(engine, a)
    with pytest.raises(ValueError, match="no annotator"):
        pretask.set_answers(engine, cid, "nobody", None)
    pretask.set_form(engine, cid, "")  # no form any more: nothing is asked
    assert session.next_view(engine, a).slot is not None
