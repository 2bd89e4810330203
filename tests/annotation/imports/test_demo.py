"""The generated demo campaign: systems of known, different quality, scored and queued."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import Engine

from annotation.imports.demo import DEMO_SYSTEMS, seed_demo, seed_demo_if_empty
from annotation.queue.admin import queue_status
from db.campaign.campaigns import list_campaigns
from db.reads.campaign import campaign_id, read_campaign


@pytest.mark.slow
def test_demo_is_seeded_once_scored_and_queued(sqlite_engine: Engine) -> None:
    report = seed_demo_if_empty(sqlite_engine)
    assert report is not None and report.outputs_added == 150 * len(DEMO_SYSTEMS)
    assert seed_demo_if_empty(sqlite_engine) is None
    assert len(list_campaigns(sqlite_engine)) == 1
    status = queue_status(sqlite_engine, report.campaign_id)
    assert status.done == report.judgments_added and status.open == 600 - status.done
    data = read_campaign(sqlite_engine, campaign_id(sqlite_engine, report.campaign))
    assert {m.metric for m in data.metrics} >= {"bleu", "chrf", "ter"}


def test_demo_systems_differ_in_the_known_order(sqlite_engine: Engine) -> None:
    """Human adequacy and chrF both fall with the systems' corruption rates."""
    report = seed_demo(sqlite_engine)
    data = read_campaign(sqlite_engine, campaign_id(sqlite_engine, report.campaign))
    chrf = next(m for m in data.metrics if m.metric == "chrf")
    order = [data.systems.index(name) for name in DEMO_SYSTEMS]  # best to worst
    means = [np.nanmean(data.scores[chrf.signature][s]) for s in order]
    assert means == sorted(means, reverse=True)
