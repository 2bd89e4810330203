"""The title annotators see for a campaign: the organiser's public title, never the internal
campaign name (which may say "pilot", "broken: unpaired queue", a client, a deadline …).
Kept in ``campaigns.meta[KEY]``; a change goes to the setting log."""

from __future__ import annotations

from db import Engine
from db.campaign.campaigns import campaign_meta, set_campaign_meta_key
from db.engine import read_scope
from db.queue import claim as dbq
from db.queue import settings as dbset

KEY = "public_title"
#: What annotators see until the organiser sets a title.
DEFAULT = "Translation quality study"
MAX_CHARS = 120


def public_title_of(meta: dict | None) -> str:  # type: ignore[type-arg]
    title = (meta or {}).get(KEY)
    return str(title) if title else DEFAULT


def public_title(engine: Engine, campaign_id: int) -> str:
    with read_scope(engine) as s:
        return public_title_of(campaign_meta(s, campaign_id))


def set_public_title(engine: Engine, campaign_id: int, title: str) -> bool:
    """Set (or with "" clear, back to the default) the annotators' title; whether it
    changed. ValueError (nothing changed) for a title over 120 characters or one line."""
    title = " ".join(title.split())
    if len(title) > MAX_CHARS:
        raise ValueError(f"a public title has at most {MAX_CHARS} characters ({len(title)} given)")
    with dbq.queue_transaction(engine) as s:
        camp = dbset.campaign_for_update(s, campaign_id)
        old = (camp.meta or {}).get(KEY) or None
        if old == (title or None):
            return False
        dbset.log_setting_changes(s, campaign_id, {KEY: (old, title or None)})
        set_campaign_meta_key(s, campaign_id, KEY, title or None)
        return True
