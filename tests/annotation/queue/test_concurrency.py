"""20 simulated annotators label in parallel on SQLite and on PostgreSQL.

Each thread is one annotator with its own sessions (the engine's pool gives every thread
its own connection). Checked afterwards, in the database: no label was lost, no output got
more judgments than its slots allow (1, or 2 for the overlap share), nobody judged an output
twice, and every finished slot has exactly one judgment.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from sqlalchemy import Engine, func, select

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from db.engine import make_engine, session_scope
from db.schema.models import Annotation, Assignment
from tests.annotation.queue.test_queue import make_campaign

N_ANNOTATORS = 20
LABELS_EACH = 200
N_ITEMS, N_SYSTEMS, OVERLAP = 500, 10, 0.2  # 5,000 outputs, 6,000 slots for 4,000 labels


@pytest.mark.slow
def test_twenty_annotators_in_parallel(engine: Engine, record_property) -> None:
    cid = make_campaign(engine, N_ITEMS, N_SYSTEMS, overlap=OVERLAP)
    queue_build.build_queue(engine, cid, seed=42)
    annotators = [create_annotator(engine, cid, f"a{k}").annotator_id for k in range(N_ANNOTATORS)]
    # A pool with a connection per annotator thread.
    par = make_engine(
        engine.url.render_as_string(hide_password=False), pool_size=N_ANNOTATORS, max_overflow=2
    )
    saved: dict[int, list[int]] = {a: [] for a in annotators}
    lost: Counter[int] = Counter()
    errors: list[BaseException] = []
    start = threading.Barrier(N_ANNOTATORS)

    def work(annotator_id: int) -> None:
        try:
            start.wait()
            view = session.next_view(par, annotator_id)
            while view.slot is not None and len(saved[annotator_id]) < LABELS_EACH:
                slot = view.slot
                view = judging.submit(
                    par,
                    annotator_id,
                    slot.assignment_id,
                    slot.claim_version,
                    label=slot.output_id % 2,
                    seconds=0.1,
                )
                if view.notice is None:
                    saved[annotator_id].append(slot.assignment_id)
                else:
                    lost[annotator_id] += 1
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(a,)) for a in annotators]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    par.dispose()
    assert not errors, errors

    n_saved = sum(len(v) for v in saved.values())
    assert n_saved == N_ANNOTATORS * LABELS_EACH
    assert sum(lost.values()) == 0  # nobody's claim was taken (no expiry in this test)
    with session_scope(engine) as s:
        anns = s.execute(
            select(Annotation.assignment_id, Annotation.output_id, Annotation.annotator_id).where(
                Annotation.kind.in_(("label", "attention"))
            )
        ).all()
        slots_per_output = dict(
            s.execute(
                select(Assignment.output_id, func.count())
                .where(Assignment.campaign_id == cid)
                .group_by(Assignment.output_id)
            ).all()
        )
        done = set(
            s.scalars(
                select(Assignment.id).where(
                    Assignment.campaign_id == cid, Assignment.state == "done"
                )
            )
        )
    # Zero lost labels: every saved judgment is in the log, once, on a finished slot.
    assert len(anns) == n_saved
    assert sorted(a for a, _, _ in anns) == sorted(x for v in saved.values() for x in v)
    assert {a for a, _, _ in anns} == done
    # Never more judgments than the overlap allows; nobody judged an output twice.
    per_output = Counter(o for _, o, _ in anns)
    assert all(n <= slots_per_output[o] <= 2 for o, n in per_output.items())
    assert max(Counter((o, who) for _, o, who in anns).values()) == 1
    doubles = sum(1 for n in per_output.values() if n == 2)
    record_property("labels_per_second", round(n_saved / elapsed, 1))
    record_property("outputs_judged_twice", doubles)
    print(
        f"\n{engine.dialect.name}: {n_saved} labels by {N_ANNOTATORS} threads in {elapsed:.1f}s "
        f"({n_saved / elapsed:.0f}/s); {doubles} outputs judged twice (overlap slots), "
        f"max judgments per output {max(per_output.values())}, lost {sum(lost.values())}"
    )
