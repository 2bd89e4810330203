"""Imported judgments as finished slots of the queue, in the queue's kind of seeded order
(annotation.imports.importer records them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from annotation.queue.draws import draw_units
from db.campaign.campaigns import next_assignment_position
from db.queue import build as dbbuild
from db.queue import claim as dbq


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
    """Finished ("done") slots for imported judgments (:func:`record_imported_columns`);
    their ids in the order of ``judgments``."""
    return record_imported_columns(
        s,
        campaign_id,
        seed,
        [j.item for j in judgments],
        [j.output_id for j in judgments],
        [j.annotator_id for j in judgments],
        [j.inclusion_prob for j in judgments],
    )


def record_imported_columns(
    s: Any,
    campaign_id: int,
    seed: int,
    items: Sequence[str],
    output_ids: Sequence[int],
    annotator_ids: Sequence[int],
    inclusion_probs: Sequence[float],
) -> list[int]:
    """Finished ("done") slots for imported judgments given as columns (judgment k: its
    item's id in the file, output, annotator, inclusion probability), after the campaign's
    last position; their ids in judgment order.

    Arrival order: the paired draw of ``draw_units`` seeded with the campaign's seed, a
    random permutation of the labelled items with all judgments of one item consecutive, in
    a random order, so an imported census reads like a queue run to its end.
    """
    if not items:
        return []
    by_item: dict[Any, list[tuple[int, Any]]] = {}
    for k, item in enumerate(items):
        by_item.setdefault(item, []).append((k, item))
    order = [k for unit in draw_units(by_item, True, np.random.default_rng(seed)) for k, _ in unit]
    del by_item
    start = next_assignment_position(s, campaign_id)
    rows = (  # a generator: the insert takes a chunk at a time
        {
            "campaign_id": campaign_id,
            "output_id": output_ids[k],
            "annotator_id": annotator_ids[k],
            "position": position,
            "inclusion_prob": inclusion_probs[k],
            "state": dbq.DONE,
            "kind": dbq.REGULAR,
        }
        for position, k in enumerate(order, start=start)
    )
    ids = dbbuild.insert_slots(s, rows)
    by_input = [0] * len(items)
    for k, slot in zip(order, ids, strict=True):
        by_input[k] = slot
    return by_input
