"""The assignment queue: the one place that decides who sees which output next.

Design (statistics.md, "THE assumption": labelled items must be a uniformly random sample
with a recorded order and inclusion probabilities):

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
  for all, derived from ``position`` by whoever reads it. This matches annotation.importer,
  which records the share of a system's outputs that are labelled (1.0 for a census).
  Overlap slots (``slot = 1``): a random ``overlap`` share of the items (outputs, unpaired)
  get a second slot for a different annotator right after the first; their inclusion
  probability is that share, k/N. Attention slots record ``0.0`` (not a draw from the pool).
- **Attention checks** (annotation.attention) fill ``attention_rate`` of all positions, at
  random places between item groups; their answers are stored as ``kind="attention"``.
- **Claiming** (db.queue.claim_next) is atomic on SQLite and PostgreSQL; claims older than
  ``Campaign.claim_timeout_s`` can be taken by someone else; an annotator never gets an
  output they had before; finishing is a compare-and-set on the claim version.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import Engine, bindparam, select

from annotation.attention import MAJOR, degrade
from db import annotations as log
from db import queue as dbq
from db.campaigns import insert_returning_ids, next_assignment_position
from db.models import Annotator, Assignment, AttentionCheck, Campaign

Progress = Callable[[int, int], None]
SKIP_REASONS = (
    "Cannot judge: source or output is broken",
    "I do not know one of the languages well enough",
    "Offensive or harmful content",
    "Other",
)
_CHUNK = 5_000


class AccessDenied(PermissionError):
    """The annotator does not exist or their invite was revoked."""


class InvalidJudgment(ValueError):
    """The judgment does not fit the campaign's mode."""


def utcnow() -> datetime:
    return datetime.now(UTC)


# ---------------------------------------------------------------- building


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
) -> BuildReport:
    """Queue every output of the campaign that has no slot yet (see the module docstring).

    Idempotent: a second call only queues outputs added since (an appended campaign file).
    """
    tick = progress or (lambda done, total: None)
    with dbq.queue_transaction(engine) as s:
        camp = dbq.campaign_for_update(s, campaign_id)
        if camp.queue_seed is None:
            camp.queue_seed = seed if seed is not None else secrets.randbelow(2**31)
        meta = dict(camp.meta or {})
        build_no = int(meta.get("queue_builds", 0))
        rng = np.random.default_rng([camp.queue_seed, build_no])
        queued = dbq.queued_output_ids(s, campaign_id)
        pool = dbq.pool_outputs(s, campaign_id)
        fresh = [o for o in pool if o[0] not in queued]
        if not fresh:
            tick(1, 1)
            return BuildReport(campaign_id, camp.queue_seed, build_no, 0, 0, 0, 0, None)

        by_item: dict[int, list[tuple[int, int]]] = {}
        for oid, item, _system, _text in fresh:
            by_item.setdefault(item, []).append((oid, item))
        units = draw_units(by_item, camp.paired, rng)

        n_units = len(units)
        n_over = round(min(max(camp.overlap, 0.0), 1.0) * n_units)
        overlapped = (
            set(rng.choice(n_units, size=n_over, replace=False).tolist()) if n_over else set()
        )
        p_over = n_over / n_units

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
        n_regular = sum(len(g) for g in groups)

        rate = min(max(camp.attention_rate, 0.0), 0.5)
        n_att = round(rate / (1.0 - rate) * n_regular) if rate > 0 else 0
        checks = _make_checks(s, pool, n_att, rng)
        if checks:
            gaps = np.sort(rng.integers(0, len(groups) + 1, size=len(checks)))
            merged: list[list[dict[str, Any]]] = []
            c = 0
            for g_index, group in enumerate([*groups, None]):
                while c < len(checks) and gaps[c] == g_index:
                    merged.append([checks[c]])
                    c += 1
                if group is not None:
                    merged.append(group)
            groups = merged

        start = next_assignment_position(s, campaign_id)
        rows = []
        for group in groups:
            for row in group:
                rows.append(
                    {
                        **row,
                        "campaign_id": campaign_id,
                        "position": start + len(rows),
                        "state": dbq.OPEN,
                        "claim_version": 0,
                    }
                )
        for i in range(0, len(rows), _CHUNK):
            insert_returning_ids(s, Assignment, rows[i : i + _CHUNK])
            tick(min(i + _CHUNK, len(rows)), len(rows))
        meta["queue_builds"] = build_no + 1
        meta.setdefault("queue_history", []).append(
            {
                "build": build_no,
                "seed": [camp.queue_seed, build_no],
                "units": n_units,
                "paired": camp.paired,
                "overlap_units": n_over,
                "attention": len(checks),
                "first_position": start,
                "at": utcnow().isoformat(),
            }
        )
        camp.meta = meta
        dbq.refresh_statistics(s)
        return BuildReport(
            campaign_id=campaign_id,
            seed=camp.queue_seed,
            build=build_no,
            items=len(by_item),
            regular_slots=n_regular,
            overlap_slots=sum(len(units[k]) for k in overlapped),
            attention_slots=len(checks),
            first_position=start,
        )


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


