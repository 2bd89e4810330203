"""The live monitor's carried states kept in the database, so that any server process's
first dashboard read resumes them instead of analysing every system and pair from its first
label (estimators.live.saved says what a state is and when a read may use it).

:func:`save_states` writes the states a read changed (one row per stream, replaced in place:
an upsert, so two replicas saving at once leave one of their equally valid rows);
:func:`load_states` gives back a campaign's rows for one dashboard scope. Whether a row
fits is decided by the read itself, stream by stream: the row's settings digest must be the
read's (another α, plan, pool or label range: discarded), and the stream's first
``n_labels`` labels, as the database gives them now, must have the digest recorded (a label
undone, corrected or deleted since: discarded). A discarded row is overwritten by the next
save of its stream.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy import Engine, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from db.clock import utcnow
from db.engine import read_scope, session_scope
from db.schema.admin_models import MonitorState
from estimators.caches.monitor import MonitorCache
from estimators.live.carry import offer, records
from estimators.live.saved import SavedState, stream_of

log = logging.getLogger(__name__)

#: Rows written per statement.
CHUNK = 200


def load_states(engine: Engine, cid: int, scope: str) -> list[SavedState]:
    """Every carried state kept for the campaign ``cid`` under ``scope``."""
    t = MonitorState.__table__
    with read_scope(engine) as s:
        rows = s.execute(
            select(t.c.stream, t.c.state_key, t.c.n_labels, t.c.labels_digest, t.c.payload)
            .where(t.c.campaign_id == cid, t.c.scope == scope)
        ).all()  # fmt: skip
    return [SavedState(r[0], bytes(r[1]), int(r[2]), bytes(r[3]), bytes(r[4])) for r in rows]


def save_states(engine: Engine, cid: int, scope: str, states: Sequence[SavedState]) -> int:
    """Keep ``states`` for the campaign ``cid`` under ``scope`` (each replacing its stream's
    row); the number written."""
    if not states:
        return 0
    if len(scope) > 100:
        raise ValueError("a monitor state's scope is at most 100 characters")
    t = MonitorState.__table__
    insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert
    now = utcnow()
    with session_scope(engine) as s:
        for i in range(0, len(states), CHUNK):
            rows = [
                dict(campaign_id=cid, scope=scope, stream=st.stream, state_key=st.key,
                     n_labels=st.n_labels, labels_digest=st.labels, payload=st.payload,
                     saved_at=now)
                for st in states[i : i + CHUNK]
            ]  # fmt: skip
            stmt = insert(t).values(rows)
            stmt = stmt.on_conflict_do_update(
                index_elements=[t.c.campaign_id, t.c.scope, t.c.stream],
                set_={c: stmt.excluded[c] for c in
                      ("state_key", "n_labels", "labels_digest", "payload", "saved_at")},
            )  # fmt: skip
            s.execute(stmt)
    return len(states)


def resume_into(engine: Engine, cid: int, scope: str, cache: MonitorCache) -> int:
    """Offer a server process's campaign cache, once (its first read), the states kept
    for the campaign: the number of rows offered."""
    if cache.loaded:
        return 0
    cache.loaded = True
    try:
        kept = load_states(engine, cid, scope)
    except SQLAlchemyError as exc:  # only a cache: the read computes what it lacks
        log.warning("monitor states of campaign %s not read: %s", cid, exc)
        return 0
    offer(cache, kept)
    return len(kept)


def keep_from(
    engine: Engine, cid: int, scope: str, cache: MonitorCache, *, whole_path: bool
) -> int:
    """Save the states the last read changed (``whole_path``: with their whole path of
    intervals, for the width chart; else only its end): the number of rows written."""
    kept = records(cache, whole_path=whole_path)
    try:
        return save_states(engine, cid, scope, kept)
    except SQLAlchemyError as exc:  # only a cache: the next process computes what it lacks
        log.warning("monitor states of campaign %s not saved: %s", cid, exc)
        cache.changed.update(stream_of(r.stream) for r in kept)  # tried again next read
        return 0


def forget_states(engine: Engine, cid: int) -> None:
    """Drop every carried state kept for the campaign (all scopes)."""
    t = MonitorState.__table__
    with session_scope(engine) as s:
        s.execute(delete(t).where(t.c.campaign_id == cid))
