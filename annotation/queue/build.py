"""Building the assignment queue: the one place that decides who sees which output next.

Design (docs/statistics-notes.md §15, the random-order assumption: labelled items must be a
uniformly random sample with a recorded order and inclusion probabilities):

- **Order.** Building the queue draws a seeded random permutation of the campaign's items
  (``Campaign.queue_seed``, set when missing; an extension of the queue uses the stream
  ``(seed, build number)``, recorded in ``Campaign.meta["queue_builds"]``). Paired design
  (default): all outputs of an item get consecutive positions, systems in a shuffled order,
  and are claimed together by one annotator. Unpaired: a permutation of all outputs.
- **Inclusion probability.** A build queues *every* output of the pool that has no slot
  yet (outputs with imported judgments already have "done" slots and are skipped), so the
  design probability of a first-judgment slot is ``1.0``: run to the end the queue is a
  census. Stopped after n of the N items, the labelled items are a uniformly random prefix
  of the recorded permutation, so every output's inclusion probability is n/N — the same
  for all, derived from ``position`` by whoever reads it. Imported judgments
  (annotation.queue.imported_slots) get "done" slots in the same kind of seeded order and record the
  share of a system's outputs that the file labels (1.0 for a census).
  Overlap slots (``slot = 1``): a random ``overlap`` share of the items (outputs, unpaired)
  get a second slot for a different annotator right after the first; their inclusion
  probability is that share, k/N. Attention slots record ``0.0`` (not a draw from the pool).
- **Attention checks** (annotation.queue.attention) fill ``attention_rate`` of the judgment
  screens (of positions; in comparative mode a screen is one item's outputs), spread evenly
  at random between claim units (:func:`spread_checks`; in document order between segments,
  not only between documents), so every task cut from the queue holds its share; their
  answers are stored as ``kind="attention"``.
- **Claiming** (db.queue.claim.claim_next) is atomic on SQLite and PostgreSQL; claims older than
  ``Campaign.claim_timeout_s`` can be taken by someone else; an annotator never gets an
  output they had before; finishing is a compare-and-set on the claim version. The
  annotator's clicks that claim and finish live in annotation.judging.session and
  annotation.judging.save; active sampling's draw rounds in annotation.queue.active_sampling.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from annotation.queue import racing
from annotation.queue.attention import MAJOR, degrade
from annotation.queue.draws import draw_blocks, draw_units
from annotation.queue.pair_policy import ADAPTIVE, policy_of
from annotation.queue.pairs import pair_groups, pairs_per_source
from db import Engine
from db.campaign.campaigns import next_assignment_position
from db.campaign.context import item_documents
from db.clock import utcnow
from db.queue import build as dbbuild
from db.queue import claim as dbq
from db.queue import settings as dbset
from db.schema.vocabulary import CampaignMode, Sampling, documents_in_order
from metrics.base import Progress

_CHUNK = 5_000


@dataclass(frozen=True)
class BuildReport:
    campaign_id: int
    seed: int
    build: int
    items: int
    regular_slots: int
    overlap_slots: int
    attention_slots: int
    first_position: int | None


def build_queue(
    engine: Engine,
    campaign_id: int,
    progress: Progress | None = None,
    *,
    seed: int | None = None,
    session: Any = None,
) -> BuildReport:
    """Queue every output of the campaign that has no slot yet (see the module docstring).

    Idempotent: a second call only queues outputs added since (an appended campaign file).
    ``session``: run inside the caller's transaction (a re-build, :func:`rebuild_in_order`).
    """
    tick = progress or (lambda done, total: None)
    with _transaction(engine, session) as s:
        camp = dbset.campaign_for_update(s, campaign_id)
        if camp.queue_seed is None:
            camp.queue_seed = seed if seed is not None else secrets.randbelow(2**31)
        meta = dict(camp.meta or {})
        build_no = int(meta.get("queue_builds", 0))
        rng = np.random.default_rng([camp.queue_seed, build_no])
        queued = dbbuild.queued_output_ids(s, campaign_id)
        pool = dbbuild.pool_outputs(s, campaign_id)
        fresh = [o for o in pool if o[0] not in queued]
        if not fresh:
            tick(1, 1)
            return BuildReport(campaign_id, camp.queue_seed, build_no, 0, 0, 0, 0, None)

        by_item = _by_item(fresh)
        preference = CampaignMode(camp.mode).asks_preference  # pairs of outputs (pairs.py)
        in_order = documents_in_order(meta) and not preference  # whole documents drawn
        if preference:
            adaptive = policy_of(meta) == ADAPTIVE  # every pair pending (pair_policy.py)
            groups, n_units, n_over = pair_groups(
                pool, queued, pairs_per_source(meta), camp.overlap, rng, every_pair=adaptive
            )
        else:
            units = (
                draw_blocks(fresh, item_documents(s, campaign_id), camp.paired, rng)
                if in_order
                else draw_units(by_item, camp.paired, rng)
            )
            overlapped = _overlapped(camp.overlap, len(units), rng)
            groups = _regular_groups(units, overlapped)
            n_units, n_over = len(units), sum(len(units[k]) for k in overlapped)
        n_regular = sum(len(g) for g in groups)
        pieces = _claim_pieces(groups, split=in_order, paired=camp.paired)
        weights = _screens(pieces, per_screen(meta, camp.paired))
        n_checks = _attention_count(camp.attention_rate, sum(weights))
        checks = _make_checks(s, pool, n_checks, rng, pairs=preference)
        groups = _mix_in_checks(pieces, checks, spread_checks(weights, len(checks), rng))

        start = next_assignment_position(s, campaign_id)
        _insert_groups(s, camp, campaign_id, groups, start, tick)
        history = {"units": n_units, "paired": camp.paired, "document_order": in_order}
        history.update(overlap_units=n_over, attention=len(checks))
        _record_build(camp, meta, build_no, history, start)
        dbbuild.refresh_statistics(s)
        return BuildReport(
            campaign_id=campaign_id,
            seed=camp.queue_seed,
            build=build_no,
            items=len(by_item),
            regular_slots=n_regular,
            overlap_slots=n_over,
            attention_slots=len(checks),
            first_position=start,
        )


def _record_build(
    camp: Any, meta: dict[str, Any], build_no: int, history: dict[str, Any], start: int
) -> None:
    """Count the build and append it to ``Campaign.meta["queue_history"]``."""
    meta["queue_builds"] = build_no + 1
    meta.setdefault("queue_history", []).append(
        {
            "build": build_no,
            "seed": [camp.queue_seed, build_no],
            **history,
            "first_position": start,
            "at": utcnow().isoformat(),
        }
    )
    camp.meta = meta


def _by_item(fresh: Sequence[tuple[int, int, int, str]]) -> dict[int, list[tuple[int, int]]]:
    """The new outputs by item, as (output id, item id) pairs."""
    by_item: dict[int, list[tuple[int, int]]] = {}
    for oid, item, _system, _text in fresh:
        by_item.setdefault(item, []).append((oid, item))
    return by_item


def _overlapped(overlap: float, n_units: int, rng: np.random.Generator) -> set[int]:
    """The units (by index) that get a second slot: a random ``overlap`` share of them."""
    n_over = round(min(max(overlap, 0.0), 1.0) * n_units)
    return set(rng.choice(n_units, size=n_over, replace=False).tolist()) if n_over else set()


def _regular_groups(
    units: list[list[tuple[int, int]]], overlapped: set[int]
) -> list[list[dict[str, Any]]]:
    """One group of slots per unit, and a second (``slot = 1``) right after an overlapped
    one; a second slot's inclusion probability is the overlap share."""
    p_over = len(overlapped) / len(units)
    groups: list[list[dict[str, Any]]] = []
    for k, unit in enumerate(units):
        for slot in (0, 1) if k in overlapped else (0,):
            groups.append(
                [
                    {
                        "output_id": oid,
                        "item_id": item,
                        "slot": slot,
                        "kind": dbq.REGULAR,
                        "inclusion_prob": 1.0 if slot == 0 else p_over,
                        "attention_check_id": None,
                    }
                    for oid, item in unit
                ]
            )
    return groups


