"""A campaign's live plan: the planned label count, the live design and the estimand.

The live verdicts are tuned to the plan (t* = the planned labels per system), so it must be
fixed before the data it concerns: settings are written through
:func:`annotation.queue.admin.update_queue_settings`, which logs every change with the number of
labels that existed then; the monitor uses the plan in force at the first label
(:func:`estimators.sequences.designs.plan_in_force`), and a later change is recorded and shown
but not applied (the Statistics page, the dashboard and ``cli.py plan`` say so) — except
the error rate α and the family, applied with a warning
(:mod:`annotation.campaign.statistics_settings`).
"""

from __future__ import annotations

from typing import Any

from annotation.queue import admin as queue_admin
from db import Engine
from db.campaign import campaigns as dbc
from db.queue import claim as dbq
from db.queue import settings as dbset
from estimators.base.multiple import pairs
from estimators.planning.labels_needed import (
    PERFECT_METRIC,
    human_labels_needed,
    score_labels_needed,
)
from estimators.sequences.designs import (
    DEFAULT_ALPHA,
    DEFAULT_DESIGN,
    DEFAULT_MARGIN,
    ERROR_RATES,
    META_PLAN_KEYS,
    PLAN_KEYS,
    TEST_SET,
    LivePlan,
    plan_in_force,
)

#: The planner's inputs behind planned_labels (campaigns.meta, logged): the measurable
#: difference (the difference in adequacy rates to detect) and the power to detect it.
PLANNER_KEYS = ("measurable_difference", "power")
#: The planner's power when none is set.
DEFAULT_POWER = 0.8

#: What a NULL plan setting means.
DEFAULTS: dict[str, Any] = {
    "live_design": DEFAULT_DESIGN,
    "estimand": TEST_SET,
    "equivalence_margin": DEFAULT_MARGIN,
    "error_rate": "holm",
    "alpha": DEFAULT_ALPHA,
    "power": DEFAULT_POWER,
}


def forecast_planned_labels(
    n_systems: int,
    smallest_difference: float,
    alpha: float = 0.05,
    power: float = 0.8,
    score_sd: float | None = None,
) -> int:
    """The planner's forecast of the labels per system a fixed-n paired test needs to find
    a difference of ``smallest_difference`` with probability ``power``, at level α/m (Holm's
    first step over the m pairs of ``n_systems``), human labels only and the largest
    variance binary labels can have (adequacy 0.5):
    :func:`estimators.planning.labels_needed.human_labels_needed` (the Planner page's formula).
    ``score_sd``: a graded score's standard deviation on the analysed 0–1 scale (ESA, DA):
    the plan uses its variance instead
    (:func:`estimators.planning.labels_needed.score_labels_needed`)."""
    if not 0 < smallest_difference < 1:
        raise ValueError(
            f"the measurable difference must lie between 0 and 1 (a difference in adequacy "
            f"rates), not {smallest_difference}"
        )
    if not 0.5 <= power < 1:
        raise ValueError(f"the power must lie in [0.5, 1), not {power}")
    m = max(len(pairs(max(n_systems, 2))), 1)
    if score_sd is not None:
        need = score_labels_needed(smallest_difference, score_sd**2, 1 - alpha / m, power)
        return max(need, 30)
    need = human_labels_needed(
        smallest_difference, 0, PERFECT_METRIC, 0.5, level=1 - alpha / m, power=power
    )
    return max(int(need or 0), 30)


def campaign_planned_labels(engine: Engine, campaign_id: int, n_systems: int,
                            smallest_difference: float, alpha: float = DEFAULT_ALPHA,
                            power: float = 0.8) -> int:  # fmt: skip
    """:func:`forecast_planned_labels` for this campaign: when it judges documents in order,
    the labels of the complete documents that give the same precision (the design effect
    from the campaign's intra-document correlation, as ``cli.py plan`` stores it)."""
    from db.reads.campaign import read_campaign
    from estimators.planning.documents import document_plan

    labels = forecast_planned_labels(n_systems, smallest_difference, alpha, power)
    docs = document_plan(read_campaign(engine, campaign_id))
    return labels if docs is None else docs.labels_in(docs.documents_for(labels))


