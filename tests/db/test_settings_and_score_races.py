"""Races not covered by the chaos suite (issue 32), on SQLite and PostgreSQL, each thread with
its own connection as each browser session has:

- a document score saved by several tabs of one annotator at once: exactly one row, the
  other tabs are told plainly (InvalidJudgment), never a traceback; and the database refuses
  a second row itself (the unique constraint, no IntegrityError) if two saves ever pass the
  "still waiting" check together;
- the Statistics page's settings saved by several administrators while annotators save
  labels: the setting log stays consistent (each change logged once, chained old → new, its
  label count between 0 and the labels saved, never going down), and the settings in force
  are the log's last values.
"""

from __future__ import annotations

import random
import threading

from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.campaign.statistics_settings import read_statistics, set_statistics
from annotation.judging import document_scores as ds
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.engine import make_engine, session_scope
from db.judging import document_scores as dbdoc
from db.queue.settings import current_label_count
from db.schema.document_models import DocumentScore
from db.schema.models import System
from tests.annotation.test_document_scores import _campaign as document_campaign
from tests.annotation.test_queue import make_campaign

TABS = 4


def _pool(engine: Engine, n: int) -> Engine:
    return make_engine(engine.url.render_as_string(hide_password=False), pool_size=n + 2)


def _together(n: int, work) -> list[object]:  # type: ignore[no-untyped-def]
    """Run ``work(k)`` in ``n`` threads released at once; each one's result or exception."""
    gate = threading.Barrier(n)
    out: list[object] = [None] * n

    def run(k: int) -> None:
        gate.wait()
        try:
            out[k] = work(k)
        except BaseException as exc:
            out[k] = exc

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_tabs_saving_one_document_score_store_exactly_one(engine: Engine) -> None:
    cid = document_campaign(engine)
    aid = create_annotator(engine, cid, "a").annotator_id
    par = _pool(engine, TABS)
    raced = 0
    view = session.next_view(engine, aid)
    while view.slot is not None:
        view = judging.submit(engine, aid, view.slot.assignment_id, view.slot.claim_version,
                              da_score=60)  # fmt: skip
        waiting = ds.pending(engine, aid)
        while waiting is not None:
            key = waiting.key
            outcomes = _together(TABS, lambda k, key=key: ds.save(par, aid, key, 10.0 + k))
            saved = [k for k, o in enumerate(outcomes) if o is None]
            refused = [o for o in outcomes if isinstance(o, session.InvalidJudgment)]
            assert len(saved) == 1 and len(refused) == TABS - 1, outcomes
            assert all("already given" in str(o) for o in refused)
            with session_scope(engine) as s:
                scores = s.scalars(
                    select(DocumentScore.score).where(
                        DocumentScore.annotator_id == aid,
                        DocumentScore.doc_id == key.doc_id,
                        DocumentScore.system_id == key.system_id,
                    )
                ).all()
            assert scores == [10.0 + saved[0]]
            raced += 1
            waiting = ds.pending(engine, aid)
    par.dispose()
    assert raced == 24  # every document of both systems was raced for


def test_the_database_refuses_a_second_document_score_itself(engine: Engine) -> None:
    """Past the check (both transactions saw the document waiting), the second insert is
    refused by the unique constraint and answered None, not an IntegrityError."""
    cid = document_campaign(engine)
    aid = create_annotator(engine, cid, "a").annotator_id
    with session_scope(engine) as s:
        system_id = s.scalar(select(System.id).where(System.campaign_id == cid).limit(1))
    row = {"campaign_id": cid, "annotator_id": aid, "system_id": system_id, "doc_id": "doc0",
           "score": 50.0, "seconds": None}  # fmt: skip
    with session_scope(engine) as s:
        assert dbdoc.append(s, **row) is not None
    with session_scope(engine) as s:
        assert dbdoc.append(s, **{**row, "score": 70.0}) is None
    with session_scope(engine) as s:
        assert s.scalars(select(DocumentScore.score)).all() == [50.0]


