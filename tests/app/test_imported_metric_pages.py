"""Imported metrics on the pages (AppTest): the calibration page calibrates a threshold on an
imported lower-is-better metric with its own direction, and the dashboard offers it as a
control."""

from __future__ import annotations

import numpy as np

from annotation.imports.importer import import_campaign
from annotation.imports.scores_import import import_scores
from tests.app.conftest import admin_page

N = 60
CAMPAIGN = "item_id,source,reference,system,output,human_label\n" + "".join(
    f"{i},src {i},ref {i},{s},out {i} {s},{(i + (s == 'B')) % 2}\n" for i in range(N) for s in "AB"
)


def _scores() -> bytes:
    rng = np.random.default_rng(3)
    rows = "".join(  # MetricX-like: smaller is better; inadequate outputs score high
        f"{i},{s},mx,{5 * (1 - (i + (s == 'B')) % 2) + rng.normal():.4f},false,24\n"
        for i in range(N)
        for s in "AB"
    )
    return ("item_id,system,metric,score,higher_is_better,version\n" + rows).encode()


def _seed(engine) -> str:  # type: ignore[no-untyped-def]
    import_campaign(engine, CAMPAIGN.encode(), "imp", filename="imp.csv")
    report = import_scores(engine, _scores(), "imp", filename="mx.csv")
    return report.metrics[0].signature


def test_calibration_page_uses_the_imported_metrics_direction(app_engine) -> None:
    sig = _seed(app_engine)
    at = admin_page("views/pages/calibration.py", "imp")
    options = at.selectbox(key="cal-metric").options
    assert "mx (imported from mx.csv, sha256 " in options[0] and "lower is better" in options[0]
    at.selectbox(key="cal-metric").set_value(sig).run()
    assert not at.exception, at.exception
    box = at.number_input(key=f"cal-threshold-{sig}")
    assert "≤ counts as adequate" in box.label
    metrics = {m.label: float(m.value) for m in at.metric}
    # a strong metric in its right direction: both rates high (the wrong one gives ≈ 0)
    assert metrics["ρ (true-positive rate)"] > 0.9 and metrics["η (true-negative rate)"] > 0.9


def test_dashboard_offers_the_imported_metric_as_a_control(app_engine) -> None:
    sig = _seed(app_engine)
    at = admin_page("views/pages/dashboard.py", "imp")
    picker = at.multiselect(key="dash-metrics")
    assert any(o.startswith("mx (imported from mx.csv") for o in picker.options)
    picker.set_value([sig]).run()
    assert not at.exception, at.exception


def test_import_page_adds_a_scores_file(app_engine) -> None:
    import_campaign(app_engine, CAMPAIGN.encode(), "imp", filename="imp.csv")
    at = admin_page("views/pages/import_campaign.py")
    at.selectbox(key="scores-campaign").set_value("imp").run()
    bad = _scores().replace(b"0,A,mx,", b"0,Z,mx,", 1)
    at.file_uploader(key="scores-file").upload("mx.csv", bad, "text/csv").run()
    [button] = [b for b in at.button if b.label == "Import scores"]
    button.click().run()
    [error] = at.error
    assert (
        "Nothing was imported" in error.value and "system 'Z' is not in the campaign" in error.value
    )
    at.file_uploader(key="scores-file").upload("mx.csv", _scores(), "text/csv").run()
    [button] = [b for b in at.button if b.label == "Import scores"]
    button.click().run()
    assert not at.error
    assert "120 of 120 outputs scored" in at.success[0].value


def test_annotator_sees_imported_scores_beside_the_item(app_engine) -> None:
    from tests.app.test_annotate import PLAIN, annotator_app, make_campaign

    make_campaign(app_engine, PLAIN)
    rows = "".join(
        f"i{j},secret-system-{k},comet22,0.8412\n"
        for j in range(len(PLAIN))
        for k in range(len(PLAIN[0]))
    )
    import_scores(app_engine, f"item_id,system,metric,score\n{rows}".encode(), "demo",
                  filename="c.csv")  # fmt: skip
    at, _ = annotator_app(app_engine, 1)
    assert "comet22: 0.8412" in at.text[0].value
