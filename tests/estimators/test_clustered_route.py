"""A document-ordered campaign on the app's route (real SQLite and PostgreSQL): imported
with doc ids, the setting on, labels in — read_campaign passes each item's document and the
report's monitor counts documents as units; with the setting off, segments."""

from __future__ import annotations

import csv
import io

import numpy as np

from annotation.imports.importer import import_campaign
from db.campaign import campaigns as dbc
from db.queue.claim import queue_transaction
from db.queue.settings import log_setting_changes
from db.reads.campaign import read_campaign
from db.schema.vocabulary import DOCUMENT_ORDER
from estimators.fixed_n.controls import evaluate
from estimators.report.campaign_report import campaign_report


def doc_csv(n_docs: int, labelled: int, size: int = 3, seed: int = 0, gap: float = 0.35) -> bytes:
    """Two systems; documents ``d0..`` of ``size`` segments whose labels share a document
    effect (A better by ``gap`` in adequacy); the first ``labelled`` documents labelled."""
    rng = np.random.default_rng(seed)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(
        ["item_id", "doc_id", "source", "reference", "system", "output", "human_label", "annotator"]
    )
    for d in range(n_docs):
        base = rng.uniform(0.2, 0.6)
        for i in range(size):
            for s, name in enumerate(("sysA", "sysB")):
                p = base + (gap if s == 0 else 0.0)
                y = int(rng.random() < p) if d < labelled else ""
                w.writerow(
                    [
                        f"d{d}-s{i}",
                        f"d{d}",
                        f"src {d}.{i}",
                        "ref",
                        name,
                        f"o{s}",
                        y,
                        "ann" if y != "" else "",
                    ]
                )
    return buf.getvalue().encode()


def set_document_order(engine, cid: int, on: bool) -> None:  # type: ignore[no-untyped-def]
    """The setting stored and logged, as the app's switch does."""
    with queue_transaction(engine) as s:
        dbc.set_campaign_meta_key(s, cid, DOCUMENT_ORDER, {"on": on})
        log_setting_changes(s, cid, {DOCUMENT_ORDER: (None, {"on": on})})


def test_doc_ordered_campaign_reads_documents_as_units(engine) -> None:
    cid = import_campaign(engine, doc_csv(60, 40), "docs", filename="docs.csv").campaign_id
    plain = read_campaign(engine, cid)
    assert plain.documents is None
    seg = campaign_report(plain).monitor
    assert seg is not None and seg.documents is None and "unit" not in seg.rows()[0]

    set_document_order(engine, cid, True)
    data = read_campaign(engine, cid)
    assert data.documents is not None and np.unique(data.documents).size == 60
    assert (np.bincount(data.documents) == 3).all()
    report = campaign_report(data)
    mon = report.monitor
    assert mon is not None and mon.documents is not None
    human = report.estimates[("sysA", "human")]  # fixed-n column: documents too
    assert human.method == "ratio_documents" and human.diagnostics["documents"] == 40
    assert human.df == 39 and {m for _, m in report.estimates} == {"human", "anytime"}
    assert any("Documents are the sampling unit" in n for n in evaluate(data, "label").notes)
    assert mon.documents.completed == 40 and mon.documents.pool_docs == 60
    assert not mon.documents.too_few
    [row] = mon.rows()
    assert row["unit"] == "document" and row["documents"] == 40 and row["n"] == 120
    assert row["verdict"] in ("sysA better", "not yet")
    # the document-unit interval is not the segment one
    assert (row["low"], row["high"]) != (seg.rows()[0]["low"], seg.rows()[0]["high"])


def test_few_documents_say_so(engine) -> None:
    cid = import_campaign(
        engine, doc_csv(5, 4, size=12, gap=0.1), "five", filename="five.csv"
    ).campaign_id
    set_document_order(engine, cid, True)
    mon = campaign_report(read_campaign(engine, cid)).monitor
    assert mon is not None and mon.documents.too_few
    assert "only 5 documents" in mon.documents.text()
    assert mon.pairs[0].verdict == "not yet" and mon.documents.completed == 4
