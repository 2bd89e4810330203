"""`cli.py evaluate` on a campaign judging documents in order: it prints the document-unit
ratio estimates (estimators.documents.clustered.ratio_interval over completed documents), not the
segment formulas, and its numbers equal the clustered estimator's computed here directly
from the imported file, and the dashboard's fixed-n column."""

from __future__ import annotations

import csv
import io
import math
import re

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

import cli
from annotation.imports.importer import import_campaign
from db.engine import get_engine
from db.reads.campaign import read_campaign
from estimators.documents import clustered as cl
from estimators.report.campaign_report import campaign_report
from tests.estimators.documents.test_clustered_route import doc_csv, set_document_order

N_DOCS, LABELLED, SIZE = 60, 45, 4


def _run(engine, monkeypatch, *args: str) -> str:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(engine.url))
    get_engine.cache_clear()
    try:
        out = CliRunner().invoke(cli.app, ["evaluate", "--campaign", "docs", *args])
    finally:
        get_engine.cache_clear()
    assert out.exit_code == 0, out.output
    return out.output


def _sums(raw: bytes) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per system and for the pair: (D_j, n_j) over the labelled documents, from the file."""
    by: dict[tuple[str, str], list[int]] = {}
    for r in csv.DictReader(io.StringIO(raw.decode())):
        if r["human_label"] != "":
            by.setdefault((r["system"], r["doc_id"]), []).append(int(r["human_label"]))
    docs = sorted({d for _, d in by})
    a = [by[("sysA", d)] for d in docs]
    b = [by[("sysB", d)] for d in docs]
    n = np.array([len(x) for x in a], float)
    return {
        "sysA": (np.array([sum(x) for x in a], float), n),
        "sysB": (np.array([sum(x) for x in b], float), n),
        "pair": (np.array([sum(x) - sum(y) for x, y in zip(a, b, strict=True)], float), n),
    }


def _numbers(line: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d{4}", line)]


def test_evaluate_reports_document_unit_estimates(sqlite_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    raw = doc_csv(N_DOCS, LABELLED, size=SIZE, seed=7)
    cid = import_campaign(sqlite_engine, raw, "docs", filename="d.csv").campaign_id
    segment_out = _run(sqlite_engine, monkeypatch, "--controls", "")
    set_document_order(sqlite_engine, cid, True)
    out = _run(sqlite_engine, monkeypatch, "--controls", "")
    assert "documents are the sampling unit" in out and "PPI++" in out, out
    sums = _sums(raw)
    rows = [ln for ln in out.splitlines() if ln.startswith(("sysA ", "sysB "))]
    lines = {ln.split()[0]: ln for ln in rows if "–" not in ln}
    for name in ("sysA", "sysB"):
        r = cl.ratio_interval(*sums[name], pool_docs=N_DOCS)
        assert r.documents == LABELLED
        assert f"{SIZE * LABELLED} {LABELLED}/{N_DOCS}" in " ".join(lines[name].split())
        assert _numbers(lines[name]) == [round(v, 4) for v in (r.estimate, r.low, r.high)]
    pair = next(ln for ln in out.splitlines() if ln.startswith("sysA – sysB"))
    r = cl.ratio_interval(*sums["pair"], pool_docs=N_DOCS)
    p = 2 * stats.t.sf(abs(r.estimate / r.se), r.df)  # one pair: Holm leaves it as it is
    assert _numbers(pair) == [round(v, 4) for v in (r.estimate, r.low, r.high, p)]
    assert ("sysA better" in pair) == (p <= 0.05)
    # the segment formulas' narrower interval is gone: the same labels gave other numbers
    seg_pair = next(ln for ln in segment_out.splitlines() if ln.startswith("sysA – sysB"))
    assert _numbers(seg_pair)[:3] != _numbers(pair)[:3]
    # the dashboard's fixed-n column in this mode is the same estimate and interval
    dash = campaign_report(read_campaign(sqlite_engine, cid)).estimates[("sysA", "human")]
    ra = cl.ratio_interval(*sums["sysA"], pool_docs=N_DOCS)
    assert math.isclose(dash.estimate, ra.estimate) and math.isclose(dash.ci[0], ra.low)


def _plan(engine, monkeypatch, *args: str):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(engine.url))
    get_engine.cache_clear()
    try:
        return CliRunner().invoke(cli.app, ["plan", "--campaign", "docs", *args])
    finally:
        get_engine.cache_clear()


def test_plan_speaks_in_documents(sqlite_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from annotation.campaign.live_plan import current_plan, forecast_planned_labels
    from estimators.planning.documents import document_plan

    raw = doc_csv(N_DOCS, 0, size=SIZE, seed=7)  # no labels yet: the plan can still change
    cid = import_campaign(sqlite_engine, raw, "docs", filename="d.csv").campaign_id
    refused = _plan(sqlite_engine, monkeypatch, "--documents", "10")
    assert refused.exit_code != 0 and "does not judge documents in order" in refused.output
    set_document_order(sqlite_engine, cid, True)
    out = _plan(sqlite_engine, monkeypatch, "--smallest-difference", "0.1")
    assert out.exit_code == 0, out.output
    docs = document_plan(read_campaign(sqlite_engine, cid))
    assert docs is not None and docs.icc is None  # no labels: the ICC is assumed
    n_docs = docs.documents_for(forecast_planned_labels(2, 0.1))
    assert n_docs > N_DOCS  # more than the pool holds
    assert f"Planner: {n_docs:,} complete documents per system" in out.output
    assert "assumed" in out.output
    assert f"Planned documents per system: {n_docs:,} complete documents" in out.output
    assert f"more than the {N_DOCS:,} documents in the pool" in out.output
    assert current_plan(sqlite_engine, cid).planned_labels == docs.labels_in(n_docs)
    fits = _plan(sqlite_engine, monkeypatch, "--documents", "40")
    assert fits.exit_code == 0 and "40 complete documents (160 labels)" in fits.output
    assert "more than the" not in fits.output and "design effect" in fits.output


def _scored_documents(engine, n_docs: int, scores: list[float]) -> int:  # type: ignore[no-untyped-def]
    """A DA campaign in document order, one system per score, every segment and every
    document scored (system k's documents get ``scores[k]``)."""
    from accounts.invites import create_annotator
    from annotation.campaign.document_order import set_documents_in_order
    from annotation.judging import document_scores as ds
    from annotation.judging import save, session
    from annotation.queue.build import build_queue
    from db.engine import session_scope
    from db.schema.models import Campaign, Item, Output, System

    with session_scope(engine) as s:
        camp = Campaign(name="docs", mode="da")
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"sys{k}") for k in range(len(scores))]
        s.add_all(systems)
        for d in range(n_docs):
            for g in range(2):
                item = Item(campaign_id=camp.id, external_id=f"d{d}s{g}", doc_id=f"doc{d}",
                            source=f"source {d}.{g}")  # fmt: skip
                s.add(item)
                s.flush()
                s.add_all(Output(item_id=item.id, system_id=sy.id, text=f"out {k} {d}.{g}")
                          for k, sy in enumerate(systems))  # fmt: skip
        cid = camp.id
    set_documents_in_order(engine, cid, True)
    build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    while v.slot is not None:
        v = save.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, da_score=60)
        while (w := ds.pending(engine, a)) is not None:
            ds.save(engine, a, w.key, scores[int(w.segments[0][1].split()[1])])
    return cid


