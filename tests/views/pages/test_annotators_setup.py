"""The Annotators page cannot set up a broken campaign (issue 31 item 3): switching campaign
shows the new campaign's settings, not the previous one's (fixed widget keys kept them, and
a Save would have written them into the other campaign); comparative mode is refused on a
queue built unpaired; document order on a file with fewer documents than a verdict needs
says so before it is switched on; overlap with document order says what happens."""

from __future__ import annotations

import re

from annotation.campaign import document_order
from annotation.imports.importer import import_campaign
from annotation.judging import comparative
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from annotation.tasks import batches as tasks
from annotation.tasks.respread import respread_checks
from db.reads.campaign import campaign_id
from tests.estimators.documents.test_clustered_route import doc_csv
from tests.views.conftest import admin_page

CSV = "item_id,source,reference,system,output,doc_id\n" + "".join(
    f"{j},source {j},ref {j},{s},output {j} of {s} with several words,d{j % 3}\n"
    for j in range(12)
    for s in ("A", "B")
)


def _two_campaigns(app_engine) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    import_campaign(app_engine, CSV.encode(), "alpha", filename="a.csv")
    import_campaign(app_engine, CSV.encode(), "beta", filename="b.csv")
    a, b = campaign_id(app_engine, "alpha"), campaign_id(app_engine, "beta")
    document_order.set_documents_in_order(app_engine, a, True)
    comparative.set_comparative(app_engine, a, True)
    tasks.set_settings(app_engine, a, handoff_url="https://example.org/done?cc={code}")
    return a, b


def test_switching_campaign_shows_the_new_campaigns_settings(app_engine) -> None:  # type: ignore[no-untyped-def]
    _two_campaigns(app_engine)
    at = admin_page("views/pages/annotators.py", campaign="alpha")
    assert at.toggle(key="document_order").value and at.toggle(key="comparative_on").value
    assert at.text_input(key="task_handoff_url").value.startswith("https://example.org")
    at.selectbox(key="annotators_campaign").select("beta").run()
    assert not at.exception, at.exception
    assert not at.toggle(key="document_order").value
    assert not at.toggle(key="comparative_on").value
    assert at.text_input(key="task_handoff_url").value == ""


def test_comparative_refused_on_a_queue_built_unpaired(app_engine) -> None:  # type: ignore[no-untyped-def]
    """Paired unticked, build, cut, re-tick, comparative on: refused with the reason (it
    gave 46 "comparative" screens of one output each); a re-build in the paired design
    (re-spread) lifts the refusal."""
    import pytest

    import_campaign(app_engine, CSV.encode(), "gamma", filename="g.csv")
    cid = campaign_id(app_engine, "gamma")
    queue_admin.update_queue_settings(app_engine, cid, paired=False)
    queue_build.build_queue(app_engine, cid, seed=1)
    tasks.cut(app_engine, cid, 10)
    queue_admin.update_queue_settings(app_engine, cid, paired=True)
    with pytest.raises(ValueError, match="built unpaired"):
        comparative.set_comparative(app_engine, cid, True)
    assert not comparative.comparative_setting(app_engine, cid).on
    at = admin_page("views/pages/annotators.py", campaign="gamma")
    at.toggle(key="comparative_on").set_value(True)
    next(b for b in at.button if b.label == "Save comparative mode").click().run()
    assert "built unpaired" in " ".join(str(e.value) for e in at.error)
    respread_checks(app_engine, cid)
    assert comparative.set_comparative(app_engine, cid, True)


def test_too_few_documents_said_up_front_with_segment_context_offered(app_engine) -> None:  # type: ignore[no-untyped-def]
    """3 documents (a verdict needs 30): the page says so before document order is switched
    on, offers the document context instead, and says that the 10 % overlap copies
    round(0.1 × 3) = 0 documents (the Import page had promised second judgments)."""
    from annotation.campaign import context

    import_campaign(app_engine, CSV.encode(), "few", filename="f.csv", settings={"overlap": 0.1})
    cid = campaign_id(app_engine, "few")
    at = admin_page("views/pages/annotators.py", campaign="few")
    warnings = " ".join(str(w.value) for w in at.warning).replace("\\", "")
    assert "only 3 document(s)" in warnings and "at least 30" in warnings, warnings
    captions = " ".join(str(c.value) for c in at.caption).replace("\\", "")
    assert "10% of 3 document block(s) = 0 judged twice" in captions, captions
    assert "no second judgment" in captions
    at.button(key=f"segment-context-{cid}").click().run()
    assert context.context_setting(app_engine, cid).on
    assert not document_order.document_order_status(app_engine, cid).on


def test_enough_documents_no_warning(app_engine) -> None:  # type: ignore[no-untyped-def]
    csv = doc_csv(40, 40)
    cid = import_campaign(
        app_engine, csv, "many", filename="m.csv", settings={"overlap": 0.1}
    ).campaign_id
    status = document_order.document_order_status(app_engine, cid)
    assert status.documents == 40 and status.too_few is None
    assert status.overlap_note is not None and "= 4 judged twice." in status.overlap_note


