"""Calibration page (AppTest): ρ/η overall and per system, cells, threshold, import/refusal."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from annotation.results.calibration import (
    calibration_export,
    campaign_calibration,
    import_calibration,
)
from db.reads.campaign import campaign_id, read_campaign
from db.scores.calibration import applied_sets
from metrics.calibration_sets import SignatureMismatch
from tests.app.conftest import admin_page
from tests.test_reads import SIG, seed_campaign

PAGE = "views/pages/calibration.py"


def _page(campaign: str) -> AppTest:
    return admin_page(PAGE, campaign)


def _texts(at: AppTest) -> str:
    return "\n".join(str(x.value) for x in [*at.caption, *at.info, *at.markdown, *at.error])


def test_calibration_page_shows_rho_eta_cells_and_roc(app_engine) -> None:
    seed_campaign(app_engine, "demo", n_items=60, labelled=50, overlap=0)
    at = _page("demo")
    assert at.title[0].value == "Calibration"
    cal = calibration_export(app_engine, "demo", SIG, record=False).calibration
    o = cal.overall
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ρ (true-positive rate)"] == f"{o.rho.estimate:.3f}"
    assert metrics["η (true-negative rate)"] == f"{o.eta.estimate:.3f}"
    assert metrics["Labelled outputs"] == "150"
    confusion = at.dataframe[0].value
    assert int(confusion["metric: adequate"].iloc[0]) == o.tp
    assert int(confusion["metric: inadequate"].iloc[1]) == o.tn
    items = at.dataframe[1].value  # items behind TP (the default cell)
    assert len(items) == o.tp and (items["human_label"] == 1).all()
    at.radio(key="cal-cell").set_value("FP").run()
    items = at.dataframe[1].value
    assert len(items) == o.fp and (items["human_label"] == 0).all()
    per_system = at.dataframe[2].value
    assert list(per_system["system"]) == ["sys0", "sys1", "sys2"]
    assert per_system["TP"].sum() == o.tp
    assert "Drift test" in _texts(at)
    assert at.get("vega_lite_chart"), "ROC chart"
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Calibration set (JSON)", "Items behind it (CSV)"]


def test_threshold_change_and_save(app_engine) -> None:
    seed_campaign(app_engine, "demo", n_items=40, labelled=40, overlap=0)
    at = _page("demo")
    before = int(at.dataframe[0].value["metric: adequate"].sum())
    at.number_input(key=f"cal-threshold-{SIG}").set_value(58.0).run()
    after = int(at.dataframe[0].value["metric: adequate"].sum())
    assert after < before  # a stricter threshold says "adequate" less often
    at.button(key="cal-save").click().run()
    assert read_campaign(app_engine, campaign_id(app_engine, "demo")).metric(SIG).threshold == 58.0


def test_without_scores_or_labels_the_page_says_what_to_do(app_engine) -> None:
    seed_campaign(app_engine, "bare", n_items=10, labelled=10, overlap=0, scores=False)
    assert "No metric scores yet" in _texts(_page("bare"))
    seed_campaign(app_engine, "unlabelled", n_items=10, labelled=0, overlap=0)
    at = _page("unlabelled")
    assert "Cannot calibrate yet" in _texts(at)
    assert not at.exception


def test_imported_sets_are_listed_and_foreign_ones_refused(app_engine) -> None:
    seed_campaign(app_engine, "source", n_items=30, labelled=30, overlap=0)
    exported = calibration_export(app_engine, "source", SIG, record=False)
    seed_campaign(app_engine, "target", n_items=20, labelled=10, overlap=0)
    seed_campaign(app_engine, "foreign", n_items=20, labelled=10, overlap=0,
                  chrf_signature=SIG.replace("test", "other"))  # fmt: skip
    # AppTest cannot drive st.file_uploader; the page's button calls import_calibration and
    # shows its message verbatim, so call it here and check what the page then lists.
    with pytest.raises(SignatureMismatch, match="Refused"):
        import_calibration(app_engine, "foreign", exported.json)
    assert applied_sets(app_engine, campaign_id(app_engine, "foreign")) == []
    import_calibration(app_engine, "target", exported.json)
    at = _page("target")
    assert "Use a calibration set from another campaign" in [s.value for s in at.subheader]
    listed = [m.value for m in at.markdown if "TP" in m.value]
    assert len(listed) == 1 and SIG in listed[0]
    at.button(
        key=f"cal-remove-{applied_sets(app_engine, campaign_id(app_engine, 'target'))[0].id}"
    ).click().run()
    assert applied_sets(app_engine, campaign_id(app_engine, "target")) == []


def test_learned_control_is_calibrated_read_not_saved(app_engine) -> None:
    """Issue 14.3: the page calibrates a threshold on ŷ; it is not saved and makes no set."""
    from annotation.results.calibration import with_learned_control
    from estimators.fixed_n.controls import LEARNED

    cid = seed_campaign(app_engine, "demo", n_items=60, labelled=50, overlap=0)
    at = _page("demo")
    at.selectbox(key="cal-metric").set_value(LEARNED).run()
    assert not at.exception, at.exception
    cal, _ = campaign_calibration(with_learned_control(read_campaign(app_engine, cid)), LEARNED)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ρ (true-positive rate)"] == f"{cal.overall.rho.estimate:.3f}"
    assert metrics["η (true-negative rate)"] == f"{cal.overall.eta.estimate:.3f}"
    assert metrics["Labelled outputs"] == "150"
    assert "never saw its label" in _texts(at)
    assert at.button(key="cal-save").disabled
    assert not at.get("download_button")  # ŷ makes no calibration set for reuse


def test_the_json_of_an_untouched_page_names_the_method_it_used(app_engine, monkeypatch) -> None:
    """Issue 34.9: with the threshold left at the page's default (Youden's, none stored) the
    calibration set's JSON said "manual"; it names the method, and "manual" only once the
    threshold is typed."""
    import json

    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    files: dict[str, bytes] = {}
    load = MemoryMediaFileStorage.load_and_get_id

    def keep(self, data, mimetype, kind, filename=None):  # type: ignore[no-untyped-def]
        if isinstance(data, bytes) and filename:
            files[filename] = data
        return load(self, data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)
    seed_campaign(app_engine, "demo", n_items=40, labelled=40, overlap=0, threshold=False)
    at = _page("demo")
    assert "Youden-optimal" in at.number_input(key=f"cal-threshold-{SIG}").label
    payload = json.loads(files["demo-chrf-calibration.json"])
    assert payload["threshold_method"] == "youden", payload["threshold_method"]
    files.clear()
    at.number_input(key=f"cal-threshold-{SIG}").set_value(58.0).run()
    payload = json.loads(files["demo-chrf-calibration.json"])
    assert (payload["threshold_method"], payload["threshold"]) == ("manual", 58.0)
