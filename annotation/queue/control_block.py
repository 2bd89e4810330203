"""The shared control block: a set of items every annotator judges once (its redundancy is
the number of annotators), as WMT25's control set was (the same segments for every
annotator of a language pair), for per-annotator z-scores, agreement (Krippendorff's α) and
drift over time (estimators.judgments.control_block).

The organiser marks the block's items or samples them (seeded, uniformly from the pool),
and places its slots **at the start** of each annotator's work (positions before every
regular slot) or **spread** evenly through the queue's positions (each annotator meets
them as the campaign's order reaches them; in a campaign cut into tasks, in whichever of
their tasks is open then). Each annotator's slots are made the first time they ask for work
(so annotators invited later get the block too), in a random order of their own.

Whether the block's judgments count in the estimates is an explicit choice, logged with the
time and the number of labels at that moment (``meta["control_block"]["log"]``) and carried
by the slots' kind (db.schema.vocabulary.SlotKind): not counted (the default) keeps them
out of every estimate and verdict; counted lets the first judgment of each block output
enter like any other. Counting is sound for the test-set estimand only when the block was
sampled at random: marked items were chosen, not drawn.

Not (yet) for campaigns that judge documents in order (whole documents are claimed there).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from db import Engine
from db.campaign.campaigns import campaign_meta, set_campaign_meta_key
from db.engine import session_scope
from db.queue import control_block as dbc
from db.reads.campaign import campaign_id
from db.schema.vocabulary import documents_in_order

__all__ = [
    "META_KEY", "PLACEMENTS", "BlockSettings", "ControlBlockError", "block_campaign",
    "block_of", "block_report", "clear_block", "ensure_slots", "read_block", "set_block",
    "set_counted",
]  # fmt: skip

META_KEY = "control_block"
PLACEMENTS = ("start", "spread")


class ControlBlockError(ValueError):
    """A control block that cannot be set, with what to do."""


def campaign_id_or_fail(engine: Engine, campaign: str) -> int:
    cid = campaign_id(engine, campaign)
    if cid is None:
        raise ControlBlockError(f"no campaign named {campaign!r}; `cli.py campaigns` lists them.")
    return cid


@dataclass(frozen=True)
class BlockSettings:
    items: tuple[str, ...]
    placement: str
    counted: bool
    sampled: int | None  # the seed when sampled, None when marked
    log: tuple[dict, ...]


def read_block(meta: dict[str, Any]) -> BlockSettings | None:
    raw = (meta or {}).get(META_KEY)
    if not isinstance(raw, dict) or not raw.get("items"):
        return None
    return BlockSettings(tuple(raw["items"]), raw.get("placement", "start"),
                         bool(raw.get("counted")), raw.get("sampled"),
                         tuple(raw.get("log", ())))  # fmt: skip


def block_of(engine: Engine, campaign: str) -> BlockSettings | None:
    cid = campaign_id_or_fail(engine, campaign)
    with session_scope(engine) as s:
        return read_block(campaign_meta(s, cid))


def _entry(s: Any, cid: int, action: str, by: str, **what: Any) -> dict:
    return {"at": datetime.now(UTC).isoformat(timespec="seconds"), "action": action, "by": by,
            "labels": dbc.label_count(s, cid), **what}  # fmt: skip


def set_block(
    engine: Engine,
    campaign: str,
    *,
    items: Sequence[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
    placement: str = "start",
    counted: bool = False,
    by: str = "cli",
) -> BlockSettings:
    """Mark (``items``) or sample (``sample`` items, ``seed``) the block and place it; logged.
    A block set again replaces the old one (slots nobody answered are dropped; answers
    stay, with their kind)."""
    if placement not in PLACEMENTS:
        raise ControlBlockError(f"placement {placement!r}: use start or spread.")
    if (items is None) == (sample is None):
        raise ControlBlockError("give the block's items, or a number of items to sample.")
    cid = campaign_id_or_fail(engine, campaign)
    with session_scope(engine) as s:
        meta = campaign_meta(s, cid)
        if documents_in_order(meta):
            raise ControlBlockError(
                f"{campaign}: documents are judged in order, so whole documents are claimed; a "
                "control block is not supported there yet. Turn document order off first."
            )
        if items is not None:
            wanted = list(dict.fromkeys(str(i).strip() for i in items if str(i).strip()))
            missing = [i for i in wanted if i not in dbc.known_items(s, cid, wanted)]
            if missing:
                raise ControlBlockError(
                    f"{campaign}: no item {', '.join(map(repr, missing[:5]))}"
                    f"{' …' if len(missing) > 5 else ''}; give item ids as in the campaign file."
                )
            if not wanted:
                raise ControlBlockError("the block needs at least one item.")
            chosen, sampled = wanted, None
        else:
            pool = dbc.all_item_ids(s, cid)
            if not 0 < int(sample) <= len(pool):  # type: ignore[arg-type]
                raise ControlBlockError(f"sample {sample}: give a number between 1 and the "
                                        f"campaign's {len(pool)} items.")  # fmt: skip
            rng = np.random.default_rng(seed)
            pick = sorted(rng.choice(len(pool), size=int(sample), replace=False).tolist())  # type: ignore[arg-type]
            chosen, sampled = [pool[k] for k in pick], seed
        old = read_block(meta)
        dbc.drop_open_slots(s, cid)
        log = [*(old.log if old else ()), _entry(s, cid, "set", by, items=len(chosen),
               placement=placement, counted=counted, sampled=sampled)]  # fmt: skip
        value = {"items": chosen, "placement": placement, "counted": counted,
                 "sampled": sampled, "log": log}  # fmt: skip
        set_campaign_meta_key(s, cid, META_KEY, value)
        dbc.set_counted(s, cid, counted)
    return read_block({META_KEY: value})  # type: ignore[return-value]


def set_counted(engine: Engine, campaign: str, counted: bool, by: str = "cli") -> BlockSettings:
    """The explicit, logged choice: whether the block's judgments count in the estimates."""
    cid = campaign_id_or_fail(engine, campaign)
    with session_scope(engine) as s:
        meta = campaign_meta(s, cid)
        block = read_block(meta)
        if block is None:
            raise ControlBlockError(f"{campaign} has no control block; set one first.")
        raw = dict(meta[META_KEY])
        raw["counted"] = counted
        raw["log"] = [*block.log, _entry(s, cid, "counted" if counted else "not counted", by)]
        set_campaign_meta_key(s, cid, META_KEY, raw)
        dbc.set_counted(s, cid, counted)
    return read_block({META_KEY: raw})  # type: ignore[return-value]


