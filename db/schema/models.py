"""SQLAlchemy 2.0 typed ORM models: the campaigns and everything judged in them.

The installation's administration tables (settings, jobs, audit logs, accounts) are in
db.schema.admin_models, on the same ``Base``: whatever reads ``Base.metadata`` whole (Alembic,
table-by-table checks) imports both modules.

Annotations are append-only: an undo or a correction is a new row whose ``supersedes_id``
points at the row it replaces; nothing is updated in place. The current judgments are the
rows no later row supersedes (see :func:`db.repository.current_annotations`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from db.clock import utcnow
from db.schema.vocabulary import CampaignMode, SlotKind, SlotState

# Stable constraint names so Alembic migrations (and SQLite batch mode) can refer to them.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar = {dict[str, Any]: JSON, list[Any]: JSON}


class Campaign(Base):
    __tablename__ = "campaigns"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    mode: Mapped[str] = mapped_column(String(20), default=CampaignMode.BINARY.value)
    show_metrics: Mapped[bool] = mapped_column(Boolean, default=True)
    show_reference: Mapped[bool] = mapped_column(Boolean, default=True)
    #: Share of outputs that get 2 judgments (for agreement); 0 = single judgment each.
    overlap: Mapped[float] = mapped_column(Float, default=0.0)
    #: Share of queue positions that are attention checks.
    attention_rate: Mapped[float] = mapped_column(Float, default=0.0)
    claim_timeout_s: Mapped[int] = mapped_column(Integer, default=900)
    #: Paired design: all systems' outputs of an item are queued (and claimed) together.
    paired: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    source_lang: Mapped[str | None] = mapped_column(String(20))
    target_lang: Mapped[str | None] = mapped_column(String(20))
    #: Seed of the campaign's random item order (recorded so the order can be audited).
    queue_seed: Mapped[int | None] = mapped_column(Integer)
    #: Planned number of human labels (per system / pair) the live verdicts are tuned to;
    #: NULL = not planned (the monitor then plans for the pool size).
    planned_labels: Mapped[int | None] = mapped_column(Integer)
    #: Live (anytime-valid) design in force; NULL = the default design.
    live_design: Mapped[str | None] = mapped_column(String(30))
    #: What the dashboard estimates; NULL = the default (the campaign's own test set).
    estimand: Mapped[str | None] = mapped_column(String(30))
    #: How the queue draws items ("uniform" or "active"); NULL = uniform.
    sampling: Mapped[str | None] = mapped_column(String(20))
    #: Active sampling's share of uniform, π ≥ τ·rate; NULL = the default 0.3.
    active_tau: Mapped[float | None] = mapped_column(Float)
    meta: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: When the campaign was archived (hidden, read-only, restorable); NULL = active.
    archived_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    items: Mapped[list[Item]] = relationship(back_populates="campaign", cascade="all, delete")
    systems: Mapped[list[System]] = relationship(back_populates="campaign", cascade="all, delete")


class Item(Base):
    __tablename__ = "items"
    __table_args__ = (UniqueConstraint("campaign_id", "external_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(300))
    source: Mapped[str] = mapped_column(Text, default="")
    reference: Mapped[str | None] = mapped_column(Text)
    doc_id: Mapped[str | None] = mapped_column(String(300))
    meta: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)

    campaign: Mapped[Campaign] = relationship(back_populates="items")
    outputs: Mapped[list[Output]] = relationship(back_populates="item", cascade="all, delete")


class System(Base):
    __tablename__ = "systems"
    __table_args__ = (UniqueConstraint("campaign_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(300))
    is_human: Mapped[bool] = mapped_column(Boolean, default=False)

    campaign: Mapped[Campaign] = relationship(back_populates="systems")


class Output(Base):
    __tablename__ = "outputs"
    __table_args__ = (UniqueConstraint("item_id", "system_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    system_id: Mapped[int] = mapped_column(ForeignKey("systems.id", ondelete="CASCADE"), index=True)
    text: Mapped[str] = mapped_column(Text)
    #: Extra columns of the campaign file's row (kept verbatim for export round-trips).
    meta: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)

    item: Mapped[Item] = relationship(back_populates="outputs")
    system: Mapped[System] = relationship()


class Annotator(Base):
    __tablename__ = "annotators"
    __table_args__ = (UniqueConstraint("campaign_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    #: SHA-256 of the invite token; the token itself is never stored. NULL for annotators
    #: that only exist because an imported file named them.
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    #: "annotator" (invited) or "import" (judgments that came with a campaign file).
    role: Mapped[str] = mapped_column(String(20), default="annotator")
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: The annotator's answers to the campaign's pre-task form (field name → value, checked
    #: by formats.forms.pretask); None until they answered it.
    form_answers: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    form_answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Assignment(Base):
    """One queue slot: an output shown to an annotator at a recorded random position."""

    __tablename__ = "assignments"
    __table_args__ = (
        Index("ix_assignments_output", "output_id"),
        # The claim path: next open slot of a campaign in queue order.
        Index("ix_assignments_queue", "campaign_id", "state", "position"),
        Index("ix_assignments_item", "item_id"),
        # Deleting a campaign's attention checks finds their slots by it (ON DELETE CASCADE).
        Index("ix_assignments_attention_check", "attention_check_id"),
        # A task's claim path: its next open slot in queue order.
        Index("ix_assignments_task", "task_id", "state", "position"),
        # a deletion's ON DELETE CASCADE finds preference slots by their second output
        Index("ix_assignments_pair_output", "pair_output_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"))
    annotator_id: Mapped[int | None] = mapped_column(
        ForeignKey("annotators.id", ondelete="CASCADE"), index=True
    )
    #: Draw order within the campaign (0-based); the estimators' arrival order.
    position: Mapped[int] = mapped_column(Integer)
    #: Probability that this output was included in the human-labelled sample by the draw.
    inclusion_prob: Mapped[float] = mapped_column(Float)
    #: open | claimed | done | skipped; active sampling: pending (not visited yet) | passed
    #: (visited, not drawn)
    state: Mapped[str] = mapped_column(String(20), default=SlotState.OPEN.value)
    #: "regular" or "attention" (attention checks are never counted in estimates).
    kind: Mapped[str] = mapped_column(String(20), default=SlotKind.REGULAR.value)
    attention_check_id: Mapped[int | None] = mapped_column(
        ForeignKey("attention_checks.id", ondelete="CASCADE")
    )
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: Claim token: the annotator's pass number that claimed it (guards double claims).
    claim_version: Mapped[int] = mapped_column(Integer, default=0)
    #: The output's item (denormalised so a paired group is claimed with one indexed query).
    item_id: Mapped[int | None] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    #: 0 = the output's first judgment; 1 = its overlap (second-annotator) slot.
    slot: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    #: Active sampling: the round (uncertainty-model version) that fixed ``inclusion_prob``;
    #: NULL for a uniform slot.
    draw_round: Mapped[int | None] = mapped_column(Integer)
    #: The task (batch) this slot belongs to; NULL: the shared queue (no tasks, or not cut).
    task_id: Mapped[int | None] = mapped_column(ForeignKey("tasks.id", ondelete="SET NULL"))
    #: Preference mode: the pair's second output (an attention check: its own output, shown
    #: beside its degraded copy); NULL in every other mode.
    pair_output_id: Mapped[int | None] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"))


class Task(Base):
    """A batch of a campaign's queue (whole item groups in queue order) that one annotator
    takes and finishes, ending with a completion code (annotation.tasks.batches)."""

    __tablename__ = "tasks"
    __table_args__ = (
        UniqueConstraint("campaign_id", "ordinal"),
        Index("ix_tasks_annotator", "annotator_id"),
        Index("ix_tasks_campaign_state", "campaign_id", "state"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    #: 1-based order within the campaign (the queue order of its first slot).
    ordinal: Mapped[int] = mapped_column(Integer)
    #: Who took it, or whom an administrator assigned it to; NULL while open to anyone.
    annotator_id: Mapped[int | None] = mapped_column(
        ForeignKey("annotators.id", ondelete="SET NULL")
    )
    #: open | active | paused | done | expired
    state: Mapped[str] = mapped_column(String(20), default="open")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: "pass" | "fail" by the attention checks in the task; NULL until done.
    outcome: Mapped[str | None] = mapped_column(String(10))
    #: The completion code shown at the end (an administrator's pass/fail code or a
    #: generated per-task one); NULL until done.
    completion_code: Mapped[str | None] = mapped_column(String(100))


class Annotation(Base):
    """Append-only judgment log. Undo/correction rows point at what they supersede."""

    __tablename__ = "annotations"
    __table_args__ = (
        Index("ix_annotations_output", "output_id"),
        # Deleting a campaign's slots sets this to NULL where it points at one (ON DELETE
        # SET NULL): without the index each deleted slot scanned every annotation (5.6 s
        # for the 6,877 slots of the WMT campaign on SQLite, 0.04 s with it).
        Index("ix_annotations_assignment", "assignment_id"),
        Index("ix_annotations_pair_output", "pair_output_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"))
    annotator_id: Mapped[int] = mapped_column(
        ForeignKey("annotators.id", ondelete="CASCADE"), index=True
    )
    assignment_id: Mapped[int | None] = mapped_column(
        ForeignKey("assignments.id", ondelete="SET NULL")
    )
    #: "label" (a judgment), "skip" (no judgment, with a reason) or "undo".
    kind: Mapped[str] = mapped_column(String(10), default="label")
    label: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[float | None] = mapped_column(Float)
    post_edit: Mapped[str | None] = mapped_column(Text)
    hter: Mapped[float | None] = mapped_column(Float)
    skip_reason: Mapped[str | None] = mapped_column(Text)
    seconds: Mapped[float | None] = mapped_column(Float)
    #: Error spans of a span-mode judgment (JSON list of {start, end, severity, category,
    #: side}; [] = "no errors"); ``label`` and ``score`` hold the label and MQM score
    #: derived from them (annotation.judging.spans). NULL for judgments without spans.
    spans: Mapped[list[Any] | None] = mapped_column(JSON)
    #: ESA-style 0–100 overall score given with the spans (when the campaign asks for one).
    esa_score: Mapped[float | None] = mapped_column(Float)
    #: DA / SQM slider score 0–100 (SQM point k as 100·k/6); not esa_score (migration 0015)
    da_score: Mapped[float | None] = mapped_column(Float)
    #: Comparative screens: the output's 0-based place on the screen and how many outputs
    #: the screen showed (NULL: judged alone). Position bias is measured from these.
    screen_position: Mapped[int | None] = mapped_column(Integer)
    screen_size: Mapped[int | None] = mapped_column(Integer)
    #: Preference mode (annotation.judging.preference, migration 0018): the pair's other
    #: output (``screen_position``: ``output_id``'s side, 0 left); ``preference`` 1 / ½ / 0
    #: = ``output_id`` preferred / tie / the other; strength, reason; the pair's π.
    pair_output_id: Mapped[int | None] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"))
    preference: Mapped[float | None] = mapped_column(Float)
    strength: Mapped[str | None] = mapped_column(String(10))
    reason: Mapped[str | None] = mapped_column(Text)
    inclusion_prob: Mapped[float | None] = mapped_column(Float)
    #: The annotator's optional free-text comment on the judgment (empty: None)
    comment: Mapped[str | None] = mapped_column(Text)
    supersedes_id: Mapped[int | None] = mapped_column(
        ForeignKey("annotations.id", ondelete="SET NULL"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CampaignImage(Base):
    """An image an item shows (its ``meta["image"]`` names it), stored with the campaign so
    the app serves it itself: nothing is fetched from elsewhere while an item is judged.
    The bytes were checked on import (formats.item_images: PNG, JPEG or WebP by their magic
    bytes, size-limited)."""

    __tablename__ = "campaign_images"
    __table_args__ = (UniqueConstraint("campaign_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(300))
    media_type: Mapped[str] = mapped_column(String(20))
    data: Mapped[bytes] = mapped_column(LargeBinary)


class MetricScore(Base):
    __tablename__ = "metric_scores"
    __table_args__ = (
        UniqueConstraint("output_id", "signature"),
        Index("ix_metric_scores_signature", "signature"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"))
    #: Short name ("bleu", "chrf", "ter", "bertscore_f", …) for display and lookup.
    metric: Mapped[str] = mapped_column(String(50))
    #: Full reproducibility signature (sacrebleu-style ``key:value|…``).
    signature: Mapped[str] = mapped_column(String(500))
    value: Mapped[float | None] = mapped_column(Float)


class MetricBaseline(Base):
    """A campaign's BERTScore rescale baseline (random mismatched pairs), part of signatures."""

    __tablename__ = "metric_baselines"
    __table_args__ = (UniqueConstraint("campaign_id", "model_signature"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    model_signature: Mapped[str] = mapped_column(String(500))
    precision: Mapped[float] = mapped_column(Float)
    recall: Mapped[float] = mapped_column(Float)
    f1: Mapped[float] = mapped_column(Float)
    n_pairs: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Threshold(Base):
    """The binary-metric threshold chosen for one metric signature in one campaign."""

    __tablename__ = "thresholds"
    __table_args__ = (UniqueConstraint("campaign_id", "signature"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    signature: Mapped[str] = mapped_column(String(500))
    threshold: Mapped[float] = mapped_column(Float)
    #: True when higher metric values mean better (BLEU, chrF); False for TER.
    higher_is_better: Mapped[bool] = mapped_column(Boolean, default=True)
    method: Mapped[str] = mapped_column(String(30), default="youden")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CalibrationSet(Base):
    """A ρ/η calibration set: counts of a binary metric's agreement with humans."""

    __tablename__ = "calibration_sets"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    signature: Mapped[str] = mapped_column(String(500))
    threshold: Mapped[float] = mapped_column(Float)
    higher_is_better: Mapped[bool] = mapped_column(Boolean, default=True)
    tp: Mapped[int] = mapped_column(Integer)
    fn: Mapped[int] = mapped_column(Integer)
    tn: Mapped[int] = mapped_column(Integer)
    fp: Mapped[int] = mapped_column(Integer)
    per_system: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    source_campaign_id: Mapped[int | None] = mapped_column(
        ForeignKey("campaigns.id", ondelete="SET NULL")
    )
    #: Campaign that uses this set as its "ρ, η provided" prior (imported sets).
    applied_campaign_id: Mapped[int | None] = mapped_column(
        ForeignKey("campaigns.id", ondelete="CASCADE")
    )
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AttentionCheck(Base):
    """A degraded copy of a real output with the severity its edit implies (MQM-style)."""

    __tablename__ = "attention_checks"
    # a deletion's ON DELETE CASCADE looks checks up by output (migration 0013)
    __table_args__ = (Index("ix_attention_checks_output", "output_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"))
    degraded_text: Mapped[str] = mapped_column(Text)
    #: −1 (minor) or −5 (major).
    severity: Mapped[int] = mapped_column(Integer)
    #: The edits applied, e.g. [{"op": "delete", "span": "…"}].
    operations: Mapped[list[Any]] = mapped_column(JSON, default=list)
    #: The label a careful annotator gives (0 for a major error).
    expected_label: Mapped[int] = mapped_column(Integer)


class CampaignSettingChange(Base):
    """Append-only log of campaign setting changes, with how many labels existed then.

    A setting that shapes the analysis or what annotators see (planned size, live design,
    estimand, sampling, metric visibility, mode, …) may change after labels arrived only
    visibly: the dashboard and exports list every change made after the first label.
    """

    __tablename__ = "campaign_setting_changes"
    __table_args__ = (Index("ix_campaign_setting_changes_campaign", "campaign_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(50))
    #: Old and new values as JSON scalars (None = unset).
    old_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    new_value: Mapped[Any] = mapped_column(JSON, nullable=True)
    #: Current human labels of the campaign when the change was made (0 = before any label).
    labels_before: Mapped[int] = mapped_column(Integer)
    changed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
