"""Switching a campaign setting kept in its meta JSON: lock the campaign, compare, check,
log the change and write it, all in one queue transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from db import Engine
from db.queue import claim as dbq
from db.queue import settings as dbset

S = TypeVar("S")


def switch_setting(
    engine: Engine,
    campaign_id: int,
    key: str,
    new: S,
    read: Callable[[dict[str, Any]], S],
    logged: Callable[[S], dict[str, Any]],
    check: Callable[[Any, Any, dict[str, Any], S], None],
) -> bool:
    """Store ``new`` under ``key`` unless ``read(meta)`` already equals it; returns whether
    anything changed. ``check(session, campaign, meta, new)`` raises to refuse the change
    (nothing is written then); the log holds ``logged`` old and new values."""
    with dbq.queue_transaction(engine) as s:
        camp = dbset.campaign_for_update(s, campaign_id)
        meta = dict(camp.meta or {})
        old = read(meta)
        if old == new:
            return False
        check(s, camp, meta, new)
        dbset.log_setting_changes(s, campaign_id, {key: (logged(old), logged(new))})
        meta[key] = logged(new)
        camp.meta = meta
        return True
