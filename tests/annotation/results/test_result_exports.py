"""The results and pairwise-verdict CSVs (the dashboard's downloads and `cli.py
export-results`): every column once in the header, the settings columns holding the
statistics settings in force."""

from __future__ import annotations

import csv
import io

from sqlalchemy import Engine

from annotation.campaign.statistics_settings import EXPORT_COLUMNS, read_statistics
from annotation.queue import build as queue_build
from annotation.results.result_exports import pairs_csv, results_csv
from db.reads.campaign import read_campaign
from estimators.report.campaign_report import campaign_report
from tests.annotation.campaign.test_live_plan import label_everything
from tests.annotation.queue.test_queue import make_campaign


def _table(raw: bytes) -> tuple[list[str], list[dict[str, str]]]:
    header = next(csv.reader(io.StringIO(raw.decode())))
    return header, list(csv.DictReader(io.StringIO(raw.decode())))


def test_pairs_and_results_csv_name_each_column_once(sqlite_engine: Engine) -> None:
    cid = make_campaign(sqlite_engine, 40, 3, name="cols", paired=True)
    queue_build.build_queue(sqlite_engine, cid, seed=2)
    label_everything(sqlite_engine, cid, 3 * 30)
    report = campaign_report(read_campaign(sqlite_engine, cid))
    stats = read_statistics(sqlite_engine, cid)
    assert report.monitor is not None
    for raw in (pairs_csv(report, stats), results_csv(report, stats)):
        header, rows = _table(raw)
        assert len(header) == len(set(header)), [c for c in header if header.count(c) > 1]
        assert set(EXPORT_COLUMNS) <= set(header) and rows
        assert {r["design"] for r in rows} == {stats.design}
        assert {r["estimand"] for r in rows} == {stats.estimand}
    header, rows = _table(pairs_csv(report, stats))
    assert len(rows) == 3 and "t_star" in header  # 3 systems, 3 pairs
