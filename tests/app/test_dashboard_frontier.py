"""Dashboard page (AppTest): labels submitted ahead of an earlier slot still being annotated
are counted in a note and wait outside the anytime-valid verdicts."""

from __future__ import annotations

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from tests.app.conftest import admin_page
from tests.test_reads import seed_campaign


def test_dashboard_counts_labels_waiting_for_earlier_positions(app_engine) -> None:
    cid = seed_campaign(app_engine, "demo", n_items=40, labelled=30, overlap=0)
    queue_build.build_queue(app_engine, cid, seed=2)  # the 10 unlabelled items, after the import
    a = create_annotator(app_engine, cid, "a").annotator_id
    b = create_annotator(app_engine, cid, "b").annotator_id
    session.next_view(app_engine, a)  # a holds the next item's 3 outputs
    view = session.next_view(app_engine, b)  # b holds the item after it
    for _ in range(3):
        view = judging.submit(
            app_engine, b, view.slot.assignment_id, view.slot.claim_version, label=1
        )
    at = admin_page("views/pages/dashboard.py", "demo")
    assert not at.exception, at.exception
    notes = [c.value for c in at.caption if "wait for earlier queue positions" in c.value]
    assert notes == [
        "Note: 3 label(s) wait for earlier queue positions still being annotated; the "
        "anytime-valid verdicts include them once those are answered."
    ]
    assert {m.label: m.value for m in at.metric}["Human judgments"] == "93"
