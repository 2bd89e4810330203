"""A DA campaign's Likert scale (formats.forms.likert): n labelled points with a key each,
kept in ``campaigns.meta["likert"]``, drawn as buttons instead of the slider; and the
campaign's comment-box switch's home beside it for the pages (annotation.campaign.guidelines
holds the switch itself).

A point p of n is stored as the slider score 100·(p − 1)/(n − 1) and analysed as
(p − 1)/(n − 1) on [0, 1] (the DA score's kind), so a scale cannot change once a judgment
on it exists: the stored numbers would change meaning."""

from __future__ import annotations

from typing import Any

from db import Engine
from db.campaign.campaigns import campaign_meta, set_campaign_meta_key
from db.engine import read_scope
from db.queue import claim as dbq
from db.queue import settings as dbset
from db.schema.vocabulary import CampaignMode
from formats.forms.likert import checked_scale

#: campaigns.meta key of the scale.
LIKERT_KEY = "likert"


def likert_scale(engine: Engine, campaign_id: int) -> dict[str, list[str]] | None:
    """The campaign's scale (``{"labels", "keys"}``), None for a plain slider."""
    with read_scope(engine) as s:
        stored = campaign_meta(s, campaign_id).get(LIKERT_KEY)
    return stored if isinstance(stored, dict) else None


def set_likert_scale(
    engine: Engine, campaign_id: int, scale: dict[str, Any] | None
) -> dict[str, list[str]] | None:
    """Set (checked by formats.forms.likert.checked_scale) or remove (None) the scale of a
    DA campaign with no judgment yet; ValueError, nothing changed, otherwise."""
    checked = None if scale is None else checked_scale(scale.get("labels"), scale.get("keys"))
    with dbq.queue_transaction(engine) as s:
        camp = dbset.campaign_for_update(s, campaign_id)
        if CampaignMode(camp.mode) != CampaignMode.DA:
            raise ValueError(
                f"a Likert scale replaces a DA campaign's slider; this is a {camp.mode!r} campaign"
            )
        old = campaign_meta(s, campaign_id).get(LIKERT_KEY)
        if old == checked:
            return checked
        if dbset.current_label_count(s, campaign_id) > 0:
            raise ValueError(
                "the campaign has judgments: a new scale would change what their scores mean; "
                "set the scale before the first judgment"
            )
        dbset.log_setting_changes(s, campaign_id, {LIKERT_KEY: (old, checked)})
        set_campaign_meta_key(s, campaign_id, LIKERT_KEY, checked)
    return checked
