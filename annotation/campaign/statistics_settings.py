"""A campaign's statistics settings in one place: the error rate α, the family
(family-wise under Holm, or the false discovery rate under e-BH), the equivalence margin ε,
racing, the live design and the estimand, and the plan (the measurable difference, the
power, and the planned labels they imply). The Statistics page, ``cli.py statistics``, the
dashboard's box and every results export read them here; :func:`set_statistics` writes them.

Where they live: α, the family, ε and the planner's inputs in campaigns.meta; the planned
labels, the design and the estimand in its columns (:mod:`annotation.campaign.live_plan`); racing in
meta (:mod:`annotation.queue.racing`); every change goes to the setting log with the label count.
A change of α or the family after labels exist IS applied (the monitor reads every verdict
again at the new level) and shown with :data:`LEVEL_WARNING`; the plan (size, design,
estimand) and ε stay as they were at the first label
(:func:`estimators.sequences.designs.plan_in_force`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.campaign import live_plan
from annotation.queue import admin as queue_admin
from annotation.queue import racing
from db import Engine
from db.campaign import campaigns as dbc
from db.campaign.campaigns import list_campaigns
from db.campaign.lifecycle import CampaignLifeError, archived_reason
from db.queue import claim as dbq
from estimators.sequences.designs import (
    DESIGN_TEXT,
    ESTIMAND_TEXT,
    LEVEL_KEYS,
    META_PLAN_KEYS,
    LateChange,
    plan_in_force,
)

#: The families of errors the pair verdicts control, as users read them.
FAMILIES = {
    "holm": "family-wise error rate (Holm): the chance of any false 'better' claim is at most α",
    "ebh": "false discovery rate (e-BH): the expected share of false 'better' claims is at "
    "most α (needs the betting design; other designs read under Holm)",
}

#: The families in a few words (the dashboard's box, ``statistics show``).
FAMILY_SHORT = {"holm": "Holm, family-wise error rate", "ebh": "e-BH, false discovery rate"}

#: The statement shown (and in docs/statistics-notes.md) when α or the family changed after
#: labels existed.
LEVEL_WARNING = (
    "The error rate α or the family was changed after labels existed. Every verdict is now "
    "read at the new level, from the first label on. Those verdicts are valid only if the "
    "change did not depend on the data seen (not on the dashboard's verdicts, intervals or "
    "estimates): a level picked after looking at the results can turn a chance difference "
    "into a 'significant' one."
)

#: The setting log's keys of these settings.
SETTING_KEYS = ("alpha", "error_rate", "equivalence_margin", "racing", "planned_labels",
                "measurable_difference", "power", "live_design", "estimand")  # fmt: skip

#: The dashboard's short form of :data:`LEVEL_WARNING`.
LEVEL_WARNING_SHORT = (
    "α or the family changed after labels existed: the verdicts are valid only if the change "
    "did not depend on the data seen."
)

#: Where admins change these settings (named on the dashboard and in the CLI).
PANEL = "Statistics page"

#: The settings in words, as the Statistics page's form names them (the Changes table, the
#: dashboard's banner): the setting log's keys are code names.
SETTING_WORDS = {
    "alpha": "error rate α",
    "error_rate": "family of errors",
    "equivalence_margin": "equivalence margin ε",
    "racing": "racing",
    "planned_labels": "planned labels per system",
    "measurable_difference": "measurable difference",
    "power": "power",
    "live_design": "live design",
    "estimand": "estimand",
}

#: What an unset (never saved) setting means, in words, beside live_plan.DEFAULTS.
_UNSET_WORDS = {
    "planned_labels": "each pool's size",
    "measurable_difference": "not set",
    "racing": "off",
}


def setting_words(key: str) -> str:
    """A logged setting's name in words (the key itself when it is not a statistics one)."""
    return SETTING_WORDS.get(key, key)


