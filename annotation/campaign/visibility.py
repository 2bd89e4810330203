"""Whether annotators see metric scores beside each item: a recorded choice of the campaign.

Seeing a metric's score can anchor a human label on it, and the estimators use those very
metrics as control variates: the labels would then no longer be independent evidence about
the outputs. So the choice is made explicitly when a campaign is created (Import page,
``cli.py import --show-metrics/--hide-metrics``), stored in ``Campaign.show_metrics``, and
after the first label it can change only visibly: :func:`set_metric_visibility` refuses an
unconfirmed change once labels exist, and every change goes to the campaign's append-only
setting log (``annotation.queue.admin.update_queue_settings``) with the number of labels then. The
dashboard states it (:func:`visibility_statement`) and the annotations export carries, per
label, whether scores were shown when it was given (:func:`shown_at`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from annotation.queue import admin as queue_admin
from db import Engine
from db.queue import claim as dbq
from db.queue import settings as dbset

#: The trade-off, in one sentence, wherever the choice is offered.
TRADE_OFF = (
    "Showing metric scores beside each item helps annotators spot problems faster, but it "
    "can anchor their labels on the very metrics the estimators use as controls; hiding "
    "them (blind) keeps the human labels independent evidence."
)
KEY = "show_metrics"


class ConfirmationNeeded(ValueError):
    """Labels exist: the change needs the admin's confirmation (it will be recorded)."""


@dataclass(frozen=True)
class VisibilityChange:
    shown: bool
    labels_before: int
    changed_at: datetime


@dataclass(frozen=True)
class MetricVisibility:
    """The current choice and its recorded changes (oldest first)."""

    shown: bool
    changes: tuple[VisibilityChange, ...]

    @property
    def changed_after_labels(self) -> tuple[VisibilityChange, ...]:
        return tuple(c for c in self.changes if c.labels_before > 0)


def _utc(t: datetime) -> datetime:
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t


def metric_visibility(engine: Engine, campaign_id: int) -> MetricVisibility:
    shown = bool(queue_admin.queue_settings(engine, campaign_id)[KEY])
    changes = tuple(
        VisibilityChange(bool(c.new_value), c.labels_before, _utc(c.changed_at))
        for c in queue_admin.setting_changes(engine, campaign_id)
        if c.key == KEY
    )
    return MetricVisibility(shown, changes)


def label_count(engine: Engine, campaign_id: int) -> int:
    """Current human labels of the campaign (imported ones included)."""
    with dbq.queue_transaction(engine) as s:
        return dbset.current_label_count(s, campaign_id)


def set_metric_visibility(
    engine: Engine, campaign_id: int, shown: bool, *, confirmed: bool = False
) -> bool:
    """Show or hide metric scores to annotators; True when the setting changed.

    Before the first label this is a free choice. Once labels exist the change is refused
    (:class:`ConfirmationNeeded`) unless ``confirmed``: it is then logged with the label
    count, and the dashboard and exports show it."""
    current = metric_visibility(engine, campaign_id).shown
    if current == shown:
        return False
    n = label_count(engine, campaign_id)
    if n and not confirmed:
        raise ConfirmationNeeded(
            f"{n:,} labels were given with metric scores "
            f"{'shown' if current else 'hidden'}; changing it now is recorded with that "
            "count and shown on the dashboard and in the exports. Tick the confirmation to "
            "change it."
        )
    queue_admin.update_queue_settings(engine, campaign_id, **{KEY: shown})
    return True


def shown_at(visibility: MetricVisibility, when: datetime | None) -> bool | None:
    """Whether annotators saw metric scores at ``when`` (None for an unknown time)."""
    if when is None:
        return None
    when = _utc(when)
    for change in visibility.changes:
        if change.changed_at > when:  # the first change after it: its old value held then
            return not change.shown
    return visibility.shown


def visibility_statement(visibility: MetricVisibility) -> str:
    """One sentence for the dashboard: what annotators see, and any change after labels."""
    text = (
        "Annotators see metric scores beside each item (labels may lean on the metrics "
        "used as controls)."
        if visibility.shown
        else "Annotators do not see metric scores (blind): the labels are independent of "
        "the metrics used as controls."
    )
    late = visibility.changed_after_labels
    if late:
        text += (
            " Changed after labels arrived: "
            + "; ".join(
                f"{'shown' if c.shown else 'hidden'} from {c.changed_at:%Y-%m-%d %H:%M} UTC, "
                f"after {c.labels_before:,} labels"
                for c in late
            )
            + "."
        )
    return text
