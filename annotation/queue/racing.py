"""Racing: stop drawing labels for a system once all its pairs are settled.

A racing campaign's queue is built (or, when racing is switched on mid-campaign, its
untouched tail is made) "pending", like active sampling's: :func:`draw` opens the next
:data:`ROUND_ITEMS` items in queue order, each with the slots of the systems still in play
only; the slots of dropped systems are "passed" (never shown, no label). The item order is
the queue's seeded random permutation, untouched, and every inclusion probability stays the
uniform design's (no draw round is recorded), so the monitor reads the labels as before.

Which systems are in play is recomputed from the live verdicts (the monitor of the
dashboard, :func:`estimators.report.campaign_report.campaign_report`) when a round is drawn, at most
once
per :data:`CHECK_EVERY_LABELS` new labels, in a background thread (:data:`BACKGROUND`), so
saving a label never waits for the monitor; rounds meanwhile use the systems in play known
so far (a decision on fewer past labels: still valid). A system is in play
while one of its pairs is unsettled (:func:`systems_in_play`); a dropped system stays
dropped, and its open slots are passed at once. Labels already given or held are never
touched. Switching racing off (:func:`set_racing`) opens every pending slot and every slot
racing passed, at their own positions: the queue is the uniform design's again.

Why the verdicts stay valid: docs/statistics-notes.md, "Racing".
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from db import Engine
from db.campaign.campaigns import existing_systems
from db.clock import utcnow
from db.queue import active_rounds as dbrounds
from db.queue import claim as dbq
from db.queue import racing_slots as dbrace
from db.queue import settings as dbset
from db.schema.vocabulary import Sampling, documents_in_order
from estimators.live.status import MonitorReport
from estimators.live.status import settled_pairs as monitor_settled_pairs

#: Items a racing round opens (their in-play systems' slots) before it stops.
ROUND_ITEMS = 10
#: New labels between two recomputations of the systems in play (at most one per round).
CHECK_EVERY_LABELS = 40
KEY = "racing"  # campaigns.meta[KEY]; the setting log's key


# ---------------------------------------------------------------- the decision (pure)


def settled_pairs(report: MonitorReport) -> set[tuple[str, str]]:
    """The pairs (a, b) of a monitor report whose three-way outcome is settled — A better,
    B better, or no difference larger than ε (:func:`estimators.live.status.settled_pairs`,
    under the report's own α, ε and error rate: the campaign's plan in force)."""
    return {(v.a, v.b) for v in monitor_settled_pairs(report)}


def systems_in_play(systems: Sequence[str], settled: Iterable[tuple[str, str]]) -> set[str]:
    """Systems with at least one pair not in ``settled`` (a lone system stays in play:
    it has no pair to settle)."""
    done = {frozenset(p) for p in settled}
    if len(systems) < 2:
        return set(systems)
    return {a for a in systems if any(frozenset((a, b)) not in done for b in systems if b != a)}


# ---------------------------------------------------------------- the setting


def state(meta: dict[str, Any] | None) -> dict[str, Any]:
    """The campaign's racing record: ``on``, ``dropped`` (one entry per dropped system, with
    the labels that existed then), ``checked_labels`` (labels at the last recomputation)."""
    raw = (meta or {}).get(KEY) or {}
    return {"on": bool(raw.get("on")), "dropped": list(raw.get("dropped", [])),
            "checked_labels": raw.get("checked_labels")}  # fmt: skip


def is_on(meta: dict[str, Any] | None) -> bool:
    return state(meta)["on"]


def set_racing(engine: Engine, campaign_id: int, on: bool) -> bool:
    """Switch racing on or off (logged with the number of labels so far, like every
    setting); returns whether anything changed. Racing needs the paired design and uniform
    sampling (active sampling draws its own probabilities)."""
    with dbq.queue_transaction(engine) as s:
        camp = dbset.campaign_for_update(s, campaign_id)
        meta = dict(camp.meta or {})
        record = state(meta)
        if record["on"] == on:
            return False
        if on and not camp.paired:
            raise ValueError("racing drops systems from each item's group: it needs the paired "
                             "design (set paired first)")  # fmt: skip
        if on and camp.sampling == Sampling.ACTIVE:
            raise ValueError("racing runs on the uniform design: switch sampling to uniform "
                             "first (active sampling draws its own probabilities)")  # fmt: skip
        if on and documents_in_order(meta):
            raise ValueError("documents are judged in order: racing drops systems item by "
                             "item; switch document order off first")  # fmt: skip
        dbset.log_setting_changes(s, campaign_id, {KEY: (record["on"], on)})
        if on:
            # the untouched tail is drawn in racing rounds from now on
            dbrounds.pend_untouched_tail(s, campaign_id)
            record.update(on=True, dropped=[], checked_labels=None)
        else:
            dbrace.end_racing(s, campaign_id)
            record.update(on=False, dropped=[], checked_labels=None,
                          last_dropped=record["dropped"])  # fmt: skip
        meta[KEY] = record
        camp.meta = meta
        return True


# ---------------------------------------------------------------- the rounds


@dataclass(frozen=True)
class RacingRound:
    """What one racing round did (``recomputed``: the systems in play were recomputed)."""

    items: int
    opened: int
    passed: int
    in_play: frozenset[str]
    recomputed: bool


def draw(s: Any, camp: Any, now: datetime | None = None) -> RacingRound | None:
    """Open the next :data:`ROUND_ITEMS` pending items that have a system in play, for the
    systems in play; items with none are passed on the way. Inside the caller's queue
    transaction, ``camp`` the locked campaign row. None when nothing is pending."""
    ids = existing_systems(s, camp.id)
    recomputed = False
    opened: list[int] = []
    passed: list[int] = []
    items: set[Any] = set()
    while True:
        pending = dbrace.racing_pending(s, camp.id, ROUND_ITEMS * 64 + 64)
        if not pending:
            break
        if not recomputed:
            recomputed = _refresh(s, camp, ids, now)
        dropped = {d["system"] for d in state(camp.meta)["dropped"]}
        out = {ids[name] for name in dropped if name in ids}
        batch_open, batch_pass = _decide(pending, out, items, everyone_out=out >= set(ids.values()))
        dbrace.set_pending_states(s, batch_open, batch_pass)
        opened += batch_open
        passed += batch_pass
        if len(items) >= ROUND_ITEMS or not batch_open + batch_pass:
            break
    if not opened and not passed:
        return None
    in_play = frozenset(ids) - {d["system"] for d in state(camp.meta)["dropped"]}
    return RacingRound(len(items), len(opened), len(passed), in_play, recomputed)


def _decide(
    pending: list[dbrace.RacingSlot], out: set[int], items: set[Any], *, everyone_out: bool
) -> tuple[list[int], list[int]]:
    """(slots to open, slots to pass) of pending slots in queue order, up to the item that
    would make ``items`` (the items opened so far, updated) exceed :data:`ROUND_ITEMS`.
    Attention slots open while a system is in play, and pass with the items once none is."""
    opened: list[int] = []
    passed: list[int] = []
    by_item: dict[Any, list[Any]] = {}
    order: list[Any] = []
    for slot in pending:
        key = slot.item_id if slot.kind == dbq.REGULAR else ("attention", slot.id)
        if key not in by_item:
            by_item[key] = []
            order.append(key)
        by_item[key].append(slot)
    for key in order:
        group = by_item[key]
        live = [
            g.id for g in group
            if (g.system_id not in out or g.kind == dbq.ATTENTION) and not everyone_out
        ]  # fmt: skip
        if live and key not in items and len(items) >= ROUND_ITEMS:
            break
        if live and group[0].kind == dbq.REGULAR:
            items.add(key)
        opened += live
        passed += [g.id for g in group if g.id not in live]
    return opened, passed


def _refresh(s: Any, camp: Any, ids: dict[str, int], now: datetime | None) -> bool:
    """Recompute the systems in play when :data:`CHECK_EVERY_LABELS` labels arrived since
    the last time: in a background thread (:data:`BACKGROUND`; the save that noticed it does
    not wait, the rounds meanwhile use the systems in play known so far) or inline. True
    when a recomputation started."""
    record = state(camp.meta)
    labels = dbset.current_label_count(s, camp.id)
    last = record["checked_labels"]
    if labels == 0 or (last is not None and labels - last < CHECK_EVERY_LABELS):
        return False
    _store(camp, {"checked_labels": labels})
    if BACKGROUND:
        _start(s.get_bind(), camp.id, labels, now)
    else:
        _apply(s, camp, ids, _monitor(s, camp.id), labels, now)
    return True


def _store(camp: Any, values: dict[str, Any]) -> None:
    meta = dict(camp.meta or {})
    meta[KEY] = {**meta.get(KEY, {}), **values}
    camp.meta = meta


def _apply(
    s: Any, camp: Any, ids: dict[str, int], report: MonitorReport | None, labels: int,
    now: datetime | None,
) -> None:  # fmt: skip
    """Drop the systems whose pairs are all settled in ``report`` (recorded in the
    campaign's meta with the labels then) and pass the open slots of every dropped one."""
    record = state(camp.meta)
    if report is None or not record["on"]:
        return
    names = [st.name for st in report.systems]
    in_play = systems_in_play(names, settled_pairs(report))
    known = {d["system"] for d in record["dropped"]}
    when = (now or utcnow()).isoformat()
    for name in sorted(set(names) - in_play - known):
        record["dropped"].append({"system": name, "labels": labels, "at": when})
    _store(camp, {"dropped": record["dropped"]})
    dbrace.pass_open_slots(
        s, camp.id, [ids[d["system"]] for d in record["dropped"] if d["system"] in ids]
    )


#: Recompute the systems in play in a background thread, so no save waits for the monitor
#: (measured: up to 1.4 s inline on the 13-system WMT21 campaign). Tests may set False.
BACKGROUND = True
_RUNNING: dict[tuple[str, int], threading.Thread] = {}
_GUARD = threading.Lock()
log = logging.getLogger(__name__)


def _start(engine: Engine, campaign_id: int, labels: int, now: datetime | None) -> None:
    """One recomputation per campaign at a time (a due one meanwhile is skipped: the next
    round after :data:`CHECK_EVERY_LABELS` more labels starts it)."""
    key = (str(engine.url), campaign_id)
    with _GUARD:
        running = _RUNNING.get(key)
        if running is not None and running.is_alive():
            return
        thread = threading.Thread(
            target=_recompute, args=(engine, campaign_id, labels, now), daemon=True,
            name=f"racing-{campaign_id}",
        )  # fmt: skip
        _RUNNING[key] = thread
    thread.start()


def _recompute(engine: Engine, campaign_id: int, labels: int, now: datetime | None) -> None:
    """The background recomputation: the verdicts on the committed labels (read outside
    any write lock), then a short queue transaction that drops and passes."""
    try:
        report = _monitor(engine, campaign_id)
        with dbq.queue_transaction(engine) as s:
            camp = dbset.campaign_for_update(s, campaign_id)
            _apply(s, camp, existing_systems(s, campaign_id), report, labels, now)
    except Exception:  # racing must never break annotation: the next round retries
        log.exception("racing: recomputing the systems in play of campaign %s", campaign_id)


def wait(timeout: float = 60.0) -> None:
    """Wait for running recomputations (tests, benchmarks, a CLI that exits)."""
    with _GUARD:
        threads = list(_RUNNING.values())
    for thread in threads:
        thread.join(timeout)


def _monitor(source: Any, campaign_id: int) -> MonitorReport | None:
    """The live verdicts as the dashboard shows them by default (default controls,
    α = 0.05, ε and the error rate (Holm / e-BH) of the campaign's plan in force) on the
    labels so far; ``source`` an open session, or an engine: then the labels are read in a
    queue transaction (on SQLite its lock hands the database over in turn, so saves never
    meet SQLite's busy handler and its growing sleeps) and the verdicts computed after it."""
    from db.reads.campaign import read_campaign
    from estimators.report.campaign_report import campaign_report, default_signatures

    if isinstance(source, Engine):
        with dbq.queue_transaction(source) as s:
            data = read_campaign(s, campaign_id)
    else:
        data = read_campaign(source, campaign_id)
    return campaign_report(data, signatures=default_signatures(data), width_points=2).monitor


def dropped_text(dropped: list[dict[str, Any]]) -> str:
    """'A (after 120 labels), B (after 300 labels)': the systems racing dropped, in words."""
    return ", ".join(f"{d['system']} (after {d['labels']:,} labels)" for d in dropped)


def racing_status(engine: Engine, campaign_id: int) -> tuple[bool, list[dict[str, Any]]]:
    """(racing on, the systems it dropped so far: name, labels then, when; oldest first)."""
    with dbq.queue_transaction(engine) as s:
        record = state(dbset.campaign_settings(s, campaign_id)["meta"])
    return record["on"], record["dropped"]


def dropped_systems(engine: Engine, campaign_id: int) -> list[dict[str, Any]]:
    """The systems racing dropped so far (name, labels then, when), oldest first."""
    return racing_status(engine, campaign_id)[1]
