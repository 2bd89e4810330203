"""An en-de MT calibration set was accepted as the prior of an English summarisation
campaign: now refused unless confirmed, with a message that says why (the pages' two
smaller wrong answers are in tests/app/test_small_wrong_answers_pages.py)."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import Engine, update

from annotation.imports.importer import import_campaign
from annotation.results.calibration import calibration_export, import_calibration
from db.engine import session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Campaign
from db.scores.calibration import applied_sets
from db.scores.metric_scores import ScoreRow, insert_scores, save_threshold
from metrics.calibration_sets import TaskMismatch
from tests.test_reads import SIG, seed_campaign, seed_csv

ARTICLE = "The council met on Tuesday to discuss the budget for the coming year. " * 12


def _summaries(engine: Engine, name: str, *, sources: bool = True) -> int:
    """A campaign whose outputs are far shorter than their sources (or without sources),
    scored with the same chrF signature as seed_campaign's."""
    raw, pool = seed_csv(n_items=40, labelled=30, overlap=0)
    text = raw.decode().replace("source ", ARTICLE + "source ")
    if not sources:
        text = re.sub(r"^(i\d+),source \d+,", r"\1,,", raw.decode(), flags=re.M)
    cid = import_campaign(engine, text.encode(), name, filename=f"{name}.csv").campaign_id
    grid = read_campaign(engine, cid).output_ids
    rows = [ScoreRow(int(grid[s, j]), "chrf", SIG, float(pool.g[s, j] * 10 + 50))
            for s in range(grid.shape[0]) for j in range(grid.shape[1])]  # fmt: skip
    insert_scores(engine, rows)
    save_threshold(engine, cid, SIG, 50.0, True, "youden")
    return cid


def _set_lang(engine: Engine, cid: int, lang: str) -> None:
    with session_scope(engine) as s:
        s.execute(update(Campaign).where(Campaign.id == cid).values(target_lang=lang))


def test_mt_calibration_set_refused_for_a_summarisation_campaign(engine: Engine) -> None:
    mt = seed_campaign(engine, "mt-en-de", n_items=40, labelled=30, overlap=0)
    _set_lang(engine, mt, "de")
    exported = calibration_export(engine, "mt-en-de", SIG, record=False)
    assert exported.payload["source"]["target_lang"] == "de"
    assert exported.payload["source"]["task"] == "same_length"

    summ = _summaries(engine, "cnn-summaries")
    _set_lang(engine, summ, "en")
    with pytest.raises(TaskMismatch) as err:
        import_calibration(engine, "cnn-summaries", exported.json)
    msg = str(err.value)
    assert "outputs are in 'de', this campaign's in 'en'" in msg
    assert "much shorter than their sources (e.g. summarisation)" in msg
    assert applied_sets(engine, summ) == []  # nothing stored
    # explicit confirmation: the user's choice, recorded as the prior
    import_calibration(engine, "cnn-summaries", exported.json, confirm_task_mismatch=True)
    assert len(applied_sets(engine, summ)) == 1

    # a campaign that cannot be checked (no sources, no language) needs the confirmation too
    bare = _summaries(engine, "no-sources", sources=False)
    with pytest.raises(TaskMismatch, match="cannot be checked"):
        import_calibration(engine, "no-sources", exported.json)
    assert applied_sets(engine, bare) == []

    # the same kind of campaign (another en-de MT campaign) is accepted as before
    other = seed_campaign(engine, "mt-2", n_items=20, labelled=10, overlap=0)
    _set_lang(engine, other, "de-DE")
    import_calibration(engine, "mt-2", exported.json)
    assert len(applied_sets(engine, other)) == 1
