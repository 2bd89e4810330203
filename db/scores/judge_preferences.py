"""A judge's preferences for a preference campaign's (source, pair) instances: stored with the
items, read back as the judge streams of the live verdicts
(:mod:`estimators.preference.judge_live`).

Each item keeps, in ``items.meta["judge"]``, the judge's name and for every pair of systems
it judged on that source the judge's g ∈ [0, 1] for the first system by name (1 preferred,
½ a tie, 0 the second; or its probability). An import replaces the campaign's judge
preferences whole, in one transaction: a file with a problem changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Engine, select
from sqlalchemy.orm.attributes import flag_modified

from db.engine import read_scope, session_scope
from db.schema.models import Item, Output, System

#: The key of the judge's preferences in ``items.meta``.
KEY = "judge"
#: Separates the two system names of a pair in the stored mapping.
SEP = "\t"


@dataclass(frozen=True)
class JudgeRow:
    """One judged instance: the item's external id, the two systems, g for ``system_a``."""

    item: str
    system_a: str
    system_b: str
    g: float


def store_judge_preferences(engine: Engine, campaign_id: int, judge: str,
                            rows: Iterable[JudgeRow]) -> int:  # fmt: skip
    """Replace the campaign's judge preferences with ``rows``; the number stored. A row
    naming an unknown item or system, a system without an output for that item, a system
    compared with itself, a g outside [0, 1] or an instance given twice raises ValueError
    naming it, and nothing is changed."""
    rows = list(rows)
    with session_scope(engine) as s:
        items = {
            i.external_id: i for i in s.scalars(select(Item).where(Item.campaign_id == campaign_id))
        }
        systems = dict(
            s.execute(select(System.name, System.id).where(System.campaign_id == campaign_id)).all()
        )
        has = set(
            s.execute(select(Output.item_id, Output.system_id).join(Item, Item.id == Output.item_id)
                      .where(Item.campaign_id == campaign_id)).all()
        )  # fmt: skip
        pairs: dict[int, dict[str, float]] = {}
        for n, row in enumerate(rows, start=1):
            where = (
                f"judge preference {n} (item {row.item!r}, {row.system_a!r} vs {row.system_b!r})"
            )
            item = items.get(row.item)
            if item is None:
                raise ValueError(f"{where}: no item {row.item!r} in this campaign")
            for name in (row.system_a, row.system_b):
                if name not in systems:
                    raise ValueError(f"{where}: no system {name!r} in this campaign")
                if (item.id, systems[name]) not in has:
                    raise ValueError(f"{where}: {name!r} has no output for this item")
            if row.system_a == row.system_b:
                raise ValueError(f"{where}: a system compared with itself")
            if not 0.0 <= float(row.g) <= 1.0:
                raise ValueError(f"{where}: preference {row.g!r} is not in [0, 1]")
            first, second = sorted((row.system_a, row.system_b))
            g = float(row.g) if first == row.system_a else 1.0 - float(row.g)
            slot = pairs.setdefault(item.id, {})
            key = first + SEP + second
            if key in slot:
                raise ValueError(f"{where}: this instance is given twice")
            slot[key] = g
        for item in items.values():
            meta = dict(item.meta or {})
            if item.id in pairs:
                meta[KEY] = {"name": judge, "pairs": pairs[item.id]}
            elif KEY in meta:
                del meta[KEY]
            else:
                continue
            item.meta = meta
            flag_modified(item, "meta")
    return sum(len(v) for v in pairs.values())


def read_judge_preferences(
    engine: Engine, campaign_id: int, systems: tuple[str, ...]
) -> tuple[str, dict[tuple[int, int, int], float]]:
    """(the judge's name, {(item id, a, b): g}) with a < b indices into ``systems`` (sorted by
    name, as :func:`db.reads.preferences.read_preferences` orders them) and g seen from a;
    ("", {}) when no judge preferences were imported."""
    index = {name: k for k, name in enumerate(systems)}
    name, out = "", {}
    with read_scope(engine) as s:
        metas = s.execute(select(Item.id, Item.meta).where(Item.campaign_id == campaign_id)).all()
    for item_id, meta in metas:
        stored = (meta or {}).get(KEY)
        if not stored:
            continue
        name = stored.get("name") or "judge"
        for key, g in stored.get("pairs", {}).items():
            first, second = key.split(SEP)
            if first in index and second in index:
                a, b = sorted((index[first], index[second]))
                out[(item_id, a, b)] = float(g) if index[first] == a else 1.0 - float(g)
    return name, out


def judge_streams_for(engine: Engine, campaign_id: int, rows):  # type: ignore[no-untyped-def]
    """The :class:`estimators.preference.judge_live.JudgeStreams` of the campaign's
    preference ``rows`` (:class:`db.reads.preferences.PreferenceRows`), None when no judge
    preferences were imported."""
    from estimators.preference.data import Preferences
    from estimators.preference.judge_live import judge_streams

    name, judged = read_judge_preferences(engine, campaign_id, rows.systems)
    if not judged:
        return None
    prefs = Preferences(rows.systems, rows.a, rows.b, rows.outcome, rows.a_on_left, rows.weight)
    return judge_streams(prefs, rows.item, judged, name=name)
