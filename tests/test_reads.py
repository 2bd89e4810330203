"""db.reads.campaign: a campaign as arrays, on real SQLite and PostgreSQL.

Also home of :func:`seed_campaign`, the labelled, scored campaign the dashboard, export and
page tests share.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from sqlalchemy import event

from annotation.imports.importer import import_campaign
from db.engine import session_scope
from db.judging.annotator_stats import annotator_work
from db.judging.log_export import annotation_log
from db.reads.campaign import fingerprint, read_campaign
from db.schema.models import Annotation, Annotator, Assignment, AttentionCheck
from db.scores.metric_scores import ScoreRow, insert_scores, save_threshold
from tests.support.simulation import make_pool

SIG = "chrf|nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:test"
SIG_BLEU = "bleu|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:test"
FORMULA = '=HYPERLINK("http://x","click")'


def seed_csv(
    n_items: int = 80,
    deltas: tuple[float, ...] = (0.8, 0.0, -0.8),
    labelled: int = 60,
    overlap: int = 6,
    seed: int = 1,
) -> tuple[bytes, object]:
    rng = np.random.default_rng(seed)
    pool = make_pool(rng, n_items, list(deltas), r=0.7)
    chosen = set(rng.permutation(n_items)[:labelled].tolist())
    twice = set(sorted(chosen)[:overlap])
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["item_id", "source", "reference", "system", "output", "human_label", "annotator"])
    for j in range(n_items):
        for s in range(len(deltas)):
            text = FORMULA if (j, s) == (0, 0) else f"output {s} of item {j}"
            row = [f"i{j:03d}", f"source {j}", f"reference {j}", f"sys{s}", text]
            if j in chosen:
                y = int(rng.random() < pool.f[s, j])
                w.writerow([*row, y, f"ann{(j + s) % 2}"])
                if j in twice:  # a second judgment by the other annotator
                    w.writerow([*row, y if rng.random() < 0.8 else 1 - y, f"ann{(j + s + 1) % 2}"])
            else:
                w.writerow([*row, "", ""])
    return buf.getvalue().encode(), pool


def seed_campaign(
    engine,
    name: str = "demo",
    *,
    scores: bool = True,
    threshold: bool = True,
    chrf_signature: str = SIG,
    **kw,
) -> int:
    """Import a simulated campaign (3 systems, labels by 2 annotators) with chrF-like scores."""
    data, pool = seed_csv(**kw)
    report = import_campaign(engine, data, name, filename=f"{name}.csv")
    cid = report.campaign_id
    if scores:
        grid = read_campaign(engine, cid).output_ids
        rows = [
            ScoreRow(int(grid[s, j]), metric, sig, float(pool.g[s, j] * scale + 50))
            for s in range(grid.shape[0])
            for j in range(grid.shape[1])
            for metric, sig, scale in (("chrf", chrf_signature, 10.0), ("bleu", SIG_BLEU, 7.0))
        ]
        insert_scores(engine, rows)
        if threshold:
            save_threshold(engine, cid, chrf_signature, 50.0, True, "youden")
    return cid


def test_read_campaign_arrays(engine) -> None:
    cid = seed_campaign(engine, n_items=40, labelled=30, overlap=4)
    data = read_campaign(engine, cid)
    assert data.systems == ["sys0", "sys1", "sys2"]
    assert data.item_ids[:2] == ["i000", "i001"] and data.n_items == 40
    assert data.output_ids.shape == (3, 40) and (data.output_ids > 0).all()
    assert [m.metric for m in data.metrics] == ["bleu", "chrf"]
    chrf = data.metric(SIG)
    assert chrf.threshold == 50.0 and chrf.higher_is_better and chrf.n_scores == 120
    assert data.metric(SIG_BLEU).threshold is None
    assert np.isfinite(data.scores[SIG]).all()
    j = data.judgments
    assert len(j) == 3 * 30 + 3 * 4  # one per labelled output, plus the overlap judgments
    assert np.all(np.diff(j.position) > 0), "arrival order = assignment position"
    np.testing.assert_allclose(j.inclusion_prob, 30 / 40)
    assert set(np.unique(j.label)) <= {0.0, 1.0}
    assert np.isnan(j.hter).all()
    assert sorted(data.annotators) == ["ann0", "ann1"]
    with session_scope(engine) as s:  # the dashboard's annotator table
        work = annotator_work(s, cid)
    assert sum(a.n_labels for a in work) == len(j)


def test_superseded_and_attention_rows_are_left_out(engine) -> None:
    cid = seed_campaign(engine, n_items=20, labelled=20, overlap=0, scores=False)
    before = read_campaign(engine, cid)
    fp0 = fingerprint(engine, cid)
    undone = int(before.judgments.annotation_id[0])
    with session_scope(engine) as s:
        ann = s.get(Annotation, undone)
        annotator_id, output_id = ann.annotator_id, ann.output_id
        s.add(Annotation(output_id=output_id, annotator_id=annotator_id, kind="undo",
                         supersedes_id=undone))  # fmt: skip
        check = AttentionCheck(output_id=output_id, degraded_text="broken", severity=-5,
                               operations=[], expected_label=0)  # fmt: skip
        s.add(check)
        s.flush()
        for label in (0, 1):  # one passed, one failed attention check
            slot = Assignment(campaign_id=cid, output_id=output_id, annotator_id=annotator_id,
                              position=10_000 + label, inclusion_prob=1.0, state="done",
                              kind="attention", attention_check_id=check.id)  # fmt: skip
            s.add(slot)
            s.flush()
            s.add(Annotation(output_id=output_id, annotator_id=annotator_id, kind="attention",
                             assignment_id=slot.id, label=label, seconds=4.0))  # fmt: skip
    after = read_campaign(engine, cid)
    assert len(after.judgments) == len(before.judgments) - 1
    assert undone not in after.judgments.annotation_id
    with session_scope(engine) as s:
        s_name = s.get(Annotator, annotator_id).name
        stats = {a.name: a for a in annotator_work(s, cid)}[s_name]
    assert (stats.attention_answered, stats.attention_passed) == (2, 1)
    assert stats.last_at is not None
    assert stats.median_seconds == 4.0
    assert fingerprint(engine, cid) != fp0
    log = annotation_log(engine, cid)
    assert undone not in [r["annotation_id"] for r in log]
    assert {r["kind"] for r in log} == {"label", "attention"}
    full = annotation_log(engine, cid, current_only=False)
    assert len(full) == len(log) + 2  # the undone label and the undo marker
    assert [r["current"] for r in full if r["annotation_id"] == undone] == [False]


def test_fingerprint_tracks_scores_and_thresholds(engine) -> None:
    cid = seed_campaign(engine, n_items=10, labelled=10, overlap=0, scores=False)
    fp0 = fingerprint(engine, cid)
    assert fp0[:2] == (30, fp0[1]) and fp0[2:] == (0, 0, 0, 0, 0, 0, 0)
    grid = read_campaign(engine, cid).output_ids
    insert_scores(engine, [ScoreRow(int(grid[0, 0]), "chrf", SIG, 1.0)])
    fp1 = fingerprint(engine, cid)
    assert fp1[2] == 1 and fp1 != fp0
    save_threshold(engine, cid, SIG, 0.5, True, "manual")
    assert fingerprint(engine, cid)[4] == 1


def test_bulk_queries_do_not_grow_with_systems(engine) -> None:
    counts = []
    for name, deltas in (("two", (0.0, 0.1)), ("six", (0.0, 0.1, 0.2, 0.3, 0.4, 0.5))):
        cid = seed_campaign(engine, name, n_items=15, labelled=10, deltas=deltas)
        statements: list[str] = []

        def count(*args, _s=statements) -> None:  # type: ignore[no-untyped-def]
            _s.append(args[2])

        event.listen(engine, "before_cursor_execute", count)
        try:
            read_campaign(engine, cid)
        finally:
            event.remove(engine, "before_cursor_execute", count)
        counts.append(sum(1 for st in statements if st.lstrip().upper().startswith("SELECT")))
    assert counts[0] == counts[1] <= 9  # the plan's setting changes are the ninth


def test_unknown_campaign_raises(engine) -> None:
    with pytest.raises(KeyError):
        read_campaign(engine, 12345)


def test_annotator_speed_and_pass_rate_for_the_dashboard() -> None:
    from db.judging.annotator_stats import AnnotatorWork

    n = 12
    work = AnnotatorWork(1, "a", "annotator", False, n, 0, 0, 5.0, 5.0 * n, 4, 3, 0,
                         timed_labels=n)  # fmt: skip
    assert work.attention_pass_rate == 0.75
    assert work.labels_per_hour == pytest.approx(3600 / 5.0)
    idle = AnnotatorWork(2, "b", "annotator", False, 0, 0, 0, None, 0.0, 0, 0, 0)
    assert idle.labels_per_hour is None and idle.attention_pass_rate is None
    assert idle.last_at is None
    # imported labels carry no time: 30,000 of them and one timed label of 5 s is 720 an
    # hour, not 30,001 / 5 s (21.6 million, what the 60-system dashboard showed)
    mixed = AnnotatorWork(3, "imported", "import", False, 30_001, 0, 0, 5.0, 5.0, 0, 0, 0,
                          timed_labels=1)  # fmt: skip
    assert mixed.labels_per_hour == pytest.approx(720.0)
    untimed = AnnotatorWork(4, "i", "import", False, 500, 0, 0, None, 0.0, 0, 0, 0,
                            timed_labels=0)  # fmt: skip
    assert untimed.labels_per_hour is None
