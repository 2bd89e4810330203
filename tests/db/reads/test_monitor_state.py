"""db.reads.monitor_state: the live monitor's carried states kept in the database, on real
SQLite and PostgreSQL. A second server process (an empty cache) resumes every stream from
the rows the first one's read saved, and its dashboard report equals the full
recomputation's; after a new label only the streams it touched are saved again; a row for
another plan, a broken row, or a row whose labels changed is discarded."""

from __future__ import annotations

import dataclasses

from sqlalchemy import func, select, update

from db.engine import session_scope
from db.judging.log import append
from db.reads.campaign import read_campaign
from db.reads.monitor_state import (
    forget_states,
    keep_from,
    load_states,
    resume_into,
    save_states,
)
from db.schema.admin_models import MonitorState
from db.schema.models import Annotation, Assignment, Item, Output
from db.schema.models import Campaign as CampaignRow
from estimators.caches.monitor import MonitorCache
from estimators.live.saved import SavedState
from estimators.report.campaign_report import dashboard_report
from tests.db.reads.test_delta import Campaign
from tests.estimators.caches.test_monitor import _same

SCOPE = "label|z=0"


def _report(engine, cid, cache=None):  # type: ignore[no-untyped-def]
    data = read_campaign(engine, cid)
    return dashboard_report(data, label_kind="label", monitor_cache=cache)


def _read(engine, cid, cache):  # type: ignore[no-untyped-def]
    """A dashboard read as the page does it: resume once, report, keep what changed."""
    resume_into(engine, cid, SCOPE, cache)
    rep = _report(engine, cid, cache)
    written = keep_from(engine, cid, SCOPE, cache, whole_path=True)
    return rep, written


def _queued_label(engine, cid, label=1) -> None:  # type: ignore[no-untyped-def]
    """A label as the queue gives one: a new slot at the next position, for an output of
    the pool nobody judged yet, answered."""
    with session_scope(engine) as s:
        judged = select(Annotation.output_id)
        last = s.scalars(select(Assignment).where(Assignment.campaign_id == cid)
                         .order_by(Assignment.position.desc()).limit(1)).one()  # fmt: skip
        oid = s.scalar(select(Output.id).where(Output.id.not_in(judged),
                                               Output.item_id == Item.id, Item.campaign_id == cid)
                       .order_by(Output.id).limit(1))  # fmt: skip
        item = s.scalar(select(Output.item_id).where(Output.id == oid))
        slot = Assignment(campaign_id=cid, output_id=oid, annotator_id=last.annotator_id,
                          position=last.position + 1, inclusion_prob=last.inclusion_prob,
                          state=last.state, kind=last.kind, item_id=item)  # fmt: skip
        s.add(slot)
        s.flush()
        ann = s.scalar(select(Annotation.annotator_id).limit(1))
        append(s, output_id=oid, annotator_id=ann, kind="label", label=label,
               assignment_id=slot.id, seconds=2.0)  # fmt: skip


def _rows(engine) -> int:  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        return s.scalar(select(func.count()).select_from(MonitorState))


def test_a_second_process_resumes_the_states_the_first_kept(engine) -> None:
    c = Campaign(engine)
    first = MonitorCache()
    rep, written = _read(engine, c.cid, first)
    assert rep.monitor is not None
    streams = 3 + 3  # 3 systems, 3 pairs
    assert written == streams == _rows(engine)
    second = MonitorCache()
    rep2, again = _read(engine, c.cid, second)
    assert second.resumed == streams and second.rebuilt == 0
    _same(rep2.monitor, _report(engine, c.cid).monitor)
    assert again == 0  # nothing changed: nothing written
    # a new label: a third process resumes the others and extends the touched ones
    _queued_label(engine, c.cid)
    third = MonitorCache()
    rep3, _ = _read(engine, c.cid, third)
    assert third.rebuilt == 0 and third.resumed == streams
    _same(rep3.monitor, _report(engine, c.cid).monitor)
    # ... and the second process, warm, extends its own states and saves only those
    rep2b, written2 = _read(engine, c.cid, second)
    _same(rep2b.monitor, rep3.monitor)
    # the new label's system only: its item has no label of another system yet, so no
    # pair's stream changed
    assert written2 == 1
    assert rep3.monitor.pairs[0].result.n_human != rep2.monitor.pairs[0].result.n_human or any(
        a.result.n_human != b.result.n_human
        for a, b in zip(rep3.monitor.systems, rep2.monitor.systems, strict=True)
    )


