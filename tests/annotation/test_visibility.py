"""Metric visibility is a recorded choice (issue 17.3): free before the first label, refused
without confirmation after it, logged with the label count; the annotations export says
per label whether scores were shown then; the review read gives admins every score."""

from __future__ import annotations

import csv
import io
import time

import pytest
from sqlalchemy import Engine

from accounts.invites import create_annotator
from annotation.campaign.visibility import (
    ConfirmationNeeded,
    metric_visibility,
    set_metric_visibility,
    shown_at,
    visibility_statement,
)
from annotation.imports.importer import import_campaign
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from db.judging.review import labelled_outputs
from metrics.scoring import score_campaign
from tests.annotation.test_queue import make_campaign


def _label(engine: Engine, annotator: int, n: int) -> None:
    view = session.next_view(engine, annotator)
    for _ in range(n):
        assert view.slot is not None
        view = judging.submit(
            engine, annotator, view.slot.assignment_id, view.slot.claim_version, label=1
        )


def test_free_before_labels_then_only_confirmed_and_recorded(engine: Engine) -> None:
    cid = make_campaign(engine, 4, 2, show_metrics=False)
    assert set_metric_visibility(engine, cid, True)  # before any label: a free choice
    assert set_metric_visibility(engine, cid, False)
    assert not set_metric_visibility(engine, cid, False)  # unchanged: nothing logged
    queue_build.build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, "ann").annotator_id
    _label(engine, a, 3)

    with pytest.raises(ConfirmationNeeded, match="3 labels were given with metric scores hidden"):
        set_metric_visibility(engine, cid, True)
    assert metric_visibility(engine, cid).shown is False  # refused: nothing changed
    assert set_metric_visibility(engine, cid, True, confirmed=True)

    v = metric_visibility(engine, cid)
    assert v.shown is True
    assert [(c.shown, c.labels_before) for c in v.changes] == [(True, 0), (False, 0), (True, 3)]
    assert [(c.shown, c.labels_before) for c in v.changed_after_labels] == [(True, 3)]
    statement = visibility_statement(v)
    assert statement.startswith("Annotators see metric scores")
    assert "Changed after labels arrived: shown from" in statement and "after 3 labels" in statement


def test_export_says_per_label_whether_scores_were_shown(engine: Engine) -> None:
    cid = make_campaign(engine, 4, 2, show_metrics=False)
    queue_build.build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, "ann").annotator_id
    _label(engine, a, 2)
    time.sleep(0.01)
    set_metric_visibility(engine, cid, True, confirmed=True)
    time.sleep(0.01)
    _label(engine, a, 2)
    rows = list(csv.DictReader(io.StringIO(export_annotations(engine, "c", "csv").decode())))
    assert [r["metrics_shown"] for r in rows] == ["0", "0", "1", "1"]
    v = metric_visibility(engine, cid)
    assert shown_at(v, None) is None


def test_imported_judgments_have_no_visibility(engine: Engine) -> None:
    data = b"item_id,source,reference,system,output,human_label\n1,a,b,S,b,1\n2,c,d,S,x,0\n"
    import_campaign(engine, data, "imp", filename="imp.csv", settings={"show_metrics": True})
    rows = list(csv.DictReader(io.StringIO(export_annotations(engine, "imp", "csv").decode())))
    assert [r["metrics_shown"] for r in rows] == ["", ""]


def test_review_shows_every_score_beside_each_label(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 2, show_metrics=False)
    score_campaign(engine, cid, ["bleu", "chrf"], workers=1)
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "ann").annotator_id
    _label(engine, a, 4)
    rows = labelled_outputs(engine, cid)
    assert len(rows) == 4 and {r.annotator for r in rows} == {"ann"}
    assert all(set(r.scores) == {"bleu", "chrf"} for r in rows)
    assert all(r.label == 1 and r.output.startswith("output of system") for r in rows)
