"""The campaign's gate: a PostgreSQL advisory lock that every annotator action holds shared
and archive/delete hold exclusive (the lock order is in docs/administration.md, "Locks").

Why an advisory lock and not the campaign row: a row locked FOR KEY SHARE by a stream of
saves is never free for archive's FOR UPDATE (PostgreSQL lets a compatible row locker in
ahead of a waiting one, so with eight annotators saving an archive waited for minutes).
Advisory locks are granted in arrival order: once archive or delete asks, the saves that
arrive after it wait for it, the ones in flight finish first, and no save commits after
it returns. SQLite needs none: ``BEGIN IMMEDIATE`` serialises every writer.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

#: First key of the gate's advisory lock (the second is the campaign id).
GATE_KEY = 0x6A7E
_SHARED = text("SELECT pg_advisory_xact_lock_shared(:ns, :cid)")
_EXCLUSIVE = text("SELECT pg_advisory_xact_lock(:ns, :cid)")


def enter_campaign(conn: Any, campaign_id: int) -> None:
    """An annotator's action: hold the campaign's gate shared until the transaction ends."""
    if conn.dialect.name == "postgresql":
        conn.execute(_SHARED, {"ns": GATE_KEY, "cid": campaign_id})


def close_campaign(conn: Any, campaign_id: int) -> None:
    """Archive or delete: wait for the actions in flight, hold back new ones until the
    transaction ends."""
    if conn.dialect.name == "postgresql":
        conn.execute(_EXCLUSIVE, {"ns": GATE_KEY, "cid": campaign_id})
