"""A preference campaign's judgments as plain arrays (annotation.judging.preference stores
them): one entry per current preference judgment, its two systems in the canonical order
(system index ``a`` < ``b``, the systems sorted by name), its outcome for ``a`` (1.0 ``a``
preferred, 0.5 a tie, 0.0 ``b`` preferred), whether ``a`` was shown on the left, and the
weight 1/π of the pair's recorded inclusion probability. Attention checks and undone rows
are left out; the order is the log's (arrival).

An adaptive campaign (``campaigns.meta["preference"]["policy"] == "adaptive"``, drawn by
annotation.queue.pair_policy) also carries the floor δ its queue recorded
(``meta["preference"]["floor"]``, lowered to the smallest recorded π should one be below it)
and, per judgment, which systems its source has: what the inverse-probability-weighted
verdicts read (estimators.preference.adaptive)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sqlalchemy import Engine, select
from sqlalchemy.orm import aliased

from db.engine import read_scope
from db.judging.log import LABEL, campaign_log
from db.schema.models import Annotation, Campaign, Item, Output, System
from estimators.preference.data import Preferences


@dataclass(frozen=True)
class PreferenceRows:
    """The arrays, one entry per judgment (``systems`` are the campaign's, by name)."""

    systems: tuple[str, ...]
    a: np.ndarray  # int, index into systems, a < b
    b: np.ndarray
    outcome: np.ndarray  # float: 1.0 a preferred, 0.5 tie, 0.0 b preferred
    a_on_left: np.ndarray  # bool
    weight: np.ndarray  # float: 1 / inclusion probability of the pair
    annotator: np.ndarray  # int: annotator id
    item: np.ndarray  # int: item id
    floor: float | None = None  # adaptive campaigns: the known lower bound of π
    present: np.ndarray | None = None  # adaptive: (n, k) bool, the source's systems

    @property
    def n(self) -> int:
        return len(self.a)


_FIRST, _SECOND = aliased(Output, name="first_output"), aliased(Output, name="second_output")


def read_preferences(engine: Engine, campaign_id: int) -> PreferenceRows:
    """The campaign's current preference judgments (see the module docstring)."""
    with read_scope(engine) as s:
        return preference_rows(s, campaign_id)


def preference_rows(s: Any, campaign_id: int, with_present: bool = True) -> PreferenceRows:
    """:func:`read_preferences` in the caller's session (the queue's draw rounds read it,
    without the sources' systems: ``with_present`` False)."""
    names = s.scalars(
        select(System.name).where(System.campaign_id == campaign_id).order_by(System.name)
    ).all()
    by_id = dict(
        s.execute(select(System.id, System.name).where(System.campaign_id == campaign_id)).all()
    )
    rows = s.execute(
        campaign_log(
            campaign_id,
            _FIRST.system_id,
            _SECOND.system_id,
            Annotation.preference,
            Annotation.screen_position,
            Annotation.inclusion_prob,
            Annotation.annotator_id,
            _FIRST.item_id,
            current_only=True,
        )
        .join(_FIRST, _FIRST.id == Annotation.output_id)
        .join(_SECOND, _SECOND.id == Annotation.pair_output_id)
        .where(Annotation.kind == LABEL, Annotation.preference.is_not(None))
        .order_by(Annotation.id)
    ).all()
    out = _arrays(tuple(names), by_id, rows)
    settings = ((s.get(Campaign, campaign_id).meta or {}).get("preference")) or {}
    if settings.get("policy") != "adaptive" or out.n == 0:
        return out
    present = _present(s, campaign_id, out) if with_present else None
    floor = float(settings.get("floor") or 1.0)
    floor = min(floor, float(np.min(1.0 / out.weight)))
    return replace(out, floor=floor, present=present)


def _present(s: Any, campaign_id: int, out: PreferenceRows) -> np.ndarray:
    """(n, k): whether each judgment's source has an output of each system."""
    index = {name: k for k, name in enumerate(out.systems)}
    col = {i: index[n] for i, n in s.execute(
        select(System.id, System.name).where(System.campaign_id == campaign_id)).all()}  # fmt: skip
    systems: dict[int, list[int]] = {}
    for item, system in s.execute(
        select(Output.item_id, Output.system_id)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == campaign_id)
    ).all():
        systems.setdefault(item, []).append(col[system])
    present = np.zeros((out.n, len(out.systems)), dtype=bool)
    for t, item in enumerate(out.item.tolist()):
        present[t, systems.get(item, [])] = True
    return present


def _arrays(systems: tuple[str, ...], by_id: dict[int, str], rows: list[Any]) -> PreferenceRows:
    index = {name: k for k, name in enumerate(systems)}
    first = np.array([index[by_id[r[0]]] for r in rows], dtype=np.int64)
    second = np.array([index[by_id[r[1]]] for r in rows], dtype=np.int64)
    pref = np.array([float(r[2]) for r in rows], dtype=float)
    first_left = np.array([r[3] == 0 for r in rows], dtype=bool)
    pi = np.array([float(r[4]) if r[4] else 1.0 for r in rows], dtype=float)
    swap = first > second
    return PreferenceRows(
        systems=systems,
        a=np.where(swap, second, first),
        b=np.where(swap, first, second),
        outcome=np.where(swap, 1.0 - pref, pref),
        a_on_left=np.where(swap, ~first_left, first_left),
        weight=1.0 / pi,
        annotator=np.array([r[5] for r in rows], dtype=np.int64),
        item=np.array([r[6] for r in rows], dtype=np.int64),
    )


def preferences_of(rows: PreferenceRows) -> Preferences:
    """The rows as the estimators' :class:`estimators.preference.Preferences`."""
    return Preferences(
        systems=rows.systems, a=rows.a, b=rows.b, outcome=rows.outcome,
        a_on_left=rows.a_on_left, weight=rows.weight, floor=rows.floor, present=rows.present,
    )  # fmt: skip
