"""A campaign's live plan: the planned label count, the live design and the estimand.

The live verdicts are tuned to the plan (t* = the planned labels per system), so it must be
fixed before the data it concerns: settings are written through
:func:`annotation.queue.update_queue_settings`, which logs every change with the number of
labels that existed then; the monitor uses the plan in force at the first label
(:func:`estimators.live_designs.plan_in_force`), and a later change is recorded and shown
but not applied (the Annotators page, the dashboard and ``cli.py plan`` say so).
"""

from __future__ import annotations

from typing import Any

from annotation import queue
from db import Engine
from estimators.live_designs import DEFAULT_DESIGN, PLAN_KEYS, TEST_SET, LivePlan, plan_in_force
from estimators.multiple import pairs
from estimators.planning import human_labels_needed

#: What a NULL plan setting means.
DEFAULTS: dict[str, Any] = {"live_design": DEFAULT_DESIGN, "estimand": TEST_SET}


def forecast_planned_labels(
    n_systems: int, smallest_difference: float, alpha: float = 0.05, power: float = 0.8
) -> int:
    """The planner's forecast of the labels per system a fixed-n paired test needs to find
    a difference of ``smallest_difference`` with probability ``power``, at level α/m (Holm's
    first step over the m pairs of ``n_systems``), human labels only and the largest
    variance binary labels can have (adequacy 0.5):
    :func:`estimators.planning.human_labels_needed` (the Planner page's formula)."""
    if not 0 < smallest_difference < 1:
        raise ValueError(
            f"the smallest difference must lie between 0 and 1 (a share of adequate outputs), "
            f"not {smallest_difference}"
        )
    m = max(len(pairs(max(n_systems, 2))), 1)
    need = human_labels_needed(
        smallest_difference, 0, 1.0, 1.0, 0.5, level=1 - alpha / m, power=power
    )
    return max(int(need or 0), 30)


def current_plan(engine: Engine, campaign_id: int) -> LivePlan:
    """The plan in force, with the changes made after labels existed (not applied)."""
    return plan_in_force(
        queue.queue_settings(engine, campaign_id), queue.setting_changes(engine, campaign_id)
    )


def set_plan(engine: Engine, campaign_id: int, **values: Any) -> LivePlan:
    """Write any of planned_labels / live_design / estimand (logged); returns the plan in
    force afterwards — unchanged when labels already existed (see the module)."""
    unknown = set(values) - set(PLAN_KEYS)
    if unknown:
        raise ValueError(f"not plan settings: {sorted(unknown)}; use {', '.join(PLAN_KEYS)}")
    stored = queue.queue_settings(engine, campaign_id)
    # NULL means the default: writing the default over it is no change (and must not show
    # up as a change made after labels existed)
    values = {
        k: v for k, v in values.items()
        if not (stored[k] is None and v == DEFAULTS.get(k, object()))
    }  # fmt: skip
    if values:
        queue.update_queue_settings(engine, campaign_id, **values)
    return current_plan(engine, campaign_id)
