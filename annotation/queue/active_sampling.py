"""Active sampling: the draw rounds that decide which pending slots of the queue get
labels (docs/statistics-notes.md §24), and the labelling rate they aim at."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from annotation.queue import pair_policy, racing
from db.clock import utcnow
from db.queue import active_rounds as dbrounds
from db.queue import claim as dbq
from db.queue import settings as dbset
from db.schema.vocabulary import CampaignMode, Sampling

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

    docs/statistics-notes.md §24 (Zrnic & Candès 2024). In queue order, each pending item (all its
    systems' outputs, paired design) is visited: its π is fixed from the uncertainty model
    fitted on the labels that exist now (:func:`estimators.sampling.active.item_uncertainties`, on
    the
    campaign's default metric, mixed with uniform by τ), then ξ ~ Bernoulli(π) with the
    campaign's seeded generator; drawn slots open, the others are "passed". Each slot records
    π × its uniform probability (1.0; the overlap share for a second slot) and the round.
    Attention slots on the way open. The round stops before the next item once
    :data:`ROUND_DRAWS` items (1 in 200 of the pool for big pools) were drawn. A campaign
    switched back to uniform opens all its pending slots with π = 1. Runs inside the
    caller's queue transaction (the claim path calls it when nothing is left to claim);
    None when nothing is pending. A racing campaign (uniform sampling) draws its rounds in
    :func:`annotation.queue.racing.draw` instead: the systems in play only, no π recorded.
    """
    if not dbrounds.has_pending(s, campaign_id):  # a uniform queue at its end: no lock taken
        return None
    camp = dbset.campaign_for_update(s, campaign_id)
    if pair_policy.policy_of(camp.meta) == pair_policy.ADAPTIVE:
        return _pair_round(s, camp, now)
    if racing.is_on(camp.meta) and camp.sampling != Sampling.ACTIVE:
        done = racing.draw(s, camp, now)  # the systems in play only (annotation.queue.racing)
        return None if done is None else DrawRound(-1, done.items, done.items, done.opened)
    pending = dbrounds.pending_slots(s, campaign_id, ROUND_SLOTS)  # again, under the lock
    if not pending:
        return None
    meta = dict(camp.meta or {})
    rounds = list(meta.get("active_rounds", []))
    number = len(rounds)
    record: dict[str, Any] = {"round": number, "sampling": camp.sampling or Sampling.UNIFORM}
    plan = None
    if camp.sampling == Sampling.ACTIVE:
        plan = _round_plan(s, camp, pending, rounds)
        record.update(rate=plan.rate, tau=plan.tau, metric=plan.metric, labels=plan.labels)
    rng = np.random.default_rng([camp.queue_seed or 0, 12, number])
    rows, visits, drawn = _visit(pending, camp.paired, plan, rng, number)
    dbrounds.settle_visits(s, rows)
    record.update(
        first_position=pending[0].position,
        last_position=pending[len(rows) - 1].position,
        visits=visits,
        drawn=drawn,
        at=(now or utcnow()).isoformat(),
    )
    meta["active_rounds"] = [*rounds, record]
    camp.meta = meta
    opened = sum(r["state"] == dbq.OPEN for r in rows)
    return DrawRound(number, visits, drawn, opened)


def _pair_round(s: Any, camp: Any, now: Any) -> DrawRound | None:
    """An adaptive preference campaign's round (annotation.queue.pair_policy), recorded in
    ``meta["active_rounds"]`` as the other rounds are."""
    rounds = list((camp.meta or {}).get("active_rounds", []))
    number = len(rounds)
    rng = np.random.default_rng([camp.queue_seed or 0, 13, number])
    visited = pair_policy.draw_round(s, camp, rng, number)
    if visited is None:
        return None
    meta = dict(camp.meta or {})
    record = {"round": number, "sampling": pair_policy.ADAPTIVE, "visits": visited,
              "drawn": visited, "at": (now or utcnow()).isoformat()}  # fmt: skip
    meta["active_rounds"] = [*rounds, record]
    camp.meta = meta
    return DrawRound(number, visited, visited, visited)


