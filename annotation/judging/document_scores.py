"""Document-level scores of DA / SQM campaigns judged in document order.

After an annotator has scored the last segment of one system's document, the page asks one
0–100 score (SQM: a point 0–6) for that whole document, the document shown whole
(:func:`pending`); :func:`save` stores it in its own table (``document_scores``), one per
annotator, system and document.

Its estimand is its own: a system's mean document score over the campaign's documents,
the document the unit. :func:`document_data` hands the scores to the estimators as a
campaign whose "items" are the documents, one judgment each (the first score of a
system's document, in the order given), read as :class:`estimators.data.campaign.LabelKind.DA`
(÷ 100, range [0, 1]): the dashboard's and `cli.py evaluate`'s fixed-n intervals, live
verdicts (three-way, Holm / e-BH) and ranking all run on it unchanged. The order the
scores were given is the order the queue drew the documents (random), which the
sequential verdicts need; a document never completed by one annotator (its block expired
midway and someone else finished it) gets no document score.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from annotation.judging.da_judgments import checked_score
from annotation.judging.session import InvalidJudgment, campaign_of, retried
from db import Engine
from db.clock import utcnow
from db.engine import read_scope
from db.judging import document_scores as dbdoc
from db.queue import claim as dbq
from estimators.data.campaign import CampaignData, Judgments


@dataclass(frozen=True)
class PendingDocument:
    """A finished document waiting for its score: its key (never shown: it holds the
    system) and its segments (source, output) in order."""

    key: dbdoc.DocumentKey
    segments: list[tuple[str, str]]


def asks_document_scores(camp: dbq.AnnotatorCampaign) -> bool:
    """DA / SQM judged in document order ask a document score after each document."""
    return camp.mode.asks_slider and camp.blocks


def pending(engine: Engine, annotator_id: int) -> PendingDocument | None:
    """The annotator's first finished document without its score (None: none waits)."""
    with read_scope(engine) as s:
        camp = dbq.annotator_campaign(s, annotator_id)
        if camp is None or camp.revoked or not asks_document_scores(camp):
            return None
        waiting = dbdoc.waiting(s, camp.id, annotator_id)
        if not waiting:
            return None
        return PendingDocument(waiting[0], dbdoc.segments(s, camp.id, waiting[0]))


@retried
def save(
    engine: Engine,
    annotator_id: int,
    key: dbdoc.DocumentKey,
    value: float | None,
    *,
    seconds: float | None = None,
    now: datetime | None = None,
) -> None:
    """Store the document's score (slider units, checked like a segment's). Refused
    (InvalidJudgment, nothing stored) when the document is not one of the annotator's
    finished ones waiting for a score (a second tab saved it, or an undo reopened it)."""
    with dbq.queue_transaction(engine) as s:
        camp = campaign_of(s, annotator_id)
        score = checked_score(camp.mode, value, camp.likert)
        refused = InvalidJudgment(
            "this document's score was already given (in another tab?) or the document "
            "is not finished: nothing was saved"
        )
        if not asks_document_scores(camp) or key not in dbdoc.waiting(s, camp.id, annotator_id):
            raise refused
        added = dbdoc.append(s, campaign_id=camp.id, annotator_id=annotator_id,
                             system_id=key.system_id, doc_id=key.doc_id, score=score,
                             seconds=seconds, created_at=now or utcnow())  # fmt: skip
        if added is None:  # saved meanwhile (the unique constraint; the lock makes it rare)
            raise refused


def document_data(engine: Engine, campaign_id: int) -> CampaignData | None:
    """The campaign's document scores as a campaign of documents (module docstring);
    None when it has none."""
    with read_scope(engine) as s:
        rows = dbdoc.campaign_scores(s, campaign_id)
        if not rows:
            return None
        systems = dbdoc.campaign_systems(s, campaign_id)
        docs = dbdoc.campaign_documents(s, campaign_id)
        name = dbdoc.campaign_name(s, campaign_id)
    annotators = sorted({r.annotator for r in rows})
    return build_document_data(campaign_id, name, systems, docs, annotators, rows)