def test_the_page_reads_as_steps_with_what_is_locked(app_engine) -> None:  # type: ignore[no-untyped-def]
    from accounts.invites import create_annotator
    from annotation.judging import save as judging
    from annotation.judging import session

    import_campaign(app_engine, CSV.encode(), "steps", filename="s.csv",
                    settings={"attention_rate": 0.2})  # fmt: skip
    cid = campaign_id(app_engine, "steps")
    at = admin_page("views/pages/annotators.py", campaign="steps")
    heads = [h.value for h in at.header]
    assert heads == ["1 · Set up", "2 · Build the queue", "3 · Tasks", "4 · Invite", "5 · Watch"]
    # nothing built: no lock (a word of its own: the control block's captions say "block")
    assert not [c for c in at.caption if re.search(r"\block", str(c.value))]
    queue_build.build_queue(app_engine, cid, seed=2)
    tasks.cut(app_engine, cid, 8)
    at.run()
    text = " ".join(str(c.value) for c in at.caption).replace("\\", "")
    assert "shape the next build only" in text and "can still be re-built" in text
    assert "task(s) cut" in text
    at.button(key=f"rebuild-{cid}").click().run()
    assert "Re-built:" in " ".join(str(s.value) for s in at.success)
    ann = create_annotator(app_engine, cid, "ann").annotator_id
    v = session.next_view(app_engine, ann)
    judging.submit(app_engine, ann, v.slot.assignment_id, v.slot.claim_version, label=1)
    at.run()
    text = " ".join(str(c.value) for c in at.caption).replace("\\", "")
    assert "labels exist" in text and "re-building is refused now" in text
    assert at.button(key=f"rebuild-{cid}").disabled


def test_overlap_note_names_the_share_that_gives_one_copy() -> None:
    """10 % of 5 documents rounds (half to even, as the build) to 0: 11 % is the least."""
    from annotation.campaign.document_order import overlap_note

    assert "at least 11 % for one copy" in (overlap_note(0.1, 5) or "")
    assert overlap_note(0.0, 5) is None and "= 1 judged twice." in (overlap_note(0.2, 5) or "")


def test_stated_cost_equals_the_build_in_document_order_and_comparative(app_engine) -> None:  # type: ignore[no-untyped-def]
    """The page's stated cost follows the queue's shape: in document order the overlap
    copies whole documents (here 2 of 3), and in comparative mode the checks are a share of
    screens; the build queues exactly that."""
    from sqlalchemy import func, select

    from annotation.campaign.quality import qc_cost
    from db.engine import session_scope
    from db.schema.models import Assignment

    import_campaign(app_engine, CSV.encode(), "shape", filename="s.csv",
                    settings={"overlap": 0.5, "attention_rate": 0.2})  # fmt: skip
    cid = campaign_id(app_engine, "shape")
    document_order.set_documents_in_order(app_engine, cid, True)
    comparative.set_comparative(app_engine, cid, True)
    shape = queue_admin.cost_shape(app_engine, cid)
    assert shape == {"blocks": 3, "per_screen": 20}
    cost = qc_cost(24, 12, paired=True, overlap=0.5, attention_rate=0.2, **shape)
    report = queue_build.build_queue(app_engine, cid, seed=4)
    assert (cost.overlap_slots, cost.attention_slots) == (16, 5)
    assert (report.overlap_slots, report.attention_slots) == (16, 5)
    with session_scope(app_engine) as s:
        n = s.scalar(select(func.count()).where(Assignment.campaign_id == cid))
    assert n == 24 + 16 + 5
    at = admin_page("views/pages/annotators.py", campaign="shape")
    text = " ".join(str(c.value) for c in at.caption)
    assert "16 second judgments for agreement and 5 attention checks" in text


def test_the_task_table_says_each_tasks_checks_and_pass_mark(app_engine) -> None:  # type: ignore[no-untyped-def]
    import_campaign(app_engine, CSV.encode(), "rule", filename="r.csv",
                    settings={"attention_rate": 0.2})  # fmt: skip
    cid = campaign_id(app_engine, "rule")
    queue_build.build_queue(app_engine, cid, seed=4)
    tasks.cut(app_engine, cid, 10)
    counts = tasks.check_counts(app_engine, cid)
    at = admin_page("views/pages/annotators.py", campaign="rule")
    frame = next(d.value for d in at.dataframe if "attention checks" in d.value.columns)
    assert list(frame["attention checks"]) == [counts[t] for t in frame["task"]]
    assert all(n >= 1 for n in frame["attention checks"])
    assert list(frame["right to pass"]) == [-(-4 * n // 5) for n in frame["attention checks"]]


def test_too_few_documents_spoken_of_as_on_once_on(app_engine) -> None:  # type: ignore[no-untyped-def]
    """One document, document order switched on: the page's warning says it is on (not
    "before you switch it on"), the words `cli.py document-order` prints too."""
    one = "item_id,source,reference,system,output,doc_id\n" + "".join(
        f"{j},source {j},ref {j},{s},output {j} of {s},d0\n" for j in range(4) for s in ("A", "B")
    )
    import_campaign(app_engine, one.encode(), "one", filename="o.csv")
    cid = campaign_id(app_engine, "one")
    document_order.set_documents_in_order(app_engine, cid, True)
    at = admin_page("views/pages/annotators.py", campaign="one")
    assert not at.exception, at.exception
    assert at.toggle(key="document_order").value
    warnings = " ".join(str(w.value) for w in at.warning).replace("\\", "")
    assert "Before you switch it on" not in warnings, warnings
    assert "Document order is on, but this campaign has only 1 document(s)" in warnings, warnings
    said = document_order.too_few_warning(document_order.document_order_status(app_engine, cid))
    assert said is not None and said in warnings
