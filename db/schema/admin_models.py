"""ORM models of the installation's administration: app settings, background jobs, the
append-only logs of invites and of campaigns' lives, staff accounts, their campaign grants
and sign-in throttling, and two tables of campaign data kept apart: tutorial answers
and ESA^AI spans (the campaigns' own data: db.schema.models, whose ``Base`` they share)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from db.clock import utcnow
from db.schema.models import Base


class AppSetting(Base):
    """Installation-wide key/value settings (e.g. the hashed admin password)."""

    __tablename__ = "app_settings"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Job(Base):
    """A long task run outside the page session (today: scoring a campaign's outputs).

    The page inserts a ``queued`` row and starts a worker process; the worker claims it,
    writes progress and a heartbeat, and checks ``state`` between chunks so that
    ``cancelling`` stops it. A ``running`` row whose heartbeat is stale (the worker died, the
    machine restarted) is claimed again by the next worker, which resumes: scoring skips what
    is already stored.
    """

    __tablename__ = "jobs"
    __table_args__ = (Index("ix_jobs_campaign_state", "campaign_id", "state"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    #: What the job does ("score").
    kind: Mapped[str] = mapped_column(String(30))
    #: Its arguments, e.g. {"metrics": ["bleu", "chrf"], "idf": false, "rescale": false}.
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    #: queued | running | cancelling | cancelled | done | failed
    state: Mapped[str] = mapped_column(String(20), default="queued")
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    #: The estimate shown before the start (seconds), kept to compare with the real time.
    estimate_s: Mapped[float | None] = mapped_column(Float)
    #: The result summary, or the error that stopped it.
    message: Mapped[str | None] = mapped_column(Text)
    #: host:pid of the worker that holds it.
    worker: Mapped[str | None] = mapped_column(String(100))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class InviteEvent(Base):
    """Append-only log of an annotator's invite links: issued, re-issued (the old link stops
    working), revoked."""

    __tablename__ = "invite_events"
    __table_args__ = (Index("ix_invite_events_annotator", "annotator_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotators.id", ondelete="CASCADE"))
    #: "issued" | "reissued" | "revoked"
    event: Mapped[str] = mapped_column(String(20))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CampaignEvent(Base):
    """Append-only log of a campaign's life: created by rename, archive, restore, delete.

    No foreign key: a deleted campaign's rows are gone, and this row is the record that it
    existed, under which name, who (the interface) deleted it and how many rows went.
    """

    __tablename__ = "campaign_events"
    __table_args__ = (Index("ix_campaign_events_campaign", "campaign_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: The campaign's id (kept after deletion; ids are never reused by a new campaign on
    #: PostgreSQL, and SQLite's AUTOINCREMENT-less ids may be: read ``name`` with it).
    campaign_id: Mapped[int] = mapped_column(Integer)
    #: The campaign's name when the event happened (the new name for a rename).
    name: Mapped[str] = mapped_column(String(200))
    #: "rename" | "archive" | "restore" | "delete"
    action: Mapped[str] = mapped_column(String(20))
    #: Details: {"old_name": …} for a rename, {"rows": {table: n}} for a delete.
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    #: Where it was done: "ui" or "cli".
    via: Mapped[str] = mapped_column(String(10))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Account(Base):
    """A named administrator account: owner (everything), admin (the campaigns it created
    or was given) or viewer (dashboards and exports of the campaigns it was given)."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    #: "owner" | "admin" | "viewer"
    role: Mapped[str] = mapped_column(String(20))
    #: argon2id (argon2-cffi); a hash migrated from the single admin password may be PBKDF2
    #: until its next successful sign-in.
    password_hash: Mapped[str] = mapped_column(String(255))
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: Sign-out: sessions issued before this time (ms since the epoch) are refused.
    sessions_not_before: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CampaignGrant(Base):
    """An account's right to a campaign: ``creator`` (it imported it) or ``granted`` (the
    owner gave it)."""

    __tablename__ = "campaign_grants"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(20), default="granted")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SignInThrottle(Base):
    """Sign-in throttle state per key ("account:NAME" or "client:ID"): consecutive failures
    and until when the key is locked. Rows are locked (FOR UPDATE; SQLite's BEGIN IMMEDIATE)
    while an attempt is reserved, so parallel attempts cannot share a window."""

    __tablename__ = "signin_throttle"

    key: Mapped[str] = mapped_column(String(300), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    locked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class StudyLink(Base):
    """A campaign's study URL (accounts.study): one shared link a crowd platform sends every
    participant to; each is enrolled as an annotator on first visit. Only the SHA-256 of its
    token is kept; revoking sets ``revoked_at`` (a new link is a new row)."""

    __tablename__ = "study_links"
    __table_args__ = (Index("ix_study_links_campaign", "campaign_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    #: the query parameter naming the participant (Prolific PROLIFIC_PID, MTurk workerId)
    id_param: Mapped[str] = mapped_column(String(100))
    #: the parameter of one attempt (SESSION_ID, assignmentId): a return with another value
    #: is a second enrolment and refused; NULL: none
    session_param: Mapped[str | None] = mapped_column(String(100))
    #: every query parameter recorded at enrolment (names)
    params: Mapped[list[Any]] = mapped_column(JSON, default=list)
    #: at most this many participants; NULL: no cap
    cap: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class StudyParticipant(Base):
    """A participant enrolled through a study link: their annotator, platform id and the
    platform's parameters as they came on the first visit."""

    __tablename__ = "study_participants"
    __table_args__ = (
        UniqueConstraint("campaign_id", "participant_id"),
        Index("ix_study_participants_annotator", "annotator_id"),
        Index("ix_study_participants_link", "study_link_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    study_link_id: Mapped[int] = mapped_column(ForeignKey("study_links.id", ondelete="CASCADE"))
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotators.id", ondelete="CASCADE"))
    participant_id: Mapped[str] = mapped_column(String(200))
    session_key: Mapped[str | None] = mapped_column(String(200))
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    enrolled_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TutorialAnswer(Base):
    """An annotator's answer to a tutorial item (annotation.judging.tutorial): append-only, kept
    apart from the annotations so that no estimator reads it."""

    __tablename__ = "tutorial_answers"
    __table_args__ = (Index("ix_tutorial_answers_annotator", "annotator_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotators.id", ondelete="CASCADE"))
    attempt: Mapped[int] = mapped_column(Integer)
    item_index: Mapped[int] = mapped_column(Integer)
    #: the binary answer (None on a screen that asks for a score or spans)
    label: Mapped[int | None] = mapped_column(Integer)
    correct: Mapped[bool] = mapped_column(Boolean)
    #: the whole answer: label, score, spans, and what it missed ("problems")
    answer: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    answered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AISpan(Base):
    """An error span a quality-estimation model marked in an output (the ESA^AI prefill,
    db.scores.ai_spans): ``[start, end)`` in code points of the output; start, end and severity
    all NULL when the model called the output clean. ``source``: the import's name."""

    __tablename__ = "ai_spans"
    __table_args__ = (Index("ix_ai_spans_output", "output_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"))
    start: Mapped[int | None] = mapped_column(Integer)
    end: Mapped[int | None] = mapped_column(Integer)
    severity: Mapped[str | None] = mapped_column(String(20))
    category: Mapped[str | None] = mapped_column(String(200))
    confidence: Mapped[float | None] = mapped_column(Float)
    model: Mapped[str | None] = mapped_column(String(200))
    source: Mapped[str] = mapped_column(String(200))


class MonitorState(Base):
    """One stream's carried live-monitor state (a system's or a pair's betting capital and
    the end of its path of intervals), saved after a dashboard read so that another server
    process resumes from it instead of analysing the stream from its first label
    (db.reads.monitor_state, estimators.live.saved). ``scope`` names the dashboard's view
    of the campaign (judgment kind, z-scores); ``state_key`` is the digest of the
    monitor's settings the state was computed under (α, the plan's t*, pool, null, label
    bounds), ``n_labels`` and ``labels_digest`` the labels it is after. A read uses a row
    only when all three match it; a mismatched row is replaced at the next save."""

    __tablename__ = "monitor_states"

    campaign_id: Mapped[int] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True
    )
    scope: Mapped[str] = mapped_column(String(100), primary_key=True)
    stream: Mapped[str] = mapped_column(String(40), primary_key=True)
    state_key: Mapped[bytes] = mapped_column(LargeBinary)
    n_labels: Mapped[int] = mapped_column(Integer)
    labels_digest: Mapped[bytes] = mapped_column(LargeBinary)
    payload: Mapped[bytes] = mapped_column(LargeBinary)
    saved_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
