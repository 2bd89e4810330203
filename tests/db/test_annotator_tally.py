"""db.judging.annotator_stats: the per-annotator figures counted in SQL equal a row-by-row count of
the log (the implementation they replaced), on real SQLite and PostgreSQL."""

from __future__ import annotations

from statistics import median
from typing import Any

from db.engine import session_scope
from db.judging.annotator_stats import annotator_work, attention_passed
from db.judging.log import ATTENTION, LABEL, SKIP, SUPERSEDING, UNDO, append, campaign_log
from db.schema.models import Annotation, Annotator, Assignment, AttentionCheck
from tests.test_reads import seed_campaign


def row_by_row(s, cid: int) -> dict[int, dict[str, Any]]:  # type: ignore[no-untyped-def]
    """Every log row read and counted in Python (binary answers only)."""
    rows = s.execute(campaign_log(
        cid, Annotation.annotator_id, Annotation.kind, Annotation.label, Annotation.post_edit,
        Annotation.seconds, SUPERSEDING.id, AttentionCheck.expected_label,
        AttentionCheck.degraded_text, Annotation.created_at,
    ))  # fmt: skip
    acc: dict[int, dict[str, Any]] = {}
    for aid, kind, label, post_edit, secs, superseded, expected, shown, created in rows:
        a = acc.setdefault(aid, {"labels": 0, "skips": 0, "undos": 0, "secs": [], "att": 0,
                                 "passed": 0, "last": None, "timed": 0})  # fmt: skip
        if kind == UNDO:
            a["undos"] += 1
            continue
        if superseded is not None:
            continue
        if created is not None and (a["last"] is None or created > a["last"]):
            a["last"] = created
        if secs is not None:
            a["secs"].append(float(secs))
            a["timed"] += kind == LABEL
        if kind == LABEL:
            a["labels"] += 1
        elif kind == SKIP:
            a["skips"] += 1
        elif kind == ATTENTION and expected is not None:
            a["att"] += 1
            a["passed"] += attention_passed(label, post_edit, expected, shown or "")
    return acc


def test_sql_counts_equal_the_row_by_row_count(engine) -> None:
    cid = seed_campaign(engine, n_items=20, labelled=15, overlap=3, scores=False)
    with session_scope(engine) as s:
        rows = s.execute(
            select_log(cid, Annotation.id, Annotation.output_id, Annotation.annotator_id)
        ).all()
        (first, oid, ann), (second, oid2, ann2) = rows[0], rows[5]
        undo = append(s, output_id=oid, annotator_id=ann, kind="undo", supersedes_id=first)
        append(s, output_id=oid, annotator_id=ann, kind="undo", supersedes_id=undo)
        append(s, output_id=oid2, annotator_id=ann2, kind="undo", supersedes_id=second)
        append(s, output_id=oid2, annotator_id=ann2, kind="undo", supersedes_id=second)
        append(s, output_id=oid2, annotator_id=ann2, kind="skip", skip_reason="x", seconds=2.5)
        append(s, output_id=oid, annotator_id=ann, kind="label", label=1, seconds=7.25)
        check = AttentionCheck(output_id=oid, degraded_text="broken text", severity=-5,
                               operations=[], expected_label=0)  # fmt: skip
        s.add(check)
        s.add(Annotator(campaign_id=cid, name="idle", role="import"))
        s.flush()
        for k, (label, post_edit) in enumerate([(0, None), (1, None), (None, "fixed text"),
                                                (None, "broken  text")]):  # fmt: skip
            slot = Assignment(campaign_id=cid, output_id=oid, annotator_id=ann,
                              position=10_000 + k, inclusion_prob=1.0, state="done",
                              kind="attention", attention_check_id=check.id)  # fmt: skip
            s.add(slot)
            s.flush()
            append(s, output_id=oid, annotator_id=ann, kind="attention", assignment_id=slot.id,
                   label=label, post_edit=post_edit, seconds=3.0 + k)  # fmt: skip
        append(s, output_id=oid, annotator_id=ann2, kind="attention", label=1)  # no check
    with session_scope(engine) as s:
        expected = row_by_row(s, cid)
        work = annotator_work(s, cid)
    assert len(work) == 3
    for w in work:
        e = expected.get(w.annotator_id)
        if e is None:
            assert (w.n_labels, w.n_undos, w.last_at, w.median_seconds) == (0, 0, None, None)
            continue
        assert (w.n_labels, w.n_skips, w.n_undos) == (e["labels"], e["skips"], e["undos"])
        assert (w.attention_answered, w.attention_passed) == (e["att"], e["passed"])
        assert w.median_seconds == median(e["secs"])
        assert abs(w.total_seconds - sum(e["secs"])) < 1e-9  # summed in another order
        assert w.last_at == e["last"]
        assert w.timed_labels == e["timed"]
    by_id = {w.annotator_id: w for w in work}
    assert by_id[ann].n_undos == 2 and by_id[ann].attention_answered == 4
    assert by_id[ann].attention_passed == 2  # label 0 and the changed text pass
    assert by_id[ann2].n_undos == 2 and by_id[ann2].n_skips == 1


def select_log(cid: int, *cols):  # type: ignore[no-untyped-def]
    return campaign_log(cid, *cols, current_only=True).order_by(Annotation.id)
