"""The error-free judgment kind of an ESA campaign: 1 where the ESA score is ≥ the campaign's
threshold and the judgment has no error span, read from the stored spans and scores; the
same per-system rate through the read, the report and `cli.py evaluate --label-kind`."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sqlalchemy import Engine, select
from typer.testing import CliRunner

import cli
from accounts.invites import create_annotator
from annotation.imports.modes import ESA_CATEGORIES, esa_span_config
from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.span_judgments import META_KEY, SETTING_KEY, set_campaign_config
from annotation.queue import build as queue_build
from db.engine import get_engine, session_scope
from db.queue.settings import setting_changes
from db.reads.campaign import read_campaign
from db.schema.models import Annotation, Annotator, Output, System
from estimators.data.campaign import BINARY_KINDS, LabelKind, available_label_kinds
from estimators.report.campaign_report import campaign_report
from tests.annotation.queue.test_queue import make_campaign

N_ITEMS = 12


def _judgment(system: int, item: int) -> tuple[list[dict], float]:
    """Spans and ESA score: every third output has a minor span, the scores spread round 85."""
    score = [95.0, 85.0, 84.0, 70.0, 100.0, 90.0][(item + system) % 6] - 10 * system
    spans = []
    if item % 3 == 0:
        spans = [{"start": 0, "end": 6, "severity": "minor", "category": ESA_CATEGORIES[0]}]
    return spans, score


def _judged(engine: Engine, threshold: float | None = None) -> int:
    cid = make_campaign(engine, N_ITEMS, 2, mode="spans",
                        meta={META_KEY: esa_span_config(threshold).to_meta()})  # fmt: skip
    queue_build.build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    while v.slot is not None:
        k, j = map(int, re.match(r"output of system (\d+) for item (\d+)", v.slot.text).groups())
        spans, score = _judgment(k, j)
        v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, spans=spans,
                           esa_score=score)  # fmt: skip
    return cid


def _by_hand(engine: Engine, cid: int, threshold: float) -> dict[str, float]:
    """Per system: the share of its stored judgments with ESA ≥ threshold and no span."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(System.name, Annotation.spans, Annotation.esa_score)
            .join(Output, Output.id == Annotation.output_id)
            .join(System, System.id == Output.system_id)
            .join(Annotator, Annotator.id == Annotation.annotator_id)
            .where(Annotator.campaign_id == cid, Annotation.kind == "label")
        ).all()
    out: dict[str, list[int]] = {}
    for name, spans, esa in rows:
        out.setdefault(name, []).append(int(esa >= threshold and not spans))
    return {name: float(np.mean(v)) for name, v in out.items()}


def test_the_error_free_rate_is_the_hand_count(engine: Engine) -> None:
    cid = _judged(engine)
    data = read_campaign(engine, cid)
    assert LabelKind.ERROR_FREE in available_label_kinds(data.judgments)
    assert LabelKind.ERROR_FREE in BINARY_KINDS
    hand = _by_hand(engine, cid, 85.0)
    assert 0 < hand["sys0"] < 1 and hand["sys0"] != hand["sys1"]
    report = campaign_report(data, label_kind=LabelKind.ERROR_FREE)
    assert report.label_kind == LabelKind.ERROR_FREE
    for name, rate in hand.items():
        human = report.estimates[(name, "human")]
        assert human.method == "human_binary_beta"
        assert human.diagnostics["mle"] == pytest.approx(rate)
        j = data.judgments
        s = data.systems.index(name)
        assert j.values(LabelKind.ERROR_FREE)[j.system == s].mean() == pytest.approx(rate)


def test_the_threshold_is_the_campaigns_and_logged(engine: Engine) -> None:
    cid = _judged(engine, threshold=70.0)
    j = read_campaign(engine, cid).judgments
    hand = _by_hand(engine, cid, 70.0)
    for s, name in enumerate(("sys0", "sys1")):
        assert j.values(LabelKind.ERROR_FREE)[j.system == s].mean() == pytest.approx(hand[name])
    assert j.error_free_threshold is not None and np.all(j.error_free_threshold == 70.0)
    # a new campaign: its threshold change before the first label goes to the setting log
    other = make_campaign(engine, 2, 1, name="d", mode="spans")
    set_campaign_config(engine, other, esa_span_config(90.0))
    with session_scope(engine) as s:
        logged = [c for c in setting_changes(s, other) if c.key == SETTING_KEY]
    assert logged and logged[-1].new_value["error_free_threshold"] == 90.0


def test_cli_evaluate_takes_the_error_free_kind(sqlite_engine: Engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    cid = _judged(sqlite_engine)
    hand = _by_hand(sqlite_engine, cid, 85.0)
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    try:
        out = CliRunner().invoke(cli.app, ["evaluate", "--campaign", "c", "--controls", "",
                                           "--label-kind", "error_free"])  # fmt: skip
    finally:
        get_engine.cache_clear()
    assert out.exit_code == 0, out.output
    assert "error-free" in out.output
    assert f"{hand['sys0']:.3f}"[:4] in out.output
