"""Dashboard (AppTest): a campaign judging documents in order says that documents are the
unit, and says when too few are complete for a verdict (the shipped WMT21 TED file: 5 talks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.imports.importer import import_campaign
from db.reads.campaign import campaign_id
from tests.app.conftest import admin_page
from tests.app.test_dashboard import _dashboard
from tests.estimators.test_clustered_route import doc_csv, set_document_order

WMT = Path(__file__).resolve().parents[3] / "shared/data/wmt21-ted-mqm/wmt21_ted_ende.csv"


def _warnings(at) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(str(w.value) for w in at.warning)


def _captions(at) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(str(c.value) for c in at.caption)


def test_dashboard_names_documents_as_the_unit(app_engine) -> None:
    cid = import_campaign(app_engine, doc_csv(60, 40), "docs", filename="d.csv").campaign_id
    set_document_order(app_engine, cid, True)
    at = _dashboard("docs")
    assert "Documents are the sampling unit" in _captions(at)
    assert "40 of 60 so far" in _captions(at) and "Too few" not in _warnings(at)


def test_dashboard_says_too_few_documents_with_the_count(app_engine) -> None:
    cid = import_campaign(app_engine, doc_csv(5, 4, size=12), "five", filename="f.csv").campaign_id
    set_document_order(app_engine, cid, True)
    text = _warnings(_dashboard("five"))
    assert "Too few documents for a verdict" in text and "only 5 documents" in text
    assert "4 of 5 so far" in text


def test_shipped_wmt21_ted_file_shows_the_too_few_documents_message(app_engine) -> None:
    if not WMT.exists():
        pytest.skip(f"shared data absent: {WMT} (the WMT21 TED en-de file of ../shared/data)")
    # the Import page's suggested mappings for this file (campaign_file.ALIASES)
    mapping = {"doc_id": "doc", "human_label": "human_label_binary", "annotator": "rater"}
    import_campaign(app_engine, WMT, "wmt21-ted", column_map=mapping)
    set_document_order(app_engine, campaign_id(app_engine, "wmt21-ted"), True)
    text = _warnings(_dashboard("wmt21-ted"))
    assert "only 5 documents" in text and "5 of 5 so far" in text, text


def test_planner_gives_documents_for_a_doc_ordered_campaign(app_engine) -> None:
    cid = import_campaign(app_engine, doc_csv(60, 40), "plan", filename="p.csv").campaign_id
    set_document_order(app_engine, cid, True)
    at = admin_page("views/pages/planner.py", "plan")
    at.radio(key="plan-source").set_value("Take them from a campaign").run()
    assert not at.exception, at.exception
    text = "\n".join(str(c.value) for c in at.caption)
    assert "Documents are judged in order (60 documents, 3.0 outputs each" in text, text


def test_planner_plans_documents_and_fits_the_pool_in_documents(app_engine) -> None:
    from annotation.campaign.live_plan import forecast_planned_labels
    from db.reads.campaign import read_campaign
    from estimators.planning.documents import document_plan

    cid = import_campaign(app_engine, doc_csv(60, 40), "plan", filename="p.csv").campaign_id
    set_document_order(app_engine, cid, True)
    at = admin_page("views/pages/planner.py", "plan")
    at.radio(key="plan-source").set_value("Take them from a campaign").run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert "Complete documents per system needed" in metrics, metrics
    assert "Human labels per system needed" not in metrics
    assert at.number_input(key="fit-pool-docs").value == 60
    docs = document_plan(read_campaign(app_engine, cid))
    planned = docs.documents_for(forecast_planned_labels(2, 0.10, 0.05))
    assert metrics["Planned documents per system for it"] == f"{planned:,}"
    text = "\n".join(str(c.value) for c in at.caption) + "\n".join(str(w.value) for w in at.warning)
    assert "Documents are the sampling unit: with all 60 documents judged" in text, text