def current_plan(engine: Engine, campaign_id: int) -> LivePlan:
    """The plan in force, with the changes made after labels existed (not applied)."""
    values = dict(queue_admin.queue_settings(engine, campaign_id))
    with dbq.queue_transaction(engine) as s:
        meta = dbc.campaign_meta(s, campaign_id)
    values.update({k: meta.get(k) for k in META_PLAN_KEYS})
    return plan_in_force(values, queue_admin.setting_changes(engine, campaign_id))


#: Plan numbers kept in meta → (what it is called, its range as text, the test).
_RANGES: dict[str, tuple[str, str, Any]] = {
    "equivalence_margin": ("the equivalence margin (ε)", "(0, 1]", lambda x: 0 < x <= 1),
    "alpha": ("the error rate α", "(0, 0.5]", lambda x: 0 < x <= 0.5),
    "measurable_difference": ("the measurable difference", "(0, 1)", lambda x: 0 < x < 1),
    "power": ("the power", "[0.5, 1)", lambda x: 0.5 <= x < 1),
}


def check_values(values: dict[str, Any]) -> dict[str, Any]:
    """The equivalence margin ε a number in (0, 1], the error rate α in (0, 0.5], the
    measurable difference in (0, 1), the power in [0.5, 1), the family holm / ebh; a clear
    error otherwise (None: unset, allowed)."""
    out = dict(values)
    for key, (name, text, ok) in _RANGES.items():
        if out.get(key) is None:
            continue
        try:
            x = float(out[key])
        except (TypeError, ValueError):
            x = float("nan")
        if not ok(x):  # NaN fails every test
            raise ValueError(f"{name} must be a number in {text}, not {out[key]!r}")
        out[key] = x
    rate = out.get("error_rate")
    if rate is not None and rate not in ERROR_RATES:
        raise ValueError(
            f"the family: error_rate must be one of {', '.join(ERROR_RATES)}, not {rate!r}"
        )
    return out


def _set_meta(engine: Engine, campaign_id: int, values: dict[str, Any]) -> None:
    """Write ε, the family, α and the planner's inputs into campaigns.meta and log each
    change with the label count."""
    with dbq.queue_transaction(engine) as s:
        dbset.campaign_for_update(s, campaign_id)
        meta = dbc.campaign_meta(s, campaign_id)
        changed = {k: (meta.get(k), v) for k, v in values.items() if meta.get(k) != v}
        if not changed:
            return
        dbset.log_setting_changes(s, campaign_id, changed)
        for k, (_, v) in changed.items():
            dbc.set_campaign_meta_key(s, campaign_id, k, v)


def set_plan(engine: Engine, campaign_id: int, **values: Any) -> LivePlan:
    """Write any of planned_labels / live_design / estimand / equivalence_margin (ε) /
    error_rate / alpha / measurable_difference / power (logged); returns the plan in force
    afterwards — the plan and ε unchanged when labels already existed (see the module)."""
    known = (*PLAN_KEYS, *META_PLAN_KEYS, *PLANNER_KEYS)
    unknown = set(values) - set(known)
    if unknown:
        raise ValueError(f"not plan settings: {sorted(unknown)}; use {', '.join(known)}")
    values = check_values(values)
    stored = queue_admin.queue_settings(engine, campaign_id)
    with dbq.queue_transaction(engine) as s:
        stored = {**stored, **dbc.campaign_meta(s, campaign_id)}
    # NULL means the default: writing the default over it is no change (and must not show
    # up as a change made after labels existed)
    values = {
        k: v for k, v in values.items()
        if not (stored.get(k) is None and v == DEFAULTS.get(k, object()))
    }  # fmt: skip
    columns = {k: v for k, v in values.items() if k in PLAN_KEYS}
    if columns:
        queue_admin.update_queue_settings(engine, campaign_id, **columns)
    meta = {k: v for k, v in values.items() if k in (*META_PLAN_KEYS, *PLANNER_KEYS)}
    if meta:
        _set_meta(engine, campaign_id, meta)
    return current_plan(engine, campaign_id)
