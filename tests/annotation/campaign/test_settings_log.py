"""Campaign settings that shape the analysis are logged, with the labels that existed then."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from tests.annotation.queue.test_queue import make_campaign


def test_changes_are_logged_with_the_label_count_at_the_time(engine: Engine) -> None:
    cid = make_campaign(engine, 6, 2)
    queue_build.build_queue(engine, cid, seed=1)
    queue_admin.update_queue_settings(engine, cid, planned_labels=200, estimand="test_set")
    queue_admin.update_queue_settings(engine, cid, planned_labels=200)  # unchanged: not logged
    a = create_annotator(engine, cid, "a").annotator_id
    view = session.next_view(engine, a)
    for _ in range(3):
        view = judging.submit(engine, a, view.slot.assignment_id, view.slot.claim_version, label=1)
    queue_admin.update_queue_settings(engine, cid, planned_labels=100, show_metrics=False)

    changes = queue_admin.setting_changes(engine, cid)
    got = [(c.key, c.old_value, c.new_value, c.labels_before) for c in changes]
    assert got[:2] == [("planned_labels", None, 200, 0), ("estimand", None, "test_set", 0)]
    assert sorted(got[2:]) == [("planned_labels", 200, 100, 3), ("show_metrics", True, False, 3)]
    assert queue_admin.queue_settings(engine, cid)["planned_labels"] == 100


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"planned_labels": 0}, "planned_labels"),
        ({"estimand": "everything"}, "estimand must be one of"),
        ({"sampling": "greedy"}, "sampling must be one of"),
    ],
)
def test_bad_values_are_refused_and_change_nothing(
    sqlite_engine: Engine, values: dict, message: str
) -> None:
    cid = make_campaign(sqlite_engine, 2, 2)
    with pytest.raises(ValueError, match=message):
        queue_admin.update_queue_settings(sqlite_engine, cid, **values)
    assert queue_admin.setting_changes(sqlite_engine, cid) == []