def value_words(key: str, value: Any) -> str:
    """A logged value in words. The log stores an unset setting as None: it reads as the
    default that was in force then ("0.05 (the default)"), never "None"."""
    if value is None:
        if key in _UNSET_WORDS:
            return _UNSET_WORDS[key]
        if key not in live_plan.DEFAULTS:
            return "not set"
        return f"{value_words(key, live_plan.DEFAULTS[key])} (the default)"
    if key == "error_rate":
        return FAMILY_SHORT.get(str(value), str(value))
    if key == "racing":
        return "on" if value else "off"
    if key == "estimand":
        return ESTIMAND_TEXT.get(str(value), str(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def change_sentence(change: Any) -> str:
    """'equivalence margin ε from 0.05 (the default) to 0.03': one logged change in words
    (an object with key, old_value and new_value)."""
    key = change.key
    return (
        f"{setting_words(key)} from {value_words(key, change.old_value)} to "
        f"{value_words(key, change.new_value)}"
    )


@dataclass(frozen=True)
class StatisticsSettings:
    """The statistics settings in force. ``level_changes``: α / family changes made after
    labels existed (applied, see :data:`LEVEL_WARNING`); ``late``: plan / ε changes made
    after labels existed (recorded, not applied)."""

    alpha: float
    family: str
    equivalence_margin: float
    racing: bool
    planned_labels: int | None
    measurable_difference: float | None
    power: float
    design: str
    estimand: str = "test_set"
    level_changes: tuple[LateChange, ...] = ()
    late: tuple[LateChange, ...] = ()

    def export_columns(self) -> dict[str, Any]:
        """One column per setting, the names every export uses (docs/formats.md)."""
        return {
            "alpha": self.alpha,
            "error_rate": self.family,
            "equivalence_margin": self.equivalence_margin,
            "racing": "on" if self.racing else "off",
            "planned_labels": "" if self.planned_labels is None else self.planned_labels,
            "measurable_difference": (
                "" if self.measurable_difference is None else self.measurable_difference
            ),
            "power": self.power,
            "design": self.design,
            "estimand": self.estimand,
        }

    def lines(self) -> list[str]:
        """The settings in words, one per line (the dashboard's box, ``statistics show``)."""
        planned = "each pool's size" if self.planned_labels is None else f"{self.planned_labels:,}"
        measured = (
            "not set"
            if self.measurable_difference is None
            else f"{self.measurable_difference:g} with power {self.power:g}"
        )
        return [
            f"Error rate α: {self.alpha:g}",
            f"Family: {self.family} — {FAMILY_SHORT.get(self.family, self.family)}",
            f"Equivalence margin ε: {self.equivalence_margin:g}",
            f"Racing: {'on' if self.racing else 'off'}",
            f"Measurable difference: {measured}",
            f"Planned labels per system: {planned}",
            f"Live design: {self.design} — {DESIGN_TEXT.get(self.design, self.design)}",
            f"Estimand: {ESTIMAND_TEXT.get(self.estimand, self.estimand)}",
        ]


#: The settings columns every results export carries, in this order (docs/formats.md).
EXPORT_COLUMNS = ("alpha", "error_rate", "equivalence_margin", "racing", "planned_labels",
                  "measurable_difference", "power", "design", "estimand")  # fmt: skip


def read_at(monitor: Any, settings: StatisticsSettings | None) -> dict[str, Any]:
    """An export's settings columns: α, the family and ε as the verdicts were read (the
    monitor's, so an export's own ``--alpha`` and e-BH read under Holm off the betting
    design show as such), the rest the campaign's; empty when unknown."""
    out = dict.fromkeys(EXPORT_COLUMNS, "") if settings is None else settings.export_columns()
    if monitor is not None:
        out.update(alpha=monitor.alpha, error_rate=str(monitor.error_rate),
                   equivalence_margin=monitor.margin)  # fmt: skip
    return out


def read_at_text(columns: dict[str, Any]) -> str:
    """'alpha=0.05; error_rate=holm; …': the settings columns on one line (LaTeX comments)."""
    return "; ".join(f"{k}={columns.get(k, '')}" for k in EXPORT_COLUMNS)


def read_statistics(engine: Engine, campaign_id: int) -> StatisticsSettings:
    """The campaign's statistics settings in force (what the monitor reads)."""
    values = dict(queue_admin.queue_settings(engine, campaign_id))
    with dbq.queue_transaction(engine) as s:
        meta = dbc.campaign_meta(s, campaign_id)
    values.update({k: meta.get(k) for k in META_PLAN_KEYS})
    changes = queue_admin.setting_changes(engine, campaign_id)
    plan = plan_in_force(values, changes)
    level = tuple(
        LateChange(c.key, c.old_value, c.new_value, c.labels_before)
        for c in changes
        if c.key in LEVEL_KEYS and c.labels_before > 0
    )
    planner, planner_late = _planner_in_force(meta, changes)
    difference = planner["measurable_difference"]
    return StatisticsSettings(
        alpha=plan.alpha,
        family=plan.error_rate,
        equivalence_margin=plan.margin,
        racing=racing.is_on(meta),
        planned_labels=plan.planned_labels,
        measurable_difference=None if difference is None else float(difference),
        power=float(planner["power"] or live_plan.DEFAULT_POWER),
        design=str(plan.design),
        estimand=str(plan.estimand),
        level_changes=level,
        late=plan.late + planner_late,
    )


def _planner_in_force(meta: dict[str, Any], changes: list) -> tuple[dict[str, Any], tuple]:
    """The measurable difference and power behind the planned labels in force: like the
    plan (:func:`estimators.sequences.designs.plan_in_force`), a change made after labels existed
    is taken back (recorded, not applied), so they always match the planned labels."""
    values = {k: meta.get(k) for k in live_plan.PLANNER_KEYS}
    late = []
    for ch in reversed(changes):
        if ch.key in live_plan.PLANNER_KEYS and ch.labels_before > 0:
            values[ch.key] = ch.old_value
            late.append(LateChange(ch.key, ch.old_value, ch.new_value, ch.labels_before))
    return values, tuple(reversed(late))


def set_statistics(
    engine: Engine,
    campaign_id: int,
    *,
    alpha: float | None = None,
    family: str | None = None,
    equivalence_margin: float | None = None,
    racing_on: bool | None = None,
    measurable_difference: float | None = None,
    power: float | None = None,
    planned_labels: int | None = None,
    design: str | None = None,
    estimand: str | None = None,
) -> StatisticsSettings:
    """Write the given settings (None: leave as is), each change logged with the label
    count. Every value is checked before anything is written: a bad one raises ValueError
    (an archived campaign too: :class:`db.campaign.lifecycle.CampaignLifeError`) and changes
    nothing.
    A measurable difference sets the planned labels the planner forecasts for it (at the
    campaign's α and the power); ``planned_labels`` = 0 means each pool's size."""
    if measurable_difference is not None and planned_labels is not None:
        raise ValueError("give the measurable difference or the planned labels, not both")
    if planned_labels is not None and planned_labels < 0:
        raise ValueError(f"the planned labels must be 0 or more, not {planned_labels}")
    values = {"alpha": alpha, "error_rate": family, "equivalence_margin": equivalence_margin,
              "measurable_difference": measurable_difference, "power": power,
              "live_design": design, "estimand": estimand}  # fmt: skip
    values = live_plan.check_values({k: v for k, v in values.items() if v is not None})
    reason = archived_reason(engine, campaign_id)
    if reason is not None:
        raise CampaignLifeError(reason)
    now = read_statistics(engine, campaign_id)
    if measurable_difference is not None:
        values["planned_labels"] = live_plan.campaign_planned_labels(
            engine, campaign_id, _systems(engine, campaign_id), values["measurable_difference"],
            values.get("alpha", now.alpha), values.get("power", now.power),
        )  # fmt: skip
    elif planned_labels is not None:
        values["planned_labels"] = planned_labels or None
        values["measurable_difference"] = None  # a label budget, not the planner's
    if racing_on is not None and racing_on != now.racing:
        racing.set_racing(engine, campaign_id, racing_on)  # refuses before writing
    if values:
        live_plan.set_plan(engine, campaign_id, **values)
    return read_statistics(engine, campaign_id)


def _systems(engine: Engine, campaign_id: int) -> int:
    return next(c.n_systems for c in list_campaigns(engine) if c.id == campaign_id)
