"""A campaign's queue settings: the campaign row locked for a change, the settings read and
written, and the append-only log of every change with the label count at that moment."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from db.campaign.lifecycle import CampaignArchived
from db.clock import utcnow
from db.judging import log
from db.schema.models import Annotation, Campaign, CampaignSettingChange
from db.schema.vocabulary import AnnotationKind


def campaign_for_update(s: Session, campaign_id: int) -> Campaign:
    """The campaign row, locked (PostgreSQL; FOR NO KEY UPDATE) so two queue builds or
    task actions cannot interleave;
    :class:`db.campaign.lifecycle.CampaignArchived` when it is archived (read-only)."""
    # FOR NO KEY UPDATE: writers of settings and tasks queue behind one another and behind
    # archive/delete (FOR UPDATE), but not behind the foreign-key checks (FOR KEY SHARE) of
    # annotators' inserts (tasks, annotations): an annotator's action may take this lock
    # (the idle-task sweep) after such an insert in another transaction of the campaign
    camp = s.scalar(
        select(Campaign).where(Campaign.id == campaign_id).with_for_update(key_share=True)
    )
    if camp is None:
        raise KeyError(f"no campaign with id {campaign_id}")
    if camp.archived_at is not None:
        raise CampaignArchived(camp.name)
    return camp


QUEUE_SETTINGS = (
    "mode",
    "paired",
    "overlap",
    "attention_rate",
    "claim_timeout_s",
    "show_metrics",
    "show_reference",
    "planned_labels",
    "live_design",
    "estimand",
    "sampling",
    "active_tau",
)


def campaign_settings(s: Session, campaign_id: int) -> dict[str, Any]:
    camp = s.get(Campaign, campaign_id)
    if camp is None:
        raise KeyError(f"no campaign with id {campaign_id}")
    return {k: getattr(camp, k) for k in (*QUEUE_SETTINGS, "queue_seed", "meta", "name")}


def update_campaign_settings(s: Session, campaign_id: int, values: dict[str, Any]) -> None:
    """Write the settings and log every value that changes, with the number of current
    labels at that moment (:class:`db.schema.models.CampaignSettingChange`; append-only)."""
    camp = campaign_for_update(s, campaign_id)
    changed = {k: v for k, v in values.items() if getattr(camp, k) != v}
    if not changed:
        return
    log_setting_changes(s, campaign_id, {k: (getattr(camp, k), v) for k, v in changed.items()})
    s.execute(update(Campaign).where(Campaign.id == campaign_id).values(**changed))


def log_setting_changes(s: Session, campaign_id: int, changes: dict[str, tuple[Any, Any]]) -> None:
    """Append ``key → (old, new)`` to the campaign's setting log with the number of current
    labels now; also for settings kept outside the campaign's columns (guidelines in meta).
    The caller holds the campaign row (:func:`campaign_for_update`)."""
    labels = current_label_count(s, campaign_id)
    s.execute(
        insert(CampaignSettingChange),
        [
            {
                "campaign_id": campaign_id,
                "key": key,
                "old_value": _jsonable(old),
                "new_value": _jsonable(new),
                "labels_before": labels,
                "changed_at": utcnow(),
            }
            for key, (old, new) in changes.items()
        ],
    )


def _jsonable(value: Any) -> Any:
    return value.value if isinstance(value, StrEnum) else value


def current_label_count(s: Session, campaign_id: int) -> int:
    """Current (not undone) regular judgments of a campaign, imported ones included."""
    return int(
        s.scalar(
            log.campaign_log(campaign_id, func.count(), current_only=True).where(
                Annotation.kind == AnnotationKind.LABEL
            )
        )
        or 0
    )


@dataclass(frozen=True)
class SettingChange:
    key: str
    old_value: Any
    new_value: Any
    labels_before: int
    changed_at: datetime


def setting_changes(s: Session, campaign_id: int) -> list[SettingChange]:
    """Every logged change of a campaign's settings, oldest first."""
    rows = s.execute(
        select(
            CampaignSettingChange.key,
            CampaignSettingChange.old_value,
            CampaignSettingChange.new_value,
            CampaignSettingChange.labels_before,
            CampaignSettingChange.changed_at,
        )
        .where(CampaignSettingChange.campaign_id == campaign_id)
        .order_by(CampaignSettingChange.id)
    )
    return [SettingChange(*row) for row in rows]