@dataclass(frozen=True)
class _RoundPlan:
    """What an active round draws with: the items' uncertainty, the rate and τ, and the
    round's size."""

    u: np.ndarray  # (N,) item uncertainty
    col: dict[int, int]  # output id → item column
    rate: float
    tau: float
    reference: float  # ū over the items still to visit (this round's window of them)
    draws: int  # items drawn before the round stops
    metric: str | None
    labels: int

    def pi(self, output_id: int) -> float:
        """The inclusion probability of the output's item."""
        from estimators.sampling import active

        return float(
            active.inclusion_probabilities(
                self.u[self.col[output_id]], self.rate, self.tau, reference=self.reference
            )
        )


def _round_plan(s: Any, camp: Any, pending: list[Any], rounds: list[dict[str, Any]]) -> _RoundPlan:
    """The uncertainty model fitted on the labels that exist now, and the round's rate."""
    from estimators.sampling import active

    signature = _round_metric(s, camp.id, rounds)
    model = _round_model(dbrounds.round_inputs(s, camp.id, signature), camp.mode)
    u, col = model.u, model.col
    todo = sorted({col[p.output_id] for p in pending if p.kind == dbq.REGULAR})
    return _RoundPlan(
        u=u,
        col=col,
        rate=sampling_rate(camp.planned_labels, model.n_items),
        tau=camp.active_tau if camp.active_tau is not None else active.DEFAULT_TAU,
        reference=float(np.mean(u[todo])) if todo else 0.0,
        # bigger pools, bigger rounds: a round reads the campaign's labels and scores once
        draws=max(ROUND_DRAWS, model.n_items // 200),
        metric=signature,
        labels=model.n_labels,
    )


def _visit(
    pending: list[Any], paired: bool, plan: _RoundPlan | None, rng: np.random.Generator,
    number: int,
) -> tuple[list[dict[str, Any]], int, int]:  # fmt: skip
    """Visit the pending slots in queue order: (the slots' new states, the items visited,
    the items drawn). ``plan`` None: uniform, every visited slot opens with π = 1."""
    decided: dict[int, tuple[bool, float]] = {}
    rows: list[dict[str, Any]] = []
    drawn = 0
    for p in pending:
        key = p.item_id if paired and p.item_id is not None else p.output_id
        if p.kind == dbq.ATTENTION:
            decision = (True, 1.0)
        elif key in decided:
            decision = decided[key]
        elif p.slot > 0:  # an overlap slot of an item visited before (uniformly)
            decision = (True, 1.0)
        else:
            if plan is not None and drawn >= plan.draws:
                break
            pi = 1.0 if plan is None else plan.pi(p.output_id)
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
    return rows, len(decided), drawn


@dataclass(frozen=True)
class _RoundModel:
    u: np.ndarray  # (N,) item uncertainty
    col: dict[int, int]  # output id → item column
    n_items: int
    n_labels: int


def _round_metric(s: Any, campaign_id: int, rounds: list[dict[str, Any]]) -> str | None:
    """The metric of the uncertainty model: the last round's, else the first scored one in
    the estimators' order of preference (fixed before any label of the round)."""
    from estimators.report.campaign_report import PREFERRED_METRICS

    last = next((r.get("metric") for r in reversed(rounds) if r.get("metric")), None)
    if last:
        return str(last)
    scored = dbrounds.round_signature(s, campaign_id)
    rank = {name: i for i, name in enumerate(PREFERRED_METRICS)}
    best = min(scored, key=lambda x: (rank.get(x[1], len(rank)), x[1], x[0]), default=None)
    return None if best is None else best[0]


def _round_model(inputs: dbrounds.RoundInputs, mode: str) -> _RoundModel:
    """Arrays of the campaign (one metric, first judgments) → u per item
    (estimators.sampling.active).
    The judgment is the campaign's: 1 − HTER (clipped) for post-edit campaigns, else the
    label."""
    from estimators.sampling import active

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