def _make_checks(
    s: Any, pool: list[tuple[int, int, int, str]], n: int, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """``n`` attention slots, each with a fresh AttentionCheck of a random real output."""
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
    ids = insert_returning_ids(s, AttentionCheck, rows)
    return [
        {
            "output_id": oid,
            "item_id": item,
            "slot": 0,
            "kind": dbq.ATTENTION,
            "inclusion_prob": 0.0,
            "attention_check_id": cid,
        }
        for (oid, item), cid in zip(sources, ids, strict=True)
    ]


# ---------------------------------------------------------------- what the page shows


@dataclass(frozen=True)
class CampaignView:
    id: int
    name: str
    mode: str  # binary | post_edit | both
    show_metrics: bool
    show_reference: bool


@dataclass(frozen=True)
class Slot:
    """One output to judge. Carries no system name; ``kind`` stays on the server side of
    the page (it is never drawn)."""

    assignment_id: int
    claim_version: int
    output_id: int
    text: str
    source: str
    reference: str | None
    scores: dict[str, float | None] | None  # None when the campaign hides metrics
    kind: str = field(repr=False, default=dbq.REGULAR)


@dataclass(frozen=True)
class ProgressCounts:
    mine_judged: int
    mine_skipped: int
    queue_total: int
    queue_finished: int
    queue_open: int

    @property
    def fraction(self) -> float:
        return self.queue_finished / self.queue_total if self.queue_total else 0.0


@dataclass(frozen=True)
class View:
    campaign: CampaignView
    slot: Slot | None  # None: nothing left for this annotator
    progress: ProgressCounts
    #: Set when the previous action could not be saved (e.g. the claim expired and someone
    #: else took the item).
    notice: str | None = None


_ANNOTATOR_CAMPAIGN = (
    select(
        Annotator.revoked_at,
        Campaign.id,
        Campaign.name,
        Campaign.mode,
        Campaign.show_metrics,
        Campaign.show_reference,
        Campaign.claim_timeout_s,
        Campaign.paired,
    )
    .join(Campaign, Campaign.id == Annotator.campaign_id)
    .where(Annotator.id == bindparam("annotator_id"))
)


@dataclass(frozen=True)
class _CampaignRow:
    id: int
    name: str
    mode: str
    show_metrics: bool
    show_reference: bool
    claim_timeout_s: int
    paired: bool


def _campaign_of(s: Any, annotator_id: int) -> _CampaignRow:
    """The annotator's campaign; AccessDenied when the annotator is unknown or revoked."""
    row = s.connection().execute(_ANNOTATOR_CAMPAIGN, {"annotator_id": annotator_id}).first()
    if row is None or row[0] is not None:
        raise AccessDenied("this invite link is not valid (unknown or revoked)")
    return _CampaignRow(*row[1:])


def _view(s: Any, annotator_id: int, camp: _CampaignRow, now: datetime, notice: str | None) -> View:
    cutoff = now - timedelta(seconds=camp.claim_timeout_s)
    ids = dbq.claim_next(s, camp.id, annotator_id, now, cutoff, camp.paired)
    slot = None
    if ids:
        row = dbq.slot_row(s, ids[0])
        assert row is not None
        slot = Slot(
            assignment_id=row.assignment_id,
            claim_version=row.claim_version,
            output_id=row.output_id,
            text=row.text,
            source=row.source,
            reference=row.reference if camp.show_reference else None,
            scores=dbq.output_scores(s, row.output_id) if camp.show_metrics else None,
            kind=row.kind,
        )
    counts = dbq.queue_counts(s, camp.id)
    judged, skipped = log.annotator_judgment_counts(s, annotator_id)
    total = sum(counts.values())
    return View(
        campaign=CampaignView(
            camp.id, camp.name, camp.mode, camp.show_metrics, camp.show_reference
        ),
        slot=slot,
        progress=ProgressCounts(
            mine_judged=judged,
            mine_skipped=skipped,
            queue_total=total,
            queue_finished=counts[dbq.DONE] + counts[dbq.SKIPPED],
            queue_open=counts[dbq.OPEN],
        ),
        notice=notice,
    )


def next_view(engine: Engine, annotator_id: int, now: datetime | None = None) -> View:
    """The annotator's current item (claiming the next one when they hold none)."""
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = _campaign_of(s, annotator_id)
        return _view(s, annotator_id, camp, now, None)


LOST_CLAIM = (
    "That item was not saved: it was idle longer than the campaign's claim timeout and was "
    "given to someone else. Here is your next item."
)


def submit(
    engine: Engine,
    annotator_id: int,
    assignment_id: int,
    claim_version: int,
    *,
    label: int | None = None,
    post_edit: str | None = None,
    seconds: float | None = None,
    now: datetime | None = None,
) -> View:
    """Record a judgment of a held slot and return the next view, in one transaction.

    binary: ``label`` 1/0 required; post_edit: ``post_edit`` required (its HTER against the
    shown text is stored); both: ``label`` required, ``post_edit`` stored when given.
    """
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = _campaign_of(s, annotator_id)
        _check_mode(camp.mode, label, post_edit)
        row = dbq.slot_row(s, assignment_id)
        if row is None or not dbq.finish(s, assignment_id, annotator_id, claim_version, dbq.DONE):
            return _view(s, annotator_id, camp, now, LOST_CLAIM)
        hter_value = None
        if post_edit is not None:
            from metrics.hter import hter

            hter_value = hter(row.text, post_edit)
        log.append(
            s,
            output_id=row.output_id,
            annotator_id=annotator_id,
            assignment_id=assignment_id,
            kind=log.ATTENTION if row.kind == dbq.ATTENTION else log.LABEL,
            label=label,
            post_edit=post_edit,
            hter=hter_value,
            seconds=seconds,
            created_at=now,
        )
        return _view(s, annotator_id, camp, now, None)


def _check_mode(mode: str, label: int | None, post_edit: str | None) -> None:
    if label is not None and label not in (0, 1):
        raise InvalidJudgment("label must be 1 (adequate) or 0 (inadequate)")
    if mode == "binary" and label is None:
        raise InvalidJudgment("a binary campaign needs a label")
    if mode == "post_edit" and post_edit is None:
        raise InvalidJudgment("a post-edit campaign needs the post-edited text")
    if mode == "both" and label is None:
        raise InvalidJudgment("this campaign needs a label with the post-edit")


def skip(
    engine: Engine,
    annotator_id: int,
    assignment_id: int,
    claim_version: int,
    reason: str,
    seconds: float | None = None,
    now: datetime | None = None,
) -> View:
    """Skip a held slot with a reason (no judgment; the slot stays skipped) → next view."""
    now = now or utcnow()
    if not reason.strip():
        raise InvalidJudgment("a skip needs a reason")
    with dbq.queue_transaction(engine) as s:
        camp = _campaign_of(s, annotator_id)
        row = dbq.slot_row(s, assignment_id)
        if row is None or not dbq.finish(
            s, assignment_id, annotator_id, claim_version, dbq.SKIPPED
        ):
            return _view(s, annotator_id, camp, now, LOST_CLAIM)
        log.append(
            s,
            output_id=row.output_id,
            annotator_id=annotator_id,
            assignment_id=assignment_id,
            kind=log.SKIP,
            skip_reason=reason.strip(),
            seconds=seconds,
            created_at=now,
        )
        return _view(s, annotator_id, camp, now, None)


def undo(engine: Engine, annotator_id: int, now: datetime | None = None) -> View:
    """Take back the annotator's newest judgment or skip by appending an ``undo`` row; the
    item is theirs again and shown next. Repeated undos walk further back."""
    now = now or utcnow()
    with dbq.queue_transaction(engine) as s:
        camp = _campaign_of(s, annotator_id)
        last = log.last_current_judgment(s, annotator_id)
        if last is None:
            return _view(s, annotator_id, camp, now, "Nothing to undo.")
        annotation_id, output_id, assignment_id = last
        log.append(
            s,
            output_id=output_id,
            annotator_id=annotator_id,
            assignment_id=assignment_id,
            kind=log.UNDO,
            supersedes_id=annotation_id,
            created_at=now,
        )
        if assignment_id is not None:
            dbq.reclaim_for_undo(s, assignment_id, annotator_id, now)
        return _view(s, annotator_id, camp, now, None)


# ---------------------------------------------------------------- admin side


@dataclass(frozen=True)
class QueueStatus:
    """A campaign's queue at a glance (all slots, attention checks included in ``total``)."""

    open: int
    claimed: int
    done: int
    skipped: int
    regular: int
    attention: int
    builds: int
    seed: int | None

    @property
    def total(self) -> int:
        return self.regular + self.attention


def queue_status(engine: Engine, campaign_id: int) -> QueueStatus:
    with dbq.queue_transaction(engine) as s:
        counts = dbq.queue_counts(s, campaign_id)
        kinds = dbq.kind_counts(s, campaign_id)
        settings = dbq.campaign_settings(s, campaign_id)
    return QueueStatus(
        open=counts[dbq.OPEN],
        claimed=counts[dbq.CLAIMED],
        done=counts[dbq.DONE],
        skipped=counts[dbq.SKIPPED],
        regular=kinds.get(dbq.REGULAR, 0),
        attention=kinds.get(dbq.ATTENTION, 0),
        builds=int((settings["meta"] or {}).get("queue_builds", 0)),
        seed=settings["queue_seed"],
    )


def queue_settings(engine: Engine, campaign_id: int) -> dict[str, Any]:
    """The campaign's annotation settings (mode, paired, overlap, attention_rate, …)."""
    with dbq.queue_transaction(engine) as s:
        values = dbq.campaign_settings(s, campaign_id)
    return {k: values[k] for k in dbq.QUEUE_SETTINGS}


def update_queue_settings(engine: Engine, campaign_id: int, **values: Any) -> None:
    """Change annotation settings. ``paired`` and ``overlap`` shape the next build only;
    ``attention_rate`` is capped at 0.5; ``claim_timeout_s`` is at least 30 s."""
    unknown = set(values) - set(dbq.QUEUE_SETTINGS)
    if unknown:
        raise ValueError(f"unknown settings {sorted(unknown)}")
    if "mode" in values and values["mode"] not in ("binary", "post_edit", "both"):
        raise ValueError("mode must be binary, post_edit or both")
    for key, lo, hi in (("overlap", 0.0, 1.0), ("attention_rate", 0.0, 0.5)):
        if key in values and not lo <= float(values[key]) <= hi:
            raise ValueError(f"{key} must be between {lo} and {hi}")
    if "claim_timeout_s" in values and int(values["claim_timeout_s"]) < 30:
        raise ValueError("claim_timeout_s must be at least 30 seconds")
    with dbq.queue_transaction(engine) as s:
        dbq.update_campaign_settings(s, campaign_id, values)


def annotator_overview(engine: Engine, campaign_id: int) -> list[log.AnnotatorWork]:
    """Per annotator: current labels, skips, undos, seconds per item, attention-check pass
    rate, items held now (the admin's Annotators page and the dashboard)."""
    with dbq.queue_transaction(engine) as s:
        return log.annotator_work(s, campaign_id)


def current_judgments(
    engine: Engine, campaign_id: int, annotator_id: int | None = None
) -> list[log.CurrentJudgment]:
    """Current regular judgments with assignment position and inclusion probability."""
    with dbq.queue_transaction(engine) as s:
        return log.current_judgments(s, campaign_id, annotator_id)
