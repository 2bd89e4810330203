"""Quality-control defaults (issue 17.9): the cost the pages state is what a build queues."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from annotation.campaign.quality import DEFAULT_ATTENTION_RATE, DEFAULT_OVERLAP, qc_cost
from annotation.queue import build as queue_build
from tests.annotation.test_queue import make_campaign


@pytest.mark.parametrize(
    ("paired", "overlap", "rate"),
    [(True, DEFAULT_OVERLAP, DEFAULT_ATTENTION_RATE),
     (False, DEFAULT_OVERLAP, DEFAULT_ATTENTION_RATE), (True, 0.3, 0.2), (False, 0.0, 0.0)],
)  # fmt: skip
def test_stated_cost_is_what_the_build_queues(sqlite_engine: Engine, paired, overlap, rate) -> None:  # type: ignore[no-untyped-def]
    cid = make_campaign(sqlite_engine, 40, 3, paired=paired, overlap=overlap, attention_rate=rate)
    report = queue_build.build_queue(sqlite_engine, cid, seed=5)
    cost = qc_cost(120, 40, paired=paired, overlap=overlap, attention_rate=rate)
    assert report.overlap_slots == cost.overlap_slots
    assert report.attention_slots == cost.attention_slots
    assert report.regular_slots == 120 + cost.overlap_slots


def test_defaults_are_stated_with_their_cost() -> None:
    cost = qc_cost(
        6877, 529, paired=True, overlap=DEFAULT_OVERLAP, attention_rate=DEFAULT_ATTENTION_RATE
    )
    assert cost.overlap_slots == 53 * 13
    assert cost.describe().startswith(f"{cost.extra:,} extra judgments on top of the 6,877")
