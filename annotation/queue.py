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
  for all, derived from ``position`` by whoever reads it. Imported judgments
  (``record_imported``) get "done" slots in the same kind of seeded order and record the
  share of a system's outputs that the file labels (1.0 for a census).
  Overlap slots (``slot = 1``): a random ``overlap`` share of the items (outputs, unpaired)
  get a second slot for a different annotator right after the first; their inclusion
  probability is that share, k/N. Attention slots record ``0.0`` (not a draw from the pool).
- **Attention checks** (annotation.attention) fill ``attention_rate`` of all positions, at
  random places between item groups; their answers are stored as ``kind="attention"``.
- **Claiming** (db.queue.claim_next) is atomic on SQLite and PostgreSQL; claims older than
  ``Campaign.claim_timeout_s`` can be taken by someone else; an annotator never gets an
  output they had before; finishing is a compare-and-set on the claim version. The
  annotator's clicks that claim and finish live in annotation.session.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from annotation import racing
from annotation.attention import MAJOR, degrade
from db import Engine
from db import annotations as log
from db import queue as dbq
from db.campaigns import next_assignment_position
from db.clock import utcnow
from db.vocabulary import CampaignMode, Estimand, Sampling
from estimators.live_designs import LiveDesign
from metrics.base import Progress

_CHUNK = 5_000


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
        # active sampling and racing: draw rounds decide which slots open (draw_round)
        drawn = camp.sampling == Sampling.ACTIVE or racing.is_on(camp.meta)
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
            dbq.insert_slots(s, rows[i : i + _CHUNK])
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
    ids = dbq.insert_slots(s, rows)
    by_input = dict(zip(order, ids, strict=True))
    return [by_input[k] for k in range(len(judgments))]


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
    ids = dbq.insert_attention_checks(s, rows)
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


# ---------------------------------------------------------------- active sampling

#: Items a draw round draws before it stops: small rounds let π follow the labels closely.
ROUND_DRAWS = 10
#: Pending slots a round reads at most (it stops early when they run out; the next continues).
ROUND_SLOTS = 4_000
#: Share of visited items an active campaign labels when no planned size is set.
DEFAULT_RATE = 0.5


def sampling_rate(planned_labels: int | None, n_items: int) -> float:
    """The labelling rate b of active sampling: the planned labels per system over the
    items (so the planned number of labels arrives when the whole pool has been visited),
    within [0.05, 1]; :data:`DEFAULT_RATE` without a plan."""
    if not planned_labels or n_items <= 0:
        return DEFAULT_RATE
    return min(max(planned_labels / n_items, 0.05), 1.0)


@dataclass(frozen=True)
class DrawRound:
    """One draw round, as recorded in ``Campaign.meta["active_rounds"]``."""

    round: int
    visits: int
    drawn: int
    opened: int


