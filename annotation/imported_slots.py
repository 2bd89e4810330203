"""Imported judgments as finished slots of the queue, in the queue's kind of seeded order
(annotation.importer records them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from annotation.queue_draws import draw_units
from db import queue as dbq
from db import queue_build as dbbuild
from db.campaigns import next_assignment_position


@dataclass(frozen=True)
class ImportedJudgment:
    """One judgment of a campaign file, to be recorded as a finished slot."""

    item: str  # the item's id in the file: judgments of one item arrive together
    output_id: int
    annotator_id: int
    inclusion_prob: float  # the share of the system's outputs that the file labels


def record_imported(
    s: Any, campaign_id: int, seed: int, judgments: Sequence[ImportedJudgment]
) -> list[int]:
    """Finished ("done") slots for imported judgments, after the campaign's last position;
    their ids in the order of ``judgments``.

    Arrival order: the paired draw of ``draw_units`` seeded with the campaign's seed, a
    random permutation of the labelled items with all judgments of one item consecutive, in
    a random order, so an imported census reads like a queue run to its end.
    """
    if not judgments:
        return []
    by_item: dict[Any, list[tuple[int, Any]]] = {}
    for k, j in enumerate(judgments):
        by_item.setdefault(j.item, []).append((k, j.item))
    order = [k for unit in draw_units(by_item, True, np.random.default_rng(seed)) for k, _ in unit]
    start = next_assignment_position(s, campaign_id)
    rows = [
        {
            "campaign_id": campaign_id,
            "output_id": judgments[k].output_id,
            "annotator_id": judgments[k].annotator_id,
            "position": position,
            "inclusion_prob": judgments[k].inclusion_prob,
            "state": dbq.DONE,
            "kind": dbq.REGULAR,
        }
        for position, k in enumerate(order, start=start)
    ]
    ids = dbbuild.insert_slots(s, rows)
    by_input = dict(zip(order, ids, strict=True))
    return [by_input[k] for k in range(len(judgments))]
