"""A campaign's life: rename, archive, restore, delete, and the log of all four.

Every change is one transaction that also appends a row to ``campaign_events`` (no foreign
key: the row of a deletion outlives the campaign). An archived campaign is hidden from the
lists and read-only: :func:`archived_reason` / :func:`ensure_active` are the checks the
writers (imports, queue builds, annotation, scoring) call.

Deletion removes every row of the campaign, children first, and counts them. Calibration
sets: a set *applied* to the campaign (its prior) goes with it, and so does the record of a
set exported from it that no other campaign uses; a set exported from it and applied to
another campaign is that campaign's prior and stays (its ``source_campaign_id`` becomes
NULL, as the foreign key's ON DELETE SET NULL says; its payload still names the source).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from db.clock import utcnow
from db.engine import retry_transient, session_scope
from db.locks import close_campaign
from db.schema.admin_models import (
    CampaignEvent,
    InviteEvent,
    Job,
    StudyLink,
    StudyParticipant,
    TutorialAnswer,
)
from db.schema.models import (
    Annotation,
    Annotator,
    Assignment,
    AttentionCheck,
    CalibrationSet,
    Campaign,
    CampaignSettingChange,
    Item,
    MetricBaseline,
    MetricScore,
    Output,
    System,
    Threshold,
)

#: The campaign name's length limit (``campaigns.name`` is VARCHAR(200)).
NAME_MAX = Campaign.__table__.c.name.type.length or 200
#: Job states during which a worker may still write to the campaign.
_ACTIVE_JOB_STATES = ("queued", "running", "cancelling")
RENAME, ARCHIVE, RESTORE, DELETE = "rename", "archive", "restore", "delete"


class CampaignLifeError(ValueError):
    """A rename, archive, restore or delete that cannot be done; nothing was changed."""


class CampaignArchived(CampaignLifeError):
    def __init__(self, name: str) -> None:
        super().__init__(archived_message(name))


def archived_message(name: str) -> str:
    return (
        f"campaign {name!r} is archived, so it is read-only: restore it first (Campaigns "
        f"page → Manage, or `cli.py campaign restore {name!r}`)"
    )


@dataclass(frozen=True)
class EventRow:
    campaign_id: int
    name: str
    action: str
    detail: dict[str, Any]
    via: str
    at: datetime


# ----------------------------------------------------------------- read-only guard


def archived_reason(engine: Engine, campaign_id: int) -> str | None:
    """Why the campaign cannot be written (it is archived), or None when it can."""
    with session_scope(engine) as s:
        row = s.execute(
            select(Campaign.name, Campaign.archived_at).where(Campaign.id == campaign_id)
        ).first()
    return archived_message(row[0]) if row is not None and row[1] is not None else None


def ensure_active(s: Session, campaign_id: int) -> None:
    """Raise :class:`CampaignArchived` inside a writer's transaction when it is archived."""
    row = s.execute(
        select(Campaign.name, Campaign.archived_at).where(Campaign.id == campaign_id)
    ).first()
    if row is not None and row[1] is not None:
        raise CampaignArchived(row[0])


# ----------------------------------------------------------------- the four changes


def _campaign(s: Session, name: str, close: bool = False) -> Campaign:
    """The campaign's row, locked FOR UPDATE. ``close`` (archive, delete): first the
    campaign's gate, exclusive (db.locks), so the annotators' actions in flight finish
    before and the ones arriving wait for this transaction, then see the campaign archived
    or gone."""
    if close:
        cid = s.scalar(select(Campaign.id).where(Campaign.name == name))
        if cid is not None:
            close_campaign(s.connection(), cid)
    camp = s.scalar(select(Campaign).where(Campaign.name == name).with_for_update())
    if camp is None:
        raise CampaignLifeError(f"there is no campaign named {name!r}")
    return camp


def _log(s: Session, camp_id: int, name: str, action: str, via: str, **detail: Any) -> None:
    s.execute(
        insert(CampaignEvent).values(
            campaign_id=camp_id, name=name, action=action, detail=detail, via=via, at=utcnow()
        )
    )


