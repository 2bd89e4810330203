"""Real data: a slice of WMT21 TED en-de imported, scored and calibrated end to end."""

from __future__ import annotations

import csv
import io

import sacrebleu

from annotation.results.calibration import calibrate_and_save
from db.reads.campaign import read_campaign
from metrics.scoring import score_campaign
from tests.conftest import shared_file, stored_scores
from tests.metrics.conftest import WMT_CSV, read_wmt


def test_wmt_slice_scored_exactly_and_calibrated(sqlite_engine) -> None:  # type: ignore[no-untyped-def]
    from annotation.imports.importer import import_campaign

    rows = read_wmt(shared_file(WMT_CSV), n_items=24, max_words=30)  # 312 outputs, 13 systems
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    imported = import_campaign(
        sqlite_engine,
        buf.getvalue().encode(),
        "wmt-slice",
        filename="wmt.csv",
        column_map={"human_label": "human_label_binary"},
        settings={"target_lang": "de"},
    )
    cid = imported.campaign_id
    report = score_campaign(sqlite_engine, cid, "bleu,chrf,ter")
    assert all(r.n_scored == len(rows) and r.n_no_reference == 0 for r in report.runs)

    by_key = {(r["item_id"], r["system"]): r for r in rows}
    for key, scorer in (
        ("bleu", sacrebleu.sentence_bleu),
        ("chrf", sacrebleu.sentence_chrf),
        ("ter", sacrebleu.sentence_ter),
    ):
        stored = stored_scores(sqlite_engine, cid, report.run(key).signature)
        assert len(stored) == len(rows)
        for (item, system), value in stored.items():
            row = by_key[(item, system)]
            assert value == scorer(row["output"], [row["reference"]]).score

    cal = calibrate_and_save(sqlite_engine, cid, report.run("chrf").signature)
    labels = [int(r["human_label_binary"]) for r in rows]
    assert cal.overall.n == len(rows)
    assert cal.overall.tp + cal.overall.fn == sum(labels)
    assert len(cal.per_system) == 13
    assert 0 < cal.overall.rho.estimate < 1 and 0 < cal.overall.eta.estimate < 1
    ter = calibrate_and_save(sqlite_engine, cid, report.run("ter").signature)
    assert ter.higher_is_better is False
    assert (
        read_campaign(sqlite_engine, cid).metric(report.run("ter").signature).threshold
        == ter.threshold
    )
