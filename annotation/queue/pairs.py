"""Preference mode's queue: which pair of a source's outputs each slot shows.

A preference slot (``Assignment.pair_output_id`` set) shows two outputs of one source. The
build draws, for every source with k ≥ 2 outputs, ``r`` of its m = k(k−1)/2 pairs uniformly
without replacement (``r`` = ``pairs_per_source``, 1 unless the campaign's
``meta["preference"]`` says otherwise, capped at m), in a seeded random order of the
sources. Every pair of a source is then drawn with the same probability π = r/m, recorded
on the slot and copied into the judgment (``annotations.inclusion_prob``), so an estimate
weighted by 1/π (Horvitz–Thompson) stays unbiased for the mean over all pairs of all
sources, also when sources have different numbers of outputs (docs/statistics-notes.md,
"Preference judgments"). An overlap slot (``slot = 1``) asks a second annotator about the
same pair; its π is the pair's, since the second judgment does not change which pairs were
drawn.

Which side each output is shown on is decided per judgment, not here
(annotation.judging.preference.sides)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from db.schema.vocabulary import SlotKind

KEY = "preference"  # campaigns.meta[KEY] = {"pairs_per_source": r}
DEFAULT_PAIRS_PER_SOURCE = 1
MAX_PAIRS_PER_SOURCE = 190  # all pairs of 20 outputs


def pairs_per_source(meta: dict[str, Any] | None) -> int:
    """How many pairs of each source the queue draws (``meta["preference"]``); 1 unset."""
    raw = ((meta or {}).get(KEY) or {}).get("pairs_per_source")
    if raw is None:
        return DEFAULT_PAIRS_PER_SOURCE
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= MAX_PAIRS_PER_SOURCE:
        raise ValueError(
            f"pairs_per_source {raw!r} is not a whole number from 1 to {MAX_PAIRS_PER_SOURCE}"
        )
    return raw


def pair_groups(
    pool: Sequence[tuple[int, int, int, str]],
    queued: Collection[int],
    per_source: int,
    overlap: float,
    rng: np.random.Generator,
    every_pair: bool = False,
) -> tuple[list[list[dict[str, Any]]], int, int]:
    """The pair slots of the sources not queued yet (a source with any output in ``queued``
    was queued by an earlier build): one group (a claim unit) per slot, the sources in a
    seeded random order; and how many pairs and overlap slots were drawn. ``every_pair``
    (the adaptive policy, annotation.queue.pair_policy): every pair of every source, no π
    yet and no overlap — the draw rounds choose one pair per source."""
    by_item: dict[int, list[int]] = {}
    for oid, item, _system, _text in pool:
        by_item.setdefault(item, []).append(oid)
    done = {item for item, oids in by_item.items() if any(o in queued for o in oids)}
    items = sorted(i for i, oids in by_item.items() if len(oids) >= 2 and i not in done)
    drawn: list[tuple[int, int, int, float]] = []  # (item, output a, output b, π)
    for k in rng.permutation(len(items)):
        item = items[int(k)]
        pairs = list(combinations(sorted(by_item[item]), 2))
        if every_pair:
            drawn += [(item, a, b, 0.0) for a, b in pairs]  # π set when a round draws
            continue
        r = min(per_source, len(pairs))
        for c in rng.choice(len(pairs), size=r, replace=False):
            a, b = pairs[int(c)]
            drawn.append((item, a, b, r / len(pairs)))
    n_over = 0 if every_pair else round(min(max(overlap, 0.0), 1.0) * len(drawn))
    overlapped = (
        set(rng.choice(len(drawn), size=n_over, replace=False).tolist()) if n_over else set()
    )
    groups = []
    for k, (item, a, b, pi) in enumerate(drawn):
        for slot in (0, 1) if k in overlapped else (0,):
            groups.append([{
                "output_id": a, "pair_output_id": b, "item_id": item, "slot": slot,
                "kind": SlotKind.REGULAR.value, "inclusion_prob": pi, "attention_check_id": None,
            }])  # fmt: skip
    return groups, len(drawn), len(overlapped)
