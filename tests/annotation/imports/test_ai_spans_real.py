"""ESA^AI on the shipped WMT21 TED en-de MQM data (skipped with the reason when absent): the
campaign is imported from the CSV as an error-span campaign, its expert spans (located in
each output by their highlighted text, as bench/esa_ai_bench.py does) are written as an MQM
TSV with <v>…</v> marks and imported as AI spans; every span comes back at its offsets, and
a copy with one offset past its output is refused whole."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import Engine, func, select

from annotation.imports.ai_spans import import_ai_spans
from annotation.imports.importer import import_campaign
from annotation.judging.ai_prefill import prefill_spans
from annotation.judging.spans import DEFAULT_CATEGORIES
from bench.esa_ai_bench import reference_spans
from db.engine import session_scope
from db.schema.admin_models import AISpan
from db.schema.models import Item, Output, System
from formats.mqm.tsv import COLUMNS, mark
from formats.problems import CampaignFileError
from tests.conftest import shared_file

JUDGMENTS = ["human_score", "human_label_binary", "rater", "post_edit"]


def _mqm_tsv(path) -> tuple[bytes, int]:  # type: ignore[no-untyped-def]
    import pandas as pd

    frame = pd.read_csv(path, usecols=["item_id", "system", "source", "output"])
    outputs, _, _ = reference_spans(path)
    lines, n = ["\t".join(COLUMNS)], 0
    for (item, system, source), (text, spans) in zip(
        frame[["item_id", "system", "source"]].itertuples(index=False), outputs, strict=True
    ):
        head = [system, "talk", "1", item, "rater", source]
        if not spans:
            lines.append("\t".join([*head, text, "No-error", "No-error"]))
        for s, e, major in spans:
            lines.append(
                "\t".join([*head, mark(text, s, e), "Accuracy", "Major" if major else "Minor"])
            )
            n += 1
    return ("\n".join(lines) + "\n").encode(), n


def test_wmt21_ted_spans_as_an_ai_prefill(sqlite_engine: Engine) -> None:
    path = shared_file("wmt21-ted-mqm/wmt21_ted_ende.csv")
    report = import_campaign(
        sqlite_engine, path, "ted", ignore=JUDGMENTS, settings={"mode": "spans"}
    )
    assert report.outputs_added == 6877
    data, n_spans = _mqm_tsv(path)
    started = time.perf_counter()
    ai = import_ai_spans(sqlite_engine, data, "ted", source="wmt21-experts", filename="ted.tsv")
    seconds = time.perf_counter() - started
    assert (ai.spans, ai.outputs, ai.campaign_outputs) == (n_spans, 6877, 6877)
    assert n_spans == 3752 and seconds < 120
    with session_scope(sqlite_engine) as s:
        oid, text = s.execute(
            select(Output.id, Output.text)
            .join(Item, Item.id == Output.item_id)
            .join(System, System.id == Output.system_id)
            .where(Item.external_id == "wmt21-ted-ende-1", System.name == "eTranslation")
        ).one()
    (span,) = prefill_spans(sqlite_engine, oid, text, DEFAULT_CATEGORIES)
    assert text[span["start"] : span["end"]] == "aus dem Licht zu uns kommt"
    assert span["severity"] == "major"
    # a target that is not the campaign's output: refused whole, the stored spans unchanged
    lines = data.decode().split("\n")
    k = next(i for i, line in enumerate(lines) if "<v>" in line)
    lines[k] = lines[k].replace("</v>", "</v> extra")
    with pytest.raises(CampaignFileError, match=rf"row {k}, column 'target'"):
        import_ai_spans(
            sqlite_engine, "\n".join(lines).encode(), "ted", source="x", filename="t.tsv"
        )
    with session_scope(sqlite_engine) as s:
        assert s.scalar(select(func.count()).select_from(AISpan)) == n_spans + ai.clean