def _attention_count(attention_rate: float, n_regular: int) -> int:
    """How many attention slots make ``attention_rate`` (capped at 0.5) of all positions."""
    rate = min(max(attention_rate, 0.0), 0.5)
    return round(rate / (1.0 - rate) * n_regular) if rate > 0 else 0


def _claim_pieces(
    groups: list[list[dict[str, Any]]], split: bool, paired: bool
) -> list[list[dict[str, Any]]]:
    """The places between which a check may go: the groups, or in document order (a group is
    a whole document) each segment's outputs (paired: claimed together) or each output."""
    if not split:
        return groups
    pieces: list[list[dict[str, Any]]] = []
    for group in groups:
        start = len(pieces)
        for row in group:
            if paired and len(pieces) > start and pieces[-1][0]["item_id"] == row["item_id"]:
                pieces[-1].append(row)
            else:
                pieces.append([row])
    return pieces


def per_screen(meta: dict[str, Any], paired: bool) -> int | None:
    """Outputs per judgment screen in comparative mode (annotation.judging.comparative's setting,
    read
    here from the meta so that the queue does not import the screen); None: one per screen."""
    raw = meta.get("comparative") or {}
    if not (paired and raw.get("on")):
        return None
    return int(raw.get("outputs") or 20)


def _screens(pieces: list[list[dict[str, Any]]], per_screen: int | None) -> list[int]:
    """How many judgment screens each piece takes: one per output, or in comparative mode
    ⌈outputs / per screen⌉ (one check is one screen either way)."""
    if per_screen is None:
        return [len(p) for p in pieces]
    return [-(-len(p) // per_screen) for p in pieces]


def spread_checks(weights: Sequence[int], n_checks: int, rng: np.random.Generator) -> list[int]:
    """Where each of ``n_checks`` checks goes among pieces of the given weights (screens):
    the index of the piece it follows (0-based), non-decreasing.

    A systematic sample with a random start (Cochran 1977, *Sampling Techniques*, ch. 8):
    with ``W`` screens and step ``L = W / n``, check ``k`` follows the piece holding screen
    ``(u + k) · L``, ``u ~ U[0, 1)``. Any run of whole pieces holding ``R`` screens then holds
    ⌊R / L⌋ or ⌈R / L⌉ checks when pieces are one screen (and within one more when a piece is
    longer than ``L``): every task cut from the queue gets its share, none gets only checks,
    and no check comes before the first real item. (A uniform draw of the gaps would pile
    checks up between the few pieces of a document-ordered queue.)
    """
    if n_checks <= 0 or not weights:
        return []
    ends = np.cumsum(np.asarray(weights, dtype=float))
    step = ends[-1] / n_checks
    targets = (rng.random() + np.arange(n_checks)) * step
    return np.searchsorted(ends, targets, side="right").tolist()


def _mix_in_checks(
    pieces: list[list[dict[str, Any]]], checks: list[dict[str, Any]], after: list[int]
) -> list[list[dict[str, Any]]]:
    """The attention slots put after the pieces :func:`spread_checks` chose."""
    merged: list[list[dict[str, Any]]] = []
    c = 0
    for k, piece in enumerate(pieces):
        merged.append(piece)
        while c < len(checks) and after[c] == k:
            merged.append([checks[c]])
            c += 1
    merged += [[check] for check in checks[c:]]
    return merged


def _insert_groups(
    s: Any,
    camp: Any,
    campaign_id: int,
    groups: list[list[dict[str, Any]]],
    start: int,
    tick: Callable[[int, int], Any],
) -> None:
    """The slots, in order from position ``start``, inserted in chunks."""
    # active sampling and racing: draw rounds decide which slots open
    # (annotation.queue.active_sampling.draw_round)
    drawn = camp.sampling == Sampling.ACTIVE or racing.is_on(camp.meta)
    drawn = drawn or policy_of(camp.meta) == ADAPTIVE  # adaptive pairs (pair_policy.py)
    first_state = dbq.PENDING if drawn else dbq.OPEN
    rows = []
    for group in groups:
        for row in group:
            rows.append(
                {
                    **row,
                    "campaign_id": campaign_id,
                    "position": start + len(rows),
                    "state": first_state,
                    "claim_version": 0,
                }
            )
    for i in range(0, len(rows), _CHUNK):
        dbbuild.insert_slots(s, rows[i : i + _CHUNK])
        tick(min(i + _CHUNK, len(rows)), len(rows))


@contextmanager
def _transaction(engine: Engine | None, session: Any) -> Iterator[Any]:
    """The caller's session when given, else a new queue transaction."""
    if session is not None:
        yield session
        return
    assert engine is not None
    with dbq.queue_transaction(engine) as s:
        yield s


def queue_paired(meta: dict[str, Any] | None) -> bool | None:
    """Whether the built queue's unanswered slots were drawn in the paired design (each
    item's outputs together): every build since the last re-build (which replaced the
    unanswered slots) was paired. None when no queue was built."""
    history = list((meta or {}).get("queue_history") or [])
    if not history:
        return None
    last_rebuild = max((k for k, h in enumerate(history) if "replaced_unanswered" in h), default=0)
    return all(h.get("paired", True) for h in history[last_rebuild:])


def rebuild_in_order(s: Any, campaign_id: int) -> BuildReport | None:
    """Re-draw a built queue after the judging unit changed (before the first label, see
    annotation.campaign.document_order): the slots nobody answered are dropped, the answered ones
    (skips, attention answers) keep their order at the front, and a new build queues every
    output again in the campaign's current mode. None when no queue was built yet."""
    meta = dict(dbset.campaign_for_update(s, campaign_id).meta or {})
    if not int(meta.get("queue_builds", 0)):
        return None
    dropped = dbbuild.drop_unanswered_slots(s, campaign_id)
    report = build_queue(None, campaign_id, session=s)
    camp = dbset.campaign_for_update(s, campaign_id)
    history = list((camp.meta or {}).get("queue_history", []))
    if history:  # say on the build that it replaced the unanswered slots
        history[-1] = {**history[-1], "replaced_unanswered": dropped}
        camp.meta = {**camp.meta, "queue_history": history}
    return report


def _make_checks(
    s: Any,
    pool: list[tuple[int, int, int, str]],
    n: int,
    rng: np.random.Generator,
    pairs: bool = False,
) -> list[dict[str, Any]]:
    """``n`` attention slots, each with a fresh AttentionCheck of a random real output;
    ``pairs`` (preference mode): each shows the original beside its degraded copy."""
    candidates = [o for o in pool if len(o[3].split()) >= 4]
    if n <= 0 or not candidates:
        return []
    rows, sources = [], []
    tries = 0
    while len(rows) < n and tries < 20 * n:
        tries += 1
        oid, item, _system, text = candidates[int(rng.integers(0, len(candidates)))]
        donor = pool[int(rng.integers(0, len(pool)))][3]
        d = degrade(text, rng, donor)
        if d is None or d.severity != MAJOR or d.text.split() == text.split():
            continue
        ops = [*d.operations, {"mqm": d.mqm}]
        rows.append(
            {
                "output_id": oid,
                "degraded_text": d.text,
                "severity": d.severity,
                "operations": ops,
                "expected_label": d.expected_label,
            }
        )
        sources.append((oid, item))
    ids = dbbuild.insert_attention_checks(s, rows)
    return [
        {
            "output_id": oid,
            "item_id": item,
            "slot": 0,
            "kind": dbq.ATTENTION,
            "inclusion_prob": 0.0,
            "attention_check_id": cid,
            **({"pair_output_id": oid} if pairs else {}),
        }
        for (oid, item), cid in zip(sources, ids, strict=True)
    ]
