"""The queue's random draws: a seeded, uniformly random order of the units to judge
(items or outputs; whole documents in document order). Pure: numpy only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def draw_units(
    by_item: dict[int, list[tuple[int, int]]], paired: bool, rng: np.random.Generator
) -> list[list[tuple[int, int]]]:
    """The draw: a uniformly random order of the units (items when paired, else outputs).

    Paired: each unit is one item's outputs in a shuffled system order. Items and outputs
    are first sorted by id, so the order depends on the seed alone.
    """
    if paired:
        units = [sorted(by_item[i]) for i in sorted(by_item)]
        units = [units[k] for k in rng.permutation(len(units))]
        return [[group[k] for k in rng.permutation(len(group))] for group in units]
    flat = [o for i in sorted(by_item) for o in sorted(by_item[i])]
    return [[flat[k]] for k in rng.permutation(len(flat))]


def draw_blocks(
    fresh: Sequence[tuple[int, int, int, str]],
    docs: dict[int, str | None],
    paired: bool,
    rng: np.random.Generator,
) -> list[list[tuple[int, int]]]:
    """The draw of the document-order mode: a uniformly random order of the blocks, each
    block's segments consecutive and in document order (``items.id`` order, db.campaign.context).

    A block is one system's document (unpaired) or one document with every system's outputs
    (paired: each segment's outputs together, in a shuffled system order, as in
    :func:`draw_units`). An item without a doc_id is a document of its own. Blocks are first
    sorted by their key, so the order depends on the seed alone.
    """
    blocks: dict[tuple[Any, ...], dict[int, list[tuple[int, int]]]] = {}
    for oid, item, system, _text in fresh:
        doc = docs.get(item)
        key = ((0, doc) if doc is not None else (1, str(item)),) + (() if paired else (system,))
        blocks.setdefault(key, {}).setdefault(item, []).append((oid, item))
    keys = sorted(blocks)
    units = []
    for k in rng.permutation(len(keys)):
        segments = blocks[keys[k]]
        unit: list[tuple[int, int]] = []
        for item in sorted(segments):
            outs = sorted(segments[item])
            unit += [outs[j] for j in rng.permutation(len(outs))] if paired else outs
        units.append(unit)
    return units
