"""The ESA 0–100 score as a label kind: stored by the span screen, read ÷ 100 by the
estimators, the default judgment of an ESA campaign, and printed on the 0–100 scale by
`cli.py evaluate`."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

import cli
from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from annotation.queue import build as queue_build
from db.engine import get_engine
from db.reads.campaign import read_campaign
from estimators.data.campaign import LabelKind, available_label_kinds, default_label_kind
from estimators.report.campaign_report import campaign_report
from tests.annotation.test_queue import make_campaign

N_ITEMS = 8


def _esa(system: int, item: int) -> float:
    return 60.0 + 3 * item if system == 0 else 30.0 + 2 * item


def _esa_campaign(engine: Engine) -> int:
    """Two systems × N_ITEMS items, every output judged once with spans and an ESA score."""
    meta = {META_KEY: SpanConfig(ask_esa=True).to_meta()}
    cid = make_campaign(engine, N_ITEMS, 2, mode="spans", meta=meta)
    queue_build.build_queue(engine, cid, seed=5)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    while v.slot is not None:
        k, j = map(int, re.match(r"output of system (\d+) for item (\d+)", v.slot.text).groups())
        v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, spans=[],
                           esa_score=_esa(k, j))  # fmt: skip
    return cid


def test_esa_scores_reach_the_estimators_rescaled(engine: Engine) -> None:
    cid = _esa_campaign(engine)
    data = read_campaign(engine, cid)
    assert LabelKind.ESA in available_label_kinds(data.judgments)
    assert default_label_kind(data.mode, data.judgments) == LabelKind.ESA
    j = data.judgments
    expected = [_esa(s, i) / 100 for s, i in zip(j.system, j.item, strict=True)]
    np.testing.assert_allclose(j.values(LabelKind.ESA), expected)
    report = campaign_report(data)
    assert report.label_kind == LabelKind.ESA
    assert any("÷ 100" in n for n in report.notes)
    human = report.estimates[("sys0", "human")]
    assert human.estimate == pytest.approx(np.mean([_esa(0, i) for i in range(N_ITEMS)]) / 100)
    assert 0.0 <= human.low <= human.high <= 1.0
    # the live verdicts ran on the bounded [0, 1] scale (the betting design needs it)
    assert report.monitor is not None
    assert all(0.0 <= s.result.low <= s.result.high <= 1.0 for s in report.monitor.systems)


def test_cli_evaluate_prints_the_esa_score_on_0_to_100(sqlite_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _esa_campaign(sqlite_engine)
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    try:
        out = CliRunner().invoke(cli.app, ["evaluate", "--campaign", "c", "--controls", ""])
        chosen = CliRunner().invoke(
            cli.app, ["evaluate", "--campaign", "c", "--controls", "", "--label-kind", "label"]
        )
    finally:
        get_engine.cache_clear()
    assert out.exit_code == 0, out.output
    assert "ESA score" in out.output and "0–100 scale" in out.output
    row = next(line for line in out.output.splitlines() if line.startswith("sys0 "))
    mean = np.mean([_esa(0, i) for i in range(N_ITEMS)])
    assert f"{mean:.4f}" in row  # 70.5000, not 0.7050
    assert chosen.exit_code == 0 and "binary label" in chosen.output


def test_cli_evaluate_zscores(sqlite_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`--zscores`: one annotator judged all 16 outputs, so z = (score − their mean) / their
    sd over the 16; system sys0's row shows the mean of its z (checked against numpy)."""
    _esa_campaign(sqlite_engine)
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    try:
        out = CliRunner().invoke(
            cli.app, ["evaluate", "--campaign", "c", "--controls", "", "--zscores"]
        )
        binary = CliRunner().invoke(cli.app, ["evaluate", "--campaign", "c", "--zscores",
                                               "--label-kind", "label"])  # fmt: skip
    finally:
        get_engine.cache_clear()
    assert out.exit_code == 0, out.output
    assert "z-scores of the ESA score" in out.output and "approximate" in out.output
    scores = np.array([[_esa(k, i) for i in range(N_ITEMS)] for k in (0, 1)])
    z = (scores - scores.mean()) / scores.std(ddof=1)
    row = next(line for line in out.output.splitlines() if line.startswith("sys0 "))
    assert f"{z[0].mean():.4f}" in row
    assert binary.exit_code != 0 and "binary label" in binary.output


def test_export_results_takes_the_label_kind(sqlite_engine, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _esa_campaign(sqlite_engine)
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    out = {}
    try:
        for kind in ("esa", "label", "nonsense"):
            path = tmp_path / f"{kind}.csv"
            res = CliRunner().invoke(cli.app, ["export-results", "--campaign", "c", "--out",
                                               str(path), "--label-kind", kind])  # fmt: skip
            out[kind] = (res, path)
    finally:
        get_engine.cache_clear()
    res, path = out["esa"]
    assert res.exit_code == 0, res.output
    assert "÷ 100" in res.output  # the scale note (stderr)
    rows = pd.read_csv(path)
    human = rows[(rows["system"] == "sys0") & (rows["method"] == rows["method"].iloc[0])]
    assert human["estimate"].iloc[0] == pytest.approx(0.705)
    res, path = out["label"]
    rows = pd.read_csv(path)
    assert res.exit_code == 0 and rows.loc[rows["system"] == "sys0", "estimate"].iloc[0] > 0.85
    assert out["nonsense"][0].exit_code != 0 and "Unknown label kind" in out["nonsense"][0].output