def draw_round(s: Any, campaign_id: int, now: Any = None) -> DrawRound | None:
    """Visit the next pending slots of an active campaign and draw which get labels.

    statistics.md §9 (Zrnic & Candès 2024). In queue order, each pending item (all its
    systems' outputs, paired design) is visited: its π is fixed from the uncertainty model
    fitted on the labels that exist now (:func:`estimators.active.item_uncertainties`, on the
    campaign's default metric, mixed with uniform by τ), then ξ ~ Bernoulli(π) with the
    campaign's seeded generator; drawn slots open, the others are "passed". Each slot records
    π × its uniform probability (1.0; the overlap share for a second slot) and the round.
    Attention slots on the way open. The round stops before the next item once
    :data:`ROUND_DRAWS` items (1 in 200 of the pool for big pools) were drawn. A campaign
    switched back to uniform opens all its pending slots with π = 1. Runs inside the
    caller's queue transaction (the claim path calls it when nothing is left to claim);
    None when nothing is pending. A racing campaign (uniform sampling) draws its rounds in
    :func:`annotation.racing.draw` instead: the systems in play only, no π recorded.
    """
    from estimators import active

    if not dbq.has_pending(s, campaign_id):  # a uniform queue at its end: no lock taken
        return None
    camp = dbq.campaign_for_update(s, campaign_id)
    if racing.is_on(camp.meta) and camp.sampling != Sampling.ACTIVE:
        done = racing.draw(s, camp, now)  # the systems in play only (annotation.racing)
        return None if done is None else DrawRound(-1, done.items, done.items, done.opened)
    pending = dbq.pending_slots(s, campaign_id, ROUND_SLOTS)  # again, under the lock
    if not pending:
        return None
    is_active = camp.sampling == Sampling.ACTIVE
    meta = dict(camp.meta or {})
    rounds = list(meta.get("active_rounds", []))
    number = len(rounds)
    record: dict[str, Any] = {"round": number, "sampling": camp.sampling or Sampling.UNIFORM}
    if is_active:
        signature = _round_metric(s, campaign_id, rounds)
        model = _round_model(dbq.round_inputs(s, campaign_id, signature), camp.mode)
        u, col = model.u, model.col
        todo = sorted({col[p.output_id] for p in pending if p.kind == dbq.REGULAR})
        rate = sampling_rate(camp.planned_labels, model.n_items)
        tau = camp.active_tau if camp.active_tau is not None else active.DEFAULT_TAU
        # ū over the items still to visit (this round's window of them)
        reference = float(np.mean(u[todo])) if todo else 0.0
        # bigger pools, bigger rounds: a round reads the campaign's labels and scores once
        draws = max(ROUND_DRAWS, model.n_items // 200)
        record.update(rate=rate, tau=tau, metric=signature, labels=model.n_labels)
    rng = np.random.default_rng([camp.queue_seed or 0, 12, number])
    decided: dict[int, tuple[bool, float]] = {}
    rows: list[dict[str, Any]] = []
    drawn = 0
    for p in pending:
        key = p.item_id if camp.paired and p.item_id is not None else p.output_id
        if p.kind == dbq.ATTENTION:
            decision = (True, 1.0)
        elif key in decided:
            decision = decided[key]
        elif p.slot > 0:  # an overlap slot of an item visited before (uniformly)
            decision = (True, 1.0)
        else:
            if is_active and drawn >= draws:
                break
            pi = 1.0
            if is_active:
                pi = float(
                    active.inclusion_probabilities(
                        u[col[p.output_id]], rate, tau, reference=reference
                    )
                )
            decision = decided[key] = (bool(rng.random() < pi), pi)
            drawn += decision[0]
        take, pi = decision
        rows.append(
            {
                "id": p.id,
                "state": dbq.OPEN if take else dbq.PASSED,
                "pi": p.base_prob * pi,
                "round": number,
            }
        )
    dbq.settle_visits(s, rows)
    record.update(
        first_position=pending[0].position,
        last_position=pending[len(rows) - 1].position,
        visits=len(decided),
        drawn=drawn,
        at=(now or utcnow()).isoformat(),
    )
    meta["active_rounds"] = [*rounds, record]
    camp.meta = meta
    opened = sum(r["state"] == dbq.OPEN for r in rows)
    return DrawRound(number, len(decided), drawn, opened)


@dataclass(frozen=True)
class _RoundModel:
    u: np.ndarray  # (N,) item uncertainty
    col: dict[int, int]  # output id → item column
    n_items: int
    n_labels: int


def _round_metric(s: Any, campaign_id: int, rounds: list[dict[str, Any]]) -> str | None:
    """The metric of the uncertainty model: the last round's, else the first scored one in
    the estimators' order of preference (fixed before any label of the round)."""
    from estimators.report import PREFERRED_METRICS

    last = next((r.get("metric") for r in reversed(rounds) if r.get("metric")), None)
    if last:
        return str(last)
    scored = dbq.round_signature(s, campaign_id)
    rank = {name: i for i, name in enumerate(PREFERRED_METRICS)}
    best = min(scored, key=lambda x: (rank.get(x[1], len(rank)), x[1], x[0]), default=None)
    return None if best is None else best[0]


def _round_model(inputs: dbq.RoundInputs, mode: str) -> _RoundModel:
    """Arrays of the campaign (one metric, first judgments) → u per item (estimators.active).
    The judgment is the campaign's: 1 − HTER (clipped) for post-edit campaigns, else the
    label."""
    from estimators import active

    systems = {sid: i for i, sid in enumerate(sorted({o[2] for o in inputs.outputs}))}
    items = {iid: j for j, iid in enumerate(sorted({o[1] for o in inputs.outputs}))}
    g = np.full((len(systems), len(items)), np.nan)
    present = np.zeros(g.shape, dtype=bool)
    at: dict[int, tuple[int, int]] = {}
    for oid, iid, sid, value in inputs.outputs:
        at[oid] = (systems[sid], items[iid])
        present[at[oid]] = True
        if value is not None:
            g[at[oid]] = value
    seen: set[int] = set()
    rows: list[tuple[int, int, float]] = []
    for oid, label, hter in inputs.judgments:
        value = (
            (None if hter is None else min(max(1.0 - hter, 0.0), 1.0))
            if mode == CampaignMode.POST_EDIT
            else label
        )
        if value is None or oid in seen or oid not in at:
            continue
        seen.add(oid)
        rows.append((*at[oid], float(value)))
    sys_a, item_a, y = (np.array(c) for c in zip(*rows, strict=True)) if rows else (
        np.zeros(0, int), np.zeros(0, int), np.zeros(0))  # fmt: skip
    u = active.item_uncertainties(g, present, sys_a.astype(int), item_a.astype(int), y)
    return _RoundModel(u, {oid: j for oid, (_, j) in at.items()}, len(items), len(rows))


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
    if "mode" in values and values["mode"] not in tuple(CampaignMode):
        raise ValueError("mode must be binary, post_edit or both")
    for key, lo, hi in (("overlap", 0.0, 1.0), ("attention_rate", 0.0, 0.5)):
        if key in values and not lo <= float(values[key]) <= hi:
            raise ValueError(f"{key} must be between {lo} and {hi}")
    if "claim_timeout_s" in values and int(values["claim_timeout_s"]) < 30:
        raise ValueError("claim_timeout_s must be at least 30 seconds")
    planned = values.get("planned_labels")
    if planned is not None and int(planned) < 1:
        raise ValueError("planned_labels must be a positive number of labels (or unset)")
    for key, kinds in (("estimand", Estimand), ("sampling", Sampling), ("live_design", LiveDesign)):
        if values.get(key) is not None and values[key] not in tuple(kinds):
            raise ValueError(f"{key} must be one of {', '.join(kinds)} (or unset)")
    tau = values.get("active_tau")
    if tau is not None and not 0.0 < float(tau) <= 1.0:
        raise ValueError("active_tau (the uniform share of active sampling) must be in (0, 1]")
    with dbq.queue_transaction(engine) as s:
        stored = dbq.campaign_settings(s, campaign_id)
        raced = racing.is_on(stored["meta"])
        if raced and (values.get("sampling") == Sampling.ACTIVE or values.get("paired") is False):
            raise ValueError(
                "racing is on: it needs uniform sampling and the paired design; switch racing "
                "off first"
            )
        if values.get("sampling") == Sampling.ACTIVE:
            paired = values.get("paired", stored["paired"])
            if not paired:
                raise ValueError(
                    "active sampling draws items with all their systems' outputs: it needs "
                    "the paired design (set paired first)"
                )
        dbq.update_campaign_settings(s, campaign_id, values)
        if values.get("sampling") == Sampling.ACTIVE:
            # the queue's untouched tail is drawn in rounds from now on (a mixed history:
            # the labels so far keep π = 1, the monitor weights the rest)
            dbq.pend_untouched_tail(s, campaign_id)


def setting_changes(engine: Engine, campaign_id: int) -> list[dbq.SettingChange]:
    """Every logged settings change of the campaign, oldest first, with the number of labels
    that existed then (``labels_before`` > 0: changed after looking at data)."""
    with dbq.queue_transaction(engine) as s:
        return dbq.setting_changes(s, campaign_id)


def annotator_overview(engine: Engine, campaign_id: int) -> list[log.AnnotatorWork]:
    """Per annotator: current labels, skips, undos, seconds per item, attention-check pass
    rate, items held now (the admin's Annotators page and the dashboard)."""
    with dbq.queue_transaction(engine) as s:
        return log.annotator_work(s, campaign_id)
