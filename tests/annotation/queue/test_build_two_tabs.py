"""Two browser tabs of one invite link, each in its own process, on SQLite and PostgreSQL.

Issue 16, defect 4: saving locked the slot, then the annotator; claiming locked the
annotator, then the slot. Two tabs of one annotator deadlocked on PostgreSQL (the label was
lost, a traceback shown), and on SQLite the second tab's answer to an item the first tab
had already saved was reported as "idle longer than the claim timeout".

Each "tab" is a separate process with its own engine that calls next_view and submit in
turn, like a page reload followed by a click. Every call is stamped 0.6 claim timeouts after
the tab's previous one (a slow annotator), so a resumed claim is always refreshed: that
refresh is the write that met the saving tab's lock. Each annotator has a campaign of their
own, so no claim can be taken by someone else: every expiry notice is false. Counted
afterwards: errors (tracebacks), lost labels (a submit that was not refused with a notice,
yet has no label in the log) and false expiry notices.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue.build import build_queue
from db.engine import make_engine, session_scope
from db.schema.models import Annotation
from tests.annotation.queue.test_queue import make_campaign

N_ANNOTATORS = 3
TABS = 2
SUBMITS_PER_TAB = 100  # 600 labels in all
TIMEOUT_S = 900
START = datetime(2026, 1, 1, tzinfo=UTC)


def _tab(url: str, annotator_id: int, tab: int, out: mp.Queue) -> None:
    engine = make_engine(url, pool_size=1, max_overflow=0)
    submitted: list[tuple[int, str | None]] = []
    errors: list[str] = []
    clock = (START + timedelta(seconds=0.6 * TIMEOUT_S * k) for k in range(10**6))
    for k in range(SUBMITS_PER_TAB):
        try:
            view = session.next_view(engine, annotator_id, now=next(clock))
            if view.slot is None:
                break
            slot = view.slot
            after = judging.submit(
                engine,
                annotator_id,
                slot.assignment_id,
                slot.claim_version,
                label=(slot.output_id + tab + k) % 2,
                seconds=0.1,
                now=next(clock),
            )
            submitted.append((annotator_id, slot.assignment_id, after.notice))
        except Exception as exc:  # the page would show a traceback: count it
            errors.append(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    engine.dispose()
    out.put((annotator_id, tab, submitted, errors))


def run_tabs(engine: Engine, url: str) -> dict[str, int]:
    annotators = []
    for k in range(N_ANNOTATORS):
        cid = make_campaign(engine, 150, 3, name=f"c{k}", claim_timeout_s=TIMEOUT_S)
        build_queue(engine, cid, seed=k)
        annotators.append(create_annotator(engine, cid, f"a{k}").annotator_id)
    ctx = mp.get_context("fork")
    out: mp.Queue = ctx.Queue()
    procs = [
        ctx.Process(target=_tab, args=(url, a, t, out)) for a in annotators for t in range(TABS)
    ]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    with session_scope(engine) as s:
        labelled = set(
            s.scalars(
                select(Annotation.assignment_id).where(Annotation.kind.in_(("label", "attention")))
            )
        )
    errors = [e for *_, errs in results for e in errs]
    submits = [row for *_, sub, _ in results for row in sub]
    false_notices = sum(1 for *_, notice in submits if notice == judging.LOST_CLAIM)
    lost = sum(1 for _, a, notice in submits if notice != judging.LOST_CLAIM and a not in labelled)
    return {
        "submits": len(submits),
        "errors": len(errors),
        "lost": lost + len(errors),
        "false_notices": false_notices,
        "other_tab_notices": sum(1 for *_, n in submits if n == judging.OTHER_TAB),
        "labels": len(labelled),
        "first_error": errors[0] if errors else "",
    }


@pytest.mark.slow
def test_two_tabs_per_annotator_in_separate_processes(engine: Engine) -> None:
    url = engine.url.render_as_string(hide_password=False)
    t0 = time.perf_counter()
    counts = run_tabs(engine, url)
    elapsed = time.perf_counter() - t0
    print(f"\n{engine.dialect.name}: {counts} in {elapsed:.1f}s")
    assert counts["errors"] == 0, counts["first_error"]
    assert counts["submits"] == N_ANNOTATORS * TABS * SUBMITS_PER_TAB
    assert counts["lost"] == 0
    assert counts["false_notices"] == 0