class Labeller:
    """One annotator saving labels (no undo: the label count only grows)."""

    def __init__(self, aid: int, engine: Engine, seed: int) -> None:
        self.aid, self.engine, self.rng = aid, engine, random.Random(seed)
        self.saved = 0
        self.errors: list[BaseException] = []

    def run(self, stop: threading.Event) -> None:
        try:
            view = session.next_view(self.engine, self.aid)
            while not stop.is_set() and view.slot is not None:
                slot = view.slot
                view = judging.submit(self.engine, self.aid, slot.assignment_id,
                                      slot.claim_version, label=self.rng.randint(0, 1))  # fmt: skip
                self.saved += view.notice is None
        except BaseException as exc:  # any exception is a traceback on the page
            self.errors.append(exc)


def _admin_changes(rng: random.Random) -> dict[str, object]:
    """One save of the Statistics page: one to three settings, values drawn from small sets
    so that administrators often write the same value or undo each other."""
    choices = {
        "alpha": (0.01, 0.05, 0.1),
        "family": ("holm", "ebh"),
        "equivalence_margin": (0.02, 0.05),
        "racing_on": (True, False),
        "planned_labels": (0, 100, 200),
        "power": (0.8, 0.9),
    }
    keys = rng.sample(sorted(choices), rng.randint(1, 3))
    return {k: rng.choice(choices[k]) for k in keys}


LOG_KEY = {"family": "error_rate", "racing_on": "racing"}


def test_settings_saves_racing_each_other_and_labels_keep_the_log_consistent(
    engine: Engine,
) -> None:
    cid = make_campaign(engine, 60, 3, name="stats", paired=True)
    queue_build.build_queue(engine, cid, seed=5)
    labellers = [Labeller(create_annotator(engine, cid, f"a{k}").annotator_id, None, k)  # type: ignore[arg-type]
                 for k in range(3)]  # fmt: skip
    par = _pool(engine, 6)
    for w in labellers:
        w.engine = par
    stop = threading.Event()
    threads = [threading.Thread(target=w.run, args=(stop,)) for w in labellers]
    for t in threads:
        t.start()
    asked: dict[str, int] = {}

    def admin(k: int) -> list[BaseException]:
        rng, errors = random.Random(100 + k), []
        for _ in range(12):
            changes = _admin_changes(rng)
            for key in changes:
                asked[LOG_KEY.get(key, key)] = asked.get(LOG_KEY.get(key, key), 0) + 1
            try:
                set_statistics(par, cid, **changes)  # type: ignore[arg-type]
            except BaseException as exc:
                errors.append(exc)
        return errors

    outcomes = _together(3, admin)
    stop.set()
    for t in threads:
        t.join()
    par.dispose()
    assert not [e for w in labellers for e in w.errors], [e for w in labellers for e in w.errors]
    assert outcomes == [[], [], []], outcomes
    with session_scope(engine) as s:
        labels = current_label_count(s, cid)
    assert labels == sum(w.saved for w in labellers) > 0
    log = queue_admin.setting_changes(engine, cid)
    assert log, "no setting was changed: the test did not race"
    counts = [c.labels_before for c in log]
    assert counts == sorted(counts) and counts[0] >= 0 and counts[-1] <= labels
    last: dict[str, object] = {}
    for c in log:
        assert c.old_value != c.new_value, c  # a change, not a repeated write
        if c.key in last:
            assert c.old_value == last[c.key], (c, last[c.key])  # each change once, chained
        last[c.key] = c.new_value
    for key, n in asked.items():
        assert sum(c.key == key for c in log) <= n, key
    now = read_statistics(engine, cid)
    # α, the family and racing apply at once; the plan, ε and power are kept as they were
    # at the first label (annotation.campaign.statistics_settings), so only these three are compared
    in_force = {"alpha": now.alpha, "error_rate": now.family, "racing": now.racing}
    for key, value in in_force.items():
        if key in last:
            assert value == last[key], (key, value, last[key])
