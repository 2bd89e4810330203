"""A DA campaign's Likert scale, on SQLite and PostgreSQL: set from an import (the file's
human_score is the point 1 … n) or afterwards, refused once judgments exist or in another
mode; an annotator's point p of n is stored as 100·(p − 1)/(n − 1) and read by the
estimators as (p − 1)/(n − 1) exactly; a point off the scale is refused, nothing saved."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.campaign.likert_scale import likert_scale, set_likert_scale
from annotation.imports.importer import import_campaign
from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.session import InvalidJudgment
from annotation.queue import build as queue_build
from annotation.results.exports import export_campaign
from db.engine import session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Annotation
from estimators.data.campaign import LabelKind
from formats.forms.likert import parse_scale
from formats.problems import CampaignFileError

CSV = (
    "item_id,source,reference,system,output\n"
    "1,Hi,Hallo,A,Hallo\n2,Bye,Tschüss,A,Ciao\n3,Yes,Ja,A,Si\n"
)
FIVE = parse_scale("5:bad,poor,fair,good,excellent")


def _campaign(engine: Engine, csv: str = CSV, **settings) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    report = import_campaign(engine, csv.encode(), "c", filename="c.csv",
                             settings={"mode": "da", "likert": FIVE, **settings})  # fmt: skip
    queue_build.build_queue(engine, report.campaign_id, seed=1)
    return report.campaign_id, create_annotator(engine, report.campaign_id, "ann").annotator_id


def test_points_are_stored_and_analysed_on_zero_one(engine: Engine) -> None:
    cid, a = _campaign(engine)
    assert likert_scale(engine, cid) == FIVE
    view = session.next_view(engine, a)
    assert view.campaign.likert == FIVE
    given = []
    for index in (0, 4, 2):  # points 1, 5 and 3 of 5
        slot = view.slot
        assert slot is not None
        view = judging.submit(engine, a, slot.assignment_id, slot.claim_version, da_score=index)
        given.append(index)
    with session_scope(engine) as s:
        stored = s.execute(select(Annotation.da_score, Annotation.score).order_by(Annotation.id))
        assert [tuple(r) for r in stored] == [(0.0, 1.0), (100.0, 5.0), (50.0, 3.0)]  # the point
    rows = list(csv.DictReader(io.StringIO(export_campaign(engine, "c", "csv").decode())))
    assert sorted(r["human_score"] for r in rows) == ["1.0", "3.0", "5.0"]  # re-imports as points
    data = read_campaign(engine, cid)
    values = data.judgments.values(LabelKind.DA)
    assert np.array_equal(np.sort(values), np.array([0.0, 0.5, 1.0]))  # (p − 1)/(n − 1)


@pytest.mark.parametrize("bad", [5, -1, 1.5, True, None, "3"])
def test_a_point_off_the_scale_saves_nothing(engine: Engine, bad: object) -> None:
    _, a = _campaign(engine)
    slot = session.next_view(engine, a).slot
    assert slot is not None
    with pytest.raises(InvalidJudgment):
        judging.submit(engine, a, slot.assignment_id, slot.claim_version, da_score=bad)
    with session_scope(engine) as s:
        assert s.scalars(select(Annotation.id)).all() == []


def test_import_reads_points_and_refuses_off_scale(engine: Engine) -> None:
    judged = (
        "item_id,source,reference,system,output,human_score,annotator\n1,Hi,Hallo,A,Hallo,4,r1\n"
    )
    _campaign(engine, judged)
    with session_scope(engine) as s:
        assert s.scalars(select(Annotation.da_score)).all() == [75.0]
    bad = judged.replace(",4,", ",6,")
    with pytest.raises(CampaignFileError, match="1–5"):
        import_campaign(engine, bad.encode(), "d", filename="d.csv",
                        settings={"mode": "da", "likert": FIVE})  # fmt: skip


def test_scale_is_fixed_once_judged_and_only_for_da(engine: Engine) -> None:
    cid, a = _campaign(engine)
    three = parse_scale("3")
    assert set_likert_scale(engine, cid, three) == three  # before any judgment: changed
    slot = session.next_view(engine, a).slot
    assert slot is not None
    judging.submit(engine, a, slot.assignment_id, slot.claim_version, da_score=2)
    with pytest.raises(ValueError, match="judgments"):
        set_likert_scale(engine, cid, FIVE)
    assert likert_scale(engine, cid) == three
    other = import_campaign(engine, CSV.encode(), "b", filename="b.csv").campaign_id
    with pytest.raises(ValueError, match="DA"):
        set_likert_scale(engine, other, FIVE)