def check_new_name(new: str) -> str:
    """The new name, stripped; a clear error for an empty or too long one."""
    clean = new.strip()
    if not clean:
        raise CampaignLifeError("the new name is empty: type a name")
    if len(clean) > NAME_MAX:
        raise CampaignLifeError(
            f"the new name has {len(clean)} characters; the limit is {NAME_MAX}: shorten it"
        )
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in clean):
        raise CampaignLifeError("the new name contains a line break or control character")
    return clean


def rename_campaign(engine: Engine, old: str, new: str, via: str) -> str:
    """Rename ``old`` to ``new`` (stripped); the name it got. The name is unique."""
    new = check_new_name(new)
    taken = CampaignLifeError(f"a campaign named {new!r} already exists: choose another name")
    try:
        with session_scope(engine) as s:
            camp = _campaign(s, old)
            if new == old:
                raise CampaignLifeError(f"the campaign is already named {old!r}")
            if s.scalar(select(Campaign.id).where(Campaign.name == new)) is not None:
                raise taken
            camp.name = new
            s.flush()
            _log(s, camp.id, new, RENAME, via, old_name=old)
    except IntegrityError as exc:  # a concurrent rename or import took the name
        raise taken from exc
    return new


def _no_running_job(s: Session, camp: Campaign, what: str) -> None:
    running = s.scalar(
        select(func.count())
        .select_from(Job)
        .where(Job.campaign_id == camp.id, Job.state.in_(_ACTIVE_JOB_STATES))
    )
    if running:
        raise CampaignLifeError(
            f"campaign {camp.name!r} has a scoring job running: cancel it (Campaigns page → "
            f"Metric scores) or let it finish, then {what} the campaign"
        )


_retried = retry_transient(
    lambda: CampaignLifeError(
        "the campaign stayed busy with annotators' saves; nothing was changed: try again"
    )
)


@_retried
def archive_campaign(engine: Engine, name: str, via: str) -> None:
    """Hide the campaign and make it read-only (restorable)."""
    with session_scope(engine) as s:
        camp = _campaign(s, name, close=True)
        if camp.archived_at is not None:
            raise CampaignLifeError(f"campaign {name!r} is archived already")
        _no_running_job(s, camp, "archive")
        camp.archived_at = utcnow()
        _log(s, camp.id, name, ARCHIVE, via)


@_retried
def restore_campaign(engine: Engine, name: str, via: str) -> None:
    """Make an archived campaign active again (listed, writable)."""
    with session_scope(engine) as s:
        camp = _campaign(s, name)
        if camp.archived_at is None:
            raise CampaignLifeError(f"campaign {name!r} is not archived")
        camp.archived_at = None
        _log(s, camp.id, name, RESTORE, via)


def _owned(cid: int) -> dict[str, Any]:
    """Per table, the DELETE of the campaign's rows, children before parents."""
    outputs = select(Output.id).join(Item, Item.id == Output.item_id).where(Item.campaign_id == cid)
    annotators = select(Annotator.id).where(Annotator.campaign_id == cid)
    return {
        "annotations": delete(Annotation).where(
            or_(Annotation.output_id.in_(outputs), Annotation.annotator_id.in_(annotators))
        ),
        "assignments": delete(Assignment).where(Assignment.campaign_id == cid),
        "attention_checks": delete(AttentionCheck).where(AttentionCheck.output_id.in_(outputs)),
        "metric_scores": delete(MetricScore).where(MetricScore.output_id.in_(outputs)),
        "invite_events": delete(InviteEvent).where(InviteEvent.annotator_id.in_(annotators)),
        "tutorial_answers": delete(TutorialAnswer).where(TutorialAnswer.campaign_id == cid),
        "study_participants": delete(StudyParticipant).where(StudyParticipant.campaign_id == cid),
        "study_links": delete(StudyLink).where(StudyLink.campaign_id == cid),
        "annotators": delete(Annotator).where(Annotator.campaign_id == cid),
        "outputs": delete(Output).where(
            Output.item_id.in_(select(Item.id).where(Item.campaign_id == cid))
        ),
        "items": delete(Item).where(Item.campaign_id == cid),
        "systems": delete(System).where(System.campaign_id == cid),
        "metric_baselines": delete(MetricBaseline).where(MetricBaseline.campaign_id == cid),
        "thresholds": delete(Threshold).where(Threshold.campaign_id == cid),
        "jobs": delete(Job).where(Job.campaign_id == cid),
        "campaign_setting_changes": delete(CampaignSettingChange).where(
            CampaignSettingChange.campaign_id == cid
        ),
        "calibration_sets": delete(CalibrationSet).where(
            or_(
                CalibrationSet.applied_campaign_id == cid,
                (CalibrationSet.source_campaign_id == cid)
                & CalibrationSet.applied_campaign_id.is_(None),
            )
        ),
    }


