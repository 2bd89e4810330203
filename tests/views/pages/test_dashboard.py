"""Dashboard page (AppTest): estimates, verdicts, empty states, exports, caching."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from annotation.imports.importer import import_campaign
from tests.db.reads.test_campaign import seed_campaign
from tests.views.conftest import admin_page

PAGE = "views/pages/dashboard.py"


def _dashboard(campaign: str | None = None) -> AppTest:
    return admin_page(PAGE, campaign)


def _texts(at: AppTest) -> str:
    parts = (
        [c.value for c in at.caption] + [i.value for i in at.info] + [m.value for m in at.markdown]
    )
    return "\n".join(str(p) for p in parts)


def test_dashboard_on_a_labelled_scored_campaign(app_engine) -> None:
    seed_campaign(app_engine, "demo", n_items=80, labelled=60, overlap=6)
    at = _dashboard("demo")
    assert at.title[0].value == "Dashboard"
    table = at.dataframe[0].value
    assert list(table["system"]) == ["sys0", "sys1", "sys2"]
    for column in ("Human only", "von Däniken mixed (per-system)", "Double sampling (per-system)",
                   "Control variates / PPI++", "Anytime-valid (live)"):  # fmt: skip
        assert column in table.columns, column
        assert table[column].str.match(r"^0\.\d{3} \[").all(), table[column]
    ranks = list(table["rank set"])  # sys0 has δ = +0.8, sys2 δ = −0.8
    assert ranks[0].startswith("1") and ranks[2].endswith("3") and ranks[0] != ranks[2]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Human judgments"] == "198"  # 3 × 60 + 3 × 6 overlap
    assert metrics["Labelled outputs"] == "180"
    texts = _texts(at)
    assert "Control variates / PPI++**: chrf" in texts
    assert "Krippendorff" in "\n".join(m.label for m in at.metric) or "Krippendorff" in texts
    assert len(at.get("vega_lite_chart")) >= 2  # verdict matrix and width chart
    labels = [b.label for b in at.get("download_button")]
    for wanted in ("Results (CSV)", "Results (LaTeX)", "Annotations (CSV)", "Annotations (JSONL)",
                   "Annotations (Parquet)"):  # fmt: skip
        assert wanted in labels


def test_switching_metrics_off_leaves_human_only(app_engine) -> None:
    seed_campaign(app_engine, "demo", n_items=40, labelled=40, overlap=0)
    at = _dashboard("demo")
    at.multiselect(key="dash-metrics").set_value([]).run()
    assert not at.exception
    columns = list(at.dataframe[0].value.columns)
    assert columns == ["system", "rank set", "Human only", "Anytime-valid (live)"]
    assert "no metric chosen" in _texts(at)


def test_campaign_without_labels_explains_what_to_do(app_engine) -> None:
    csv = b"item_id,source,reference,system,output\n1,a,b,A,x\n1,a,b,B,y\n2,c,d,A,z\n2,c,d,B,w\n"
    import_campaign(app_engine, csv, "fresh", filename="fresh.csv")
    at = _dashboard("fresh")
    texts = _texts(at)
    assert "No human labels yet" in texts
    assert "No metric scores yet" in texts
    assert not at.error


def test_single_system_without_scores(app_engine) -> None:
    rows = "".join(f"{j},s{j},r{j},only,o{j},{j % 2},ann\n" for j in range(40))
    csv = ("item_id,source,reference,system,output,human_label,annotator\n" + rows).encode()
    import_campaign(app_engine, csv, "solo", filename="solo.csv")
    at = _dashboard("solo")
    texts = _texts(at)
    assert "Only one system" in texts
    assert "No metric scores yet" in texts
    assert list(at.dataframe[0].value["system"]) == ["only"]
    assert not at.error


def test_no_campaigns(app_engine) -> None:
    at = _dashboard()
    assert "No campaigns yet" in at.info[0].value


def test_refresh_recomputes_only_after_a_new_label(app_engine, monkeypatch) -> None:
    import estimators.report.campaign_report as report_module
    from db.engine import session_scope
    from db.judging.log import append
    from db.judging.log_export import annotation_log
    from db.reads.campaign import campaign_id

    calls = []
    original = report_module.campaign_report

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(report_module, "campaign_report", counting)
    seed_campaign(app_engine, "demo", n_items=40, labelled=40, overlap=0)
    at = _dashboard("demo")
    first = len(calls)
    assert first >= 1
    at.run()
    at.run()
    assert len(calls) == first, "unchanged data must not be recomputed"
    last = annotation_log(app_engine, campaign_id(app_engine, "demo"))[-1]
    with session_scope(app_engine) as s:  # an annotator undoes their last label
        append(s, output_id=_output_of(s, last["annotation_id"]),
               annotator_id=_annotator_of(s, last["annotation_id"]), kind="undo",
               supersedes_id=last["annotation_id"])  # fmt: skip
    at.run()
    assert len(calls) == first + 1
    assert {m.label: m.value for m in at.metric}["Human judgments"] == "119"


def _output_of(s, annotation_id: int) -> int:  # type: ignore[no-untyped-def]
    from db.schema.models import Annotation

    return s.get(Annotation, annotation_id).output_id


def _annotator_of(s, annotation_id: int) -> int:  # type: ignore[no-untyped-def]
    from db.schema.models import Annotation

    return s.get(Annotation, annotation_id).annotator_id


def test_reasons_are_worded_and_annotators_keep_their_columns(app_engine) -> None:
    seed_campaign(app_engine, "census", n_items=40, labelled=40, overlap=0, threshold=False)
    at = _dashboard("census")
    assert not at.exception
    texts = _texts(at)
    assert "no threshold stored for the chosen metric(s): set one on the Calibration page" in texts
    assert "every output is labelled (a census)" in texts
    [annotators] = [d.value for d in at.dataframe if "annotator" in d.value.columns]
    assert list(annotators.columns) == [
        "annotator", "role", "labels", "skips", "median seconds per item", "labels per hour",
        "attention checks", "attention pass rate", "last active",
    ]  # fmt: skip
    assert annotators["labels"].sum() == 120


@pytest.mark.slow
def test_a_dashboard_run_writes_no_download(app_engine, monkeypatch) -> None:
    """The results, pairs and ranking files are written when their button is clicked
    (deferred downloads), not on every run and auto-refresh of the page."""
    import annotation.results.result_exports as exports
    import views.dashboard.pairs as pairs

    calls: list[str] = []

    def counted(module, name: str) -> None:  # type: ignore[no-untyped-def]
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, **k: calls.append(name) or real(*a, **k))

    for name in ("results_csv", "results_latex", "pairs_csv"):
        counted(exports, name)
    for name in ("ranking_csv", "ranking_latex"):
        counted(pairs, name)
    seed_campaign(app_engine, "demo", n_items=40, labelled=30, overlap=0)
    at = _dashboard("demo")
    labels = [b.label for b in at.get("download_button")]
    for wanted in ("Results (CSV)", "Results (LaTeX)", "Pairwise verdicts (CSV)",
                   "Ranking (CSV)", "Ranking (LaTeX)"):  # fmt: skip
        assert wanted in labels
    assert calls == []


def test_a_dashboard_read_keeps_the_monitor_states_for_the_next_process(app_engine) -> None:
    """The page saves the live monitor's carried states after its read; a new server
    process (its caches cleared) resumes them and draws the same table."""
    import streamlit as st

    from db.reads.monitor_state import load_states

    cid = seed_campaign(app_engine, "demo", n_items=80, labelled=60, overlap=6)
    at = _dashboard("demo")
    assert not at.exception
    table = at.dataframe[0].value
    kept = [r for scope in ("label|z=0", "None|z=0") for r in load_states(app_engine, cid, scope)]
    assert len(kept) == 3 + 3  # 3 systems, 3 pairs
    st.cache_resource.clear()
    st.cache_data.clear()
    again = _dashboard("demo")
    assert not again.exception
    assert again.dataframe[0].value.equals(table)