def clear_block(engine: Engine, campaign: str, by: str = "cli") -> None:
    """Remove the block: its unanswered slots go; its answers stay, not counted."""
    cid = campaign_id_or_fail(engine, campaign)
    with session_scope(engine) as s:
        meta = campaign_meta(s, cid)
        block = read_block(meta)
        if block is None:
            return
        dbc.drop_open_slots(s, cid)
        dbc.set_counted(s, cid, False)
        log = [*block.log, _entry(s, cid, "removed", by)]
        set_campaign_meta_key(s, cid, META_KEY, {"items": [], "log": log, "counted": False})


def ensure_slots(s: Any, cid: int, annotator_id: int, raw: dict | None) -> int:
    """Make the annotator's missing block slots (the claim path calls it before a claim when
    the campaign has a block); how many were made."""
    block = read_block({META_KEY: raw}) if raw else None
    if block is None:
        return 0
    outputs = dbc.block_outputs(s, cid, block.items)
    have = dbc.my_block_outputs(s, cid, annotator_id)
    todo = [(o, i) for o, i in outputs if o not in have]
    if not todo:
        return 0
    rng = np.random.default_rng([cid, annotator_id])
    if block.placement == "spread":
        lo, hi = dbc.regular_span(s, cid)
        pos = dbc.spread_positions(len(todo), lo, hi, rng)
    else:  # before every regular slot, in a random order of this annotator's own
        pos = [int(p) - len(todo) - 1_000_000 for p in rng.permutation(len(todo))]
    made = [(o, i, p) for (o, i), p in zip(todo, pos, strict=True)]
    return dbc.add_slots(s, cid, annotator_id, made, block.counted)


def block_campaign(engine: Engine, campaign: str) -> tuple[int, BlockSettings | None]:
    cid = campaign_id_or_fail(engine, campaign)
    with session_scope(engine) as s:
        return cid, read_block(campaign_meta(s, cid))


KINDS = ("esa", "da", "score", "label")


def block_report(engine: Engine, campaign: str, kind: str | None = None):  # type: ignore[no-untyped-def]
    """The block's statistics (estimators.judgments.control_block) on ``kind`` (default:
    first of ESA score, DA score, score, label the block's judgments carry), with each
    annotator's progress; None without a block or judgments."""
    from estimators.judgments.control_block import block_stats

    cid, block = block_campaign(engine, campaign)
    if block is None:
        return None
    with session_scope(engine) as s:
        rows = dbc.block_judgments(s, cid)
        progress = dbc.block_progress(s, cid)
    column = {"label": 3, "score": 4, "esa": 5, "da": 6}
    if kind is None:
        kind = next((k for k in KINDS if any(r[column[k]] is not None for r in rows)), "label")
    if kind not in column:
        raise ControlBlockError(f"kind {kind!r}: use one of {', '.join(KINDS)}.")
    names = sorted({r[0] for r in rows} | set(progress))
    outputs = sorted({(r[1], r[2]) for r in rows})
    a_ix = {n: i for i, n in enumerate(names)}
    o_ix = {o: j for j, o in enumerate(outputs)}
    x = np.full((len(names), len(outputs)), np.nan)
    order = np.full_like(x, np.nan)
    seen: dict[str, int] = {}
    for r in rows:  # in log order: each annotator's k-th block judgment has order k
        v = r[column[kind]]
        if v is None:
            continue
        a, j = a_ix[r[0]], o_ix[(r[1], r[2])]
        seen[r[0]] = seen.get(r[0], 0) + 1
        x[a, j], order[a, j] = float(v), seen[r[0]]
    result = block_stats(x, order, names, binary=kind == "label")
    with session_scope(engine) as s:
        n_outputs = len(dbc.block_outputs(s, cid, block.items))
    return {"block": block, "kind": kind, "stats": result, "progress": progress,
            "outputs": n_outputs}  # fmt: skip
