"""An annotator's optional comment on a judgment, on SQLite and PostgreSQL: stored with the
judgment (stripped; empty → none), refused with NUL bytes or over the limit (nothing
saved, the slot still held), and exported with the annotation log."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.campaign.guidelines import comment_box, set_comment_box
from annotation.imports.importer import import_campaign
from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.session import InvalidJudgment
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from db.engine import session_scope
from db.schema.models import Annotation

CSV = "item_id,source,reference,system,output\n1,Hi,Hallo,A,Hallo\n2,Bye,Tschüss,A,Ciao\n"


def _campaign(engine: Engine) -> tuple[int, int]:
    cid = import_campaign(engine, CSV.encode(), "c", filename="c.csv").campaign_id
    queue_build.build_queue(engine, cid, seed=1)
    return cid, create_annotator(engine, cid, "ann").annotator_id


def test_comment_is_stored_and_exported(engine: Engine) -> None:
    cid, a = _campaign(engine)
    assert not comment_box(engine, cid)
    set_comment_box(engine, cid, True)
    assert comment_box(engine, cid)
    view = session.next_view(engine, a)
    slot = view.slot
    assert slot is not None
    view = judging.submit(engine, a, slot.assignment_id, slot.claim_version, label=1,
                          comment="  the source is truncated  ")  # fmt: skip
    slot = view.slot
    assert slot is not None
    judging.submit(engine, a, slot.assignment_id, slot.claim_version, label=0, comment="  ")
    with session_scope(engine) as s:
        stored = s.scalars(select(Annotation.comment).order_by(Annotation.id)).all()
    assert stored == ["the source is truncated", None]
    rows = [json.loads(line) for line in export_annotations(engine, "c", "jsonl").splitlines()]
    assert [r["comment"] for r in rows] == ["the source is truncated", None]
    assert b"the source is truncated" in export_annotations(engine, "c", "csv")


@pytest.mark.parametrize("comment", ["a\x00b", "x" * (judging.MAX_COMMENT + 1)])
def test_bad_comment_saves_nothing(engine: Engine, comment: str) -> None:
    _, a = _campaign(engine)
    slot = session.next_view(engine, a).slot
    assert slot is not None
    with pytest.raises(InvalidJudgment):
        judging.submit(engine, a, slot.assignment_id, slot.claim_version, label=1,
                       comment=comment)  # fmt: skip
    with session_scope(engine) as s:
        assert s.scalar(select(Annotation.id)) is None
    assert session.next_view(engine, a).slot == slot  # still theirs, judged anew


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300) | st.none())
def test_checked_comment_of_any_text(text: str | None) -> None:
    try:
        out = judging.checked_comment(text)
    except InvalidJudgment:
        assert text is not None and ("\x00" in text or len(text) > judging.MAX_COMMENT)
        return
    assert out is None or (out == out.strip() and out and "\x00" not in out)
