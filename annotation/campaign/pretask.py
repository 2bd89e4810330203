"""The pre-task form (formats.forms.pretask): its fields, which the organiser defines
(``campaigns.meta["pretask_form"]``, each change in the setting log), and each annotator's
answers (``annotators.form_answers``), asked once before the first task and its tutorial
(annotation.judging.session.campaign_of refuses everything else until then), exported and
correctable by the organiser."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from db import Engine
from db.campaign.campaigns import campaign_meta, set_campaign_meta_key
from db.clock import utcnow
from db.engine import read_scope, session_scope
from db.people import annotators as people
from db.queue import claim as dbq
from db.queue import settings as dbset
from formats.forms.pretask import answer_columns, checked_answers, parse_form

#: campaigns.meta key of the form.
FORM_KEY = "pretask_form"


def form(engine: Engine, campaign_id: int) -> dict[str, Any] | None:
    """The campaign's form (``{"intro", "fields"}``), None when it asks none."""
    with read_scope(engine) as s:
        stored = campaign_meta(s, campaign_id).get(FORM_KEY)
    return stored if isinstance(stored, dict) and stored.get("fields") else None


def pending_form(engine: Engine, annotator_id: int) -> dict[str, Any] | None:
    """The form this annotator still has to answer (None: none asked, or answered)."""
    with read_scope(engine) as s:
        form, answered = people.annotator_form(s, annotator_id)
    return None if answered else form


def set_form(engine: Engine, campaign_id: int, definition: Any) -> dict[str, Any] | None:
    """Check and store the form (JSON text or the parsed object; empty: no form). ValueError
    (nothing stored) names what is wrong. Answers given to an earlier form are kept."""
    parsed = parse_form(definition)
    stored = parsed if parsed["fields"] else None
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        old = campaign_meta(s, campaign_id).get(FORM_KEY)
        if old != stored:
            dbset.log_setting_changes(s, campaign_id, {FORM_KEY: (old, stored)})
            set_campaign_meta_key(s, campaign_id, FORM_KEY, stored)
    return stored


def save_answers(
    engine: Engine, annotator_id: int, answers: dict[str, Any], now: datetime | None = None
) -> dict[str, Any]:
    """An annotator's own answers, checked against their campaign's form and stored;
    ValueError (nothing stored) lists the fields to fix."""
    with dbq.queue_transaction(engine) as s:
        camp = dbq.annotator_campaign(s, annotator_id)
        if camp is None or camp.revoked or camp.form is None:
            raise ValueError("this campaign asks no form of this annotator")
        checked = checked_answers(camp.form, answers)
        people.set_form_answers(s, annotator_id, checked, now or utcnow())
        return checked


def set_answers(
    engine: Engine, campaign_id: int, name: str, answers: dict[str, Any] | None
) -> None:
    """The organiser's correction of an annotator's answers (None: ask the form again);
    checked against the form like the annotator's own."""
    with dbq.queue_transaction(engine) as s:
        stored = campaign_meta(s, campaign_id).get(FORM_KEY)
        found = [a for a in people.form_answers(s, campaign_id) if a[1] == name]
        if not found:
            raise ValueError(f"no annotator {name!r} in this campaign")
        checked = None if answers is None else checked_answers(stored or {}, answers)
        people.set_form_answers(s, found[0][0], checked, utcnow())


def answers_table(engine: Engine, campaign_id: int) -> tuple[list[str], list[dict[str, Any]]]:
    """(columns, one record per annotator): ``annotator``, ``form_answered_at`` and a
    ``form_<name>`` column per field of the form (empty where not answered)."""
    with session_scope(engine) as s:
        stored = campaign_meta(s, campaign_id).get(FORM_KEY)
        rows = people.form_answers(s, campaign_id)
    fields = (stored or {}).get("fields", []) if isinstance(stored, dict) else []
    columns = ["annotator", "form_answered_at", *answer_columns(stored)]
    records = []
    for _, name, answers, at in rows:
        record: dict[str, Any] = {
            "annotator": name,
            "form_answered_at": at.isoformat() if at else None,
        }
        record.update({f"form_{f['name']}": (answers or {}).get(f["name"]) for f in fields})
        records.append(record)
    return columns, records