def test_document_scores_table_agrees_with_its_pair_table(sqlite_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """One document, every score given: each system shows its one document and its score
    (the census: the exact mean), and each pair's difference is theirs, as the dashboard's
    tables (document_tables) say."""
    cid = _scored_documents(sqlite_engine, 1, [100.0, 40.0, 80.0])
    out = _run(sqlite_engine, monkeypatch, "--label-kind", "da")
    section = out.split("Document scores (")[1]
    lines = {
        ln.split()[0]: ln for ln in section.splitlines() if ln.startswith("sys") and "−" not in ln
    }
    estimates = {"sys0": 100.0, "sys1": 40.0, "sys2": 80.0}
    for name, score in estimates.items():
        docs, estimate = lines[name].split()[1:3]
        assert (docs, estimate) == ("1", f"{score:.2f}"), lines[name]
    for a, b in (("sys0", "sys1"), ("sys0", "sys2"), ("sys1", "sys2")):
        pair = next(ln for ln in section.splitlines() if ln.startswith(f"{a} − {b}"))
        assert pair.split()[3] == f"{estimates[a] - estimates[b]:.2f}", pair
    from annotation.judging.document_scores import document_report, document_tables

    systems, pairs = document_tables(document_report(sqlite_engine, cid))
    assert [(r.system, r.documents, r.estimate) for r in systems] == [
        (name, 1, pytest.approx(score)) for name, score in estimates.items()
    ]
    assert [p.difference for p in pairs] == [pytest.approx(60.0), pytest.approx(20.0),
                                             pytest.approx(-40.0)]  # fmt: skip
