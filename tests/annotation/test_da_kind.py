"""The DA / SQM slider score as a label kind (SQLite and PostgreSQL): stored by
judging.submit on 0–100 (SQM's point k as 100·k/6), refused when absent, out of range or in
the wrong mode (nothing saved); read ÷ 100 by the estimators, the default of a DA campaign;
`evaluate`, `export-results --label-kind da` (with its label-kind column) and
`export-ranking --label-kind` on it."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import Engine, func, select
from typer.testing import CliRunner

import cli
from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from db.engine import get_engine, session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Annotation
from estimators.base.verdicts import Outcome
from estimators.data.campaign import LabelKind, available_label_kinds, default_label_kind
from estimators.report.campaign_report import campaign_report
from tests.annotation.test_queue import make_campaign

N_ITEMS = 40


def _da(system: int, item: int) -> float:
    """sys0 about 25 points above sys1, with some spread."""
    return float(70 + (item * 7) % 21 if system == 0 else 40 + (item * 11) % 19)


def _da_campaign(engine: Engine, mode: str = "da") -> tuple[int, int]:
    cid = make_campaign(engine, N_ITEMS, 2, mode=mode)
    queue_build.build_queue(engine, cid, seed=5)
    a = create_annotator(engine, cid, "a").annotator_id
    return cid, a


def _judge_all(engine: Engine, a: int) -> None:
    v = session.next_view(engine, a)
    while v.slot is not None:
        k, j = map(int, re.match(r"output of system (\d+) for item (\d+)", v.slot.text).groups())
        v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version,
                           da_score=_da(k, j))  # fmt: skip


def _count(engine: Engine) -> int:
    with session_scope(engine) as s:
        return s.scalar(select(func.count(Annotation.id)))


@pytest.mark.parametrize(
    ("kwargs", "why"),
    [
        ({}, "set the score first"),
        ({"da_score": 101}, "between 0 and 100"),
        ({"da_score": float("nan")}, "between 0 and 100"),
        ({"da_score": "70"}, "must be a number"),
        ({"da_score": True}, "must be a number"),
        ({"da_score": 50, "label": 1}, "slider score only"),
    ],
)
def test_bad_da_scores_are_refused_and_save_nothing(engine: Engine, kwargs, why) -> None:  # type: ignore[no-untyped-def]
    _, a = _da_campaign(engine)
    v = session.next_view(engine, a)
    with pytest.raises(session.InvalidJudgment, match=why):
        judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, **kwargs)
    assert _count(engine) == 0


def test_sqm_takes_whole_points_and_stores_them_on_100(engine: Engine) -> None:
    _, a = _da_campaign(engine, mode="sqm")
    v = session.next_view(engine, a)
    with pytest.raises(session.InvalidJudgment, match="whole point"):
        judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, da_score=2.5)
    with pytest.raises(session.InvalidJudgment, match="between 0 and 6"):
        judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, da_score=7)
    judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, da_score=5)
    with session_scope(engine) as s:
        assert s.scalars(select(Annotation.da_score)).all() == [pytest.approx(500 / 6)]


def test_a_binary_campaign_refuses_a_slider_score(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 2, mode="binary")
    queue_build.build_queue(engine, cid, seed=5)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    with pytest.raises(session.InvalidJudgment, match="does not take a slider"):
        judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1,
                       da_score=50)  # fmt: skip
    assert _count(engine) == 0


def test_da_scores_reach_the_estimators_rescaled(engine: Engine) -> None:
    cid, a = _da_campaign(engine)
    _judge_all(engine, a)
    data = read_campaign(engine, cid)
    assert available_label_kinds(data.judgments) == [LabelKind.DA]
    assert default_label_kind(data.mode, data.judgments) == LabelKind.DA
    j = data.judgments
    expected = [_da(s, i) / 100 for s, i in zip(j.system, j.item, strict=True)]
    np.testing.assert_allclose(j.values(LabelKind.DA), expected)
    report = campaign_report(data)
    assert report.label_kind == LabelKind.DA
    assert any("DA / SQM score is analysed" in n for n in report.notes)
    human = report.estimates[("sys0", "human")]
    assert human.estimate == pytest.approx(np.mean([_da(0, i) for i in range(N_ITEMS)]) / 100)
    # the live verdicts ran on [0, 1] and find the 25-point gap over 40 paired items
    assert report.monitor is not None
    assert all(0.0 <= s.result.low <= s.result.high <= 1.0 for s in report.monitor.systems)
    (pair,) = report.monitor.pairs
    assert pair.outcome == (Outcome.A_BETTER if pair.a == "sys0" else Outcome.B_BETTER)


def _cli(engine: Engine, monkeypatch, *args: str):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(engine.url))
    get_engine.cache_clear()
    try:
        return CliRunner().invoke(cli.app, list(args))
    finally:
        get_engine.cache_clear()


def test_cli_on_da(sqlite_engine, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _, a = _da_campaign(sqlite_engine)
    _judge_all(sqlite_engine, a)
    out = _cli(sqlite_engine, monkeypatch, "evaluate", "--campaign", "c", "--controls", "")
    assert out.exit_code == 0, out.output
    assert "DA / SQM score" in out.output and "0–100 scale" in out.output
    row = next(line for line in out.output.splitlines() if line.startswith("sys0 "))
    assert f"{np.mean([_da(0, i) for i in range(N_ITEMS)]):.4f}" in row

    res = _cli(sqlite_engine, monkeypatch, "export-results", "--campaign", "c", "--out",
               str(tmp_path / "r.csv"), "--label-kind", "da")  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = pd.read_csv(tmp_path / "r.csv")
    assert set(rows["label_kind"]) == {"da"}

    res = _cli(sqlite_engine, monkeypatch, "export-ranking", "--campaign", "c", "--out",
               str(tmp_path / "k.csv"), "--label-kind", "da")  # fmt: skip
    assert res.exit_code == 0, res.output
    ranking = pd.read_csv(tmp_path / "k.csv")
    assert list(ranking["system"]) == ["sys0", "sys1"]
    assert list(ranking["cluster"]) == [1, 2]  # the gap is significant: two clusters
    assert ranking["estimate"].iloc[0] == pytest.approx(
        np.mean([_da(0, i) for i in range(N_ITEMS)]) / 100)  # fmt: skip
    from io import BytesIO

    from annotation.results.exports import export_annotations

    ann = pd.read_csv(BytesIO(export_annotations(sqlite_engine, "c", "csv")))
    assert sorted(ann["da_score"]) == sorted(_da(k, i) for k in (0, 1) for i in range(N_ITEMS))
    bad = _cli(sqlite_engine, monkeypatch, "export-ranking", "--campaign", "c", "--out",
               str(tmp_path / "x.csv"), "--label-kind", "nonsense")  # fmt: skip
    assert bad.exit_code != 0 and "Unknown label kind" in bad.output


def test_plan_on_the_score_variance(sqlite_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`cli.py plan --smallest-difference 0.05 --score-sd 0.2` stores the variance-based
    plan (2·0.04·(z_{1−0.05/2} + z_{0.8})² / 0.05² = 252 for two systems), not the binary
    worst case; a sd outside (0, 0.5] is refused and changes nothing."""
    from annotation.campaign.live_plan import current_plan, forecast_planned_labels

    cid, _ = _da_campaign(sqlite_engine)
    assert forecast_planned_labels(2, 0.05, score_sd=0.2) == 252
    assert forecast_planned_labels(2, 0.05) > 6 * 252
    bad = _cli(sqlite_engine, monkeypatch, "plan", "--campaign", "c", "--smallest-difference",
               "0.05", "--score-sd", "0.7")  # fmt: skip
    assert bad.exit_code != 0 and "--score-sd must lie in (0, 0.5]" in bad.output
    before = current_plan(sqlite_engine, cid).planned_labels
    assert before != 252
    out = _cli(sqlite_engine, monkeypatch, "plan", "--campaign", "c", "--smallest-difference",
               "0.05", "--score-sd", "0.2")  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "score sd 0.2" in out.output
    assert current_plan(sqlite_engine, cid).planned_labels == 252
