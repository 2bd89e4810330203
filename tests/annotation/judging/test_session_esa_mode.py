"""An ``esa`` campaign imported through `cli.py import --mode esa`: stored as an error-span
campaign whose screen asks for the 0–100 ESA score, with WMT's ESA guidelines and one error
category; `spans` stays MQM (no score asked)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

import cli
from accounts.invites import create_annotator
from annotation.campaign.guidelines import guidelines
from annotation.imports.modes import ESA_CATEGORIES, ESA_GUIDELINES
from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.save import InvalidJudgment
from annotation.judging.span_judgments import campaign_config
from annotation.queue import build as queue_build
from db.engine import get_engine
from db.reads.campaign import campaign_id
from db.schema.vocabulary import CampaignMode
from estimators.data.campaign import ERROR_FREE_THRESHOLD


def campaign_file(tmp_path: Path, n_items: int = 3, n_systems: int = 2) -> Path:
    rows = ["item_id,source,reference,system,output"]
    rows += [
        f"i{j},source {j},reference {j},sys{k},output of system {k} for item {j}"
        for j in range(n_items)
        for k in range(n_systems)
    ]
    path = tmp_path / "c.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def cli_import(engine: Engine, path: Path, name: str, mode: str, monkeypatch) -> int:  # type: ignore[no-untyped-def]
    """`cli.py import FILE --campaign NAME --mode MODE` against ``engine``; the campaign id."""
    monkeypatch.setenv("DATABASE_URL", engine.url.render_as_string(hide_password=False))
    get_engine.cache_clear()
    try:
        out = CliRunner().invoke(cli.app, ["import", str(path), "--campaign", name, "--mode", mode])
    finally:
        get_engine.cache_clear()
    assert out.exit_code == 0, out.output
    cid = campaign_id(engine, name)
    assert cid is not None
    return cid


def test_an_esa_import_asks_for_the_score(engine: Engine, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    cid = cli_import(engine, campaign_file(tmp_path), "esa-c", "esa", monkeypatch)
    config = campaign_config(engine, cid)
    assert config.ask_esa and config.categories == ESA_CATEGORIES
    assert config.error_free_threshold == ERROR_FREE_THRESHOLD
    assert guidelines(engine, cid).text == ESA_GUIDELINES.strip()
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "a").annotator_id
    view = session.next_view(engine, a)
    assert view.campaign.mode == CampaignMode.SPANS and view.slot is not None
    slot = view.slot
    with pytest.raises(InvalidJudgment, match="overall score from 0 to 100"):
        judging.submit(engine, a, slot.assignment_id, slot.claim_version, spans=[])
    span = {"start": 0, "end": 6, "severity": "minor", "category": ESA_CATEGORIES[0]}
    nxt = judging.submit(
        engine, a, slot.assignment_id, slot.claim_version, spans=[span], esa_score=70.0
    )
    assert nxt.slot is not None and nxt.slot.assignment_id != slot.assignment_id


def test_a_spans_import_stays_mqm(sqlite_engine: Engine, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    cid = cli_import(sqlite_engine, campaign_file(tmp_path), "mqm-c", "spans", monkeypatch)
    config = campaign_config(sqlite_engine, cid)
    assert not config.ask_esa and len(config.categories) > 1
    assert guidelines(sqlite_engine, cid).empty


def test_an_unknown_mode_names_esa(sqlite_engine: Engine, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    try:
        out = CliRunner().invoke(
            cli.app, ["import", str(campaign_file(tmp_path)), "--campaign", "x", "--mode", "mqm"]
        )
    finally:
        get_engine.cache_clear()
    assert out.exit_code != 0 and "esa" in out.output
