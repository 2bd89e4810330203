"""Annotators page: on SQLite, more annotators holding items than saves were measured for
brings a one-line suggestion to move to PostgreSQL; up to the limit, nothing is said."""

from __future__ import annotations

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.judging import session
from annotation.queue import build as queue_build
from db.engine import SQLITE_ANNOTATOR_LIMIT
from db.reads.campaign import campaign_id
from tests.app.conftest import admin_page


def _captions(app_engine, holding: int) -> list[str]:  # type: ignore[no-untyped-def]
    rows = "".join(f"{j},s{j},r{j},A,o{j}\n" for j in range(SQLITE_ANNOTATOR_LIMIT + 5))
    import_campaign(app_engine, f"item_id,source,reference,system,output\n{rows}".encode(),
                    "team", filename="t.csv")  # fmt: skip
    cid = campaign_id(app_engine, "team")
    queue_build.build_queue(app_engine, cid, seed=1)
    for k in range(SQLITE_ANNOTATOR_LIMIT + 2):
        annotator = create_annotator(app_engine, cid, f"a{k}").annotator_id
        if k < holding:
            assert session.next_view(app_engine, annotator).slot is not None
    at = admin_page("views/pages/annotators.py", campaign="team")
    assert not at.exception
    return [c.value for c in at.caption if "PostgreSQL" in c.value]


def test_more_annotators_than_measured_suggests_postgresql(app_engine) -> None:  # type: ignore[no-untyped-def]
    (caption,) = _captions(app_engine, SQLITE_ANNOTATOR_LIMIT + 1)
    assert f"{SQLITE_ANNOTATOR_LIMIT + 1} annotators hold an item now" in caption
    assert f"up to {SQLITE_ANNOTATOR_LIMIT} annotators" in caption


def test_up_to_the_limit_nothing_is_said(app_engine) -> None:  # type: ignore[no-untyped-def]
    assert _captions(app_engine, SQLITE_ANNOTATOR_LIMIT) == []
