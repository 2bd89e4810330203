"""Paired items and comparative screens are claimed whole under concurrent claimers, on
SQLite and on PostgreSQL (issue 32).

On PostgreSQL the claim used to lock the item's first open slot, then collect the rest of
the item in a second statement with SKIP LOCKED: a claimer arriving in between took the
item's next slot, so one item's outputs went to 2–3 annotators and comparative screens
held fewer outputs than the item (and were stored with that smaller ``screen_size``).
"""

from __future__ import annotations

import threading
from collections import defaultdict

from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.judging import comparative, session
from annotation.judging import save as judging
from annotation.queue import build as queue_build
from db.engine import make_engine, session_scope
from db.schema.models import Annotation, Assignment
from tests.annotation.test_queue import make_campaign

N_SYSTEMS = 4


def _run(engine: Engine, n: int, work) -> list[BaseException]:
    """Run ``work(annotator_id, engine)`` in n threads started together; their errors."""
    errors: list[BaseException] = []
    par = make_engine(engine.url.render_as_string(hide_password=False), pool_size=n + 2)
    start = threading.Barrier(n)

    def run(a: int) -> None:
        try:
            start.wait()
            work(a, par)
        except BaseException as exc:  # surfaced by the caller
            errors.append(exc)

    cid = work.campaign_id
    annotators = [create_annotator(engine, cid, f"a{k}").annotator_id for k in range(n)]
    threads = [threading.Thread(target=run, args=(a,)) for a in annotators]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    par.dispose()
    return errors


def _holders_per_item(engine: Engine, cid: int) -> dict[int, set[int]]:
    """item → annotators who hold or finished one of its regular first-pass slots."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(Assignment.item_id, Assignment.annotator_id).where(
                Assignment.campaign_id == cid,
                Assignment.kind == "regular",
                Assignment.slot == 0,
                Assignment.annotator_id.is_not(None),
            )
        ).all()
    out: dict[int, set[int]] = defaultdict(set)
    for item, who in rows:
        out[item].add(who)
    return out


def test_twenty_claimers_never_split_a_paired_item(engine: Engine) -> None:
    cid = make_campaign(engine, 120, N_SYSTEMS, paired=True)
    queue_build.build_queue(engine, cid, seed=3)

    def work(annotator_id: int, par: Engine) -> None:
        view = session.next_view(par, annotator_id)
        for _ in range(10):
            if view.slot is None:
                return
            slot = view.slot
            view = judging.submit(par, annotator_id, slot.assignment_id, slot.claim_version,
                                  label=1)  # fmt: skip

    work.campaign_id = cid  # type: ignore[attr-defined]
    errors = _run(engine, 20, work)
    assert not errors, errors
    holders = _holders_per_item(engine, cid)
    assert len(holders) >= 20  # the race had room: every claimer took items
    split = {item: who for item, who in holders.items() if len(who) > 1}
    assert not split, f"{len(split)} of {len(holders)} items split between annotators: {split}"


def test_concurrent_comparative_screens_are_whole(engine: Engine) -> None:
    cid = make_campaign(engine, 80, N_SYSTEMS, paired=True)
    comparative.set_comparative(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=5)

    def work(annotator_id: int, par: Engine) -> None:
        view = session.next_view(par, annotator_id)
        for _ in range(4):
            shown = comparative.screen(par, annotator_id, view)
            if shown is None:
                return
            assert shown.size == N_SYSTEMS, f"a screen of {shown.size} outputs"
            judgments = {k: {"label": 1} for k in range(shown.size)}
            view = comparative.submit(par, annotator_id, shown, judgments)

    work.campaign_id = cid  # type: ignore[attr-defined]
    errors = _run(engine, 12, work)
    assert not errors, errors
    with session_scope(engine) as s:
        sizes = s.execute(
            select(Annotation.screen_size, Assignment.item_id, Annotation.annotator_id).join(
                Assignment, Assignment.id == Annotation.assignment_id
            )
        ).all()
    assert sizes
    assert {size for size, _, _ in sizes} == {N_SYSTEMS}
    per_item: dict[int, set[int]] = defaultdict(set)
    for _, item, who in sizes:
        per_item[item].add(who)
    assert all(len(who) == 1 for who in per_item.values())