def test_rows_that_do_not_fit_are_discarded(engine) -> None:
    c = Campaign(engine)
    _read(engine, c.cid, MonitorCache())
    kept = load_states(engine, c.cid, SCOPE)
    assert load_states(engine, c.cid, "other|z=0") == []
    # broken payloads and another settings digest: nothing resumed, the report still right
    bad = [dataclasses.replace(r, payload=b"TMS1junk") for r in kept[:3]]
    save_states(
        engine, c.cid, SCOPE, bad + [dataclasses.replace(r, key=b"x" * 20) for r in kept[3:]]
    )
    fresh = MonitorCache()
    rep, _ = _read(engine, c.cid, fresh)
    assert fresh.resumed == 0
    _same(rep.monitor, _report(engine, c.cid).monitor)
    # the rows were replaced by the read: the next process resumes them
    nxt = MonitorCache()
    _read(engine, c.cid, nxt)
    assert nxt.resumed == len(kept)
    # a label changed under the kept states (a correction): the touched streams start over
    rows = c.rows(Annotation.id, Annotation.label, Annotation.output_id)
    once = [r for r in rows if sum(x[2] == r[2] for x in rows) == 1]  # judged once
    first, old, _ = once[0]
    c.supersede(first, "label", label=1 - old)
    fresh = MonitorCache()
    rep, _ = _read(engine, c.cid, fresh)
    _same(rep.monitor, _report(engine, c.cid).monitor)
    assert 0 < fresh.rebuilt < len(kept) and fresh.resumed == len(kept) - fresh.rebuilt


def test_states_are_replaced_in_place_and_go_with_the_campaign(engine) -> None:
    c = Campaign(engine)
    rec = SavedState("pair/0/1", b"k" * 20, 5, b"d" * 20, b"TMS1")
    assert save_states(engine, c.cid, SCOPE, [rec]) == 1
    save_states(engine, c.cid, SCOPE, [dataclasses.replace(rec, n_labels=6, payload=b"x" * 9)])
    (back,) = load_states(engine, c.cid, SCOPE)
    assert back == dataclasses.replace(rec, n_labels=6, payload=b"x" * 9)
    forget_states(engine, c.cid)
    assert load_states(engine, c.cid, SCOPE) == []
    save_states(engine, c.cid, SCOPE, [rec])
    with session_scope(engine) as s:  # the campaign's rows go with it (ON DELETE CASCADE)
        s.execute(update(CampaignRow).where(CampaignRow.id == c.cid).values(name="gone"))
        s.execute(CampaignRow.__table__.delete().where(CampaignRow.id == c.cid))
    assert _rows(engine) == 0


def test_a_database_that_fails_leaves_the_read_as_it_was(tmp_path) -> None:
    """The states are only a cache: a database that cannot read or write them (here one
    without the table) costs the read nothing but the resume; the states are tried again."""
    from db.engine import make_engine
    from tests.estimators.live.test_saved import _campaign, _monitor

    broken = make_engine(f"sqlite:///{tmp_path}/empty.db")
    cache = MonitorCache()
    assert resume_into(broken, 1, SCOPE, cache) == 0 and cache.loaded
    y, items, sys_ = _campaign(3, 12, seed=2)
    _monitor(y, items, sys_, range(items.size), cache, finite_pool=True).report()
    changed = set(cache.changed)
    assert len(changed) == 6
    assert keep_from(broken, 1, SCOPE, cache, whole_path=False) == 0
    assert cache.changed == changed  # kept for the next read's save
    broken.dispose()