@_retried
def delete_campaign(engine: Engine, name: str, confirm: str, via: str) -> dict[str, int]:
    """Delete the campaign and every row of it in one transaction; rows deleted per table.

    ``confirm`` must be the campaign's name, typed out. Logged in ``campaign_events``."""
    if confirm != name:
        raise CampaignLifeError(
            f"to delete campaign {name!r}, type its name exactly to confirm "
            f"(you typed {confirm!r}); nothing was deleted"
        )
    with session_scope(engine) as s:
        camp = _campaign(s, name, close=True)
        _no_running_job(s, camp, "delete")
        cid = camp.id
        links = _link_hashes(s, cid)
        counts = {table: s.execute(stmt).rowcount for table, stmt in _owned(cid).items()}
        kept = s.execute(
            update(CalibrationSet)
            .where(CalibrationSet.source_campaign_id == cid)
            .values(source_campaign_id=None)
        ).rowcount
        s.expunge(camp)
        counts["campaigns"] = s.execute(delete(Campaign).where(Campaign.id == cid)).rowcount
        _log(s, cid, name, DELETE, via, rows=counts, calibration_sets_kept=kept,
             closed_links=links)  # fmt: skip
    return counts


def _link_hashes(s: Session, cid: int) -> list[str]:
    """The hashes of the campaign's invite and study links, kept in its deletion's log entry
    so that a link of a deleted campaign says it is closed (not "mistyped")."""
    own = s.scalars(
        select(Annotator.token_hash).where(
            Annotator.campaign_id == cid, Annotator.token_hash.is_not(None)
        )
    )
    studies = s.scalars(select(StudyLink.token_hash).where(StudyLink.campaign_id == cid))
    return [*own, *studies]


def closed_link(s: Session, token_hash: str) -> str | None:
    """The name of the campaign a link belonged to when that campaign is archived or was
    deleted; None otherwise (a live, revoked or unknown link)."""
    archived = s.execute(
        select(Campaign.name).join(Annotator, Annotator.campaign_id == Campaign.id)
        .where(Annotator.token_hash == token_hash, Campaign.archived_at.is_not(None))
        .union(
            select(Campaign.name).join(StudyLink, StudyLink.campaign_id == Campaign.id)
            .where(StudyLink.token_hash == token_hash, Campaign.archived_at.is_not(None))
        )
    ).first()  # fmt: skip
    if archived is not None:
        return str(archived[0])
    for name, detail in s.execute(
        select(CampaignEvent.name, CampaignEvent.detail).where(CampaignEvent.action == DELETE)
    ):
        if token_hash in ((detail or {}).get("closed_links") or ()):
            return str(name)
    return None


def campaign_events(engine: Engine, name: str | None = None) -> list[EventRow]:
    """The life log, oldest first (of every campaign, or of the events under ``name``)."""
    q = select(CampaignEvent).order_by(CampaignEvent.id)
    if name is not None:
        q = q.where(CampaignEvent.name == name)
    with session_scope(engine) as s:
        return [
            EventRow(e.campaign_id, e.name, e.action, dict(e.detail or {}), e.via, e.at)
            for e in s.scalars(q)
        ]