def build_document_data(
    campaign_id: int,
    name: str,
    systems: list[str],
    docs: list[str],
    annotators: list[str],
    rows: list[dbdoc.ScoreRow],
) -> CampaignData:
    """Arrays for the estimators: items = documents, one output per system and document,
    the scores in the order given (their position), no metric scores."""
    k, n = len(systems), len(docs)
    sys_ix = {name: i for i, name in enumerate(systems)}
    doc_ix = {d: j for j, d in enumerate(docs)}
    ann_ix = {a: i for i, a in enumerate(annotators)}
    m = len(rows)
    f = np.full(m, np.nan)
    judged = Judgments(
        annotation_id=np.array([r.id for r in rows], dtype=np.int64),
        item=np.array([doc_ix[r.doc_id] for r in rows], dtype=np.int64),
        system=np.array([sys_ix[r.system] for r in rows], dtype=np.int64),
        annotator=np.array([ann_ix[r.annotator] for r in rows], dtype=np.int64),
        label=f, score=f, hter=f, seconds=f,
        position=np.arange(m, dtype=float),  # the order given = the queue's document order
        inclusion_prob=np.ones(m),  # documents drawn uniformly (no active sampling)
        created_at=np.array([r.created_at.replace(tzinfo=None) for r in rows],
                            dtype="datetime64[us]"),
        da_score=np.array([r.score for r in rows], dtype=float),
    )  # fmt: skip
    return CampaignData(
        campaign_id=campaign_id,
        name=name,
        mode="da",
        systems=systems,
        is_human=np.zeros(k, dtype=bool),
        item_ids=docs,
        output_ids=np.arange(k * n, dtype=int).reshape(k, n),
        metrics=[],
        scores={},
        judgments=judged,
        annotators=annotators,
    )


def document_report(engine: Engine, campaign_id: int, alpha: float | None = None):  # type: ignore[no-untyped-def]
    """The dashboard's report (estimators.report.campaign_report.campaign_report) on the document
    scores:
    fixed-n intervals and the live verdicts with documents as the unit; None without any."""
    from estimators.report.campaign_report import campaign_report

    data = document_data(engine, campaign_id)
    return None if data is None else campaign_report(data, signatures=[], alpha=alpha)


@dataclass(frozen=True)
class DocumentSystemRow:
    """One system's document scores, on the 0–100 scale: the documents scored and their mean
    (None before the first); the anytime-valid estimate and interval, the ones the pair
    verdicts read (at the census, every document scored, the exact mean); the fixed-n 95%
    interval, None below two documents."""

    system: str
    documents: int
    mean: float | None
    estimate: float | None
    low: float | None
    high: float | None
    fixed_low: float | None
    fixed_high: float | None


@dataclass(frozen=True)
class DocumentPairRow:
    """One pair's anytime-valid difference (0–100 scale, a − b), its interval, Holm p-value
    and verdict."""

    a: str
    b: str
    difference: float | None
    low: float | None
    high: float | None
    p_holm: float
    verdict: str


def _points(value: float) -> float | None:
    """A [0, 1] value on the 0–100 scale; None when it is not a number."""
    return None if value != value else value * 100


def document_tables(report) -> tuple[list[DocumentSystemRow], list[DocumentPairRow]]:  # type: ignore[no-untyped-def]
    """What the dashboard and `cli.py evaluate` show of :func:`document_report`: one row per
    system and one per pair, both from the live monitor's anytime-valid estimates (the ones
    the verdicts read), the fixed-n interval beside them. A system counts every document
    scored, with or without an interval; no verdicts yet: no pair rows."""
    systems = []
    for name in report.systems:
        fixed = report.estimates.get((name, "human"))
        live = report.estimates.get((name, "anytime"))
        est = live if live is not None and live.available else None
        fixed_ok = fixed is not None and fixed.available
        systems.append(DocumentSystemRow(
            system=name,
            documents=0 if fixed is None else int(fixed.n_human),
            mean=None if fixed is None or not fixed.n_human else _points(fixed.estimate),
            estimate=None if est is None else _points(est.estimate),
            low=None if est is None else _points(est.low),
            high=None if est is None else _points(est.high),
            fixed_low=_points(fixed.low) if fixed_ok else None,
            fixed_high=_points(fixed.high) if fixed_ok else None,
        ))  # fmt: skip
    pairs = []
    for p in [] if report.monitor is None else report.monitor.pairs:
        ok = p.result.available
        pairs.append(DocumentPairRow(
            a=p.a, b=p.b,
            difference=_points(p.result.estimate) if ok else None,
            low=_points(p.result.low) if ok else None,
            high=_points(p.result.high) if ok else None,
            p_holm=float(p.p_holm), verdict=str(p.outcome),
        ))  # fmt: skip
    return systems, pairs
