"""Document scores in a DA campaign judged in document order (SQLite and PostgreSQL):
nothing waits until every segment of a system's document is scored; then that document
waits, shown whole, until its score is saved (once: a second save is refused, nothing
stored); the scores reach the estimators as a campaign of documents with their own
estimand (the system mean of document scores) and verdict."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, func, select

from accounts.invites import create_annotator
from annotation.campaign.document_order import set_documents_in_order
from annotation.judging import document_scores as ds
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.schema.document_models import DocumentScore
from db.schema.models import Campaign, Item, Output, System
from estimators.base.verdicts import Outcome
from estimators.data.campaign import LabelKind
from estimators.report.campaign_report import campaign_report

N_DOCS, SEGS = 12, 2


def _campaign(engine: Engine, mode: str = "da") -> int:
    with session_scope(engine) as s:
        camp = Campaign(name="docs", mode=mode)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"sys{k}") for k in range(2)]
        s.add_all(systems)
        for d in range(N_DOCS):
            for g in range(SEGS):
                item = Item(campaign_id=camp.id, external_id=f"d{d}s{g}", doc_id=f"doc{d}",
                            source=f"source {d}.{g}")  # fmt: skip
                s.add(item)
                s.flush()
                s.add_all(Output(item_id=item.id, system_id=sy.id, text=f"out {k} {d}.{g}")
                          for k, sy in enumerate(systems))  # fmt: skip
        cid = camp.id
    set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=3)
    return cid


def _doc_score(segments: list[tuple[str, str]]) -> float:
    k = int(segments[0][1].split()[1])  # "out {k} {d}.{g}": the system, for the test only
    d = int(segments[0][1].split()[2].split(".")[0])
    return 80.0 + d % 5 if k == 0 else 50.0 + d % 7


def _count(engine: Engine) -> int:
    with session_scope(engine) as s:
        return s.scalar(select(func.count(DocumentScore.id)))


def test_a_document_waits_for_its_score_after_its_last_segment(engine: Engine) -> None:
    cid = _campaign(engine)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    assert ds.pending(engine, a) is None
    seen = 0
    while v.slot is not None:
        v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, da_score=60)
        seen += 1
        waiting = ds.pending(engine, a)
        while waiting is not None:  # the finished document(s), one at a time
            assert len(waiting.segments) == SEGS  # shown whole, in order
            assert [src for src, _ in waiting.segments] == sorted(
                src for src, _ in waiting.segments)  # fmt: skip
            with pytest.raises(session.InvalidJudgment, match="between 0 and 100"):
                ds.save(engine, a, waiting.key, 140)
            ds.save(engine, a, waiting.key, _doc_score(waiting.segments))
            with pytest.raises(session.InvalidJudgment, match="already given"):
                ds.save(engine, a, waiting.key, 50)
            waiting = ds.pending(engine, a)
    assert seen == N_DOCS * SEGS * 2
    assert _count(engine) == N_DOCS * 2  # one per system and document

    data = ds.document_data(engine, cid)
    assert data is not None and data.item_ids == [f"doc{d}" for d in range(N_DOCS)]
    report = campaign_report(data)
    assert report.label_kind == LabelKind.DA
    mean0 = sum(80.0 + d % 5 for d in range(N_DOCS)) / N_DOCS / 100
    assert report.estimates[("sys0", "human")].estimate == pytest.approx(mean0)
    assert report.estimates[("sys0", "human")].n_human == N_DOCS
    (pair,) = report.monitor.pairs
    assert pair.outcome == (Outcome.A_BETTER if pair.a == "sys0" else Outcome.B_BETTER)


def test_no_document_scores_outside_document_order(engine: Engine) -> None:
    cid = _campaign(engine)
    set_documents_in_order(engine, cid, False)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    while v.slot is not None:
        v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, da_score=60)
    assert ds.pending(engine, a) is None
    assert ds.document_data(engine, cid) is None


def test_cli_evaluate_prints_the_document_score_section(sqlite_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    import cli
    from db.engine import get_engine

    cid = _campaign(sqlite_engine)
    a = create_annotator(sqlite_engine, cid, "a").annotator_id
    v = session.next_view(sqlite_engine, a)
    while v.slot is not None:
        v = judging.submit(sqlite_engine, a, v.slot.assignment_id, v.slot.claim_version,
                           da_score=60)  # fmt: skip
        while (w := ds.pending(sqlite_engine, a)) is not None:
            ds.save(sqlite_engine, a, w.key, _doc_score(w.segments))
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    try:
        out = CliRunner().invoke(cli.app, ["evaluate", "--campaign", "docs", "--controls", ""])
    finally:
        get_engine.cache_clear()
    assert out.exit_code == 0, out.output
    section = out.output.split("Document scores (")[1]
    mean0 = sum(80.0 + d % 5 for d in range(N_DOCS)) / N_DOCS
    row = next(line for line in section.splitlines() if line.startswith("sys0 "))
    assert f"{N_DOCS:>5} {mean0:>9.2f}" in row
    pair = next(line for line in section.splitlines() if line.startswith("sys0 − sys1"))
    assert "A better" in pair


def test_undoing_the_last_segment_reopens_the_document(engine: Engine) -> None:
    from annotation.judging import undo

    cid = _campaign(engine)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    while ds.pending(engine, a) is None:
        v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, da_score=60)
    key = ds.pending(engine, a).key
    undo.undo(engine, a)  # the document is unfinished again: no score asked, none taken
    assert ds.pending(engine, a) is None
    with pytest.raises(session.InvalidJudgment, match="not finished"):
        ds.save(engine, a, key, 70)
    assert _count(engine) == 0
