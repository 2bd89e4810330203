"""Invite links (issue 17.9): a lost link is re-issued (the old one stops working, in an open
session too; the labels stay), every issue / re-issue / revocation is logged, and a taken
name is a clear message, also when two admins race for it."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from accounts.invites import (
    active_annotator,
    annotator_for_token,
    create_annotator,
    invite_events,
    reissue_invite,
    revoke_annotator,
    token_hash,
)
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.people import annotators
from tests.annotation.test_queue import make_campaign


def test_reissue_replaces_the_link_and_keeps_the_work(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 2)
    queue_build.build_queue(engine, cid, seed=1)
    old = create_annotator(engine, cid, "Ana")
    view = session.next_view(engine, old.annotator_id)
    assert view.slot is not None
    judging.submit(
        engine, old.annotator_id, view.slot.assignment_id, view.slot.claim_version, label=0
    )

    new = reissue_invite(engine, old.annotator_id)
    assert new.annotator_id == old.annotator_id and new.token != old.token
    assert annotator_for_token(engine, old.token) is None
    who = annotator_for_token(engine, new.token)
    assert who is not None and who.name == "Ana"
    # A tab still open with the old link is refused at its next run; the new one works.
    assert active_annotator(engine, old.annotator_id, token_hash(old.token)) is None
    assert active_annotator(engine, old.annotator_id, token_hash(new.token)) is not None
    [work] = queue_admin.annotator_overview(engine, cid)
    assert work.n_labels == 1

    revoke_annotator(engine, old.annotator_id)
    with pytest.raises(ValueError, match="only an active invited annotator"):
        reissue_invite(engine, old.annotator_id)
    events = [e for e, _ in invite_events(engine, cid)[old.annotator_id]]
    assert events == ["issued", "reissued", "revoked"]


def test_taken_name_is_a_clear_message(engine: Engine) -> None:
    cid = make_campaign(engine, 1, 1)
    create_annotator(engine, cid, "Ana")
    with pytest.raises(ValueError, match=r"already has an annotator named 'Ana'.*re-issue"):
        create_annotator(engine, cid, "Ana")


def test_a_race_for_one_name_is_the_same_message(engine: Engine, monkeypatch) -> None:
    cid = make_campaign(engine, 1, 1)
    create_annotator(engine, cid, "Ana")
    # The other admin's insert landed between our check and our insert: the unique
    # constraint fires, and the user still reads the message, not the database error.
    monkeypatch.setattr(annotators, "annotator_name_taken", lambda *a: False)
    with pytest.raises(ValueError, match="already has an annotator named 'Ana'") as err:
        create_annotator(engine, cid, "Ana")
    assert "IntegrityError" not in str(err.value) and "token_hash" not in str(err.value)
