"""Active sampling through the app (AppTest, real migrated SQLite): the admin switches a
campaign to active on the Annotators page, an annotator gets items from the draw rounds,
the recorded π are in the database and the annotation export, and the dashboard's monitor
accepts them and shows the sampling design."""

from __future__ import annotations

import csv
import io

import numpy as np
from sqlalchemy import Engine, select

from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import admin as queue_admin
from annotation.results.exports import export_annotations
from db.engine import session_scope
from db.schema.models import Assignment, MetricScore, Output
from tests.app.conftest import admin_page
from tests.app.test_annotate import annotator_app, make_campaign, shown_output

N_ITEMS = 60


def _campaign(engine: Engine) -> int:
    texts = [[f"output {j} of system {k} has several words" for k in range(2)]
             for j in range(N_ITEMS)]  # fmt: skip
    cid = make_campaign(engine, texts)  # paired; the queue is built uniform (seed 1)
    rng = np.random.default_rng(0)
    with session_scope(engine) as s:
        s.execute(
            MetricScore.__table__.insert(),
            [{"output_id": o, "metric": "chrf", "signature": "chrF2|app",
              "value": rng.uniform(0, 100)} for o in s.scalars(select(Output.id))],
        )  # fmt: skip
    return cid


def test_active_campaign_end_to_end(app_engine: Engine) -> None:
    cid = _campaign(app_engine)
    at = admin_page("views/pages/annotators.py", "demo")
    at.radio[0].set_value("active")
    at.number_input(key="active_tau").set_value(0.4)
    next(b for b in at.button if b.label == "Save sampling").click().run()
    assert not at.exception and not at.error, at.error
    assert queue_admin.queue_settings(app_engine, cid)["sampling"] == "active"
    changes = queue_admin.setting_changes(app_engine, cid)
    assert [c.key for c in changes] == ["sampling", "active_tau"]

    # the annotator gets items drawn by the rounds, and labels them on the page
    ann, annotator = annotator_app(app_engine, cid)
    assert not ann.exception, ann.exception
    for k in range(6):
        assert "output" in shown_output(ann)
        ann.button(key="adequate" if k % 3 else "inadequate").click().run()
        assert not ann.exception
    # (the rest of the campaign through the same session calls, quicker than clicks)
    rng = np.random.default_rng(1)
    view = session.next_view(app_engine, annotator)
    while view.slot is not None:
        view = judging.submit(app_engine, annotator, view.slot.assignment_id,
                              view.slot.claim_version, label=int(rng.random() < 0.6))  # fmt: skip

    with session_scope(app_engine) as s:
        rows = s.execute(
            select(Assignment.state, Assignment.inclusion_prob, Assignment.draw_round).where(
                Assignment.campaign_id == cid
            )
        ).all()
    assert {state for state, _, _ in rows} == {"done", "passed"}
    assert all(rnd is not None and 0.4 * 0.5 - 1e-9 <= pi <= 1 for _, pi, rnd in rows)
    drawn_pi = sorted({pi for state, pi, _ in rows if state == "done"})
    assert len(drawn_pi) > 1 and drawn_pi[0] < 1  # unequal, recorded

    exported = list(csv.DictReader(io.StringIO(export_annotations(app_engine, "demo", "csv")
                                               .decode("utf-8"))))  # fmt: skip
    assert len(exported) == sum(state == "done" for state, _, _ in rows)
    assert sorted({float(r["inclusion_prob"]) for r in exported}) == drawn_pi

    dash = admin_page("views/pages/dashboard.py", "demo")
    assert not dash.exception and not dash.error
    assert "Sampling design" in [h.value for h in dash.subheader]
    captions = "\n".join(c.value for c in dash.caption)
    assert "Active sampling in force" in captions and "π ≥ τ·b = 0.4" in captions
    assert "No anytime-valid verdicts" not in captions  # the monitor accepted the π
    design = next(d.value for d in dash.dataframe if "labels saved" in d.value.columns)
    assert list(design["system / pair"]) == ["secret-system-0", "secret-system-1",
                                             "secret-system-0 – secret-system-1"]  # fmt: skip
    assert (design["labels"] == len(exported) // 2).all()
    estimates = dash.dataframe[0].value
    assert "Active inference (weighted by π)" in estimates.columns
    assert "Human only" not in estimates.columns  # unweighted columns would be biased
    # the controls panel's fixed-n human-only / PPI++ tables assume uniform draws: refused
    assert "would be biased, so none are shown here" in captions
    assert not any("PPI++ (" in str(d.value.get("method", "")) for d in dash.dataframe
                   if hasattr(d.value, "get"))  # fmt: skip
